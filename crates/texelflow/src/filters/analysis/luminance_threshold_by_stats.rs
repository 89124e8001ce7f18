//! The GPU consumer of a `reduce`: white where a pixel's BT.601 luma is at least
//! `multiplier` times the image's mean luma (read from `stats` data on the GPU, no CPU
//! round-trip), black elsewhere; alpha kept. The primitive behind
//! `average_luminance_threshold`, i.e. the second half of GPUImage's
//! `GPUImageAverageLuminanceThresholdFilter`.
//!
//! Exact on both sides: the multiplier becomes the integer `m = round(multiplier * 1000)`
//! once, and a pixel is white iff `Y * count * 1000 >= m * sum_y` (64-bit integers). The GPU
//! turns this into one integer threshold per invocation (f32 estimate of the mean, then exact
//! 64-bit corrections using u32 word pairs), then compares each pixel's luma against it.

use super::{check_quads, grid, GridParams, GRID_WGSL};
use crate::error::Result;
use crate::filters::registry::{expect_image, input_image, slot_image};
use crate::graph::params::{check_float, ParamDef};
use crate::image::{luma601, Image, PixelFormat};
use crate::runtime::{GpuSlot, Kernel, NodeRecorder};
use crate::value::Stats;

/// The kernels after the shared 64-bit helpers (u64.wgsl).
const WGSL: &str = concat!(
    include_str!("u64.wgsl"),
    include_str!("luminance_threshold_by_stats.wgsl")
);
/// Workgroup size. Schedule choice, not algorithm; mirrors `THRESHOLD_WG` in the WGSL.
const THRESHOLD_WG: u32 = 256;
/// Quads per invocation: amortises the per-invocation threshold derivation. Schedule choice,
/// not algorithm; to be measured on H100.
const QUADS_PER_THREAD: u32 = 4;

/// White where luma >= multiplier * mean luma taken from `stats` data; alpha kept.
#[derive(Clone, Debug)]
pub struct LuminanceThresholdByStats {
    /// Pixels whose luma is at least this times the mean luma turn white.
    pub multiplier: f32,
}

impl LuminanceThresholdByStats {
    /// Fails when `multiplier` is outside [0, 4].
    pub fn new(multiplier: f32) -> Result<Self> {
        Ok(Self {
            multiplier: check_float(&DEF, "multiplier", multiplier)?,
        })
    }
    /// The multiplier as the integer used by both sides, `round(multiplier * 1000)`.
    pub fn multiplier_milli(&self) -> u32 {
        multiplier_milli(self.multiplier)
    }
}

impl Default for LuminanceThresholdByStats {
    fn default() -> Self {
        Self { multiplier: 1.0 }
    }
}

/// `round(multiplier * 1000)`, clamped to the declared range [0, 4000].
pub fn multiplier_milli(multiplier: f32) -> u32 {
    (multiplier as f64 * 1000.0).round().clamp(0.0, 4000.0) as u32
}

/// The multiplier parameter, shared with `average_luminance_threshold`.
pub const MULTIPLIER: ParamDef = ParamDef::float(
    "multiplier",
    1.0,
    0.0,
    4.0,
    "pixels whose luma is at least this times the mean luma turn white",
);

crate::draw_filter! {
    filter: LuminanceThresholdByStats,
    name: "luminance_threshold_by_stats",
    family: Analysis,
    gpuimage: "GPUImageAverageLuminanceThresholdFilter",
    summary: "White where luma >= multiplier * mean luma from `stats` data (GPU-side), else black.",
    doc: "Two inputs: an RGBA8 image and `stats` data (from `reduce`, usually of the same image). \
A pixel turns white where its BT.601 luma Y satisfies Y * count * 1000 >= round(multiplier * 1000) * sum_y, \
exactly, in 64-bit integers; otherwise black; alpha is kept. The mean is read on the GPU: no read-back. \
Used by average_luminance_threshold.",
    params: [MULTIPLIER],
    build: |a| LuminanceThresholdByStats::new(a.f32("multiplier")?)?,
    data: stats: Stats,
    output: |_, inputs| expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8]),
    uniforms: [GridParams::layout(GRID_WGSL)],
    cpu: |f, inputs, stats, _out| threshold_by_stats_cpu(input_image(&DEF, inputs, 0)?, stats, f.multiplier_milli()),
    gpu: record,
}

/// CPU twin of the per-pixel test: `Y * count * 1000 >= m * sum_y`, exactly.
pub fn is_white(y: u8, stats: &Stats, multiplier_milli: u32) -> bool {
    y as u128 * stats.count as u128 * 1000 >= multiplier_milli as u128 * stats.sum[4] as u128
}

/// CPU twin of `luminance_threshold_by_stats.wgsl`.
pub fn threshold_by_stats_cpu(img: &Image, stats: &Stats, multiplier_milli: u32) -> Result<Image> {
    // The test is monotonic in Y: tabulate it once.
    let white: Vec<bool> = (0..=255u8)
        .map(|y| is_white(y, stats, multiplier_milli))
        .collect();
    let mut out = img.as_u8().to_vec();
    for p in out.chunks_exact_mut(4) {
        let v = if white[luma601(p[0], p[1], p[2]) as usize] {
            255
        } else {
            0
        };
        p[0] = v;
        p[1] = v;
        p[2] = v;
    }
    Image::from_u8(img.width(), img.height(), PixelFormat::Rgba8, out)
}

/// Thresholds luminance at the statistics' mean times the multiplier (`luminance_threshold_by_stats.wgsl`).
fn record(
    f: &LuminanceThresholdByStats,
    rec: &mut NodeRecorder<'_>,
    inputs: &[GpuSlot],
    outputs: &[GpuSlot],
) -> Result<()> {
    let d = slot_image(&DEF, inputs, 0)?;
    let count = d.pixels() as u64;
    let g = grid(count, THRESHOLD_WG, QUADS_PER_THREAD, f.multiplier_milli())?;
    check_quads(&inputs[0], count)?;
    check_quads(&outputs[0], count)?;
    // Schedule `dp4`: the per-pixel test on the luma numerator (see the WGSL).
    let entry = match rec.schedule(DEF.name) {
        None => "threshold_by_stats",
        Some("dp4") => "threshold_by_stats_dp4",
        Some(v) => return Err(crate::runtime::schedule::unknown(DEF.name, v, &["dp4"])),
    };
    let kernel = Kernel::new(
        &format!("analysis.luminance_threshold_by_stats.{entry}"),
        &[GridParams::WGSL, GRID_WGSL, WGSL],
        entry,
    );
    rec.dispatch(
        &kernel,
        &[&inputs[0].buffer, &inputs[1].buffer, &outputs[0].buffer],
        bytemuck::bytes_of(&g.params),
        g.groups,
    )
}
