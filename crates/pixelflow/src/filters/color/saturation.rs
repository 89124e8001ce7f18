//! Mixes each pixel with its luminance (GPUImage weights). Matches GPUImage's `GPUImageSaturationFilter`.

use bytemuck::{Pod, Zeroable};

use crate::error::Result;
use crate::filters::pixel::PixelOp;
use crate::params::{check_float, ParamDef};
use crate::registry::{Family, FilterDef, UniformLayout, EXACT_ENOUGH, IMAGE};

/// Mixes each pixel with its luminance (GPUImage weights).
#[derive(Clone, Debug)]
pub struct Saturation {
    pub saturation: f32,
}

impl Saturation {
    /// Fails when `saturation` is outside [0.0, 2.0].
    pub fn new(saturation: f32) -> Result<Self> {
        Ok(Self { saturation: check_float(&DEF, "saturation", saturation)? })
    }
}

impl Default for Saturation {
    fn default() -> Self {
        Self { saturation: 1.0 }
    }
}

/// Uniform; mirrors `SaturationParams` in `saturation.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct SaturationParams {
    pub saturation: f32,
    pub _pad: [f32; 3],
}

const WGSL: &str = include_str!("saturation.wgsl");

pub static DEF: FilterDef = FilterDef {
    name: "saturation",
    family: Family::Color,
    summary: "Mixes each pixel with its luminance (GPUImage weights).",
    doc: "",
    gpuimage: "GPUImageSaturationFilter",
    params: &[ParamDef::float("saturation", 1.0, 0.0, 2.0, "0 is greyscale, 1 unchanged, 2 doubly saturated")],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(Saturation::new(a.f32("saturation")?)?)),
    uniforms: &[UniformLayout { wgsl: WGSL, wgsl_struct: "SaturationParams", rust_size: std::mem::size_of::<SaturationParams>() }],
    test_inputs: None,
    schedules: &[],
};

impl PixelOp for Saturation {
    const DEF: &'static FilterDef = &DEF;
    const WGSL: &'static str = WGSL;
    const FN_NAME: &'static str = "saturation";
    const PARAMS_STRUCT: &'static str = "SaturationParams";
    type Params = SaturationParams;
    fn params(&self) -> SaturationParams {
        SaturationParams { saturation: self.saturation, _pad: [0.0; 3] }
    }
    fn apply(&self, c: [f32; 4]) -> [f32; 4] {
        let p = self.params();
        let l = crate::image::luminance(&c);
        let f = |v: f32| l * (1.0 - p.saturation) + v * p.saturation;
        [f(c[0]), f(c[1]), f(c[2]), c[3]]
    }
}
