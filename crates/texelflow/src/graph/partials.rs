//! Reductions in tiles: a pipeline ending in a filter whose data merges exactly
//! (`Filter::merges_partials`: `histogram`, `reduce`, `mean_saturation`) runs its image part on
//! tiles with halos as `run_tiled` does, then the reduction over each tile's core alone (a crop
//! of the tile's result before it, in the same run, so only data comes back), and adds the
//! partial results (`Data::merge`): the untiled run's data, exactly, as every core pixel is the
//! untiled one and each is counted once.

use super::filter::{PortDef, PortKind};
use super::tile::{crop_image, graph_halo, tile_side_with, tile_view};
use super::{stream, Backend, Graph, HostValue, Pipeline, RunOptions};
use crate::error::{Error, Result};
use crate::image::{Image, ImageDesc};
use crate::region::PixelWindow;
use crate::value::{Data, Value, ValueDesc};

impl Pipeline {
    /// The halo and grid of tiles for this pipeline on an input of `input`'s size when it ends
    /// in a reduction whose partials merge; otherwise why not.
    fn partials_halo(&self, input: ImageDesc) -> std::result::Result<(u32, u32), String> {
        let last = self.stages.last().ok_or("the pipeline is empty")?;
        let def = last.filter.def();
        let kind = match def.outputs {
            [PortDef {
                kind: PortKind::Data(k),
                ..
            }] => *k,
            [PortDef {
                kind: PortKind::Image,
                ..
            }] => return Err(format!("`{}` makes an image, not data", def.name)),
            outs => {
                return Err(format!(
                    "`{}` makes {} results, not one data result",
                    def.name,
                    outs.len()
                ))
            }
        };
        if let Some(why) = kind.merge_refusal() {
            return Err(format!(
                "`{}` makes {} data, which does not merge from tiles: {why}",
                def.name,
                kind.name()
            ));
        }
        if !last.filter.merges_partials() {
            return Err(format!(
                "`{}`'s {} data is not a sum over single pixels, so it does not merge from tiles",
                def.name,
                kind.name()
            ));
        }
        if def.inputs.len() != 1 || !last.extra.is_empty() {
            return Err(format!("`{}` reads more than one image", def.name));
        }
        let mut head = self.clone();
        head.stages.pop();
        if head.is_empty() {
            return Ok((0, 1));
        }
        let (g, _) = head.graph_for(input).map_err(|e| e.to_string())?;
        graph_halo(&g)
    }

    /// The tile side for `graph` (this pipeline's for `input`) on `gpu` when it ends in a
    /// reduction whose partials merge and needs tiles (`tile::tile_side`'s rule).
    pub(super) fn data_tile_side(
        &self,
        gpu: &crate::runtime::Gpu,
        graph: &Graph,
        input: ImageDesc,
        policy: &super::TilePolicy,
    ) -> Option<u32> {
        let ends_in_data = graph
            .outputs
            .iter()
            .all(|(_, p)| matches!(graph.desc(*p), ValueDesc::Data(_)));
        if !ends_in_data || graph.outputs.is_empty() {
            return None;
        }
        tile_side_with(gpu, graph, policy, || self.partials_halo(input))
    }

    /// Runs a pipeline that ends in a reduction whose partial results merge exactly
    /// (`histogram`, `reduce`, `mean_saturation`) on tiles of at most `tile` x `tile` pixels
    /// (each with its halo), `in_flight` at a time: the image part per tile as `run_tiled`, the
    /// reduction over each tile's core, the results merged. Exactly `run`'s data.
    pub fn run_tiled_data(
        &self,
        backend: &Backend,
        input: &Image,
        tile: u32,
        in_flight: usize,
    ) -> Result<Data> {
        let run = RunOptions {
            tiling: super::TilePolicy {
                in_flight,
                ..Default::default()
            },
            ..RunOptions::default()
        };
        self.run_tiled_data_with(backend, input, tile, &run)
    }

    /// `run_tiled_data` with every option of a run in force for its tiles.
    pub(crate) fn run_tiled_data_with(
        &self,
        backend: &Backend,
        input: &Image,
        tile: u32,
        run: &RunOptions,
    ) -> Result<Data> {
        let in_flight = run.tiling.in_flight;
        // the whole graph first, so that its own checks (formats, sizes, limits) apply
        self.graph_for(input.desc())?;
        let (halo, align) = self.partials_halo(input.desc()).map_err(|why| {
            Error::Graph(crate::GraphError::NotTileable {
                why: why.to_string(),
            })
        })?;
        let tile = tile.max(1);
        let (w, h) = (input.width(), input.height());
        for s in &self.stages {
            if s.extra.iter().any(|e| (e.width(), e.height()) != (w, h)) {
                return Err(Error::invalid(format!("`{}`'s second image is not {w}x{h}: only images of the input's size run in tiles", s.filter.def().name)));
            }
        }
        let mut head = self.clone();
        let last = head
            .stages
            .pop()
            .ok_or_else(|| Error::invalid("the pipeline is empty"))?;
        let cores: Vec<(u32, u32, u32, u32)> = (0..h)
            .step_by(tile as usize)
            .flat_map(|y| {
                (0..w)
                    .step_by(tile as usize)
                    .map(move |x| (x, y, tile.min(w - x), tile.min(h - y)))
            })
            .collect();
        let direct =
            head.stages.iter().all(|s| s.extra.is_empty()) && cfg!(target_endian = "little");
        let work = |&(x, y, cw, ch): &(u32, u32, u32, u32)| -> Result<Data> {
            // the core plus the halo, clamped at the image's edges, starting on the nodes' grid
            let (x0, y0) = (
                x.saturating_sub(halo) / align * align,
                y.saturating_sub(halo) / align * align,
            );
            let (x1, y1) = ((x + cw + halo).min(w), (y + ch + halo).min(h));
            let mut sub = head.clone();
            if (x0, y0, x1, y1) != (x, y, x + cw, y + ch) {
                sub.push(
                    (head.catalogue().crop_px)(x - x0, y - y0, cw, ch)?,
                    Vec::new(),
                );
            }
            sub.push(last.filter.clone(), Vec::new());
            let value = if direct {
                match sub
                    .run_host_in(
                        backend,
                        &tile_view(input, x0, y0, x1 - x0, y1 - y0),
                        run,
                        Some(PixelWindow {
                            x0,
                            y0,
                            width: w,
                            height: h,
                        }),
                    )?
                    .take("output")
                {
                    Some(HostValue::Value(v)) => v,
                    _ => return Err(Error::internal("a tile gave an image, not data")),
                }
            } else {
                let part = crop_image(input, x0, y0, x1 - x0, y1 - y0)?;
                for s in &mut sub.stages {
                    for e in &mut s.extra {
                        *e = crop_image(e, x0, y0, x1 - x0, y1 - y0)?;
                    }
                }
                // the graph run directly: `run` could tile the tile again
                let (mut g, extra) = sub.graph_for(part.desc())?;
                g.set_pixel_window(
                    Some(PixelWindow {
                        x0,
                        y0,
                        width: w,
                        height: h,
                    }),
                    true,
                );
                let mut refs: Vec<(&str, &Image)> = vec![("input", &part)];
                refs.extend(extra.iter().map(|(n, i)| (n.as_str(), &**i)));
                backend
                    .run(&g, &refs, run)?
                    .take("output")
                    .ok_or_else(|| Error::invalid("a tile gave no output"))?
            };
            match value {
                Value::Data(d) => Ok(d),
                Value::Image(_) => Err(Error::internal("a tile gave an image, not data")),
            }
        };
        let mut merged: Option<Data> = None;
        let mut failure: Option<Error> = None;
        stream(cores.iter(), work, in_flight.max(1), |_, r| {
            if failure.is_some() {
                return;
            }
            let done = r.and_then(|d| match &mut merged {
                Some(m) => m.merge(&d),
                None => {
                    merged = Some(d);
                    Ok(())
                }
            });
            if let Err(e) = done {
                failure = Some(e);
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
        merged.ok_or_else(|| Error::internal("no tiles were run"))
    }

    /// `run_tiled` for a pipeline that ends in an image, `run_tiled_data` for one that ends in
    /// data.
    pub fn run_tiled_value(
        &self,
        backend: &Backend,
        input: &Image,
        tile: u32,
        in_flight: usize,
    ) -> Result<Value> {
        let (g, _) = self.graph_for(input.desc())?;
        match g.outputs.first().map(|(_, p)| g.desc(*p)) {
            Some(ValueDesc::Data(_)) => self
                .run_tiled_data(backend, input, tile, in_flight)
                .map(Value::Data),
            _ => self
                .run_tiled(backend, input, tile, in_flight)
                .map(Value::Image),
        }
    }
}
