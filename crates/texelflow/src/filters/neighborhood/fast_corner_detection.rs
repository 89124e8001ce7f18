//! FAST corners: OpenCV's `cv::FAST` / `FastFeatureDetector` with `TYPE_9_16` (Rosten and
//! Drummond's FAST-9), as a Gray8 corner map. GPUImage's `GPUImageFASTCornerDetectionFilter`
//! is a stub (its header lists the stages; no implementation), so this follows OpenCV.
//!
//! A pixel with luma c is a corner where 9 contiguous pixels of the 16-pixel Bresenham circle
//! of radius 3 are all brighter than c + threshold or all darker than c - threshold (strict).
//! Its score is OpenCV's `cornerScore<16>`: the largest threshold for which it is still a
//! corner (max over the 16 arcs of 9 of the smallest difference on the arc, minus one; at
//! least `threshold`). With `nonmax`, a corner is kept where its score is strictly greater than
//! each of its 8 neighbours' (non-corners count 0), OpenCV's rule in `FAST_t`. As OpenCV, the
//! 3-pixel border is never a corner. Integers throughout: the map equals the CPU twin's.

use rayon::prelude::*;

use crate::error::Result;
use crate::filters::registry::{
    expect_image, input_image, one_to_one, Family, Filter, FilterDef, EXACT_ENOUGH, IMAGE,
};
use crate::graph::params::{check_int, ParamDef};
use crate::image::{luma601, Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

const WGSL: &str = include_str!("fast_corner_detection.wgsl");

/// The circle of radius 3 as (dx, dy), contiguous, in OpenCV's order (`makeOffsets`).
pub const CIRCLE: [(i32, i32); 16] = [
    (0, 3),
    (1, 3),
    (2, 2),
    (3, 1),
    (3, 0),
    (3, -1),
    (2, -2),
    (1, -3),
    (0, -3),
    (-1, -3),
    (-2, -2),
    (-3, -1),
    (-3, 0),
    (-3, 1),
    (-2, 2),
    (-1, 3),
];

/// FAST-9 corners with optional non-maximum suppression, as a Gray8 map of scores.
#[derive(Clone, Debug)]
pub struct FastCornerDetection {
    /// 8-bit levels by which the arc must be brighter or darker than the centre.
    pub threshold: u32,
    /// Keep only corners whose score is strictly above their 8 neighbours'.
    pub nonmax: bool,
}

impl FastCornerDetection {
    /// Fails when `threshold` is outside [1, 255].
    pub fn new(threshold: u32, nonmax: bool) -> Result<Self> {
        Ok(Self {
            threshold: check_int(&DEF, "threshold", threshold)?,
            nonmax,
        })
    }
    fn params(&self, d: crate::ImageDesc) -> FastParams {
        FastParams {
            width: d.width,
            height: d.height,
            threshold: self.threshold as i32,
            format: (d.format == PixelFormat::Rgba8) as u32,
            words_per_row: d.width.div_ceil(4),
            ..Default::default()
        }
    }
}

impl Default for FastCornerDetection {
    fn default() -> Self {
        Self {
            threshold: 10,
            nonmax: true,
        }
    }
}

uniform_struct! {
    /// Uniform of fast_corner_detection.wgsl.
    pub struct FastParams {
        pub width: u32,
        pub height: u32,
        pub threshold: i32,
        /// 0: Gray8 input (4 pixels a word), 1: RGBA8 input (BT.601 luma).
        pub format: u32,
        /// Words per row of a Gray8 image.
        pub words_per_row: u32,
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "fast_corner_detection",
    family: Family::Neighborhood,
    summary: "FAST-9 corners (OpenCV's FAST, TYPE_9_16) as a grey map: each corner's score, 0 elsewhere.",
    doc: "Luma: the Gray8 input, or BT.601 luma of RGBA8, round(0.299 R + 0.587 G + 0.114 B) in integers (OpenCV's \
cvtColor may differ by one level: feed it grey for an exact comparison). A pixel is a corner where 9 contiguous pixels \
of the 16-pixel circle of radius 3 are all brighter than luma + threshold or all darker than luma - threshold, threshold \
in 8-bit levels (OpenCV's threshold; its default 10). Output: Gray8, each corner's score (OpenCV's keypoint response: \
the largest threshold at which it is still a corner, so at least `threshold`), 0 elsewhere. With nonmax, a corner is kept \
only where its score is strictly greater than all 8 neighbours' (OpenCV's non-maximum suppression). The 3-pixel border is \
never a corner, as in OpenCV. `| corner_points` turns the map into a list (x, y, score). Exact: integers throughout.",
    gpuimage: "GPUImageFASTCornerDetectionFilter",
    params: &[
        ParamDef::int("threshold", 10, 1, 255, "8-bit levels by which the arc must be brighter or darker than the centre"),
        ParamDef::boolean("nonmax", true, "keep only corners whose score is strictly above their 8 neighbours'"),
    ],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(FastCornerDetection::new(a.u32("threshold")?, a.bool("nonmax")?)?)),
    uniforms: &[FastParams::layout(WGSL)],
    test_inputs: None,
    schedules: &[],
};

/// The luma plane FAST runs on: Gray8 as is, RGBA8 as BT.601 luma.
pub fn fast_luma(img: &Image) -> Vec<u8> {
    match img.format() {
        PixelFormat::Gray8 => img.as_u8().to_vec(),
        _ => img
            .as_u8()
            .chunks_exact(4)
            .map(|p| luma601(p[0], p[1], p[2]))
            .collect(),
    }
}

/// Whether 9 contiguous circle pixels are all brighter than c + t or all darker than c - t.
fn is_corner(circle: &[i32; 16], c: i32, t: i32) -> bool {
    (0..16).any(|k| {
        (0..9).all(|i| circle[(k + i) % 16] > c + t) || (0..9).all(|i| circle[(k + i) % 16] < c - t)
    })
}

/// CPU twin: the score map (the definition directly: the test at `threshold`, then the
/// largest threshold still passing by bisection), then the suppression.
pub fn fast_cpu(luma: &[u8], width: u32, height: u32, threshold: u32, nonmax: bool) -> Vec<u8> {
    let (w, h) = (width as usize, height as usize);
    let t = threshold as i32;
    let mut scores = vec![0u8; w * h];
    if w >= 7 && h >= 7 {
        scores
            .par_chunks_mut(w)
            .enumerate()
            .filter(|(y, _)| *y >= 3 && *y + 3 < h)
            .for_each(|(y, row)| {
                for x in 3..w - 3 {
                    let c = luma[y * w + x] as i32;
                    let circle: [i32; 16] = std::array::from_fn(|k| {
                        luma[(y as i32 + CIRCLE[k].1) as usize * w
                            + (x as i32 + CIRCLE[k].0) as usize] as i32
                    });
                    if !is_corner(&circle, c, t) {
                        continue;
                    }
                    // largest s with is_corner(s): is_corner is monotone in s
                    let (mut lo, mut hi) = (t, 255);
                    while lo < hi {
                        let mid = (lo + hi + 1) / 2;
                        if is_corner(&circle, c, mid) {
                            lo = mid;
                        } else {
                            hi = mid - 1;
                        }
                    }
                    row[x] = lo as u8;
                }
            });
    }
    if !nonmax {
        return scores;
    }
    let at = |x: i64, y: i64| {
        if x < 0 || y < 0 || x >= w as i64 || y >= h as i64 {
            0
        } else {
            scores[y as usize * w + x as usize]
        }
    };
    let mut out = vec![0u8; w * h];
    out.par_chunks_mut(w.max(1))
        .enumerate()
        .for_each(|(y, row)| {
            for (x, o) in row.iter_mut().enumerate() {
                let s = scores[y * w + x];
                let (xi, yi) = (x as i64, y as i64);
                let keep = s > 0
                    && (-1..=1).all(|dy| {
                        (-1..=1).all(|dx| (dx == 0 && dy == 0) || s > at(xi + dx, yi + dy))
                    });
                if keep {
                    *o = s;
                }
            }
        });
    out
}

impl Filter for FastCornerDetection {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::Radius(if self.nonmax { 4 } else { 3 })
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8, PixelFormat::Gray8])?;
        Ok(vec![ValueDesc::Image(crate::ImageDesc::new(
            d.width,
            d.height,
            PixelFormat::Gray8,
        ))])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        let map = fast_cpu(
            &fast_luma(img),
            img.width(),
            img.height(),
            self.threshold,
            self.nonmax,
        );
        Ok(vec![Value::Image(Image::from_u8(
            img.width(),
            img.height(),
            PixelFormat::Gray8,
            map,
        )?)])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let (input, output, d) = one_to_one(&DEF, inputs, outputs)?;
        let u = self.params(d);
        let score = Kernel::new(
            "neighborhood.fast_corner_detection.score",
            &[FastParams::WGSL, WGSL],
            "fast_score",
        );
        let groups = [u.words_per_row.div_ceil(16), d.height.div_ceil(16), 1];
        if !self.nonmax {
            return rec.dispatch(
                &score,
                &[&input.buffer, &output.buffer],
                bytemuck::bytes_of(&u),
                groups,
            );
        }
        let scores = rec.temp(PixelFormat::Gray8.gpu_bytes(d.width, d.height));
        rec.dispatch(
            &score,
            &[&input.buffer, &scores],
            bytemuck::bytes_of(&u),
            groups,
        )?;
        let nonmax = Kernel::new(
            "neighborhood.fast_corner_detection.nonmax",
            &[FastParams::WGSL, WGSL],
            "fast_nonmax",
        );
        rec.dispatch(
            &nonmax,
            &[&scores, &output.buffer],
            bytemuck::bytes_of(&u),
            [u.words_per_row.div_ceil(64), d.height, 1],
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
