//! Bilinear resize of an RGBA8 image: GPUImage's `forceProcessingAtSize` (which lets the GPU's
//! bilinear texture filtering resample), as an explicit filter.
//!
//! Pixel-centre alignment exactly as OpenCV's `INTER_LINEAR`: the source coordinate of output
//! pixel `d` is `(d + 0.5) * in / out - 0.5`, clamped to `[0, in - 1]`; no antialiasing (large
//! reductions alias, as in GPUImage and OpenCV). All four channels, alpha included, are
//! interpolated independently (no premultiplication) in f32 and rounded; OpenCV uses 11-bit
//! fixed-point weights instead, so results can differ from it by one step.

use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::runtime::wgsl_template::specialize;
use crate::image::{Image, PixelFormat, MAX_SIDE};
use crate::params::{check_float, check_int, ParamDef};
use crate::registry::{EXACT_ENOUGH, Family, Filter, FilterDef, IMAGE, UniformLayout, expect_image, input_image, slot_image};
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

const WGSL: &str = include_str!("resize.wgsl");
const ROWS_WGSL: &str = include_str!("resize_rows.wgsl");
/// Invocations per workgroup, 4 output pixels each. Schedule choice, not algorithm; mirrors
/// `@workgroup_size` in resize.wgsl.
const RESIZE_WG: u32 = 256;
/// Schedule `rows`: invocations per workgroup (4 output columns each; mirrors `WG` and
/// `@workgroup_size` in resize_rows.wgsl) and the default output rows per invocation (`RB`).
const ROWS_WG: u32 = 64;
const ROWS_RB: u32 = 8;

/// Resizes to `width` x `height`; a zero side comes from `scale` instead.
#[derive(Clone, Debug)]
pub struct Resize {
    pub scale: f32,
    pub width: u32,
    pub height: u32,
}

impl Resize {
    /// Fails when a value is outside its declared range.
    pub fn new(scale: f32, width: u32, height: u32) -> Result<Self> {
        Ok(Self { scale: check_float(&DEF, "scale", scale)?, width: check_int(&DEF, "width", width)?, height: check_int(&DEF, "height", height)? })
    }
    /// Both sides multiplied by `scale`.
    pub fn by(scale: f32) -> Result<Self> {
        Self::new(scale, 0, 0)
    }
    /// An exact output size.
    pub fn to(width: u32, height: u32) -> Result<Self> {
        Self::new(1.0, width, height)
    }
    /// Output size for a `w` x `h` input.
    pub fn out_size(&self, w: u32, h: u32) -> Result<(u32, u32)> {
        let side = |given: u32, input: u32| if given > 0 { given } else { (input as f64 * self.scale as f64).round().max(1.0) as u32 };
        let (ow, oh) = (side(self.width, w), side(self.height, h));
        if ow > MAX_SIDE || oh > MAX_SIDE {
            return Err(Error::Graph(format!("`resize` of {w}x{h} would give {ow}x{oh}, larger than the supported {MAX_SIDE}x{MAX_SIDE}")));
        }
        Ok((ow, oh))
    }
}

impl Default for Resize {
    fn default() -> Self {
        Self { scale: 1.0, width: 0, height: 0 }
    }
}

/// Uniform; mirrors `ResizeParams` in resize.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct ResizeParams {
    pub in_width: u32,
    pub in_height: u32,
    pub out_width: u32,
    pub out_height: u32,
    pub ratio_x: f32,
    pub ratio_y: f32,
    pub _pad: [u32; 2],
}

impl ResizeParams {
    fn new(w: u32, h: u32, ow: u32, oh: u32) -> Self {
        Self { in_width: w, in_height: h, out_width: ow, out_height: oh, ratio_x: w as f32 / ow as f32, ratio_y: h as f32 / oh as f32, _pad: [0; 2] }
    }
}

pub static DEF: FilterDef = FilterDef {
    name: "resize",
    family: Family::Geometry,
    summary: "Bilinear resize (OpenCV INTER_LINEAR alignment) by a scale or to an exact size.",
    doc: "Output width = `width`, or round(input width * scale) when width is 0 (likewise height), so \
resize(scale=0.5) halves both sides and resize(width=640, height=480) ignores scale. Source coordinate \
(d + 0.5) * in / out - 0.5 clamped to [0, in - 1] (OpenCV INTER_LINEAR alignment), bilinear in f32 on all four \
channels (alpha too, not premultiplied), no antialiasing when shrinking.",
    gpuimage: "forceProcessingAtSize",
    params: &[
        ParamDef::float("scale", 1.0, 0.01, 16.0, "factor for each side whose explicit size is 0"),
        ParamDef::int("width", 0, 0, MAX_SIDE as i64, "output width in pixels; 0 = input width * scale"),
        ParamDef::int("height", 0, 0, MAX_SIDE as i64, "output height in pixels; 0 = input height * scale"),
    ],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(Resize::new(a.f32("scale")?, a.u32("width")?, a.u32("height")?)?)),
    uniforms: &[UniformLayout { wgsl: WGSL, wgsl_struct: "ResizeParams", rust_size: std::mem::size_of::<ResizeParams>(), fields: &[("in_width", std::mem::offset_of!(ResizeParams, in_width)), ("in_height", std::mem::offset_of!(ResizeParams, in_height)), ("out_width", std::mem::offset_of!(ResizeParams, out_width)), ("out_height", std::mem::offset_of!(ResizeParams, out_height)), ("ratio_x", std::mem::offset_of!(ResizeParams, ratio_x)), ("ratio_y", std::mem::offset_of!(ResizeParams, ratio_y))] }],
    test_inputs: None,
    schedules: &["quads", "rows", "rows_any", "rows16_mu"],
};

/// CPU twin of `resize.wgsl` for output pixel (x, y).
fn resize_pixel(src: &[u8], p: &ResizeParams, x: u32, y: u32) -> [u8; 4] {
    let fx = ((x as f32 + 0.5) * p.ratio_x - 0.5).clamp(0.0, (p.in_width - 1) as f32);
    let fy = ((y as f32 + 0.5) * p.ratio_y - 0.5).clamp(0.0, (p.in_height - 1) as f32);
    let (x0, y0) = (fx as u32, fy as u32);
    let x1 = (x0 + 1).min(p.in_width - 1);
    let y1 = (y0 + 1).min(p.in_height - 1);
    let (tx, ty) = (fx - x0 as f32, fy - y0 as f32);
    let at = |x: u32, y: u32, c: usize| src[((y * p.in_width + x) * 4) as usize + c] as f32;
    let mut out = [0u8; 4];
    for (c, o) in out.iter_mut().enumerate() {
        let (p00, p10, p01, p11) = (at(x0, y0, c), at(x1, y0, c), at(x0, y1, c), at(x1, y1, c));
        let top = p00 + (p10 - p00) * tx;
        let bottom = p01 + (p11 - p01) * tx;
        let v = top + (bottom - top) * ty;
        // Truncation of v + 0.5 (v >= -0.5 as a convex combination), as the kernel's u32().
        *o = (v + 0.5) as u8;
    }
    out
}

impl Filter for Resize {
    fn footprint(&self, inputs: &[ValueDesc]) -> crate::registry::Footprint {
        let Some(d) = inputs.first().and_then(|d| d.image()) else { return crate::registry::Footprint::WholeImage };
        match self.out_size(d.width, d.height) {
            // bilinear, OpenCV's INTER_LINEAR alignment: two taps around (x + 0.5) * s - 0.5
            Ok((w, h)) => crate::registry::Footprint::Resample { scale: [d.width as f64 / w as f64, d.height as f64 / h as f64], offset: [0.0, 0.0], margin: 1 },
            Err(_) => crate::registry::Footprint::WholeImage,
        }
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8])?;
        let (w, h) = self.out_size(d.width, d.height)?;
        Ok(vec![ValueDesc::Image(crate::ImageDesc::new(w, h, PixelFormat::Rgba8))])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        let (ow, oh) = self.out_size(img.width(), img.height())?;
        let p = ResizeParams::new(img.width(), img.height(), ow, oh);
        let src = img.as_u8();
        let mut out = vec![0u8; ow as usize * oh as usize * 4];
        out.par_chunks_mut(ow as usize * 4).enumerate().for_each(|(y, row)| {
            for (x, o) in row.chunks_exact_mut(4).enumerate() {
                o.copy_from_slice(&resize_pixel(src, &p, x as u32, y as u32));
            }
        });
        Ok(vec![Value::Image(Image::from_u8(ow, oh, PixelFormat::Rgba8, out)?)])
    }
    fn record_gpu(&self, rec: &mut NodeRecorder<'_>, inputs: &[GpuSlot], outputs: &[GpuSlot]) -> Result<()> {
        let d = slot_image(&DEF, inputs, 0)?;
        let (ow, oh) = self.out_size(d.width, d.height)?;
        let u = ResizeParams::new(d.width, d.height, ow, oh);
        // Schedules: `quads` (4 consecutive output pixels of the row-major order per
        // invocation, each pixel computed on its own) and `rows` (resize_rows.wgsl: 4 columns
        // walked down RB rows, horizontal interpolations shared by the output rows that use the
        // same source row), which needs an output width that is a multiple of 4 and only pays
        // off when no side shrinks; other shapes take `quads`. `rows16` is `rows` with 16 rows
        // per invocation; `rows_any` is `rows` for shrinking too (for tests and the bench).
        // Default `rows16`: H200 run 18b at 4K, 1080p->4K 0.0302 ms (1.41x copy) against
        // `rows` 0.0311 ms and `quads` 0.0471 ms (2.21x); `rows_any` shrinking 4K->1080p
        // 0.0262 ms against `quads` 0.0215 ms, so shrinking stays on `quads`.
        let variant = crate::runtime::schedule::get(DEF.name);
        let rows = match variant.as_deref() {
            Some("quads") => None,
            Some("rows") => Some((ROWS_RB, false, 0, 0)),
            None | Some("rows16") => Some((16, false, 0, 0)),
            // longer walks (session 6: bench comparisons against `rows16`)
            Some("rows32") => Some((32, false, 0, 0)),
            Some("rows64") => Some((64, false, 0, 0)),
            Some("rows_any") => Some((ROWS_RB, true, 0, 0)),
            // unpacking without conversions (session 8), and a bench-only ablation of the
            // output rounding's conversions (wrong at ties, so not in `DEF.schedules`)
            Some("rows16_mu") => Some((16, false, 1, 0)),
            Some("rows16_ablate_round") if cfg!(feature = "bench") => Some((16, false, 1, 1)),
            Some(other) => return Err(crate::runtime::schedule::unknown(DEF.name, other, &["quads", "rows", "rows16", "rows32", "rows64", "rows_any", "rows16_mu", "rows16_ablate_round"])),
        };
        if let Some((rb, any_ratio, mu, ar)) = rows {
            if ow % 4 == 0 && (any_ratio || (ow >= d.width && oh >= d.height)) {
                let mut kernel = Kernel::new(&format!("geometry.resize.rows.rb{rb}.mu{mu}.ar{ar}"), &[], "resize_rows");
                kernel.generated = Some(specialize(&format!("{WGSL}\n{ROWS_WGSL}"), &[("RB", rb), ("MU", mu), ("AR", ar)])?);
                return rec.dispatch(&kernel, &[&inputs[0].buffer, &outputs[0].buffer], bytemuck::bytes_of(&u), [(ow / 4).div_ceil(ROWS_WG), oh.div_ceil(rb), 1]);
            }
        }
        let kernel = Kernel::new("geometry.resize", &[WGSL], "resize");
        rec.dispatch(&kernel, &[&inputs[0].buffer, &outputs[0].buffer], bytemuck::bytes_of(&u), groups_1d((ow as u64 * oh as u64).div_ceil(4), RESIZE_WG))
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
