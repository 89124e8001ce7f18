//! Multiply blend. Matches GPUImage's `GPUImageMultiplyBlendFilter`.

use crate::error::{Error, Result};
use crate::filters::blend::alpha_blend::TWO_IMAGES;
use crate::filters::blend::{blend_cpu, blend_gpu, blend_outputs, BLEND_UNIFORM};
use crate::params::ParamDef;
use crate::registry::{Family, Filter, FilterDef, EXACT_ENOUGH, IMAGE};
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Value, ValueDesc};

/// `top * base + top * (1 - base.a) + base * (1 - top.a)` on all four channels.
#[derive(Clone, Debug, Default)]
pub struct MultiplyBlend;

impl MultiplyBlend {
    /// CPU twin of `multiply_blend` in blend.wgsl.
    pub fn blend(&self, a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
        let mut o = [0.0; 4];
        for k in 0..4 {
            o[k] = b[k] * a[k] + b[k] * (1.0 - a[3]) + a[k] * (1.0 - b[3]);
        }
        o
    }
}

pub static DEF: FilterDef = FilterDef {
    name: "multiply_blend",
    family: Family::Blend,
    summary: "Multiplies two images (GPUImage's alpha-aware multiply).",
    doc: "Both images must have the same size.",
    gpuimage: "GPUImageMultiplyBlendFilter",
    params: &[ParamDef::image("with", "the second image")],
    inputs: TWO_IMAGES,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |_| Ok(Box::new(MultiplyBlend)),
    uniforms: &[BLEND_UNIFORM],
    test_inputs: None,
    schedules: &[],
};

impl Filter for MultiplyBlend {
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        blend_outputs(&DEF, inputs)
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        blend_cpu(inputs, |a, b| self.blend(a, b))
    }
    fn record_gpu(&self, rec: &mut NodeRecorder<'_>, inputs: &[GpuSlot], outputs: &[GpuSlot]) -> Result<()> {
        if inputs.len() != 2 {
            return Err(Error::Graph("multiply_blend needs two inputs".into()));
        }
        blend_gpu(rec, &DEF, "multiply_blend", 0.0, inputs, outputs)
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
