//! Guided filter (He, Sun and Tang), in its fast subsampled form, for matting: refines the
//! input's alpha (a rough mask) along the edges of its colour image. Matches aoce's
//! `createGuidedLayer` (`VkGuidedLayer`: subsample, box means, solve for a and b, box them,
//! upsample, q = a·I + b written as alpha); OpenCV's counterpart is
//! `cv::ximgproc::guidedFilter` (opencv_contrib).
//!
//! Guide I: the luminance of R, G, B (GPUImage's weights; aoce uses the RGB guide with a 3x3
//! covariance, this is the grey guide of the paper's section 3). Filtered input p: the input's
//! alpha; to refine a mask from a file, put it into alpha first: `mask(with=rough.png) |
//! guided_filter`. On the grid subsampled by `scale` (block means):
//! mean_I = box(I), mean_p = box(p), corr_Ip = box(I·p), var_I = box(I·I) - mean_I²,
//! a = (corr_Ip - mean_I·mean_p) / (var_I + eps), b = mean_p - a·mean_I; then box(a), box(b)
//! upsampled bilinearly and q = box(a)·I + box(b) at full resolution, clamped to [0, 1].
//!
//! Not a composite: `box_blur` and the per-pixel filters take 8- and 16-bit images, and the
//! variance needs f32 (aoce's eps = 1e-6 is far below a 16-bit step of I², 1.5e-5). Six small passes, all f32
//! (`guided_filter*.wgsl`); the twin below does the same operations in the same order.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_image, input_image, slot_image, Family, Filter, FilterDef, Footprint, Tolerance, IMAGE,
};
use crate::graph::params::{check_float, check_int, ParamDef};
use crate::image::{unorm8, Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

const COMMON: &str = include_str!("guided_filter.wgsl");
const DOWN: &str = include_str!("guided_filter_down.wgsl");
const BOX: &str = include_str!("guided_filter_box.wgsl");
const APPLY: &str = include_str!("guided_filter_apply.wgsl");

/// GPUImage's luminance weights (as `grayscale`).
const LUMA: [f32; 3] = [0.2125, 0.7154, 0.0721];

/// Fast guided filter of the input's alpha, guided by its luminance.
#[derive(Clone, Debug)]
pub struct GuidedFilter {
    /// Box radius in full-resolution pixels.
    pub radius: u32,
    /// Regularisation, in units of I² (I in [0, 1]): larger smooths across weaker edges.
    pub eps: f32,
    /// Subsampling factor (1: the exact filter).
    pub scale: u32,
}

impl GuidedFilter {
    /// Fails on parameters out of their declared ranges.
    pub fn new(radius: u32, eps: f32, scale: u32) -> Result<Self> {
        Ok(Self {
            radius: check_int(&DEF, "radius", radius)?,
            eps: check_float(&DEF, "eps", eps)?,
            scale: check_int(&DEF, "scale", scale)?,
        })
    }
    /// The box radius on the subsampled grid: radius / scale rounded, at least 1.
    pub fn low_radius(&self) -> u32 {
        ((self.radius + self.scale / 2) / self.scale).max(1)
    }
    fn params(&self, width: u32, height: u32) -> GuidedParams {
        let r = self.low_radius();
        let n = (2 * r + 1) as f32;
        GuidedParams {
            width,
            height,
            low_width: width.div_ceil(self.scale),
            low_height: height.div_ceil(self.scale),
            scale: self.scale,
            radius: r,
            eps: self.eps,
            inv_block: 1.0 / (self.scale * self.scale) as f32,
            inv_window: 1.0 / (n * n),
            inv_scale: 1.0 / self.scale as f32,
            ..Default::default()
        }
    }
}

impl Default for GuidedFilter {
    fn default() -> Self {
        Self {
            radius: 40,
            eps: 1e-4,
            scale: 8,
        }
    }
}

uniform_struct! {
    /// Uniform of the guided filter's kernels (guided_filter.wgsl and its passes).
    pub struct GuidedParams {
        pub width: u32,
        pub height: u32,
        /// The subsampled grid: ceil(width / scale) x ceil(height / scale).
        pub low_width: u32,
        pub low_height: u32,
        pub scale: u32,
        /// Box radius on the subsampled grid.
        pub radius: u32,
        pub eps: f32,
        /// 1 / scale², 1 / (2 radius + 1)², 1 / scale
        pub inv_block: f32,
        pub inv_window: f32,
        pub inv_scale: f32,
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "guided_filter",
    family: Family::Neighborhood,
    summary: "Fast guided filter for matting: refines the alpha (a rough mask) along the edges of the image's luminance.",
    doc: "He, Sun and Tang's guided filter with the image's luminance as guide I and its alpha as the filtered p \
          (put a mask file into alpha first: `mask(with=rough.png) | guided_filter`). On a grid subsampled by `scale` \
          (block means): a = cov(I, p) / (var(I) + eps), b = mean(p) - a mean(I) over boxes of `radius` / `scale` \
          (rounded, at least 1) grid cells; then the box means of a and b, upsampled bilinearly, give \
          q = a I + b at full resolution. Output: R, G, B kept, alpha = q clamped to [0, 1]. All in f32. aoce's \
          createGuidedLayer (scale 8, box size 10 at 1/8 = the default radius 40, eps 1e-6, RGB guide); scale=1 is the exact filter (OpenCV contrib's \
          ximgproc::guidedFilter with a grey guide). Edges replicate. eps is at least 1e-4 (aoce's 1e-6 is refused): in f32, \
          var = mean(I²) - mean(I)² keeps a rounding error near 1e-7 that 1 / eps amplifies, and at eps 1e-6 an H100 and the \
          CPU twin differed by 5 levels on flat regions (the error is the float format's, on any device).",
    gpuimage: "",
    params: &[
        ParamDef::int("radius", 40, 1, 256, "box radius in full-resolution pixels (the grid's box radius is radius / scale, at least 1)"),
        ParamDef::float("eps", 1e-4, 1e-4, 1.0, "regularisation, in units of I² (I in [0, 1]; from 1e-4, see the doc): larger smooths across weaker edges"),
        ParamDef::int("scale", 8, 1, 16, "subsampling factor of the fast guided filter (1: the exact filter)"),
    ],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: Tolerance {
        max_diff: 2,
        why: "f32 on both sides, but a = cov / (var + eps) divides differences of near-equal sums: the GPU's fused multiply-adds and 2.5-ulp division move alpha by up to a level or two",
    },
    build: |a| Ok(Box::new(GuidedFilter::new(a.u32("radius")?, a.f32("eps")?, a.u32("scale")?)?)),
    uniforms: &[GuidedParams::layout(COMMON)],
    test_inputs: None,
    schedules: &[],
};

/// (I, p) of an RGBA8 pixel, as `guide_of` in the WGSL.
fn guide_of(px: &[u8]) -> [f32; 2] {
    let b: [f32; 4] = std::array::from_fn(|k| px[k] as f32 * (1.0 / 255.0));
    [b[0] * LUMA[0] + b[1] * LUMA[1] + b[2] * LUMA[2], b[3]]
}

/// Box sums of radius `r` along rows (`rows`) or columns, edges replicated, taps in order.
fn box_sums(src: &[[f32; 4]], w: usize, h: usize, r: i64, rows: bool) -> Vec<[f32; 4]> {
    let mut out = vec![[0f32; 4]; w * h];
    out.par_chunks_mut(w).enumerate().for_each(|(y, orow)| {
        for (x, o) in orow.iter_mut().enumerate() {
            let mut s = [0f32; 4];
            for k in -r..=r {
                let i = if rows {
                    y * w + (x as i64 + k).clamp(0, w as i64 - 1) as usize
                } else {
                    (y as i64 + k).clamp(0, h as i64 - 1) as usize * w + x
                };
                for c in 0..4 {
                    s[c] += src[i][c];
                }
            }
            *o = s;
        }
    });
    out
}

impl GuidedFilter {
    /// The CPU twin: the GPU passes' operations in their order.
    fn run(&self, img: &Image) -> Result<Image> {
        let p = self.params(img.width(), img.height());
        let (w, h) = (p.width as usize, p.height as usize);
        let (lw, lh, s) = (
            p.low_width as usize,
            p.low_height as usize,
            p.scale as usize,
        );
        let src = img.as_u8();
        // pass 1: block means and their products
        let mut low = vec![[0f32; 4]; lw * lh];
        low.par_chunks_mut(lw).enumerate().for_each(|(gy, orow)| {
            for (gx, o) in orow.iter_mut().enumerate() {
                let mut sum = [0f32; 2];
                for j in 0..s {
                    let y = (gy * s + j).min(h - 1);
                    for i in 0..s {
                        let x = (gx * s + i).min(w - 1);
                        let g = guide_of(&src[(y * w + x) * 4..]);
                        sum[0] += g[0];
                        sum[1] += g[1];
                    }
                }
                let m = [sum[0] * p.inv_block, sum[1] * p.inv_block];
                *o = [m[0], m[1], m[0] * m[0], m[0] * m[1]];
            }
        });
        let r = p.radius as i64;
        let mean = |v: [f32; 4]| v.map(|c| c * p.inv_window);
        // passes 2 and 3: means, then (a, b)
        let cols = box_sums(&box_sums(&low, lw, lh, r, true), lw, lh, r, false);
        let ab: Vec<[f32; 4]> = cols
            .iter()
            .map(|&c| {
                let m = mean(c);
                let a = (m[3] - m[0] * m[1]) / (m[2] - m[0] * m[0] + p.eps);
                [a, m[1] - a * m[0], 0.0, 0.0]
            })
            .collect();
        // passes 4 and 5: the means of a and b
        let mab: Vec<[f32; 4]> = box_sums(&box_sums(&ab, lw, lh, r, true), lw, lh, r, false)
            .into_iter()
            .map(mean)
            .collect();
        // pass 6: bilinear, q = a I + b
        let taps = |x: usize, n: usize| -> (usize, usize, f32) {
            let u = ((x as f32 + 0.5) * p.inv_scale - 0.5).clamp(0.0, (n - 1) as f32);
            let i0 = u.floor();
            (i0 as usize, (i0 as usize + 1).min(n - 1), u - i0)
        };
        let mut out = src.to_vec();
        out.par_chunks_mut(w * 4).enumerate().for_each(|(y, orow)| {
            let (y0, y1, fy) = taps(y, lh);
            for x in 0..w {
                let (x0, x1, fx) = taps(x, lw);
                let lerp = |row: usize| -> [f32; 2] {
                    let (a, b) = (mab[row * lw + x0], mab[row * lw + x1]);
                    [a[0] + (b[0] - a[0]) * fx, a[1] + (b[1] - a[1]) * fx]
                };
                let (top, bottom) = (lerp(y0), lerp(y1));
                let m = [
                    top[0] + (bottom[0] - top[0]) * fy,
                    top[1] + (bottom[1] - top[1]) * fy,
                ];
                let q = m[0] * guide_of(&orow[x * 4..])[0] + m[1];
                orow[x * 4 + 3] = unorm8(q);
            }
        });
        Image::from_u8(img.width(), img.height(), PixelFormat::Rgba8, out)
    }
}

impl Filter for GuidedFilter {
    fn footprint(&self, _inputs: &[ValueDesc]) -> Footprint {
        // block means, two boxes of the grid radius, one grid cell of interpolation
        Footprint::Radius((2 * self.low_radius() + 3) * self.scale)
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
        Ok(vec![Value::Image(self.run(input_image(&DEF, inputs, 0)?)?)])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let d = slot_image(&DEF, inputs, 0)?;
        let p = self.params(d.width, d.height);
        let tmp_bytes = PixelFormat::Rgba32F.gpu_bytes(p.low_width, p.low_height);
        let limit = rec.gpu().max_binding();
        if tmp_bytes > limit {
            return Err(Error::TooLarge {
                width: d.width,
                height: d.height,
                bytes: tmp_bytes,
                limit,
            });
        }
        let (t0, t1) = (rec.temp(tmp_bytes), rec.temp(tmp_bytes));
        let u = bytemuck::bytes_of(&p);
        let low = groups_2d(p.low_width, p.low_height, 16, 16);
        let boxk = |entry| {
            Kernel::new(
                "neighborhood.guided_filter.box",
                &[GuidedParams::WGSL, COMMON, BOX],
                entry,
            )
        };
        rec.dispatch(
            &Kernel::new(
                "neighborhood.guided_filter.down",
                &[GuidedParams::WGSL, COMMON, DOWN],
                "guided_down",
            ),
            &[&inputs[0].buffer, &t0],
            u,
            low,
        )?;
        rec.dispatch(&boxk("guided_box_rows"), &[&t0, &t1], u, low)?;
        rec.dispatch(&boxk("guided_box_solve"), &[&t1, &t0], u, low)?;
        rec.dispatch(&boxk("guided_box_rows"), &[&t0, &t1], u, low)?;
        rec.dispatch(&boxk("guided_box_mean"), &[&t1, &t0], u, low)?;
        rec.dispatch(
            &Kernel::new(
                "neighborhood.guided_filter.apply",
                &[GuidedParams::WGSL, COMMON, APPLY],
                "guided_apply",
            ),
            &[&inputs[0].buffer, &t0, &outputs[0].buffer],
            u,
            groups_2d(d.width, d.height, 16, 16),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
