//! White where luminance (GPUImage weights) is at least the threshold, black elsewhere; alpha kept. Matches GPUImage's `GPUImageLuminanceThresholdFilter`.

use bytemuck::{Pod, Zeroable};

use crate::error::Result;
use crate::filters::pixel::PixelOp;
use crate::params::{check_float, ParamDef};
use crate::registry::{Family, FilterDef, UniformLayout, EXACT_ENOUGH, IMAGE};

/// White where luminance (GPUImage weights) is at least the threshold, black elsewhere; alpha kept.
#[derive(Clone, Debug)]
pub struct LuminanceThreshold {
    pub threshold: f32,
}

impl LuminanceThreshold {
    /// Fails when `threshold` is outside [0.0, 1.0].
    pub fn new(threshold: f32) -> Result<Self> {
        Ok(Self { threshold: check_float(&DEF, "threshold", threshold)? })
    }
}

impl Default for LuminanceThreshold {
    fn default() -> Self {
        Self { threshold: 0.5 }
    }
}

/// Uniform; mirrors `LuminanceThresholdParams` in `luminance_threshold.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct LuminanceThresholdParams {
    pub threshold: f32,
    pub _pad: [f32; 3],
}

const WGSL: &str = include_str!("luminance_threshold.wgsl");

pub static DEF: FilterDef = FilterDef {
    name: "luminance_threshold",
    family: Family::Color,
    summary: "White where luminance (GPUImage weights) is at least the threshold, black elsewhere; alpha kept.",
    doc: "",
    gpuimage: "GPUImageLuminanceThresholdFilter",
    params: &[ParamDef::float("threshold", 0.5, 0.0, 1.0, "luminance at or above which a pixel turns white")],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(LuminanceThreshold::new(a.f32("threshold")?)?)),
    uniforms: &[UniformLayout { wgsl: WGSL, wgsl_struct: "LuminanceThresholdParams", rust_size: std::mem::size_of::<LuminanceThresholdParams>() }],
    test_inputs: None,
    schedules: &[],
};

impl PixelOp for LuminanceThreshold {
    const DEF: &'static FilterDef = &DEF;
    const WGSL: &'static str = WGSL;
    const FN_NAME: &'static str = "luminance_threshold";
    const PARAMS_STRUCT: &'static str = "LuminanceThresholdParams";
    type Params = LuminanceThresholdParams;
    fn params(&self) -> LuminanceThresholdParams {
        LuminanceThresholdParams { threshold: threshold_scaled(self.threshold), _pad: [0.0; 3] }
    }
    fn apply(&self, c: [f32; 4]) -> [f32; 4] {
        let p = self.params();
        let q = |v: f32| (v * 255.0).round();
        let l = q(c[0]) * 2125.0 + q(c[1]) * 7154.0 + q(c[2]) * 721.0;
        let v = if l >= p.threshold { 1.0 } else { 0.0 };
        [v, v, v, c[3]]
    }
}

/// The threshold on the integer scale `2125 R + 7154 G + 721 B` (R, G, B in 0..=255): the
/// GPUImage weights times 10000, so comparisons are exact in f32 on both sides.
pub fn threshold_scaled(t: f32) -> f32 {
    (t as f64 * 255.0 * 10000.0).ceil() as f32
}
