//! The run planner: how a pipeline's graph runs on a backend under `RunOptions` — whole, in
//! bands of tiles, in tiles through a change of geometry, or in tiles whose partial results
//! merge — decided in one place from the graph, the device's limits and the tiling policy
//! (`RunOptions::tiling`); `Pipeline::run_with` then executes the plan.

use super::tile::Tiling;
use super::{Backend, Graph, Pipeline, RunOptions};
use crate::error::Result;
use crate::image::ImageDesc;

/// How one run goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RunPlan {
    /// The whole image in one submission (everything fits the device and the budget).
    Whole,
    /// Bands of rows, each in tiles with halos, streamed through host memory
    /// (`Pipeline::run_streamed`): the default for images too large for the GPU.
    Bands,
    /// Square tiles of `side` output pixels with halos (`TilePolicy::tile` asked for them).
    Tiles {
        /// The tiles' side, in pixels.
        side: u32,
    },
    /// Tiles of output pixels cut through the pipeline's change of geometry (a resize, crop,
    /// flip or turn), each made from the input part it needs.
    ChainTiles {
        /// The tiles' width, in output pixels.
        width: u32,
        /// The tiles' height, in output pixels.
        height: u32,
    },
    /// Tiles of `side` pixels of a pipeline ending in a reduction whose partials merge.
    DataTiles {
        /// The tiles' side, in pixels.
        side: u32,
    },
}

/// The plan for `graph` (`pipeline`'s graph for an input of `input`) on `backend` under
/// `opts`. On the CPU reference a run is always whole; on a GPU it is cut where a value does
/// not fit one storage binding, the graph does not fit `opts.tiling.max_gpu_memory`, or
/// `opts.tiling.tile` asks for tiles. Every image the graph makes is checked against the pixel
/// limit first (a run in tiles is bounded in memory by its tiles, not in pixels).
///
/// # Examples
///
/// ```
/// use texelflow::graph::{plan_run, RunPlan};
/// use texelflow::{Backend, Image, PixelFormat, Pipeline, RunOptions};
/// # fn main() -> texelflow::Result<()> {
/// let pipe = Pipeline::parse("gaussian_blur(sigma=2)", &mut |p: &str| Image::open(p))?;
/// let img = Image::from_u8(8, 8, PixelFormat::Rgba8, vec![0; 8 * 8 * 4])?;
/// let (graph, _) = pipe.graph(&img)?;
/// // the CPU reference runs every graph whole
/// let plan = plan_run(&pipe, &Backend::Cpu, &graph, img.desc(), &RunOptions::default())?;
/// assert_eq!(plan, RunPlan::Whole);
/// # Ok(())
/// # }
/// ```
pub fn plan_run(
    pipeline: &Pipeline,
    backend: &Backend,
    graph: &Graph,
    input: ImageDesc,
    opts: &RunOptions,
) -> Result<RunPlan> {
    let plan = plan_cut(pipeline, backend, graph, input, opts)?;
    // a run in tiles holds its input and output whole and its tiles in flight in host memory:
    // refused before anything is allocated where that exceeds the memory limit, as the CPU
    // reference's whole run is (issue 29 item 7)
    let widest = super::tile::widest_bytes_per_pixel(graph);
    let in_flight = opts.tiling.in_flight.max(1) as u64;
    let tile = |px: u64| px.saturating_mul(widest).saturating_mul(2 * in_flight);
    let tiles = match plan {
        RunPlan::Whole => return Ok(plan),
        RunPlan::Tiles { side } | RunPlan::DataTiles { side } => tile(side as u64 * side as u64),
        RunPlan::ChainTiles { width, height } => tile(width as u64 * height as u64),
        RunPlan::Bands => pipeline
            .plan_stream_with(backend, input, opts)
            .map_or(0, |r| r.host_bytes),
    };
    super::check::check_tiled_memory(graph, tiles, &opts.limits)?;
    Ok(plan)
}

/// `plan_run` before its memory check.
fn plan_cut(
    pipeline: &Pipeline,
    backend: &Backend,
    graph: &Graph,
    input: ImageDesc,
    opts: &RunOptions,
) -> Result<RunPlan> {
    let Backend::Gpu(gpu) = backend else {
        return Ok(RunPlan::Whole);
    };
    let policy = &opts.tiling;
    super::check::check_graph_pixels(graph, &opts.limits)?;
    let forced = super::tile::forced_tile(policy);
    if let Some(side) = super::tile::tile_side(gpu, graph, policy) {
        // in bands of tiles, as a file streams: on an H100 bands of 1024 rows in three tiles
        // reached 0.92-0.94 of an untiled 16384^2 run, square tiles 0.52-0.70
        return Ok(match forced {
            Some(_) => RunPlan::Tiles { side },
            None => RunPlan::Bands,
        });
    }
    if !super::tile::graph_fits(gpu, graph, policy) || forced.is_some() {
        if let Ok(Tiling::Chain(chain)) = pipeline.tiling(input, &opts.limits) {
            let in_flight = policy.in_flight.max(1);
            let (width, height) = match forced {
                Some(t) => (t, t),
                None => {
                    let (tw, th) = chain.tile_size(
                        pipeline,
                        gpu.max_binding(),
                        policy.max_gpu_memory,
                        in_flight,
                        super::DEFAULT_BAND_ROWS,
                    )?;
                    (
                        super::bands::even_tile_width(chain.output.width, tw, in_flight),
                        th,
                    )
                }
            };
            return Ok(RunPlan::ChainTiles { width, height });
        }
    }
    if let Some(side) = pipeline.data_tile_side(gpu, graph, input, policy) {
        return Ok(RunPlan::DataTiles { side });
    }
    Ok(RunPlan::Whole)
}

impl Pipeline {
    /// Checks a run on an input of `input` against `opts.limits` from its size alone (a file's
    /// header), before anything is decoded or allocated: the pixels of every image it makes and
    /// the memory of the plan `plan_run` would choose (issue 29 item 7: a `resize(scale=16)` too
    /// large to hold is refused before the input is decoded). A file's EXIF may turn it on
    /// load: a graph that cannot be built is an error only where it cannot be built turned
    /// either way, and only a limit's refusal of the plan is an error here (anything else the
    /// run itself reports).
    pub fn check_run(&self, backend: &Backend, input: ImageDesc, opts: &RunOptions) -> Result<()> {
        let limit = |r: Result<()>| match r {
            Err(e @ crate::Error::Limit(_)) => Err(e),
            _ => Ok(()),
        };
        let graph = match self.graph_for(input) {
            Ok((graph, _)) => graph,
            Err(e) => {
                let turned = ImageDesc::new(input.height, input.width, input.format);
                return match self.graph_for(turned) {
                    Ok(_) => Ok(()),
                    Err(_) => Err(e),
                };
            }
        };
        match plan_run(self, backend, &graph, input, opts) {
            Ok(RunPlan::Whole) => limit(super::check::check_graph(
                &graph,
                matches!(backend, Backend::Cpu),
                &opts.limits,
            )),
            r => limit(r.map(|_| ())),
        }
    }
}

/// Shrink-on-load (issue 30): the least size, (width, height) upright, an input of `input`
/// needs to be decoded at for `pipeline`, or `None` where it needs its full size. Some where
/// the pipeline's first stage is a `resize` (no other filter before it, so nothing depends on
/// the full resolution) whose output is at most half the input in both axes and the same for
/// every input at least that large that a DCT scale (1/2, 1/4, 1/8) can give (a size fixed by
/// `width`/`height`, not by a `scale`). The loader (`LoadOptions::min_size`) then decodes a
/// JPEG at the smallest DCT scale that keeps this size, and the resize runs from the decoded
/// size to the exact one.
///
/// Difference from the full decode + the same resize (`tests/shrink_on_load.rs`, a
/// photo-like 1024×768 JPEG, quality 90, CPU reference): with `method=area`, 2 levels at most
/// in any 8-bit channel to 200×150 (decoded at 1/4) and 3 to 300×200 (at 1/2), stated as
/// `SHRINK_ON_LOAD_MAX_DIFF` = 4. Other methods differ more where they alias (they sample the
/// full image without averaging it): bilinear to 100×75, 14 levels. So does content with a
/// strong fine texture, which the scaled IDCT drops and the full decode's average lets alias:
/// a 17-pixel diagonal pattern of 48 levels, 300×250 to 100×75 (at 1/2), 7 levels (the CLI's
/// `tests/shrink_on_load.rs`).
pub fn shrink_on_load_size(pipeline: &Pipeline, input: ImageDesc) -> Option<(u32, u32)> {
    use crate::value::ValueDesc;
    let stage = pipeline.stages.first()?;
    if stage.filter.def().name != "resize" || !stage.extra.is_empty() {
        return None;
    }
    // the size the resize makes; in the input's format, else in RGBA8, which the graph
    // converts a format the filter does not take into (a grey JPEG decodes to Gray8)
    let size_for = |width: u32, height: u32| {
        [input.format, crate::image::PixelFormat::Rgba8]
            .into_iter()
            .find_map(|format| {
                let d = ImageDesc {
                    width,
                    height,
                    format,
                };
                match stage
                    .filter
                    .output_descs(&[ValueDesc::Image(d)])
                    .ok()?
                    .first()?
                {
                    ValueDesc::Image(o) => Some((o.width, o.height)),
                    _ => None,
                }
            })
    };
    let (ow, oh) = size_for(input.width, input.height)?;
    if ow == 0
        || oh == 0
        || ow.saturating_mul(2) > input.width
        || oh.saturating_mul(2) > input.height
    {
        return None;
    }
    // the resize's size must not follow the input's (a `scale=` would shrink the smaller decode again)
    for denom in [2u32, 4, 8] {
        let (w, h) = (input.width.div_ceil(denom), input.height.div_ceil(denom));
        if w >= ow && h >= oh && size_for(w, h)? != (ow, oh) {
            return None;
        }
    }
    Some((ow, oh))
}

/// The most an 8-bit channel of shrink-on-load's result differs from the full decode + the
/// same `resize(method=area)` on photo-like content (measured 3; a strong fine texture, 7:
/// `shrink_on_load_size`).
pub const SHRINK_ON_LOAD_MAX_DIFF: u8 = 4;
