//! Replaces R, G, B with luminance (GPUImage weights 0.2125, 0.7154, 0.0721); RGBA out. Matches GPUImage's `GPUImageGrayscaleFilter`.

use bytemuck::{Pod, Zeroable};

use crate::filters::pixel::PixelOp;
use crate::registry::{Family, FilterDef, UniformLayout, EXACT_ENOUGH, IMAGE};

/// Replaces R, G, B with luminance (GPUImage weights 0.2125, 0.7154, 0.0721); RGBA out.
#[derive(Clone, Debug, Default)]
pub struct Grayscale;

/// Uniform (no parameters; kept so every per-pixel op has the same shape). Mirrors `GrayscaleParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct GrayscaleParams {
    pub _pad: [f32; 4],
}

const WGSL: &str = include_str!("grayscale.wgsl");

pub static DEF: FilterDef = FilterDef {
    name: "grayscale",
    family: Family::Color,
    summary: "Replaces R, G, B with luminance (GPUImage weights 0.2125, 0.7154, 0.0721); RGBA out.",
    doc: "",
    gpuimage: "GPUImageGrayscaleFilter",
    params: &[],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |_| Ok(Box::new(Grayscale)),
    uniforms: &[UniformLayout { wgsl: WGSL, wgsl_struct: "GrayscaleParams", rust_size: std::mem::size_of::<GrayscaleParams>() }],
    test_inputs: None,
    schedules: &[],
};

impl PixelOp for Grayscale {
    const DEF: &'static FilterDef = &DEF;
    const WGSL: &'static str = WGSL;
    const FN_NAME: &'static str = "grayscale";
    const PARAMS_STRUCT: &'static str = "GrayscaleParams";
    type Params = GrayscaleParams;
    fn params(&self) -> GrayscaleParams {
        GrayscaleParams { _pad: [0.0; 4] }
    }
    fn apply(&self, c: [f32; 4]) -> [f32; 4] {
        let l = crate::image::luminance(&c);
        [l, l, l, c[3]]
    }
}
