//! Canny edge detection, after GPUImage's `GPUImageCannyEdgeDetectionFilter` (grey, Gaussian
//! blur, directional Sobel, directional non-maximum suppression, double threshold, weak
//! pixels joined to strong ones) with OpenCV's `cv::Canny` arithmetic for the suppression and
//! the thresholds, and real hysteresis: a candidate (weak) pixel is an edge when a chain of
//! candidates, 8-connected, joins it to a strong pixel anywhere in the image. GPUImage's
//! `GPUImageWeakPixelInclusionFilter` looks one pixel away only; OpenCV follows chains with
//! a stack.
//!
//! Every stage is integer arithmetic, so the GPU and the CPU twin agree bit for bit:
//! luminance of RGBA8 with GPUImage's weights rounded to 8 bits (`luma_gpuimage`, the same
//! integer luminance as the other edge stencils; Gray8 is taken as it is), a Gaussian with
//! 12-bit fixed-point weights (`gaussian_weights`) rounded once to 8 bits, the 3x3 Sobel
//! (OpenCV's signs), magnitude gx² + gy² (L2) or |gx| + |gy| (L1), OpenCV's direction test
//! (tan 22.5° in 15-bit fixed point) and strict threshold comparisons.
//!
//! GPU: the luminance and the blur (when asked for) here, then one of the `schedules` for
//! the rest, each a fixed number of kernels exact for edges of any length, all in the graph's
//! one submission. `unionfind` (issue 15, the default): components within 64 x 16 tiles in
//! workgroup memory, one global label per pixel joined along the tile borders, every
//! candidate resolved. `tiles` (issue 32): one pass per tile computes the magnitudes once
//! into workgroup memory, suppresses, thresholds, finds the tile's components over
//! horizontal runs and writes every pixel it can decide alone (components with a strong
//! pixel, components that touch no other tile); the components touching a tile border are
//! nodes of a small global union-find joined along the borders, then only the pixels left
//! pending are finished. The CPU twin is a plain flood fill from the strong pixels.

use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_image, input_image, one_to_one, Family, Filter, FilterDef, Footprint, Tolerance, IMAGE,
};
use crate::graph::params::{check_float, ParamDef};
use crate::image::{Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

mod schedules;
pub use schedules::Schedule;

const COMMON: &str = include_str!("canny_edge_detection.wgsl");
const LUMA: &str = include_str!("canny_luma.wgsl");
const BLUR_H: &str = include_str!("canny_blur_h.wgsl");
const BLUR_V: &str = include_str!("canny_blur_v.wgsl");

/// Invocations per workgroup of the 1-D Canny kernels (mirrors `@workgroup_size(256)`): one
/// invocation per packed word (4 pixels: luma, vertical blur, `unionfind`'s output), per
/// pixel (horizontal blur, `unionfind`'s resolve) or per tile border pixel (the merges).
const WG: u32 = 256;
/// Fixed-point scale of the Gaussian weights (they sum to exactly this).
pub const WEIGHT_ONE: u32 = 4096;
/// Largest sigma; its radius `ceil(3 sigma)` is 48.
pub const MAX_SIGMA: f64 = 16.0;
/// Largest threshold: the L2 Sobel magnitude of 8-bit input is at most 1020 √2 = 5.66 × 255.
pub const MAX_THRESHOLD: f64 = 6.0;

/// Canny edge detection of the luminance; white edges on black, Gray8 out.
#[derive(Clone, Debug)]
pub struct CannyEdgeDetection {
    /// Gaussian sigma in pixels (GPUImage's blurRadiusInPixels); 0: no blur.
    pub sigma: f32,
    /// Strong-edge threshold, a fraction of 255 on the 8-bit Sobel magnitude.
    pub upper: f32,
    /// Candidate threshold, same units.
    pub lower: f32,
    /// Magnitude sqrt(gx² + gy²) (true) or |gx| + |gy| (false).
    pub l2: bool,
}

impl CannyEdgeDetection {
    /// Fails on parameters out of range and on `lower` above `upper`.
    pub fn new(sigma: f32, upper: f32, lower: f32, l2: bool) -> Result<Self> {
        let (sigma, upper, lower) = (
            check_float(&DEF, "sigma", sigma)?,
            check_float(&DEF, "upper", upper)?,
            check_float(&DEF, "lower", lower)?,
        );
        if lower > upper {
            return Err(Error::BadParam {
                filter: DEF.name.into(),
                param: "lower".into(),
                message: format!("{lower} is above upper ({upper}); lower must be at most upper"),
            });
        }
        Ok(Self {
            sigma,
            upper,
            lower,
            l2,
        })
    }

    /// (low, high): a magnitude above `low` makes a candidate, above `high` a strong pixel.
    pub fn thresholds(&self) -> (i32, i32) {
        (
            level_threshold(self.lower, self.l2),
            level_threshold(self.upper, self.l2),
        )
    }
}

impl Default for CannyEdgeDetection {
    fn default() -> Self {
        Self {
            sigma: 2.0,
            upper: 0.4,
            lower: 0.1,
            l2: true,
        }
    }
}

/// A threshold fraction `t` as the integer the magnitude is compared with (strictly above):
/// v = 255 t in Sobel units of 8-bit input, taken to the nearest whole level when within
/// 1e-4 of one (so 150/255 written in decimals is exactly OpenCV's 150), then floor(v²) for
/// L2 or floor(v) for L1, as `cv::Canny` floors its (squared) thresholds.
pub fn level_threshold(t: f32, l2: bool) -> i32 {
    let v = 255.0 * t as f64;
    let v = if (v - v.round()).abs() < 1e-4 {
        v.round()
    } else {
        v
    };
    (if l2 { v * v } else { v }).floor() as i32
}

/// 8-bit luminance of an RGBA8 pixel with GPUImage's weights (0.2125, 0.7154, 0.0721), in
/// exact integers (twin of `luma_gpuimage` in canny_luma.wgsl and of the edge stencils' `luma8`).
pub fn luma_gpuimage(p: &[u8]) -> u8 {
    ((2125 * p[0] as u32 + 7154 * p[1] as u32 + 721 * p[2] as u32 + 5000) / 10000) as u8
}

/// The Gaussian's taps -r..=r (r = ceil(3 sigma), as `gaussian_blur`) in fixed point summing
/// to exactly `WEIGHT_ONE`: each exp(-k² / 2σ²) / Σ rounded, the centre taking the rounding
/// remainder. Empty for sigma 0 (no blur).
pub fn gaussian_weights(sigma: f32) -> Vec<u32> {
    if sigma <= 0.0 {
        return Vec::new();
    }
    let s = sigma as f64;
    let r = (3.0 * s).ceil() as i64;
    let g: Vec<f64> = (-r..=r)
        .map(|k| (-((k * k) as f64) / (2.0 * s * s)).exp())
        .collect();
    let sum: f64 = g.iter().sum();
    let mut w: Vec<i64> = g
        .iter()
        .map(|v| (v / sum * WEIGHT_ONE as f64).round() as i64)
        .collect();
    let rest = WEIGHT_ONE as i64 - w.iter().sum::<i64>();
    w[r as usize] += rest;
    // the remainder is a few units, the centre hundreds or more: never negative (a unit test
    // checks the sum over the whole range, which a clamped tap would break)
    w.into_iter().map(|v| v.max(0) as u32).collect()
}

uniform_struct! {
    /// Uniform of the Canny kernels (canny_edge_detection.wgsl and its passes).
    pub struct CannyParams {
        pub width: u32,
        pub height: u32,
        /// u32 words per packed row: ceil(width / 4).
        pub words: u32,
        /// Gaussian taps on each side (blur kernels).
        pub radius: u32,
        /// A gradient magnitude above `low` makes a candidate, above `high` a strong pixel
        /// (magnitudes and thresholds squared for L2).
        pub low: i32,
        pub high: i32,
        /// 1: magnitude gx² + gy² (L2), 0: |gx| + |gy| (L1).
        pub l2: u32,
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "canny_edge_detection",
    family: Family::Neighborhood,
    gpuimage: "GPUImageCannyEdgeDetectionFilter",
    summary: "Canny edges (white on black, Gray8): blur, Sobel, non-maximum suppression, double threshold, hysteresis.",
    doc: "Luminance (RGBA8: GPUImage's weights, rounded to 8 bits in integers; Gray8 as it is), a Gaussian of `sigma` \
(12-bit fixed-point weights, radius ceil(3 sigma), rounded to 8 bits; 0 = none), the 3x3 Sobel gx, gy, magnitude \
gx² + gy² (l2=true) or |gx| + |gy|, OpenCV's non-maximum suppression along the gradient direction (sectors by tan 22.5° \
in fixed point), then a pixel is strong when its magnitude is above `upper`, a candidate when above `lower`, and an \
edge (255) when it is a candidate joined through candidates (8-connected) to a strong pixel, at any distance. \
Thresholds are fractions of 255 on the Sobel magnitude of 8-bit values: t here is OpenCV's Canny threshold 255 t \
(GPUImage's thresholds on its [0, 1] magnitude mean the same). Grey borders replicate the edge pixel, as OpenCV's \
Canny; outside the image the magnitude counts as 0 in the suppression, as OpenCV's. With sigma=0 and l2=true the map \
is cv2.Canny(gray, 255 lower, 255 upper, L2gradient=True)'s (scripts/opencv_compare.py), except that lower > upper \
is an error here (OpenCV swaps them). Exact: GPU and CPU agree bit for bit.",
    params: &[
        ParamDef::float("sigma", 2.0, 0.0, MAX_SIGMA, "Gaussian sigma in pixels before the gradient (GPUImage's blurRadiusInPixels); 0 = no blur"),
        ParamDef::float("upper", 0.4, 0.0, MAX_THRESHOLD, "strong-edge threshold: fraction of 255 on the 8-bit Sobel magnitude (OpenCV's threshold2 / 255)"),
        ParamDef::float("lower", 0.1, 0.0, MAX_THRESHOLD, "candidate threshold, same units (OpenCV's threshold1 / 255); at most upper"),
        ParamDef::boolean("l2", true, "magnitude sqrt(gx² + gy²) (true) or |gx| + |gy| (false), OpenCV's L2gradient"),
    ],
    inputs: IMAGE,
    outputs: IMAGE,
    // integer arithmetic on both sides: the maps are equal
    tolerance: Tolerance { max_diff: 0, why: "" },
    build: |a| Ok(Box::new(CannyEdgeDetection::new(a.f32("sigma")?, a.f32("upper")?, a.f32("lower")?, a.bool("l2")?)?)),
    uniforms: &[CannyParams::layout(COMMON)],
    test_inputs: None,
    schedules: schedules::NAMES,
};

/// Fails with `TooLarge` when a buffer of `bytes` does not fit a binding (or passes 2^33
/// bytes: indices of u32 elements stay below 2^31).
fn check_size(rec: &NodeRecorder<'_>, width: u32, height: u32, bytes: u64) -> Result<()> {
    let limit = rec.gpu().max_binding().min(1 << 33);
    if bytes > limit {
        return Err(Error::TooLarge {
            width,
            height,
            bytes,
            limit,
        });
    }
    Ok(())
}

/// Pixel classes of the suppression and double threshold.
const NONE: u8 = 0;
const WEAK: u8 = 1;
const STRONG: u8 = 2;

/// CPU twin: the same integer stages written plainly, and the hysteresis as a flood fill
/// from every strong pixel over 8-connected candidates.
pub fn canny_cpu(f: &CannyEdgeDetection, img: &Image) -> Result<Image> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let gray: Vec<u8> = match img.format() {
        PixelFormat::Gray8 => img.as_u8().to_vec(),
        PixelFormat::Rgba8 => img.as_u8().chunks_exact(4).map(luma_gpuimage).collect(),
        other => {
            return Err(Error::invalid(format!(
                "`canny_edge_detection` takes rgba8 or gray8, got {}",
                other.name()
            )))
        }
    };
    let gray = blur_cpu(&gray, w, h, &gaussian_weights(f.sigma));
    let g = |x: i64, y: i64| {
        gray[y.clamp(0, h as i64 - 1) as usize * w + x.clamp(0, w as i64 - 1) as usize] as i32
    };
    // gradients and magnitudes
    let mut gx = vec![0i32; w * h];
    let mut gy = vec![0i32; w * h];
    let mut mag = vec![0i32; w * h];
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            let i = y as usize * w + x as usize;
            let dx = (g(x + 1, y - 1) + 2 * g(x + 1, y) + g(x + 1, y + 1))
                - (g(x - 1, y - 1) + 2 * g(x - 1, y) + g(x - 1, y + 1));
            let dy = (g(x - 1, y + 1) + 2 * g(x, y + 1) + g(x + 1, y + 1))
                - (g(x - 1, y - 1) + 2 * g(x, y - 1) + g(x + 1, y - 1));
            gx[i] = dx;
            gy[i] = dy;
            mag[i] = if f.l2 {
                dx * dx + dy * dy
            } else {
                dx.abs() + dy.abs()
            };
        }
    }
    let m = |x: i64, y: i64| {
        if x < 0 || y < 0 || x >= w as i64 || y >= h as i64 {
            0
        } else {
            mag[y as usize * w + x as usize]
        }
    };
    let (low, high) = f.thresholds();
    // non-maximum suppression and double threshold (OpenCV's sectors and comparisons)
    let mut class = vec![NONE; w * h];
    for y in 0..h as i64 {
        for x in 0..w as i64 {
            let i = y as usize * w + x as usize;
            let c = mag[i];
            if c <= low {
                continue;
            }
            let (ax, ay) = (gx[i].abs() as i64, gy[i].abs() as i64);
            // the angle of (ax, ay) against 22.5° and 67.5°: ay / ax < tan 22.5° = 13573 / 2^15,
            // ay / ax > tan 67.5° = tan 22.5° + 2
            let tg22 = ax * 13573;
            let peak = if (ay << 15) < tg22 {
                c > m(x - 1, y) && c >= m(x + 1, y)
            } else if (ay << 15) > tg22 + (ax << 16) {
                c > m(x, y - 1) && c >= m(x, y + 1)
            } else if (gx[i] < 0) != (gy[i] < 0) {
                // gradient towards upper right / lower left
                c > m(x + 1, y - 1) && c > m(x - 1, y + 1)
            } else {
                c > m(x - 1, y - 1) && c > m(x + 1, y + 1)
            };
            if peak {
                class[i] = if c > high { STRONG } else { WEAK };
            }
        }
    }
    // hysteresis: flood fill from the strong pixels
    let mut out = vec![0u8; w * h];
    let mut stack: Vec<usize> = (0..w * h).filter(|&i| class[i] == STRONG).collect();
    for &i in &stack {
        out[i] = 255;
    }
    while let Some(i) = stack.pop() {
        let (x, y) = ((i % w) as i64, (i / w) as i64);
        for (dx, dy) in [
            (-1, -1),
            (0, -1),
            (1, -1),
            (-1, 0),
            (1, 0),
            (-1, 1),
            (0, 1),
            (1, 1),
        ] {
            let (nx, ny) = (x + dx, y + dy);
            if nx < 0 || ny < 0 || nx >= w as i64 || ny >= h as i64 {
                continue;
            }
            let j = ny as usize * w + nx as usize;
            if class[j] != NONE && out[j] == 0 {
                out[j] = 255;
                stack.push(j);
            }
        }
    }
    Image::from_u8(w as u32, h as u32, PixelFormat::Gray8, out)
}

/// Separable integer Gaussian with replicated edges: horizontal sums kept whole, vertical
/// sums rounded once, (s + 2^23) >> 24. `weights` empty: the image unchanged.
fn blur_cpu(gray: &[u8], w: usize, h: usize, weights: &[u32]) -> Vec<u8> {
    if weights.is_empty() {
        return gray.to_vec();
    }
    let r = (weights.len() / 2) as i64;
    let clamp = |v: i64, n: usize| v.clamp(0, n as i64 - 1) as usize;
    let mut rows = vec![0u32; w * h];
    for y in 0..h {
        for x in 0..w {
            rows[y * w + x] = (-r..=r)
                .map(|k| weights[(k + r) as usize] * gray[y * w + clamp(x as i64 + k, w)] as u32)
                .sum();
        }
    }
    let mut out = vec![0u8; w * h];
    for y in 0..h {
        for x in 0..w {
            let s: u64 = (-r..=r)
                .map(|k| {
                    weights[(k + r) as usize] as u64 * rows[clamp(y as i64 + k, h) * w + x] as u64
                })
                .sum();
            out[y * w + x] = ((s + (1 << 23)) >> 24) as u8;
        }
    }
    out
}

impl Filter for CannyEdgeDetection {
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn footprint(&self, _inputs: &[ValueDesc]) -> Footprint {
        // an edge chain may cross the whole image
        Footprint::WholeImage
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8, PixelFormat::Gray8])?;
        Ok(vec![ValueDesc::Image(d.with_format(PixelFormat::Gray8))])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        Ok(vec![Value::Image(canny_cpu(
            self,
            input_image(&DEF, inputs, 0)?,
        )?)])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let (input, output, d) = one_to_one(&DEF, inputs, outputs)?;
        let pixels = d.width as u64 * d.height as u64;
        let weights = gaussian_weights(self.sigma);
        let (low, high) = self.thresholds();
        let words = d.width.div_ceil(4);
        let u = CannyParams {
            width: d.width,
            height: d.height,
            words,
            radius: (weights.len() / 2) as u32,
            low,
            high,
            l2: self.l2 as u32,
            ..Default::default()
        };
        let u = bytemuck::bytes_of(&u);
        let per_word = groups_1d(words as u64 * d.height as u64, WG);
        let per_pixel = groups_1d(pixels, WG);
        let gray_bytes = PixelFormat::Gray8.gpu_bytes(d.width, d.height);
        // the grey image the gradient reads: the input itself (Gray8, no blur), else a temporary
        let mut gray = input.buffer.clone();
        if d.format == PixelFormat::Rgba8 {
            let luma = rec.temp(gray_bytes);
            rec.dispatch(
                &Kernel::new(
                    "canny.luma",
                    &[CannyParams::WGSL, COMMON, LUMA],
                    "canny_luma",
                ),
                &[&input.buffer, &luma],
                u,
                per_word,
            )?;
            gray = luma;
        }
        if !weights.is_empty() {
            // the horizontal sums, one u32 a pixel
            check_size(rec, d.width, d.height, pixels * 4)?;
            let taps = rec.upload("texelflow.canny.weights", bytemuck::cast_slice(&weights))?;
            let rows = rec.temp(pixels * 4);
            rec.dispatch(
                &Kernel::new(
                    "canny.blur_h",
                    &[CannyParams::WGSL, COMMON, BLUR_H],
                    "canny_blur_h",
                ),
                &[&gray, &rows, &taps],
                u,
                per_pixel,
            )?;
            let blurred = rec.temp(gray_bytes);
            rec.dispatch(
                &Kernel::new(
                    "canny.blur_v",
                    &[CannyParams::WGSL, COMMON, BLUR_V],
                    "canny_blur_v",
                ),
                &[&rows, &blurred, &taps],
                u,
                per_word,
            )?;
            gray = blurred;
        }
        schedules::record(rec, &gray, &output.buffer, d.width, d.height, u)
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_sum_to_one_and_stay_positive_over_the_range() {
        for k in 1..=(MAX_SIGMA * 20.0) as u32 {
            let s = k as f32 / 20.0;
            let w = gaussian_weights(s);
            assert_eq!(
                w.len(),
                2 * (3.0 * s as f64).ceil() as usize + 1,
                "sigma {s}"
            );
            assert_eq!(w.iter().sum::<u32>(), WEIGHT_ONE, "sigma {s}");
            let c = w.len() / 2;
            // the centre absorbs the other taps' rounding: at most half a unit each
            let r = c as i64;
            let sum: f64 = (-r..=r)
                .map(|k| (-((k * k) as f64) / (2.0 * s as f64 * s as f64)).exp())
                .sum();
            let exact = WEIGHT_ONE as f64 / sum;
            assert!(
                (w[c] as f64 - exact).abs() <= 0.5 * w.len() as f64,
                "sigma {s}: centre {} far from {exact}",
                w[c]
            );
        }
        assert!(gaussian_weights(0.0).is_empty());
    }

    #[test]
    fn luma_matches_the_edge_stencils() {
        for (r, g, b) in [
            (0u8, 0u8, 0u8),
            (255, 255, 255),
            (10, 200, 30),
            (255, 0, 0),
            (1, 2, 3),
            (128, 127, 129),
        ] {
            let f = |v: u8| v as f32 / 255.0;
            assert_eq!(
                luma_gpuimage(&[r, g, b, 255]) as i32,
                super::super::luma8([f(r), f(g), f(b), 1.0])
            );
        }
    }

    #[test]
    fn thresholds_are_opencvs_integers() {
        // 150/255 and 50/255 in decimals are exactly OpenCV's 150 and 50, squared for L2
        assert_eq!(level_threshold(0.588_235_3, true), 22500);
        assert_eq!(level_threshold(0.196_078_43, true), 2500);
        assert_eq!(level_threshold(0.196_078_43, false), 50);
        assert_eq!(level_threshold(0.1, true), (25.5f64 * 25.5).floor() as i32);
        assert_eq!(level_threshold(0.0, true), 0);
    }
}
