//! Explicit format conversions between RGBA8 and single-channel Gray8 (GPUImage has none:
//! it keeps everything RGBA; these exist so masks and luminance can travel at a quarter of
//! the bytes), and RGBA16 to RGBA8 (what a pipeline puts before a filter that takes 8 bits).

use crate::error::Result;
use crate::filters::registry::{
    expect_image, input_image, slot_image, Family, Filter, FilterDef, EXACT_ENOUGH, IMAGE,
};
use crate::image::PixelFormat;
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

const WGSL: &str = include_str!("convert.wgsl");
const WG: u32 = 256;

/// RGBA8 to Gray8 luminance (GPUImage weights), rounded.
#[derive(Clone, Debug, Default)]
pub struct ToGray;

/// Gray8 to RGBA8: grey replicated into R, G, B; alpha 255. RGBA16 to RGBA8: each sample
/// rounded to the nearest 8-bit level.
#[derive(Clone, Debug, Default)]
pub struct ToRgba;

/// The `to_gray` filter's registry entry.
pub static TO_GRAY: FilterDef = FilterDef {
    name: "to_gray",
    family: Family::Convert,
    summary: "RGBA8 to single-channel Gray8 luminance (GPUImage weights).",
    doc: "Output is a gray8 image (one byte per pixel); save it as a greyscale file or feed it to filters that accept gray8 (dilation, erosion, opening, closing).",
    gpuimage: "",
    params: &[],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |_| Ok(Box::new(ToGray)),
    uniforms: &[],
    test_inputs: None,
    schedules: &[],
};

/// The `to_rgba` filter's registry entry.
pub static TO_RGBA: FilterDef = FilterDef {
    name: "to_rgba",
    family: Family::Convert,
    summary: "Gray8 or RGBA16 to RGBA8 (grey in R, G, B, opaque; 16-bit samples rounded to nearest). RGBA8 input passes through.",
    doc: "Pipelines put it before a filter that takes 8-bit images only when they feed it a 16-bit one.",
    gpuimage: "",
    params: &[],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |_| Ok(Box::new(ToRgba)),
    uniforms: &[],
    test_inputs: None,
    schedules: &[],
};

/// Registry entries of this family.
pub static DEFS: &[&FilterDef] = &[&TO_GRAY, &TO_RGBA];

fn dims(d: crate::ImageDesc) -> [u32; 4] {
    [d.width, d.height, d.width.div_ceil(4), 0]
}

impl Filter for ToGray {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::Pixel
    }
    fn def(&self) -> &'static FilterDef {
        &TO_GRAY
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(
            &TO_GRAY,
            inputs,
            0,
            &[PixelFormat::Rgba8, PixelFormat::Gray8],
        )?;
        Ok(vec![ValueDesc::Image(d.with_format(PixelFormat::Gray8))])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        Ok(vec![Value::Image(
            input_image(&TO_GRAY, inputs, 0)?.convert(PixelFormat::Gray8),
        )])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let d = slot_image(self.def(), inputs, 0)?;
        let u = dims(d);
        if d.format == PixelFormat::Gray8 {
            return rec.dispatch(
                &Kernel::new("convert", &[WGSL], "copy_words"),
                &[&inputs[0].buffer, &outputs[0].buffer],
                bytemuck::bytes_of(&u),
                groups_1d(u[2] as u64 * d.height as u64, WG),
            );
        }
        rec.dispatch(
            &Kernel::new("convert", &[WGSL], "rgba_to_gray"),
            &[&inputs[0].buffer, &outputs[0].buffer],
            bytemuck::bytes_of(&u),
            groups_1d(u[2] as u64 * d.height as u64, WG),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

impl Filter for ToRgba {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::Pixel
    }
    fn def(&self) -> &'static FilterDef {
        &TO_RGBA
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(
            &TO_RGBA,
            inputs,
            0,
            &[PixelFormat::Rgba8, PixelFormat::Gray8, PixelFormat::Rgba16],
        )?;
        Ok(vec![ValueDesc::Image(d.with_format(PixelFormat::Rgba8))])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        Ok(vec![Value::Image(
            input_image(&TO_RGBA, inputs, 0)?.convert(PixelFormat::Rgba8),
        )])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let d = slot_image(self.def(), inputs, 0)?;
        let u = dims(d);
        let (entry, per_invocation) = match d.format {
            PixelFormat::Gray8 => ("gray_to_rgba", 1),
            PixelFormat::Rgba16 => ("rgba16_to_rgba8", 1),
            _ => ("copy_pixels", 4),
        };
        rec.dispatch(
            &Kernel::new("convert", &[WGSL], entry),
            &[&inputs[0].buffer, &outputs[0].buffer],
            bytemuck::bytes_of(&u),
            groups_1d((d.pixels() as u64).div_ceil(per_invocation), WG),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
