//! Alpha blend: the second image over the first, weighted by its alpha and `mix`. Matches
//! GPUImage's `GPUImageAlphaBlendFilter`.

use crate::error::{Error, Result};
use crate::filters::blend::{blend_cpu, blend_gpu, blend_outputs, BLEND_UNIFORM};
use crate::params::{check_float, ParamDef};
use crate::registry::{Family, Filter, FilterDef, PortDef, PortKind, EXACT_ENOUGH, IMAGE};
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Value, ValueDesc};

/// `rgb = mix(base.rgb, top.rgb, top.a * mix)`, alpha from the base.
#[derive(Clone, Debug)]
pub struct AlphaBlend {
    pub mix: f32,
}

impl AlphaBlend {
    /// Fails when `mix` is outside [0, 1].
    pub fn new(mix: f32) -> Result<Self> {
        Ok(Self { mix: check_float(&DEF, "mix", mix)? })
    }
    /// CPU twin of `alpha_blend` in blend.wgsl.
    pub fn blend(&self, a: [f32; 4], b: [f32; 4]) -> [f32; 4] {
        let t = b[3] * self.mix;
        [a[0] * (1.0 - t) + b[0] * t, a[1] * (1.0 - t) + b[1] * t, a[2] * (1.0 - t) + b[2] * t, a[3]]
    }
}

impl Default for AlphaBlend {
    fn default() -> Self {
        Self { mix: 0.5 }
    }
}

pub(crate) const TWO_IMAGES: &[PortDef] = &[PortDef { name: "image", kind: PortKind::Image }, PortDef { name: "with", kind: PortKind::Image }];

pub static DEF: FilterDef = FilterDef {
    name: "alpha_blend",
    family: Family::Blend,
    summary: "Blends a second image over the first by its alpha times mix.",
    doc: "Both images must have the same size.",
    gpuimage: "GPUImageAlphaBlendFilter",
    params: &[ParamDef::image("with", "the image laid over the input"), ParamDef::float("mix", 0.5, 0.0, 1.0, "weight of the top image (times its alpha)")],
    inputs: TWO_IMAGES,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(AlphaBlend::new(a.f32("mix")?)?)),
    uniforms: &[BLEND_UNIFORM],
    test_inputs: None,
    schedules: &[],
};

impl Filter for AlphaBlend {
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
            return Err(Error::Graph("alpha_blend needs two inputs".into()));
        }
        blend_gpu(rec, &DEF, "alpha_blend", self.mix, inputs, outputs)
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
