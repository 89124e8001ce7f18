//! GPUImage's `GPUImageKuwaharaRadius3Filter`: the Kuwahara filter at radius 3, which GPUImage
//! unrolls by hand. Here it is `kuwahara` at radius 3 (the same kernel, already specialised per
//! radius) with the Radius3 shader's own tie order: its quadrants are numbered top-left,
//! bottom-left, bottom-right, top-right (GPUImageKuwaharaFilter's go clockwise from top-left),
//! so on an exact tie of variances the two can pick different quadrants.

use crate::error::Result;
use crate::filters::registry::{
    expect_image, input_image, Family, Filter, FilterDef, EXACT_ENOUGH, IMAGE,
};
use crate::image::PixelFormat;
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Value, ValueDesc};

use super::kuwahara::{kuwahara_cpu, record_kuwahara};

const RADIUS: u32 = 3;
/// Quadrants (0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left) in the order the Radius3
/// shader compares them (its m0, m1, m2, m3).
const RADIUS3_ORDER: [u8; 4] = [0, 3, 2, 1];

/// `kuwahara(radius=3)` with GPUImage's Radius3 tie order.
#[derive(Clone, Debug, Default)]
pub struct KuwaharaRadius3;

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "kuwahara_radius3",
    family: Family::Neighborhood,
    summary: "Kuwahara filter at radius 3 (4x4 quadrants), GPUImage's unrolled variant; opaque.",
    doc: "kuwahara(radius=3) with GPUImageKuwaharaRadius3Filter's tie order (top-left, bottom-left, bottom-right, \
          top-right): the mean of the least varied of the four 4x4 quadrants meeting at the pixel, alpha 255; replicate borders.",
    gpuimage: "GPUImageKuwaharaRadius3Filter",
    params: &[],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |_| Ok(Box::new(KuwaharaRadius3)),
    uniforms: &[],
    test_inputs: None,
    schedules: &[],
};

impl Filter for KuwaharaRadius3 {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::Radius(RADIUS)
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        Ok(vec![ValueDesc::Image(expect_image(
            &DEF,
            inputs,
            0,
            &[PixelFormat::Rgba8],
        )?)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        Ok(vec![Value::Image(kuwahara_cpu(
            img,
            RADIUS,
            RADIUS3_ORDER,
        )?)])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        record_kuwahara(rec, &DEF, inputs, outputs, RADIUS, RADIUS3_ORDER)
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
