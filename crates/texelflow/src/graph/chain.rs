//! Tiles through a change of geometry (issue 20): a pipeline with stages that resize, crop, pad,
//! flip, turn or warp the image runs in tiles and bands too. Its stages fall into segments: runs of stages
//! that keep the size (a halo and a grid, as `tile::graph_halo` finds them) and single stages
//! that map pixels through a coordinate transform (`Filter::window_input`, `Filter::windowed`).
//! For a tile's output rectangle the segments are walked backwards, each giving the part of its
//! input that the part after it needs; then forwards, each geometry stage replaced by instances
//! that make exactly their part from the part before them (a resize told the whole image's
//! sizes and where its parts lie). Every pixel of the tile's core is computed from the same
//! inputs by the same operations as in the whole run: the result is bit-identical.

use std::ops::Range;

use super::pipeline::Stage;
use super::Pipeline;
use crate::error::{Error, Result};
use crate::image::ImageDesc;
use crate::region::PixelWindow;
use crate::region::Rect;

/// A stretch of the pipeline that tiles one way.
#[derive(Clone, Debug)]
enum Segment {
    /// Stages that keep the size and read at most `halo` pixels away, on a grid of `align`: a
    /// part of their `size` input runs through them as it is, exact `halo` inside its edges.
    Same {
        stages: Range<usize>,
        size: (u32, u32),
        halo: u32,
        align: u32,
        bytes: PartBytes,
    },
    /// One stage that moves or resamples pixels: windowed per tile; it makes an `output`-sized image.
    Geometry {
        stage: usize,
        input: ImageDesc,
        output: (u32, u32),
        bytes: PartBytes,
    },
}

/// GPU bytes per pixel of a segment's input part: of its widest value (one binding holds it)
/// and of all its values together (the memory budget).
#[derive(Clone, Copy, Debug)]
struct PartBytes {
    widest: u64,
    all: u64,
}

/// How a pipeline tiles through its geometry (`Pipeline::tile_chain`).
#[derive(Clone, Debug)]
pub(crate) struct TileChain {
    segments: Vec<Segment>,
    /// The whole output's description.
    pub output: ImageDesc,
}

/// A stage of one tile's run: the pipeline's own, or one made for the tile.
pub(super) enum TileStage<'p> {
    Shared(&'p Stage),
    Own(Stage),
}

impl TileStage<'_> {
    pub(super) fn get(&self) -> &Stage {
        match self {
            TileStage::Shared(s) => s,
            TileStage::Own(s) => s,
        }
    }
}

/// One tile: the input part it reads, its stages and the output part they make (which covers
/// the tile's core), and for each stage where its part lies in its whole input (per-pixel
/// filters that read their position see the whole image's coordinates there).
pub(super) struct ChainTile<'p> {
    pub input: Rect,
    pub stages: Vec<TileStage<'p>>,
    pub windows: Vec<Option<PixelWindow>>,
    pub made: Rect,
}

impl Pipeline {
    /// How this pipeline tiles an input of `desc` through its geometry, `Ok(Err(why))` where it
    /// cannot: a stage that reads the whole image, makes data, changes the size in a way that is
    /// not windowed (`Filter::window_input`), or reads positions after a change of geometry.
    pub(crate) fn tile_chain(
        &self,
        desc: ImageDesc,
    ) -> Result<std::result::Result<TileChain, String>> {
        let mut segments = Vec::new();
        let mut d = desc;
        // the start of the current run of stages that keep the size, and its input
        let mut run: Option<(usize, ImageDesc)> = None;
        for (i, stage) in self.stages.iter().enumerate() {
            let (g, _) = self.graph_of(std::iter::once(stage), d, &[])?;
            let halo = super::tile::graph_halo(&g);
            // a stage that ends in data: not an image to go on with
            let Ok(out) = super::bands::graph_output_image(&g) else {
                return Ok(Err(halo.err().unwrap_or_else(|| "it ends in data".into())));
            };
            match halo {
                Ok(_) => {
                    run.get_or_insert((i, d));
                }
                Err(why) => {
                    if !stage.extra.is_empty()
                        || stage
                            .filter
                            .window_input(d, Rect::whole(out.width, out.height))
                            .is_none()
                    {
                        return Ok(Err(why));
                    }
                    if let Some((start, sd)) = run.take() {
                        match self.same_segment(start..i, sd)? {
                            Ok(s) => segments.push(s),
                            Err(why) => return Ok(Err(why)),
                        }
                    }
                    segments.push(Segment::Geometry {
                        stage: i,
                        input: d,
                        output: (out.width, out.height),
                        bytes: part_bytes(&g, d.pixels().max(out.pixels())),
                    });
                }
            }
            d = out;
        }
        if let Some((start, sd)) = run.take() {
            match self.same_segment(start..self.stages.len(), sd)? {
                Ok(s) => segments.push(s),
                Err(why) => return Ok(Err(why)),
            }
        }
        Ok(Ok(TileChain {
            segments,
            output: d,
        }))
    }

    /// The segment of `stages`, which keep the size, or why they cannot run in its tiles.
    fn same_segment(
        &self,
        stages: Range<usize>,
        d: ImageDesc,
    ) -> Result<std::result::Result<Segment, String>> {
        let (g, _) = self.graph_of(self.stages[stages.clone()].iter(), d, &[])?;
        let (halo, align) = match super::tile::graph_halo(&g) {
            Ok(t) => t,
            Err(why) => return Ok(Err(why)),
        };
        for s in &self.stages[stages.clone()] {
            if s.extra
                .iter()
                .any(|e| (e.width(), e.height()) != (d.width, d.height))
            {
                return Err(Error::invalid(format!("`{}`'s second image is not {}x{}: only images of the size at that stage run in tiles", s.filter.def().name, d.width, d.height)));
            }
        }
        Ok(Ok(Segment::Same {
            stages,
            size: (d.width, d.height),
            halo,
            align,
            bytes: part_bytes(&g, d.pixels()),
        }))
    }
}

fn part_bytes(g: &super::Graph, pixels: usize) -> PartBytes {
    PartBytes {
        widest: super::tile::widest_bytes_per_pixel(g),
        all: super::execute::graph_gpu_bytes(g)
            .div_ceil(pixels.max(1) as u64)
            .max(1),
    }
}

impl TileChain {
    /// Whether any stage changes the geometry (otherwise the plain halo tiling does the job).
    pub(crate) fn has_geometry(&self) -> bool {
        self.segments
            .iter()
            .any(|s| matches!(s, Segment::Geometry { .. }))
    }

    /// For output part `core`: the input part each segment needs, first to last, and the
    /// output part each must make.
    fn parts(&self, p: &Pipeline, core: Rect) -> Result<(Vec<Rect>, Vec<Rect>)> {
        let n = self.segments.len();
        let (mut ins, mut outs) = (vec![Rect::default(); n], vec![Rect::default(); n]);
        let mut need = core;
        for (k, seg) in self.segments.iter().enumerate().rev() {
            outs[k] = need;
            need = match seg {
                Segment::Same {
                    size, halo, align, ..
                } => {
                    let (halo, align) = (*halo as i64, (*align).max(1) as i64);
                    let (x0, y0) = (
                        (need.x as i64 - halo).max(0) / align * align,
                        (need.y as i64 - halo).max(0) / align * align,
                    );
                    Rect::span(
                        x0,
                        y0,
                        need.right() as i64 + halo,
                        need.bottom() as i64 + halo,
                        *size,
                    )
                }
                Segment::Geometry { stage, input, .. } => {
                    let f = &p.stages[*stage].filter;
                    f.window_input(*input, need).ok_or_else(|| {
                        Error::invalid(format!(
                            "`{}` has no input for its part {}x{} at ({}, {})",
                            f.def().name,
                            need.w,
                            need.h,
                            need.x,
                            need.y
                        ))
                    })?
                }
            };
            ins[k] = need;
        }
        Ok((ins, outs))
    }

    /// The input part output part `core` reads.
    pub(crate) fn input_part(&self, p: &Pipeline, core: Rect) -> Result<Rect> {
        Ok(self.parts(p, core)?.0.first().copied().unwrap_or(core))
    }

    /// The run that makes output part `core`.
    pub(super) fn tile<'p>(&self, p: &'p Pipeline, core: Rect) -> Result<ChainTile<'p>> {
        let (ins, outs) = self.parts(p, core)?;
        let input = ins.first().copied().unwrap_or(core);
        let mut have = input;
        let (mut stages, mut windows) = (Vec::new(), Vec::new());
        let window = |part: Rect, (width, height): (u32, u32)| {
            Some(PixelWindow {
                x0: part.x,
                y0: part.y,
                width,
                height,
            })
        };
        for (k, seg) in self.segments.iter().enumerate() {
            match seg {
                Segment::Same {
                    stages: range,
                    size,
                    ..
                } => {
                    for s in &p.stages[range.clone()] {
                        windows.push(window(have, *size));
                        if s.extra.is_empty() {
                            stages.push(TileStage::Shared(s));
                        } else {
                            // second images of this segment's size, cut to the part
                            let extra = s
                                .extra
                                .iter()
                                .map(|e| super::tile::crop_image(e, have.x, have.y, have.w, have.h))
                                .collect::<Result<Vec<_>>>()?;
                            stages.push(TileStage::Own(Stage {
                                filter: s.filter.clone(),
                                extra,
                                fit: s.fit,
                            }));
                        }
                    }
                }
                Segment::Geometry {
                    stage,
                    input: d,
                    output,
                    ..
                } => {
                    // the windowed filters read no positions; their nodes take the output part's
                    // window, so that the per-pixel ones after them (premultiplied alpha
                    // undone) may fuse with the next segment's
                    for filter in p.stages[*stage].filter.windowed(*d, have, outs[k])? {
                        stages.push(TileStage::Own(Stage {
                            filter,
                            extra: Vec::new(),
                            fit: super::fit::Fit::None,
                        }));
                        windows.push(window(outs[k], *output));
                    }
                    have = outs[k];
                }
            }
        }
        Ok(ChainTile {
            input,
            stages,
            windows,
            made: have,
        })
    }

    /// GPU bytes of output part `core`'s run: its widest value, and all its values.
    pub(crate) fn tile_bytes(&self, p: &Pipeline, core: Rect) -> Result<(u64, u64)> {
        let (ins, outs) = self.parts(p, core)?;
        let (mut widest, mut all) = (0u64, 0u64);
        for (k, seg) in self.segments.iter().enumerate() {
            let (b, px) = match seg {
                Segment::Same { bytes, .. } => (bytes, ins[k].w as u64 * ins[k].h as u64),
                Segment::Geometry { bytes, .. } => (
                    bytes,
                    (ins[k].w as u64 * ins[k].h as u64).max(outs[k].w as u64 * outs[k].h as u64),
                ),
            };
            widest = widest.max(px * b.widest);
            all += px * b.all;
        }
        Ok((widest, all))
    }

    /// The core (width, height) of tiles whose widest value fits `binding` (with a quarter
    /// spare for row padding) and whose values, `in_flight` tiles of them, fit `budget`: as
    /// wide as the output, down to 64 x 16. `rows` caps the height (a band).
    pub(crate) fn tile_size(
        &self,
        p: &Pipeline,
        binding: u64,
        budget: Option<u64>,
        in_flight: usize,
        rows: u32,
    ) -> Result<(u32, u32)> {
        let (ow, oh) = (self.output.width.max(1), self.output.height.max(1));
        let (mut tw, mut th) = (ow, rows.clamp(1, oh));
        let fits = |tw: u32, th: u32| -> Result<bool> {
            // parts in the middle of the image, where no edge clamps them, are the largest
            let at = |x: u32, y: u32| Rect::new(x.min(ow - tw), y.min(oh - th), tw, th);
            let mut ok = true;
            for core in [at(0, 0), at((ow - tw) / 2, (oh - th) / 2)] {
                let (widest, all) = self.tile_bytes(p, core)?;
                ok &= widest <= binding / 4 * 3
                    && budget.is_none_or(|b| all * in_flight.max(1) as u64 <= b);
            }
            Ok(ok)
        };
        while !fits(tw, th)? {
            if tw <= 64 && th <= 16 {
                return Err(Error::invalid(format!("even a {tw}x{th} tile of this pipeline does not fit the GPU's binding or memory budget")));
            }
            if tw > 64 && (tw >= th || th <= 16) {
                tw = tw.div_ceil(2).max(64.min(ow));
            } else {
                th = th.div_ceil(2).max(16.min(oh));
            }
        }
        Ok((tw, th))
    }
}
