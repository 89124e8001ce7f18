//! Inverts R, G and B; alpha kept. Matches GPUImage's `GPUImageColorInvertFilter`.

use bytemuck::{Pod, Zeroable};

use crate::filters::pixel::PixelOp;
use crate::registry::{Family, FilterDef, UniformLayout, EXACT_ENOUGH, IMAGE};

/// Inverts R, G and B; alpha kept.
#[derive(Clone, Debug, Default)]
pub struct ColorInvert;

/// Uniform (no parameters; kept so every per-pixel op has the same shape). Mirrors `ColorInvertParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ColorInvertParams {
    pub _pad: [f32; 4],
}

const WGSL: &str = include_str!("color_invert.wgsl");

pub static DEF: FilterDef = FilterDef {
    name: "color_invert",
    family: Family::Color,
    summary: "Inverts R, G and B; alpha kept.",
    doc: "",
    gpuimage: "GPUImageColorInvertFilter",
    params: &[],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |_| Ok(Box::new(ColorInvert)),
    uniforms: &[UniformLayout { wgsl: WGSL, wgsl_struct: "ColorInvertParams", rust_size: std::mem::size_of::<ColorInvertParams>() }],
    test_inputs: None,
    schedules: &[],
};

impl PixelOp for ColorInvert {
    const DEF: &'static FilterDef = &DEF;
    const WGSL: &'static str = WGSL;
    const FN_NAME: &'static str = "color_invert";
    const PARAMS_STRUCT: &'static str = "ColorInvertParams";
    type Params = ColorInvertParams;
    fn params(&self) -> ColorInvertParams {
        ColorInvertParams { _pad: [0.0; 4] }
    }
    fn apply(&self, c: [f32; 4]) -> [f32; 4] {
        [1.0 - c[0], 1.0 - c[1], 1.0 - c[2], c[3]]
    }
}
