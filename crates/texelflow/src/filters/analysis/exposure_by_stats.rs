//! Exposure set from statistics on the GPU: R, G and B times the gain that brings a frame's
//! mean luma (from `stats` data, a `reduce`) to a target. The primitive behind
//! `auto_exposure`, where the statistics are the previous frame's (the streaming idea of the
//! source articles: a reduction of frame N sets a parameter of frame N+1, no read-back).
//! GPUImage has no equivalent (its `GPUImageExposureFilter` takes a fixed exposure).

use crate::error::{Error, Result};
use crate::filters::registry::{expect_image, input_image, slot_image};
use crate::graph::params::check_float;
use crate::image::{Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::Stats;

const WGSL: &str = include_str!("exposure_by_stats.wgsl");

uniform_struct! {
    /// Uniform of exposure_by_stats.wgsl (`target` is a reserved word in WGSL, hence
    /// `target_luma`).
    pub struct ExposureParams {
        pub width: u32,
        pub height: u32,
        pub target_luma: f32,
        pub max_gain: f32,
    }
}

/// R, G, B times `target / mean luma` of the stats, within [1/max_gain, max_gain].
#[derive(Clone, Debug)]
pub struct ExposureByStats {
    /// Mean luma (0..1) the gain aims for.
    pub target: f32,
    /// The gain stays within [1/max_gain, max_gain].
    pub max_gain: f32,
}

/// The parameters, shared with `auto_exposure`.
pub const TARGET: crate::graph::params::ParamDef = crate::graph::params::ParamDef::float(
    "target",
    0.5,
    0.05,
    0.95,
    "mean BT.601 luma (0..1) the gain aims for",
);
/// The gain's bound, shared with `auto_exposure`.
pub const MAX_GAIN: crate::graph::params::ParamDef = crate::graph::params::ParamDef::float(
    "max_gain",
    4.0,
    1.0,
    16.0,
    "the gain stays within [1/max_gain, max_gain]",
);

impl ExposureByStats {
    /// Fails when `target` is outside [0.05, 0.95] or `max_gain` outside [1, 16].
    pub fn new(target: f32, max_gain: f32) -> Result<Self> {
        Ok(Self {
            target: check_float(&DEF, "target", target)?,
            max_gain: check_float(&DEF, "max_gain", max_gain)?,
        })
    }
}

impl Default for ExposureByStats {
    fn default() -> Self {
        Self {
            target: 0.5,
            max_gain: 4.0,
        }
    }
}

crate::draw_filter! {
    filter: ExposureByStats,
    name: "exposure_by_stats",
    family: Analysis,
    gpuimage: "",
    summary: "R, G, B times the gain that brings the mean luma of `stats` data to a target (GPU-side).",
    doc: "Two inputs: an RGBA8 image and `stats` data (from `reduce`). The gain is target * 255 * count / sum of \
BT.601 luma, clamped to [1/max_gain, max_gain] (max_gain for a black frame); each of R, G, B becomes \
min(255, floor(v * gain + 0.5)); alpha is kept. The statistics are read on the GPU: no read-back. Used by \
auto_exposure with the previous frame's statistics.",
    params: [TARGET, MAX_GAIN],
    build: |a| ExposureByStats::new(a.f32("target")?, a.f32("max_gain")?)?,
    data: stats: Stats,
    output: |_, inputs| expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8]),
    uniforms: [ExposureParams::layout(WGSL)],
    cpu: |f, inputs, stats, _out| exposure_cpu(input_image(&DEF, inputs, 0)?, exposure_gain(stats, f.target, f.max_gain)),
    gpu: record,
}

/// CPU twin of the kernel's `gain`: the same f32 operations in the same order.
pub fn exposure_gain(stats: &Stats, target: f32, max_gain: f32) -> f32 {
    let wide = |v: u64| ((v >> 32) as u32) as f32 * 4294967296.0 + (v as u32) as f32;
    let sum_y = wide(stats.sum[4]);
    if sum_y <= 0.0 {
        return max_gain;
    }
    (target * 255.0 * wide(stats.count) / sum_y).clamp(1.0 / max_gain, max_gain)
}

/// CPU twin of `exposure_by_stats.wgsl`.
pub fn exposure_cpu(img: &Image, gain: f32) -> Result<Image> {
    let level = |v: u8| (v as f32 * gain + 0.5).floor().min(255.0) as u8;
    let mut out = img.as_u8().to_vec();
    for p in out.chunks_exact_mut(4) {
        p[0] = level(p[0]);
        p[1] = level(p[1]);
        p[2] = level(p[2]);
    }
    Image::from_u8(img.width(), img.height(), PixelFormat::Rgba8, out)
}

/// Scales the image by the gain its statistics give (`exposure_by_stats.wgsl`).
fn record(
    f: &ExposureByStats,
    rec: &mut NodeRecorder<'_>,
    inputs: &[GpuSlot],
    outputs: &[GpuSlot],
) -> Result<()> {
    let d = slot_image(&DEF, inputs, 0)?;
    let (Some(img), Some(stats), Some(out)) = (inputs.first(), inputs.get(1), outputs.first())
    else {
        return Err(Error::invalid(
            "`exposure_by_stats` needs two inputs and one output",
        ));
    };
    let params = ExposureParams {
        width: d.width,
        height: d.height,
        target_luma: f.target,
        max_gain: f.max_gain,
        ..Default::default()
    };
    let kernel = Kernel::new(
        "analysis.exposure_by_stats",
        &[ExposureParams::WGSL, WGSL],
        "exposure_by_stats",
    );
    rec.dispatch(
        &kernel,
        &[&img.buffer, &stats.buffer, &out.buffer],
        bytemuck::bytes_of(&params),
        groups_2d(d.width, d.height, 16, 16),
    )
}
