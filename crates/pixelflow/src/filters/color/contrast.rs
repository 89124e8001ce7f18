//! Scales R, G and B around mid-grey. Matches GPUImage's `GPUImageContrastFilter`.

use bytemuck::{Pod, Zeroable};

use crate::error::Result;
use crate::filters::pixel::PixelOp;
use crate::params::{check_float, ParamDef};
use crate::registry::{Family, FilterDef, UniformLayout, EXACT_ENOUGH, IMAGE};

/// Scales R, G and B around mid-grey.
#[derive(Clone, Debug)]
pub struct Contrast {
    pub contrast: f32,
}

impl Contrast {
    /// Fails when `contrast` is outside [0.0, 4.0].
    pub fn new(contrast: f32) -> Result<Self> {
        Ok(Self { contrast: check_float(&DEF, "contrast", contrast)? })
    }
}

impl Default for Contrast {
    fn default() -> Self {
        Self { contrast: 1.0 }
    }
}

/// Uniform; mirrors `ContrastParams` in `contrast.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ContrastParams {
    pub contrast: f32,
    pub _pad: [f32; 3],
}

const WGSL: &str = include_str!("contrast.wgsl");

pub static DEF: FilterDef = FilterDef {
    name: "contrast",
    family: Family::Color,
    summary: "Scales R, G and B around mid-grey.",
    doc: "",
    gpuimage: "GPUImageContrastFilter",
    params: &[ParamDef::float("contrast", 1.0, 0.0, 4.0, "scale of R, G, B around mid-grey 0.5")],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(Contrast::new(a.f32("contrast")?)?)),
    uniforms: &[UniformLayout { wgsl: WGSL, wgsl_struct: "ContrastParams", rust_size: std::mem::size_of::<ContrastParams>() }],
    test_inputs: None,
    schedules: &[],
};

impl PixelOp for Contrast {
    const DEF: &'static FilterDef = &DEF;
    const WGSL: &'static str = WGSL;
    const FN_NAME: &'static str = "contrast";
    const PARAMS_STRUCT: &'static str = "ContrastParams";
    type Params = ContrastParams;
    fn params(&self) -> ContrastParams {
        ContrastParams { contrast: self.contrast, _pad: [0.0; 3] }
    }
    fn apply(&self, c: [f32; 4]) -> [f32; 4] {
        let p = self.params();
        let f = |v: f32| (v - 0.5) * p.contrast + 0.5;
        [f(c[0]), f(c[1]), f(c[2]), c[3]]
    }
}
