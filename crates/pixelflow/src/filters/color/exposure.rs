//! Multiplies R, G and B by 2^exposure. Matches GPUImage's `GPUImageExposureFilter`.

use bytemuck::{Pod, Zeroable};

use crate::error::Result;
use crate::filters::pixel::PixelOp;
use crate::params::{check_float, ParamDef};
use crate::registry::{Family, FilterDef, UniformLayout, EXACT_ENOUGH, IMAGE};

/// Multiplies R, G and B by 2^exposure.
#[derive(Clone, Debug)]
pub struct Exposure {
    pub exposure: f32,
}

impl Exposure {
    /// Fails when `exposure` is outside [-10.0, 10.0].
    pub fn new(exposure: f32) -> Result<Self> {
        Ok(Self { exposure: check_float(&DEF, "exposure", exposure)? })
    }
}

impl Default for Exposure {
    fn default() -> Self {
        Self { exposure: 0.0 }
    }
}

/// Uniform; mirrors `ExposureParams` in `exposure.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ExposureParams {
    pub exposure: f32,
    pub _pad: [f32; 3],
}

const WGSL: &str = include_str!("exposure.wgsl");

pub static DEF: FilterDef = FilterDef {
    name: "exposure",
    family: Family::Color,
    summary: "Multiplies R, G and B by 2^exposure.",
    doc: "",
    gpuimage: "GPUImageExposureFilter",
    params: &[ParamDef::float("exposure", 0.0, -10.0, 10.0, "exposure in stops: R, G, B are multiplied by 2^exposure")],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(Exposure::new(a.f32("exposure")?)?)),
    uniforms: &[UniformLayout { wgsl: WGSL, wgsl_struct: "ExposureParams", rust_size: std::mem::size_of::<ExposureParams>() }],
    test_inputs: None,
    schedules: &[],
};

impl PixelOp for Exposure {
    const DEF: &'static FilterDef = &DEF;
    const WGSL: &'static str = WGSL;
    const FN_NAME: &'static str = "exposure";
    const PARAMS_STRUCT: &'static str = "ExposureParams";
    type Params = ExposureParams;
    fn params(&self) -> ExposureParams {
        ExposureParams { exposure: self.exposure.exp2(), _pad: [0.0; 3] }
    }
    fn apply(&self, c: [f32; 4]) -> [f32; 4] {
        let p = self.params();
        [c[0] * p.exposure, c[1] * p.exposure, c[2] * p.exposure, c[3]]
    }
}
