//! Adds a constant to R, G and B. Matches GPUImage's `GPUImageBrightnessFilter`.

use bytemuck::{Pod, Zeroable};

use crate::error::Result;
use crate::filters::pixel::PixelOp;
use crate::params::{check_float, ParamDef};
use crate::registry::{Family, FilterDef, UniformLayout, EXACT_ENOUGH, IMAGE};

/// Adds a constant to R, G and B.
#[derive(Clone, Debug)]
pub struct Brightness {
    pub brightness: f32,
}

impl Brightness {
    /// Fails when `brightness` is outside [-1.0, 1.0].
    pub fn new(brightness: f32) -> Result<Self> {
        Ok(Self { brightness: check_float(&DEF, "brightness", brightness)? })
    }
}

impl Default for Brightness {
    fn default() -> Self {
        Self { brightness: 0.0 }
    }
}

/// Uniform; mirrors `BrightnessParams` in `brightness.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct BrightnessParams {
    pub brightness: f32,
    pub _pad: [f32; 3],
}

const WGSL: &str = include_str!("brightness.wgsl");

pub static DEF: FilterDef = FilterDef {
    name: "brightness",
    family: Family::Color,
    summary: "Adds a constant to R, G and B.",
    doc: "",
    gpuimage: "GPUImageBrightnessFilter",
    params: &[ParamDef::float("brightness", 0.0, -1.0, 1.0, "offset added to R, G and B")],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(Brightness::new(a.f32("brightness")?)?)),
    uniforms: &[UniformLayout { wgsl: WGSL, wgsl_struct: "BrightnessParams", rust_size: std::mem::size_of::<BrightnessParams>() }],
    test_inputs: None,
    schedules: &[],
};

impl PixelOp for Brightness {
    const DEF: &'static FilterDef = &DEF;
    const WGSL: &'static str = WGSL;
    const FN_NAME: &'static str = "brightness";
    const PARAMS_STRUCT: &'static str = "BrightnessParams";
    type Params = BrightnessParams;
    fn params(&self) -> BrightnessParams {
        BrightnessParams { brightness: self.brightness, _pad: [0.0; 3] }
    }
    fn apply(&self, c: [f32; 4]) -> [f32; 4] {
        let p = self.params();
        [c[0] + p.brightness, c[1] + p.brightness, c[2] + p.brightness, c[3]]
    }
}
