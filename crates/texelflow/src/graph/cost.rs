//! The small-work rule (issue 30): a run whose whole work on the CPU reference ends before a
//! GPU could even start is better run there. Opening a device and compiling a pipeline's
//! kernels takes ~0.19 s on the host; sixteen 6000×4000 JPEGs made into 500-pixel thumbnails
//! (decoded at 1/8 by shrink-on-load) took 0.16 s on the CPU reference and 0.32 s with the GPU
//! (H200 machine, 16 cores, session 22).
//!
//! The CPU's cost is measured, not guessed: the pipeline runs once on a small image on the CPU
//! reference (`CpuCost::measure`, a few ms for most pipelines), each node's time per pixel it
//! touches is kept, and a real input's cost is those times scaled node by node to the pixels
//! that input's graph touches (`CpuCost::core_ms`). A node's costs per pixel span 60× across
//! the catalogue (a brightness ~26 core-ns, a bilateral ~1,600), so one constant would not do.

use super::{Backend, Pipeline, RunOptions};
use crate::image::{Image, ImageDesc, PixelFormat};

/// A GPU's start-up on the host, ms: opening the device and compiling a pipeline's kernels
/// (a single `apply` on the H200 machine, driver cache warm: 142.6 + 45.3 ms, session 22).
pub const GPU_START_MS: f64 = 190.0;

/// CPU time a GPU run saves per pixel of a JPEG that it decodes on the device, ns: the host
/// keeps only the entropy decode (6.8 ms a 3840×2160 image against libjpeg-turbo's whole
/// decode, 37.5 ms, one core; session 22).
pub const JPEG_DECODE_SAVED_NS: f64 = 3.7;

/// CPU time a GPU run saves per pixel of a JPEG output that it encodes on the device, ns
/// (3840×2160: 56.0 ms on the host against 3.5 ms on the GPU, session 22).
pub const JPEG_ENCODE_SAVED_NS: f64 = 6.3;

/// The side of the image `CpuCost::measure` runs on: large enough that a node's fixed costs
/// do not swamp its per-pixel ones, small enough to take milliseconds.
const PROBE_SIDE: u32 = 48;

/// The CPU reference's cost of a pipeline, per node and pixel touched, measured on a small
/// image (`CpuCost::measure`).
///
/// # Examples
///
/// ```
/// use texelflow::graph::CpuCost;
/// use texelflow::{Image, ImageDesc, PixelFormat, Pipeline, RunOptions};
/// # fn main() -> texelflow::Result<()> {
/// let pipe = Pipeline::parse("gaussian_blur(sigma=2)", &mut |p: &str| Image::open(p))?;
/// let cost = CpuCost::measure(&pipe, &RunOptions::default()).expect("runs on the CPU");
/// let small = cost.core_ms(&pipe, ImageDesc::new(64, 64, PixelFormat::Rgba8)).unwrap();
/// let large = cost.core_ms(&pipe, ImageDesc::new(4096, 4096, PixelFormat::Rgba8)).unwrap();
/// assert!(large > 1000.0 * small);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct CpuCost {
    /// Per filter node in graph order, ns per pixel it touches.
    per_node: Vec<f64>,
    /// The whole graph's ns per pixel touched: for a graph whose nodes differ from the probe's.
    mean: f64,
}

impl CpuCost {
    /// Runs `pipeline` once on a `PROBE_SIDE`² RGBA8 image of noise on the CPU reference and
    /// keeps each node's time per pixel touched. `None` where the pipeline does not run on
    /// such an image.
    pub fn measure(pipeline: &Pipeline, opts: &RunOptions) -> Option<CpuCost> {
        let side = PROBE_SIDE;
        let mut seed = 0x9e37_79b9_u32;
        let noise = (0..side * side * 4)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                (seed >> 24) as u8
            })
            .collect();
        let img = Image::from_u8(side, side, PixelFormat::Rgba8, noise).ok()?;
        let opts = RunOptions {
            timings: true,
            ..opts.clone()
        };
        // the thread pool started first: its start (milliseconds on 16 cores) is no filter's
        rayon::broadcast(|_| ());
        let times = pipeline.run_with(&Backend::Cpu, &img, &opts).ok()?.timings;
        let touched = touched_pixels(pipeline, img.desc())?;
        if touched.len() != times.len() {
            return None;
        }
        let per_node: Vec<f64> = touched
            .iter()
            .zip(&times)
            .map(|(&px, t)| t.ms * 1e6 / px.max(1) as f64)
            .collect();
        let total_px: u64 = touched.iter().sum();
        let mean = times.iter().map(|t| t.ms).sum::<f64>() * 1e6 / total_px.max(1) as f64;
        Some(CpuCost { per_node, mean })
    }

    /// The CPU reference's time for an input of `input`, in ms of one core (the nodes scaled
    /// to the pixels they touch); `None` where the pipeline takes no such input.
    pub fn core_ms(&self, pipeline: &Pipeline, input: ImageDesc) -> Option<f64> {
        let touched = touched_pixels(pipeline, input)?;
        let ns = if touched.len() == self.per_node.len() {
            touched
                .iter()
                .zip(&self.per_node)
                .map(|(&px, ns)| px as f64 * ns)
                .sum::<f64>()
        } else {
            touched.iter().sum::<u64>() as f64 * self.mean
        };
        Some(ns / 1e6)
    }
}

/// Per filter node of `pipeline`'s graph for `input`, in order, the pixels it touches: the
/// most of its output's and each input image's.
fn touched_pixels(pipeline: &Pipeline, input: ImageDesc) -> Option<Vec<u64>> {
    let (g, _) = pipeline.graph_for(input).ok()?;
    let px = |d: &crate::value::ValueDesc| d.image().map_or(0, |i| i.pixels() as u64);
    Some(
        g.nodes
            .iter()
            .filter(|n| matches!(n.kind, super::NodeKind::Filter(_)))
            .map(|n| {
                let ins = n.inputs.iter().filter_map(|p| {
                    g.nodes
                        .get(p.node)
                        .and_then(|m| m.outputs.get(p.output))
                        .map(px)
                });
                n.outputs.iter().map(px).chain(ins).max().unwrap_or(0)
            })
            .collect(),
    )
}

/// How much of the cores the CPU reference's filters use on one image (they share its rows
/// out): a 3840×2160 blur and Sobel ran 4.4× as fast as the estimate of one core on 16 cores
/// (H200 machine, session 23). A batch spreads whole images over the cores besides.
pub const ONE_IMAGE_CORE_SHARE: f64 = 0.25;

/// The small-work rule: whether work of `core_ms` over `images` images (the CPU reference's
/// time on one core, `CpuCost::core_ms`, plus the codec time a GPU run would save,
/// `JPEG_DECODE_SAVED_NS`, `JPEG_ENCODE_SAVED_NS`) ends on `cores` cores in less than half a
/// GPU's start-up (`GPU_START_MS`): then the CPU reference runs it. The cores work at full
/// speed on as many images as there are (one each), at `ONE_IMAGE_CORE_SHARE` on the rest.
/// Half, because the estimate scales a small image's times (measured 1.1–6.5× short of
/// 750×500 to 3840×2160 runs, session 23) and a GPU run has per-image costs of its own.
///
/// Measured choices (H200 machine, 16 cores, sessions 22–23): sixteen 6000×4000 JPEGs to
/// 500-pixel thumbnails, 0.16 s on the CPU against 0.30 s with the GPU (the CPU); one
/// 3840×2160 JPEG blurred and Sobel-filtered, 0.35 s on the CPU against 0.28 s with the GPU
/// (the GPU: ~870 ms of one core, ~180 ms on one image's share of 16 cores).
///
/// # Examples
///
/// ```
/// use texelflow::graph::cpu_is_quicker;
/// assert!(cpu_is_quicker(600.0, 16, 16)); // 37.5 ms on 16 cores
/// assert!(!cpu_is_quicker(870.0, 1, 16)); // one image: 1 + 15 / 4 cores
/// assert!(!cpu_is_quicker(3000.0, 64, 16));
/// ```
pub fn cpu_is_quicker(core_ms: f64, images: usize, cores: usize) -> bool {
    let cores = cores.max(1) as f64;
    let whole = (images.max(1) as f64).min(cores);
    let effective = whole + (cores - whole) * ONE_IMAGE_CORE_SHARE;
    core_ms / effective < GPU_START_MS / 2.0
}

/// The pixels of `pipeline`'s output image for an input of `input` (0 where it ends in data);
/// `None` where the pipeline takes no such input.
pub fn output_pixels(pipeline: &Pipeline, input: ImageDesc) -> Option<u64> {
    let (g, _) = pipeline.graph_for(input).ok()?;
    let port = g.outputs.first().map(|(_, p)| *p)?;
    let d = g.nodes.get(port.node)?.outputs.get(port.output)?;
    Some(d.image().map_or(0, |i| i.pixels() as u64))
}
