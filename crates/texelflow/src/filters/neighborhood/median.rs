//! Median at any radius. Matches GPUImage's `GPUImageMedianFilter` (radius 1, its 3x3 window)
//! and OpenCV's `medianBlur(ksize = 2 radius + 1)`: radius 1 and 2 run the selection networks
//! of `median_3x3` and `median_5x5`; larger radii a radix selection (`median.wgsl`).

use crate::error::Result;
use crate::filters::registry::{
    expect_image, input_image, slot_image, Family, Filter, FilterDef, EXACT_ENOUGH, IMAGE,
};
use crate::graph::params::{check_int, ParamDef};
use crate::image::{Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

use super::{Median3x3, Median5x5};

const WGSL: &str = include_str!("median.wgsl");

/// The radix kernel's tile: 16 x 16 outputs and a border of up to `MAX_RADIUS` (the WGSL's
/// constants).
const TILE_OUT: u32 = 16;
const MAX_RADIUS: u32 = 16;

/// Median of each channel over the (2 radius + 1)² window.
#[derive(Clone, Debug)]
pub struct Median {
    /// Window radius in pixels.
    pub radius: u32,
}

impl Median {
    /// Fails when `radius` is outside its declared range.
    pub fn new(radius: u32) -> Result<Self> {
        Ok(Self {
            radius: check_int(&DEF, "radius", radius)?,
        })
    }
}

impl Default for Median {
    fn default() -> Self {
        Self { radius: 1 }
    }
}

uniform_struct! {
    /// Uniform of median.wgsl.
    pub struct MedianParams {
        pub width: u32,
        pub height: u32,
        pub radius: u32,
        /// Samples at or below the median's rank: (2 radius + 1)² / 2.
        pub half: u32,
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "median",
    family: Family::Neighborhood,
    summary: "Median of each channel over the (2 radius + 1)² window (removes salt-and-pepper noise); replicate borders.",
    doc: "Each of R, G, B and A is the middle of its window's values. Radius 1 (GPUImage's 3x3 filter, the default) and 2 \
          run selection networks (`median_3x3`, `median_5x5`); radius 3 to 16 a radix selection: eight counting passes over \
          a workgroup tile, one per bit of the answer, exact. OpenCV's medianBlur(2 radius + 1) gives the same (it \
          replicates edges too, and has no other border). border=reflect reflects instead (OpenCV's BORDER_REFLECT_101; \
          runs as pad, the filter, crop: two extra copies).",
    gpuimage: "GPUImageMedianFilter",
    params: &[ParamDef::int("radius", 1, 1, MAX_RADIUS as i64, "window radius in pixels (OpenCV's ksize = 2 radius + 1)"), crate::filters::shape::border::BORDER_PARAM],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| crate::filters::shape::border::from_args(Box::new(Median::new(a.u32("radius")?)?), a),
    uniforms: &[MedianParams::layout(WGSL)],
    test_inputs: None,
    schedules: &[],
};

impl Filter for Median {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::Radius(self.radius)
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
    /// Sorts each channel of each window: written apart from every GPU method.
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        let (w, h) = (img.width() as i64, img.height() as i64);
        let src = img.as_u8();
        let r = self.radius as i64;
        let mut out = vec![0u8; src.len()];
        let mut window = Vec::with_capacity(((2 * r + 1) * (2 * r + 1)) as usize);
        for y in 0..h {
            for x in 0..w {
                for c in 0..4 {
                    window.clear();
                    for dy in -r..=r {
                        for dx in -r..=r {
                            let (sx, sy) = ((x + dx).clamp(0, w - 1), (y + dy).clamp(0, h - 1));
                            window.push(src[((sy * w + sx) * 4 + c) as usize]);
                        }
                    }
                    window.sort_unstable();
                    out[((y * w + x) * 4 + c) as usize] = window[window.len() / 2];
                }
            }
        }
        Ok(vec![Value::Image(Image::from_u8(
            img.width(),
            img.height(),
            PixelFormat::Rgba8,
            out,
        )?)])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        match self.radius {
            1 => Median3x3.record_gpu(rec, inputs, outputs),
            2 => Median5x5.record_gpu(rec, inputs, outputs),
            r => {
                let d = slot_image(&DEF, inputs, 0)?;
                let side = 2 * r + 1;
                let u = MedianParams {
                    width: d.width,
                    height: d.height,
                    radius: r,
                    half: side * side / 2,
                    ..Default::default()
                };
                let kernel = Kernel::new(
                    "neighborhood.median_radix",
                    &[MedianParams::WGSL, WGSL],
                    "median_radix",
                );
                rec.dispatch(
                    &kernel,
                    &[&inputs[0].buffer, &outputs[0].buffer],
                    bytemuck::bytes_of(&u),
                    groups_2d(d.width, d.height, TILE_OUT, TILE_OUT),
                )
            }
        }
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
