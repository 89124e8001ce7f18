//! Images larger than the GPU takes in one binding, in tiles with halos. A pipeline whose every
//! output pixel reads input pixels at most `r` away (the composed footprints of its nodes,
//! `registry::Footprint`) runs on overlapping tiles: each tile's core plus `r` pixels of halo
//! on every side that has image there (clamped at the image's edges, so border handling at
//! the true edges is the untiled one), and only the core of each result is kept. Every core
//! pixel then saw exactly what it sees untiled: the result is bit-identical. Tiles run several
//! at a time (upload, kernels and read-back of different tiles overlap).
//!
//! A pipeline ending in a reduction whose partial results merge exactly (histograms,
//! statistics, means) runs its image part so and reduces each tile's core: `partials.rs`.
//!
//! A pipeline that resizes, crops, flips, turns or warps the image tiles through that change of
//! geometry: `chain.rs`.
//!
//! Per-pixel filters that read their position (vignette, haze, the masks and generators) see
//! the whole image's coordinates in a tile: its graph's nodes carry the tile's `PixelWindow`
//! (through a change of geometry, each stage its part's in the image at that stage).
//!
//! Not tiled (a clear error instead): graphs with other reductions or whole-image reads (the
//! distortions among them), composites that resize inside (`ios_blur`), and temporal state.

use super::filter::Footprint;
use super::host::{HostImage, HostValue, WriteOnly};
use super::{stream, Backend, Graph, NodeKind, Pipeline, RunOptions};
use crate::error::{Error, Result};
use crate::image::{Image, ImageDesc};
use crate::limits::Limits;
use crate::region::PixelWindow;
use crate::value::{Value, ValueDesc};

/// The halo a tile of `graph` needs and the grid tiles start on: `Ok((r, a))` when every
/// output is an image of the sources' size whose pixels read the sources at most `r` pixels
/// away, with nothing depending on absolute position (but a node's grid, `a`); otherwise why
/// not, for the error.
pub(crate) fn graph_halo(graph: &Graph) -> std::result::Result<(u32, u32), String> {
    let mut align: u64 = 1;
    let size = graph
        .sources()
        .next()
        .and_then(|(_, i)| graph.nodes[i].outputs[0].image())
        .map(|d| (d.width, d.height))
        .ok_or("no image source")?;
    let mut fp: Vec<Footprint> = Vec::with_capacity(graph.nodes.len());
    for n in &graph.nodes {
        for d in &n.outputs {
            match d {
                ValueDesc::Image(d) if (d.width, d.height) == size => {}
                ValueDesc::Image(d) => return Err(format!("`{}` makes a {}x{} image of a {}x{} one (a change of size)", n.label, d.width, d.height, size.0, size.1)),
                ValueDesc::Data(k) => return Err(format!("`{}` makes {} data, a reduction over the whole image (`run_tiled_data` takes a pipeline that ends in one whose partials merge)", n.label, k.name())),
            }
        }
        let f = match &n.kind {
            NodeKind::Source { .. } => Footprint::Pixel,
            NodeKind::State => return Err("it carries state from frame to frame".into()),
            NodeKind::Filter(f) => {
                // per-pixel filters that read their position see the whole image's in a tile
                // (`PixelWindow`); other filters that depend on it do not tile
                if f.depends_on_position() {
                    return Err(format!(
                        "`{}` depends on where a pixel is in the image",
                        n.label
                    ));
                }
                let a = f.tile_alignment().max(1) as u64;
                align = align / gcd(align, a) * a;
                if align > 4096 {
                    return Err(
                        "its nodes compute on grids with no common spacing up to 4096".into(),
                    );
                }
                let descs: Vec<ValueDesc> = n.inputs.iter().map(|p| graph.desc(*p)).collect();
                let own = f.footprint(&descs);
                n.inputs
                    .iter()
                    .map(|p| own.after(fp[p.node]))
                    .reduce(Footprint::union)
                    .unwrap_or(own)
            }
        };
        fp.push(f);
    }
    let mut halo = 0;
    for (_, p) in &graph.outputs {
        match fp[p.node] {
            Footprint::Pixel => {}
            Footprint::Radius(r) => halo = halo.max(r),
            Footprint::Resample { .. } => {
                return Err(format!(
                    "`{}` resamples the image",
                    graph.nodes[p.node].label
                ))
            }
            Footprint::WholeImage => {
                return Err(format!(
                    "`{}` reads the whole image",
                    graph.nodes[p.node].label
                ))
            }
        }
    }
    Ok((halo, align as u32))
}

/// The tile side for `graph` on `gpu`: `None` when every value fits one storage binding (no
/// tiling) or the graph cannot run in tiles (the untiled run then reports the limit);
/// `policy.tile` forces its side where the graph can.
pub(crate) fn tile_side(
    gpu: &crate::runtime::Gpu,
    graph: &Graph,
    policy: &super::TilePolicy,
) -> Option<u32> {
    tile_side_with(gpu, graph, policy, || graph_halo(graph))
}

/// `tile_side` with the halo and grid from `halo` (a reduction's tiles: `partials.rs`).
pub(crate) fn tile_side_with(
    gpu: &crate::runtime::Gpu,
    graph: &Graph,
    policy: &super::TilePolicy,
    halo: impl FnOnce() -> std::result::Result<(u32, u32), String>,
) -> Option<u32> {
    let forced = forced_tile(policy);
    let limit = gpu.max_binding();
    let total = super::execute::graph_gpu_bytes(graph);
    if graph_fits(gpu, graph, policy) && forced.is_none() {
        return None;
    }
    let (halo, align) = halo().ok()?;
    if let Some(t) = forced {
        return Some(t);
    }
    // the widest value's bytes per pixel sizes the tile: (side + 2 halo + align)^2 of them
    // must fit a binding, with a quarter spare for row padding
    let per_pixel = widest_bytes_per_pixel(graph);
    let mut side = (((limit / 4 * 3) / per_pixel) as f64).sqrt() as u32;
    if let Some(budget) = policy.max_gpu_memory {
        // every value's bytes per source pixel, for the 3 tiles in flight
        let source_pixels = graph
            .sources()
            .filter_map(|(_, i)| graph.nodes[i].outputs[0].image())
            .map(|d| d.pixels() as u64)
            .max()
            .unwrap_or(1)
            .max(1);
        let all_per_pixel = total.div_ceil(source_pixels).max(1);
        side = side.min(((budget / 3 / all_per_pixel) as f64).sqrt() as u32);
    }
    let core = side.saturating_sub(2 * halo + align).min(8192);
    (core >= 64).then_some(core)
}

/// Whether every value of `graph` fits one storage binding of `gpu` and all of them its memory
/// budget (no tiling needed).
pub(crate) fn graph_fits(
    gpu: &crate::runtime::Gpu,
    graph: &Graph,
    policy: &super::TilePolicy,
) -> bool {
    let limit = gpu.max_binding();
    graph
        .nodes
        .iter()
        .flat_map(|n| n.outputs.iter())
        .all(|d| d.gpu_bytes() <= limit)
        && policy
            .max_gpu_memory
            .is_none_or(|b| super::execute::graph_gpu_bytes(graph) <= b)
}

/// The tile side the policy asks for (`TilePolicy::tile`).
pub(crate) fn forced_tile(policy: &super::TilePolicy) -> Option<u32> {
    policy.tile.filter(|&t| t > 0)
}

/// The bytes a pixel of the graph's widest image value takes on the GPU (at least 1).
pub(crate) fn widest_bytes_per_pixel(graph: &Graph) -> u64 {
    graph
        .nodes
        .iter()
        .flat_map(|n| n.outputs.iter())
        .filter_map(|d| {
            d.image()
                .map(|i| d.gpu_bytes().div_ceil(i.pixels().max(1) as u64))
        })
        .max()
        .unwrap_or(4)
        .max(1)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// The part of `img` at (x, y) of size w x h.
pub fn crop_image(img: &Image, x: u32, y: u32, w: u32, h: u32) -> Result<Image> {
    let (iw, ih) = (img.width(), img.height());
    if x + w > iw || y + h > ih {
        return Err(Error::invalid(format!(
            "region {w}x{h} at ({x}, {y}) is outside the {iw}x{ih} image"
        )));
    }
    RowsRef::of(img).crop(x, y, w, h)
}

/// Where tiled runs' time went, summed over their tiles (milliseconds; tiles run several at a
/// time, so the sums exceed the wall time).
#[derive(Clone, Copy, Debug, Default)]
pub struct TileTimes {
    /// Tiles run.
    pub tiles: u64,
    /// Writing tiles into staging memory.
    pub upload_ms: f64,
    /// Building, recording and submitting each tile's run.
    pub record_ms: f64,
    /// Waiting for the GPU.
    pub wait_ms: f64,
    /// Mapping the results.
    pub readback_ms: f64,
    /// Copying each result's core into the output.
    pub paste_ms: f64,
}

impl TileTimes {
    fn add(&mut self, h: &super::HostTimes) {
        self.upload_ms += h.upload_ms;
        self.record_ms += h.record_ms;
        self.wait_ms += h.wait_ms;
        self.readback_ms += h.readback_ms;
    }
    pub(crate) fn merge(&mut self, o: &TileTimes) {
        self.tiles += o.tiles;
        self.upload_ms += o.upload_ms;
        self.record_ms += o.record_ms;
        self.wait_ms += o.wait_ms;
        self.readback_ms += o.readback_ms;
        self.paste_ms += o.paste_ms;
    }
}

/// A tile's result: in mapped read-back memory (GPU), or an image (CPU).
enum Tile {
    Mapped(super::MappedImage),
    Owned(Image),
}

/// Rows `y0..` of an image `width` pixels wide in `format`, as packed sample bytes
/// (`rows::image_bytes`: RGBA16 as native `u16`, which on the little-endian machines
/// `TileView` is used on is the GPU's layout too). A whole image is the rows from 0; a band
/// streamed through `run_streamed` starts lower.
#[derive(Clone, Copy)]
pub(crate) struct RowsRef<'a> {
    pub bytes: &'a [u8],
    pub width: u32,
    pub format: crate::PixelFormat,
    pub y0: u32,
}

impl<'a> RowsRef<'a> {
    pub(crate) fn of(img: &'a Image) -> Self {
        Self {
            bytes: crate::image::image_bytes(img),
            width: img.width(),
            format: img.format(),
            y0: 0,
        }
    }
    /// Byte offset of pixel (x, y) (y in the whole image's rows).
    fn at(&self, x: u32, y: u32) -> usize {
        ((y - self.y0) as usize * self.width as usize + x as usize)
            * crate::image::sample_bytes_per_pixel(self.format)
    }
    /// The w x h part at (x, y) as an image of its own.
    fn crop(&self, x: u32, y: u32, w: u32, h: u32) -> Result<Image> {
        let bpp = crate::image::sample_bytes_per_pixel(self.format);
        let mut bytes = Vec::with_capacity(w as usize * h as usize * bpp);
        for r in y..y + h {
            let s = self.at(x, r);
            bytes.extend_from_slice(
                self.bytes
                    .get(s..s + w as usize * bpp)
                    .ok_or_else(|| Error::internal("a tile reaches outside the rows at hand"))?,
            );
        }
        crate::image::image_from_bytes(w, h, self.format, &bytes)
    }
}

/// A rectangle of an image, written straight into the GPU's staging memory row by row, so a
/// tile costs one host copy of its pixels on the way in, as the whole image does.
struct TileView<'a> {
    src: RowsRef<'a>,
    x: u32,
    y: u32,
    w: u32,
    h: u32,
}

impl HostImage for TileView<'_> {
    fn desc(&self) -> ImageDesc {
        ImageDesc::new(self.w, self.h, self.src.format)
    }
    fn write_gpu_rows(&self, first_row: u32, mut dst: WriteOnly<'_, [u8]>) {
        let row_bytes = self.src.format.gpu_row_bytes(self.w) as usize;
        let len = self.w as usize * crate::image::sample_bytes_per_pixel(self.src.format);
        let mut r = first_row;
        while dst.len() >= row_bytes && row_bytes > 0 {
            let (this, rest) = dst.split_at(row_bytes);
            let (mut head, mut pad) = this.split_at(len);
            let s = self.src.at(self.x, self.y + r);
            head.copy_from_slice(&self.src.bytes[s..s + len]);
            pad.fill(0);
            dst = rest;
            r += 1;
        }
    }
    fn to_image(&self) -> Result<Image> {
        self.src.crop(self.x, self.y, self.w, self.h)
    }
}

/// The w x h rectangle of `img` at (x, y) as a source that writes itself into staging memory.
pub(super) fn tile_view(img: &Image, x: u32, y: u32, w: u32, h: u32) -> impl HostImage + '_ {
    TileView {
        src: RowsRef::of(img),
        x,
        y,
        w,
        h,
    }
}

/// How a pipeline's tiles are cut: with a halo around each core, where every stage keeps the
/// size, or through the stages' geometry (`chain.rs`).
#[derive(Clone, Debug)]
pub(crate) enum Tiling {
    /// The halo and the grid tiles start on (`graph_halo`).
    Halo(u32, u32),
    Chain(super::chain::TileChain),
}

impl Tiling {
    /// The input rows (of `in_h`) that output rows `rows` of the whole width (`out_w`) read.
    pub(crate) fn input_rows(
        &self,
        p: &Pipeline,
        in_h: u32,
        out_w: u32,
        rows: (u32, u32),
    ) -> Result<(u32, u32)> {
        Ok(match self {
            Tiling::Halo(halo, align) => (
                rows.0.saturating_sub(*halo) / align * align,
                (rows.1 + halo).min(in_h),
            ),
            Tiling::Chain(chain) => {
                let part = chain.input_part(
                    p,
                    crate::region::Rect::new(0, rows.0, out_w, rows.1 - rows.0),
                )?;
                (part.y, part.bottom())
            }
        })
    }
}

impl Pipeline {
    /// The halo tiles of `input` need for this pipeline (and the grid their corners keep), or
    /// why it cannot run in tiles with a halo alone.
    pub fn tile_halo(&self, input: &Image) -> Result<(u32, u32)> {
        let (g, _) = self.graph(input)?;
        graph_halo(&g).map_err(|why| {
            Error::Graph(crate::GraphError::NotTileable {
                why: why.to_string(),
            })
        })
    }

    /// How tiles of an input of `desc` are cut: with a halo, or through the stages' geometry.
    pub(crate) fn tiling(&self, desc: ImageDesc, limits: &Limits) -> Result<Tiling> {
        let (g, _) = self.graph_for(desc)?;
        super::check::check_graph_pixels(&g, limits)?;
        let why = match graph_halo(&g) {
            Ok((halo, align)) => return Ok(Tiling::Halo(halo, align)),
            Err(why) => why,
        };
        match self.tile_chain(desc)? {
            Ok(chain) if chain.has_geometry() => Ok(Tiling::Chain(chain)),
            // nothing changes the geometry: the whole graph's reason
            Ok(_) => Err(Error::Graph(crate::GraphError::NotTileable {
                why: why.to_string(),
            })),
            Err(stage_why) => Err(Error::Graph(crate::GraphError::NotTileable {
                why: stage_why.to_string(),
            })),
        }
    }

    /// Runs on tiles of at most `tile` x `tile` output pixels (each with its halo), `in_flight`
    /// at a time, and assembles the image: bit-identical to `run` where that fits the device.
    /// Second images (a blend's `with=`) of the input's size are tiled alike.
    pub fn run_tiled(
        &self,
        backend: &Backend,
        input: &Image,
        tile: u32,
        in_flight: usize,
    ) -> Result<Image> {
        self.run_tiled_timed(backend, input, tile, in_flight)
            .map(|(img, _)| img)
    }

    /// `run_tiled`, with where the time went (summed over tiles).
    pub fn run_tiled_timed(
        &self,
        backend: &Backend,
        input: &Image,
        tile: u32,
        in_flight: usize,
    ) -> Result<(Image, TileTimes)> {
        let run = RunOptions {
            tiling: super::TilePolicy {
                in_flight,
                ..Default::default()
            },
            ..RunOptions::default()
        };
        self.run_tiled_with(backend, input, tile, &run)
    }

    /// `run_tiled_timed` with every option of a run in force for its tiles (`run.tiling`'s
    /// tiles in flight).
    pub(crate) fn run_tiled_with(
        &self,
        backend: &Backend,
        input: &Image,
        tile: u32,
        run: &RunOptions,
    ) -> Result<(Image, TileTimes)> {
        let tiling = self.tiling(input.desc(), &run.limits)?;
        let (w, h) = (input.width(), input.height());
        if let Tiling::Halo(..) = tiling {
            self.check_tiled_extras(w, h)?;
        }
        let out = self.output_desc(input.desc())?;
        self.run_region(
            backend,
            RowsRef::of(input),
            (w, h),
            (0, out.height),
            (tile, tile),
            run,
            &tiling,
        )
    }

    /// Second images must be of the input's size to be tiled with it.
    pub(crate) fn check_tiled_extras(&self, w: u32, h: u32) -> Result<()> {
        for s in &self.stages {
            if s.extra.iter().any(|e| (e.width(), e.height()) != (w, h)) {
                return Err(Error::invalid(format!("`{}`'s second image is not {w}x{h}: only images of the input's size run in tiles", s.filter.def().name)));
            }
        }
        Ok(())
    }

    /// Output rows `rows.0..rows.1` of the output for a `full.0` x `full.1` input whose rows at
    /// hand are `src` (they must cover what those rows read: `Tiling::input_rows`), in tiles of
    /// at most `tile` (width, height) core pixels cut by `tiling`, `in_flight` at a time.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run_region(
        &self,
        backend: &Backend,
        src: RowsRef<'_>,
        full: (u32, u32),
        rows: (u32, u32),
        tile: (u32, u32),
        run: &RunOptions,
        tiling: &Tiling,
    ) -> Result<(Image, TileTimes)> {
        let in_flight = run.tiling.in_flight;
        let times = std::sync::Mutex::new(TileTimes::default());
        let (w, h) = full;
        let out_desc = self.output_desc(ImageDesc::new(w, h, src.format))?;
        let (ow, format) = (out_desc.width, out_desc.format);
        let (tw, th) = (tile.0.max(1), tile.1.max(1));
        let cores: Vec<(u32, u32, u32, u32)> = (rows.0..rows.1)
            .step_by(th as usize)
            .flat_map(|y| {
                (0..ow)
                    .step_by(tw as usize)
                    .map(move |x| (x, y, tw.min(ow - x), th.min(rows.1 - y)))
            })
            .collect();
        let mut out = Image::zeroed(ImageDesc::new(ow, rows.1 - rows.0, format));
        let bpp = crate::image::sample_bytes_per_pixel(format);
        let mut failure: Option<Error> = None;
        {
            // each tile pastes its core from the worker that ran it, several at once (one paste
            // at a time took as long as the GPU work of a 16384² image on an H100); the rows
            // are locked one by one, so tiles side by side wait for each other only per row
            let out_rows: Vec<std::sync::Mutex<&mut [u8]>> =
                crate::image::image_bytes_mut(&mut out)
                    .chunks_exact_mut((ow as usize * bpp).max(1))
                    .map(std::sync::Mutex::new)
                    .collect();
            let paste = |from: &[u8],
                         from_row: usize,
                         (sx, sy): (u32, u32),
                         (x, y, cw, ch): (u32, u32, u32, u32)|
             -> Result<()> {
                let len = cw as usize * bpp;
                for r in 0..ch as usize {
                    let s = (sy as usize + r) * from_row + sx as usize * bpp;
                    let (Some(part), Some(row)) = (
                        from.get(s..s + len),
                        out_rows.get((y - rows.0) as usize + r),
                    ) else {
                        return Err(Error::internal("a tile's result is smaller than its place"));
                    };
                    let mut row = row
                        .lock()
                        .map_err(|_| Error::internal("a tile's paste panicked"))?;
                    let at = x as usize * bpp;
                    row.get_mut(at..at + len)
                        .ok_or_else(|| Error::internal("a tile's place is outside the image"))?
                        .copy_from_slice(part);
                }
                Ok(())
            };
            // second images: cropped per tile (the rare case); otherwise tiles go straight from
            // the input's rows into staging memory and come back in mapped memory, pasted from there
            let direct =
                self.stages.iter().all(|s| s.extra.is_empty()) && cfg!(target_endian = "little");
            let work = |&(x, y, cw, ch): &(u32, u32, u32, u32)| -> Result<()> {
                let (halo, align) = match tiling {
                    Tiling::Halo(halo, align) => (*halo, *align),
                    Tiling::Chain(chain) => {
                        let (tile, made) = self.run_chain_tile(
                            backend,
                            chain,
                            src,
                            crate::region::Rect::new(x, y, cw, ch),
                            &times,
                            run,
                        )?;
                        let pasting = crate::runtime::Instant::now();
                        let done = match &tile {
                            Tile::Mapped(m) if m.desc().format == format => paste(
                                m.bytes(),
                                m.row_bytes(),
                                (x - made.x, y - made.y),
                                (x, y, cw, ch),
                            ),
                            Tile::Owned(img) if img.format() == format => paste(
                                crate::image::image_bytes(img),
                                img.width() as usize * bpp,
                                (x - made.x, y - made.y),
                                (x, y, cw, ch),
                            ),
                            _ => Err(Error::internal("a tile came out in another format")),
                        };
                        if let Ok(mut t) = times.lock() {
                            t.paste_ms += pasting.elapsed().as_secs_f64() * 1e3;
                            t.tiles += 1;
                        }
                        return done;
                    }
                };
                // the core plus the halo, clamped at the image's edges, starting on the nodes' grid
                let (x0, y0) = (
                    x.saturating_sub(halo) / align * align,
                    y.saturating_sub(halo) / align * align,
                );
                let (x1, y1) = ((x + cw + halo).min(w), (y + ch + halo).min(h));
                let tile = if direct {
                    let view = TileView {
                        src,
                        x: x0,
                        y: y0,
                        w: x1 - x0,
                        h: y1 - y0,
                    };
                    let mut r = self.run_host_in(
                        backend,
                        &view,
                        run,
                        Some(PixelWindow {
                            x0,
                            y0,
                            width: w,
                            height: h,
                        }),
                    )?;
                    if let Ok(mut t) = times.lock() {
                        t.add(&r.host);
                    }
                    match r.take("output") {
                        Some(HostValue::Mapped(m)) => Tile::Mapped(m),
                        Some(HostValue::Value(Value::Image(img))) => Tile::Owned(img),
                        _ => return Err(Error::internal("a tile gave no image")),
                    }
                } else {
                    let part = src.crop(x0, y0, x1 - x0, y1 - y0)?;
                    let mut sub = self.clone();
                    for s in &mut sub.stages {
                        for e in &mut s.extra {
                            *e = crop_image(e, x0, y0, x1 - x0, y1 - y0)?;
                        }
                    }
                    // the tile's graph runs directly: `Pipeline::run` would tile it again under a
                    // forced tile size
                    let (mut g, images) = sub.graph(&part)?;
                    g.set_pixel_window(
                        Some(PixelWindow {
                            x0,
                            y0,
                            width: w,
                            height: h,
                        }),
                        true,
                    );
                    let refs: Vec<(&str, &Image)> =
                        images.iter().map(|(n, i)| (n.as_str(), i)).collect();
                    match backend.run(&g, &refs, run)?.take("output") {
                        Some(Value::Image(img)) => Tile::Owned(img),
                        _ => return Err(Error::internal("a tile gave no image")),
                    }
                };
                let pasting = crate::runtime::Instant::now();
                let done = match &tile {
                    Tile::Mapped(m) if m.desc().format == format => {
                        paste(m.bytes(), m.row_bytes(), (x - x0, y - y0), (x, y, cw, ch))
                    }
                    Tile::Owned(img) if img.format() == format => paste(
                        crate::image::image_bytes(img),
                        img.width() as usize * bpp,
                        (x - x0, y - y0),
                        (x, y, cw, ch),
                    ),
                    _ => Err(Error::internal("a tile came out in another format")),
                };
                if let Ok(mut t) = times.lock() {
                    t.paste_ms += pasting.elapsed().as_secs_f64() * 1e3;
                    t.tiles += 1;
                }
                done
            };
            stream(cores.iter(), work, in_flight.max(1), |_, r| {
                if let (Err(e), None) = (r, &failure) {
                    failure = Some(e);
                }
            });
        }
        if let Some(e) = failure {
            return Err(e);
        }
        Ok((out, times.into_inner().unwrap_or_default()))
    }

    /// One tile through the stages' geometry (`chain.rs`): its result and the output part it is.
    fn run_chain_tile(
        &self,
        backend: &Backend,
        chain: &super::chain::TileChain,
        src: RowsRef<'_>,
        core: crate::region::Rect,
        times: &std::sync::Mutex<TileTimes>,
        run: &RunOptions,
    ) -> Result<(Tile, crate::region::Rect)> {
        let part = chain.tile(self, core)?;
        let view = TileView {
            src,
            x: part.input.x,
            y: part.input.y,
            w: part.input.w,
            h: part.input.h,
        };
        // each stage in the window of its part of its own input (`ChainTile::windows`)
        let (g, extra) = self.graph_of(
            part.stages
                .iter()
                .map(|s| s.get())
                .collect::<Vec<_>>()
                .into_iter(),
            view.desc(),
            &part.windows,
        )?;
        let mut refs: Vec<(&str, &dyn HostImage)> = vec![("input", &view)];
        refs.extend(
            extra
                .iter()
                .map(|(n, i)| (n.as_str(), &**i as &dyn HostImage)),
        );
        let mut r = backend.run_host(&g, &refs, run)?;
        if let Ok(mut t) = times.lock() {
            t.add(&r.host);
        }
        let tile = match r.take("output") {
            Some(HostValue::Mapped(m)) => Tile::Mapped(m),
            Some(HostValue::Value(Value::Image(img))) => Tile::Owned(img),
            _ => return Err(Error::internal("a tile gave no image")),
        };
        Ok((tile, part.made))
    }
}
