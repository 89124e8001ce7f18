//! Bilateral filter (edge-preserving smoothing), as OpenCV's `bilateralFilter` on 8-bit colour:
//! the window is the disc of `radius` pixels, the spatial weight exp(-d² / 2σs²), the range
//! weight exp(-D² / 2σc²) with D the L1 distance of the colours in 8-bit levels (OpenCV's
//! choice for 3 channels). GPUImage's `GPUImageBilateralFilter` approximates this with two
//! separable 9-tap passes; this is the full 2D filter. Borders replicate the edge pixel
//! (OpenCV's `BORDER_REPLICATE`), or with `border=reflect` reflect as OpenCV's default
//! (BORDER_REFLECT_101, through pad and crop: `shape::border`); alpha is kept.

use bytemuck::{Pod, Zeroable};

use crate::error::Result;
use crate::image::{unorm8, Image, PixelFormat};
use crate::params::{check_float, check_int, ParamDef};
use crate::registry::{EXACT_ENOUGH, Family, Filter, FilterDef, IMAGE, UniformLayout, expect_image, input_image, slot_image};
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

const WGSL: &str = include_str!("bilateral.wgsl");

#[derive(Clone, Debug)]
pub struct Bilateral {
    pub radius: u32,
    pub sigma_color: f32,
    pub sigma_space: f32,
}

impl Bilateral {
    pub fn new(radius: u32, sigma_color: f32, sigma_space: f32) -> Result<Self> {
        Ok(Self { radius: check_int(&DEF, "radius", radius)?, sigma_color: check_float(&DEF, "sigma_color", sigma_color)?, sigma_space: check_float(&DEF, "sigma_space", sigma_space)? })
    }
    fn params(&self, width: u32, height: u32) -> BilateralParams {
        BilateralParams {
            width,
            height,
            radius: self.radius as i32,
            _pad0: 0,
            space_coeff: -0.5 / (self.sigma_space * self.sigma_space),
            color_coeff: -0.5 / (self.sigma_color * self.sigma_color),
            _pad1: 0,
            _pad2: 0,
        }
    }
}

impl Default for Bilateral {
    fn default() -> Self {
        Self { radius: 5, sigma_color: 30.0, sigma_space: 3.0 }
    }
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct BilateralParams {
    pub width: u32,
    pub height: u32,
    pub radius: i32,
    pub _pad0: u32,
    pub space_coeff: f32,
    pub color_coeff: f32,
    pub _pad1: u32,
    pub _pad2: u32,
}

pub static DEF: FilterDef = FilterDef {
    name: "bilateral",
    family: Family::Neighborhood,
    summary: "Edge-preserving smoothing: a mean over a disc weighted by distance and colour difference; alpha kept.",
    doc: "OpenCV's bilateralFilter for 8-bit colour: the disc of `radius` pixels (OpenCV's d = 2 radius + 1), spatial \
          weight exp(-d² / 2 sigma_space²), range weight exp(-D² / 2 sigma_color²) with D = |ΔR| + |ΔG| + |ΔB| in levels \
          (0-255; on Gray8 the one channel's |Δ|, as OpenCV's one-channel filter); result rounded to 8 bits. Borders replicate the edge pixel; border=reflect reflects as OpenCV's default \
          (BORDER_REFLECT_101; runs as pad, the filter, crop: two extra copies). GPUImage's GPUImageBilateralFilter is a \
          separable approximation of this.",
    gpuimage: "GPUImageBilateralFilter",
    params: &[
        ParamDef::int("radius", 5, 1, 16, "window radius in pixels (OpenCV's d = 2 radius + 1)"),
        ParamDef::float("sigma_color", 30.0, 0.1, 1000.0, "range sigma, in 8-bit levels of the summed channel differences"),
        ParamDef::float("sigma_space", 3.0, 0.1, 100.0, "spatial sigma, in pixels"),
        crate::filters::shape::border::BORDER_PARAM,
    ],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| crate::filters::shape::border::from_args(Box::new(Bilateral::new(a.u32("radius")?, a.f32("sigma_color")?, a.f32("sigma_space")?)?), a),
    uniforms: &[UniformLayout {
        wgsl: WGSL,
        wgsl_struct: "BilateralParams",
        rust_size: std::mem::size_of::<BilateralParams>(),
        fields: &[
            ("width", std::mem::offset_of!(BilateralParams, width)),
            ("height", std::mem::offset_of!(BilateralParams, height)),
            ("radius", std::mem::offset_of!(BilateralParams, radius)),
            ("space_coeff", std::mem::offset_of!(BilateralParams, space_coeff)),
            ("color_coeff", std::mem::offset_of!(BilateralParams, color_coeff)),
        ],
    }],
    test_inputs: None,
    schedules: &[],
};

impl Filter for Bilateral {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::registry::Footprint {
        crate::registry::Footprint::Radius(self.radius)
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        Ok(vec![ValueDesc::Image(expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8, PixelFormat::Gray8])?)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        let (w, h) = (img.width() as i32, img.height() as i32);
        let p = self.params(img.width(), img.height());
        let src = img.as_u8();
        // RGBA8: R, G, B filtered, the range distance their L1 sum, alpha kept; Gray8: one channel
        let ch = if img.format() == PixelFormat::Gray8 { 1 } else { 4 };
        let colours = ch.min(3);
        let r = self.radius as i32;
        let texel = |x: i32, y: i32| -> [f32; 4] {
            let i = (y.clamp(0, h - 1) * w + x.clamp(0, w - 1)) as usize * ch;
            // the GPU's unpack4x8unorm times 255: the byte as f32 (up to its rounding of b / 255)
            std::array::from_fn(|k| if k < ch { src[i + k] as f32 / 255.0 * 255.0 } else { 0.0 })
        };
        let mut out = vec![0u8; src.len()];
        for y in 0..h {
            for x in 0..w {
                let c = texel(x, y);
                let (mut sum, mut wsum) = ([0f32; 3], 0f32);
                for dy in -r..=r {
                    for dx in -r..=r {
                        let d2 = dx * dx + dy * dy;
                        if d2 > r * r {
                            continue;
                        }
                        let q = texel(x + dx, y + dy);
                        let l1: f32 = (0..colours).map(|k| (q[k] - c[k]).abs()).sum();
                        let wt = (d2 as f32 * p.space_coeff + l1 * l1 * p.color_coeff).exp();
                        for k in 0..colours {
                            sum[k] += q[k] * wt;
                        }
                        wsum += wt;
                    }
                }
                let i = (y * w + x) as usize * ch;
                for k in 0..colours {
                    out[i + k] = unorm8(sum[k] / wsum / 255.0);
                }
                if ch == 4 {
                    out[i + 3] = src[i + 3];
                }
            }
        }
        Ok(vec![Value::Image(Image::from_u8(img.width(), img.height(), img.format(), out)?)])
    }
    fn record_gpu(&self, rec: &mut NodeRecorder<'_>, inputs: &[GpuSlot], outputs: &[GpuSlot]) -> Result<()> {
        let d = slot_image(&DEF, inputs, 0)?;
        let u = self.params(d.width, d.height);
        if d.format == PixelFormat::Gray8 {
            // one invocation per packed word of 4 pixels (a row padded to whole words)
            let kernel = Kernel::new("neighborhood.bilateral_gray", &[WGSL], "bilateral_gray");
            return rec.dispatch(&kernel, &[&inputs[0].buffer, &outputs[0].buffer], bytemuck::bytes_of(&u), groups_2d(d.width.div_ceil(4), d.height, 16, 16));
        }
        let kernel = Kernel::new("neighborhood.bilateral", &[WGSL], "bilateral");
        rec.dispatch(&kernel, &[&inputs[0].buffer, &outputs[0].buffer], bytemuck::bytes_of(&u), groups_2d(d.width, d.height, 16, 16))
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
