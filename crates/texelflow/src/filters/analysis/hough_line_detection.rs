//! Straight lines of an edge map as data: the standard Hough transform of OpenCV's
//! `cv::HoughLines` (a (ρ, θ) accumulator of votes, peaks that are local maxima among their
//! four neighbours, the strongest first), in place of GPUImage's
//! `GPUImageHoughTransformLineDetector`, which votes in PClines parallel coordinates by
//! additive blending and hands its lines to the CPU in a callback. Here the result is a
//! `DataKind::Lines` list that stays on the GPU for later nodes (`draw_lines`) and reads back
//! sorted. Input: a binary edge map such as `canny_edge_detection`'s (GPUImage runs its Canny
//! first too; `draw_hough_lines` does the whole chain).
//!
//! Exact on both sides: ρ is computed in integers from a table of cos θ / ρ-resolution and
//! sin θ / ρ-resolution in Q16 made on the host (`HoughTable`), so the GPU's accumulator is the
//! CPU twin's bin for bin; the relative threshold is one `f32` multiply on each side.
//!
//! GPU: `hough_vote` (one invocation per pixel; an edge pixel adds one vote per θ with an
//! atomic), `hough_max` (the strongest bin, workgroup then global atomicMax), `hough_peaks`
//! (one invocation per bin: local maxima above the thresholds appended to a candidate list)
//! and `hough_rank` (each candidate counts the candidates ranked before it and, when within
//! `max`, writes itself at that position: the list comes out sorted and truncated to the
//! strongest `max`, as the twin's; quadratic in the candidates, which the thresholds keep few).

use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_image, input_image, one_to_one, Family, Filter, FilterDef, Footprint, PortDef, PortKind,
    EXACT_ENOUGH, IMAGE,
};
use crate::graph::params::{check_float, check_int, ParamDef};
use crate::image::{Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_1d, groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{
    line_cos_sin_q14, Data, DataKind, Line, Lines, Value, ValueDesc, LINES_CAPACITY,
};

const COMMON: &str = include_str!("hough_line_detection.wgsl");
const VOTE: &str = include_str!("hough_vote.wgsl");
const MAX: &str = include_str!("hough_max.wgsl");
const PEAKS: &str = include_str!("hough_peaks.wgsl");
const RANK: &str = include_str!("hough_rank.wgsl");

/// The map formats taken.
const FORMATS: &[PixelFormat] = &[PixelFormat::Gray8, PixelFormat::Rgba8];
/// Largest width or height: keeps ρ in Q16 within a `u32` (see `HoughTable::new`).
pub const MAX_SIDE: u32 = 16384;
/// Words of the candidate list's header (mirrors `CAND_HEADER` in the WGSL).
const CAND_HEADER: u64 = 4;
/// Fractional bits of the vote table.
const Q: u32 = 16;

/// Lines of an edge map by the standard Hough transform.
#[derive(Clone, Debug)]
pub struct HoughLineDetection {
    /// A pixel is an edge when its level (grey, or red of RGBA8) is above 255 times this.
    pub edge_threshold: f32,
    /// ρ resolution in pixels (OpenCV's `rho`).
    pub rho: f32,
    /// θ resolution in degrees (OpenCV's `theta`, in degrees here).
    pub theta: f32,
    /// A line needs more votes than this (OpenCV's `threshold`).
    pub threshold: u32,
    /// ... and at least this fraction of the strongest bin's votes.
    pub relative: f32,
    /// Most lines kept (the strongest).
    pub max: u32,
}

impl HoughLineDetection {
    /// Fails on a parameter outside its range.
    pub fn new(
        edge_threshold: f32,
        rho: f32,
        theta: f32,
        threshold: u32,
        relative: f32,
        max: u32,
    ) -> Result<Self> {
        Ok(Self {
            edge_threshold: check_float(&DEF, "edge_threshold", edge_threshold)?,
            rho: check_float(&DEF, "rho", rho)?,
            theta: check_float(&DEF, "theta", theta)?,
            threshold: check_int(&DEF, "threshold", threshold)?,
            relative: check_float(&DEF, "relative", relative)?,
            max: check_int(&DEF, "max", max)?,
        })
    }

    /// The 8-bit level an edge pixel must exceed: v / 255 > t for whole v.
    pub fn level(&self) -> u32 {
        (255.0 * self.edge_threshold as f64).floor() as u32
    }
}

impl Default for HoughLineDetection {
    fn default() -> Self {
        Self {
            edge_threshold: 0.5,
            rho: 1.0,
            theta: 1.0,
            threshold: 0,
            relative: 0.2,
            max: LINES_CAPACITY,
        }
    }
}

/// The accumulator's shape and the per-θ table both sides vote with.
///
/// θ bin `t` (0 ≤ t < `n_theta` = round(180° / θ resolution), OpenCV's `numangle`) is the angle
/// t × resolution, reported as OpenCV does (the product in `f32`); votes use the exact angle. ρ bin `k` is ρ = k × ρ resolution; for pixel (x, y) it is
/// k = floor(x C_t + y S_t + ½) in Q16, with C_t = round(2^16 cos θ_t / ρres) and S_t likewise
/// (OpenCV: cvRound of x cos + y sin in `float`). Accumulator row t holds ρ bins
/// k = -`k0` .. `n_rho` - `k0` - 1: every ρ of the image with a bin of margin.
#[derive(Clone, Debug)]
pub struct HoughTable {
    /// θ bins.
    pub n_theta: u32,
    /// ρ bins per θ.
    pub n_rho: u32,
    /// The ρ bin of ρ = 0.
    pub k0: u32,
    /// Per θ bin: C_t, S_t (i32 bits), θ_t (`f32` bits), cos/sin in Q1.14 packed as `Lines` stores them.
    pub words: Vec<u32>,
}

impl HoughTable {
    /// The table for a `width` x `height` image at resolutions `rho` (pixels) and `theta_deg`; fails on images over `MAX_SIDE`.
    pub fn new(width: u32, height: u32, rho: f32, theta_deg: f32) -> Result<HoughTable> {
        if width > MAX_SIDE || height > MAX_SIDE {
            return Err(Error::invalid(format!("`hough_line_detection` takes images up to {MAX_SIDE}x{MAX_SIDE}, got {width}x{height}")));
        }
        let n_theta = ((180.0 / theta_deg as f64).round() as u32).max(1);
        let step = (theta_deg as f64).to_radians();
        let inv = 1.0 / rho as f64;
        let (wm, hm) = (
            width.saturating_sub(1) as f64,
            height.saturating_sub(1) as f64,
        );
        // ρ lies in [-(w - 1), hypot(w - 1, h - 1)]; two bins of margin each side cover the
        // Q16 table's rounding. Largest sum: (diagonal + w) / ρres + 4 bins < 2^16 for sides up
        // to MAX_SIDE, so x C + y S + k0 2^16 + 2^15 stays in [0, 2^32).
        let k0 = (wm * inv).ceil() as u32 + 2;
        let n_rho = k0 + (wm.hypot(hm) * inv).ceil() as u32 + 3;
        let mut words = Vec::with_capacity(4 * n_theta as usize);
        for t in 0..n_theta {
            let a = t as f64 * step;
            // as OpenCV reports it: t times the resolution, in float
            let theta = t as f32 * step as f32;
            let c = (a.cos() * inv * (1u64 << Q) as f64).round() as i32;
            let s = (a.sin() * inv * (1u64 << Q) as f64).round() as i32;
            let (cq, sq) = line_cos_sin_q14(theta);
            words.extend([
                c as u32,
                s as u32,
                theta.to_bits(),
                (cq as u32 & 0xFFFF) | ((sq as u32) << 16),
            ]);
        }
        Ok(HoughTable {
            n_theta,
            n_rho,
            k0,
            words,
        })
    }

    /// The accumulator column of pixel (x, y) in θ row `t` (wrapping u32 arithmetic, as the GPU).
    pub fn bin(&self, t: usize, x: u32, y: u32) -> u32 {
        let (c, s) = (self.words[4 * t], self.words[4 * t + 1]);
        x.wrapping_mul(c)
            .wrapping_add(y.wrapping_mul(s))
            .wrapping_add((self.k0 << Q) + (1 << (Q - 1)))
            >> Q
    }
}

uniform_struct! {
    /// Uniform of the Hough kernels (hough_line_detection.wgsl and the passes after it).
    pub struct HoughParams {
        pub width: u32,
        pub height: u32,
        /// 0: Gray8 (4 pixels a word, rows padded to whole words), 1: RGBA8 (its red channel).
        pub format: u32,
        pub words_per_row: u32,
        /// A pixel is an edge when its level is above this.
        pub level: u32,
        /// Accumulator: n_theta rows of n_rho bins; bin r of a row is ρ = (r - k0) ρres.
        pub n_theta: u32,
        pub n_rho: u32,
        pub k0: u32,
        /// A line needs more votes than `threshold` and at least `relative` times the
        /// strongest bin's.
        pub threshold: u32,
        pub relative: f32,
        /// Most lines kept (at most LINES_CAPACITY).
        pub limit: u32,
        pub rho_res: f32,
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "hough_line_detection",
    family: Family::Analysis,
    summary: "Straight lines of an edge map (e.g. canny_edge_detection's) by the Hough transform, as lines data (rho, theta, votes).",
    doc: "Input: an edge map, Gray8 or RGBA8 (its red channel), e.g. `canny_edge_detection | hough_line_detection`; a pixel \
is an edge when its level is above 255 edge_threshold. Each edge pixel votes for every line through it: for θ = 0, θres, ... \
below 180° (round(180 / theta) angles) the bin of ρ = x cos θ + y sin θ rounded to whole multiples of `rho` (x, y from \
the top-left pixel's centre). A bin is a line when its votes are above `threshold`, at least `relative` times the strongest \
bin's, and a local maximum as OpenCV's HoughLines finds them (more than the previous ρ and θ bins, at least the next ones). \
Output is `lines` data, strongest first (votes, then θ, then ρ), at most `max` lines (65536 at most), with the overflow \
flag when more were found; each line is (rho, theta, votes) as cv2.HoughLines gives them (θ in radians in [0, π), ρ \
signed). With relative=0 the list is cv2.HoughLines(edges, rho, theta°, threshold)'s up to ties of ρ rounding \
(scripts/opencv_compare.py). GPUImage's detector (PClines, lineDetectionThreshold 0.2 on its blended accumulator) is \
followed in spirit by `relative`. `texelflow apply IN -p \"canny_edge_detection | hough_line_detection\" --data lines.json` \
writes the lines as JSON; draw_hough_lines draws them.",
    gpuimage: "GPUImageHoughTransformLineDetector",
    params: &[
        ParamDef::float("edge_threshold", 0.5, 0.0, 1.0, "a pixel is an edge when its level is above 255 times this (any value in [0, 1) for a white-on-black map)"),
        ParamDef::float("rho", 1.0, 1.0, 64.0, "distance resolution of the accumulator in pixels (OpenCV's rho)"),
        ParamDef::float("theta", 1.0, 0.25, 90.0, "angle resolution of the accumulator in degrees (OpenCV's theta, there in radians)"),
        ParamDef::int("threshold", 0, 0, 100_000_000, "a line needs more votes than this (OpenCV's threshold)"),
        ParamDef::float("relative", 0.2, 0.0, 1.0, "... and at least this fraction of the strongest bin's votes (after GPUImage's lineDetectionThreshold)"),
        ParamDef::int("max", LINES_CAPACITY as i64, 1, LINES_CAPACITY as i64, "most lines kept, the strongest; more set the overflow flag"),
    ],
    inputs: IMAGE,
    outputs: &[PortDef { name: "lines", kind: PortKind::Data(DataKind::Lines) }],
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(HoughLineDetection::new(a.f32("edge_threshold")?, a.f32("rho")?, a.f32("theta")?, a.u32("threshold")?, a.f32("relative")?, a.u32("max")?)?)),
    uniforms: &[HoughParams::layout(COMMON)],
    test_inputs: None,
    schedules: &[],
};

/// The accumulator of an edge map (row-major by θ), as `hough_vote` fills it.
pub fn accumulate_cpu(f: &HoughLineDetection, img: &Image, table: &HoughTable) -> Vec<u32> {
    let w = img.width() as usize;
    let levels: Vec<u32> = match img.format() {
        PixelFormat::Gray8 => img.as_u8().iter().map(|&v| v as u32).collect(),
        _ => img.as_u8().chunks_exact(4).map(|p| p[0] as u32).collect(),
    };
    let level = f.level();
    let n_rho = table.n_rho as usize;
    let mut acc = vec![0u32; table.n_theta as usize * n_rho];
    for (i, &v) in levels.iter().enumerate() {
        if v <= level {
            continue;
        }
        let (x, y) = ((i % w) as u32, (i / w) as u32);
        for t in 0..table.n_theta as usize {
            acc[t * n_rho + table.bin(t, x, y) as usize] += 1;
        }
    }
    acc
}

/// CPU twin of the four kernels.
pub fn hough_cpu(f: &HoughLineDetection, img: &Image) -> Result<Lines> {
    let table = HoughTable::new(img.width(), img.height(), f.rho, f.theta)?;
    let acc = accumulate_cpu(f, img, &table);
    let (nt, nr) = (table.n_theta as usize, table.n_rho as usize);
    let max_votes = acc.iter().copied().max().unwrap_or(0);
    let floor = f.relative * max_votes as f32;
    let at = |t: isize, r: isize| {
        if t < 0 || r < 0 || t >= nt as isize || r >= nr as isize {
            0
        } else {
            acc[t as usize * nr + r as usize]
        }
    };
    let mut lines = Vec::new();
    for t in 0..nt as isize {
        for r in 0..nr as isize {
            let v = at(t, r);
            // OpenCV's peak test: strictly above the previous ρ and θ bins, at least the next
            if v > f.threshold
                && v as f32 >= floor
                && v > at(t, r - 1)
                && v >= at(t, r + 1)
                && v > at(t - 1, r)
                && v >= at(t + 1, r)
            {
                let k = r as i32 - table.k0 as i32;
                lines.push(Line {
                    rho: k as f32 * f.rho,
                    theta: f32::from_bits(table.words[4 * t as usize + 2]),
                    votes: v,
                });
            }
        }
    }
    Ok(Lines::from_unsorted(lines, f.max, max_votes))
}

impl Filter for HoughLineDetection {
    fn footprint(&self, _inputs: &[ValueDesc]) -> Footprint {
        Footprint::WholeImage
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(&DEF, inputs, 0, FORMATS)?;
        HoughTable::new(d.width, d.height, self.rho, self.theta)?;
        Ok(vec![ValueDesc::Data(DataKind::Lines)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        Ok(vec![Value::Data(Data::Lines(hough_cpu(self, img)?))])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let (input, output, d) = one_to_one(&DEF, inputs, outputs)?;
        let table = HoughTable::new(d.width, d.height, self.rho, self.theta)?;
        let bins = table.n_theta as u64 * table.n_rho as u64;
        let acc_bytes = bins * 4;
        let limit = rec.gpu().max_binding();
        if acc_bytes > limit {
            return Err(Error::TooLarge {
                width: d.width,
                height: d.height,
                bytes: acc_bytes,
                limit,
            });
        }
        let u = HoughParams {
            width: d.width,
            height: d.height,
            format: if d.format == PixelFormat::Gray8 { 0 } else { 1 },
            words_per_row: d.width.div_ceil(4),
            level: self.level(),
            n_theta: table.n_theta,
            n_rho: table.n_rho,
            k0: table.k0,
            threshold: self.threshold,
            relative: self.relative,
            limit: self.max.min(LINES_CAPACITY),
            rho_res: self.rho,
            ..Default::default()
        };
        let u = bytemuck::bytes_of(&u);
        let tab = rec.upload("texelflow.hough.table", bytemuck::cast_slice(&table.words))?;
        let acc = rec.temp(acc_bytes);
        rec.clear(&acc);
        // candidates: a header (count, -, strongest bin, -) and (key, votes) pairs
        let cand = rec.temp((CAND_HEADER + 2 * LINES_CAPACITY as u64) * 4);
        rec.clear(&cand);
        rec.clear(&output.buffer);
        rec.dispatch(
            &Kernel::new(
                "hough.vote",
                &[HoughParams::WGSL, COMMON, VOTE],
                "hough_vote",
            ),
            &[&input.buffer, &acc, &tab],
            u,
            groups_2d(d.width, d.height, 16, 16),
        )?;
        rec.dispatch(
            &Kernel::new("hough.max", &[HoughParams::WGSL, COMMON, MAX], "hough_max"),
            &[&acc, &cand],
            u,
            groups_1d(bins, 256),
        )?;
        rec.dispatch(
            &Kernel::new(
                "hough.peaks",
                &[HoughParams::WGSL, COMMON, PEAKS],
                "hough_peaks",
            ),
            &[&acc, &cand],
            u,
            groups_1d(bins, 256),
        )?;
        rec.dispatch(
            &Kernel::new(
                "hough.rank",
                &[HoughParams::WGSL, COMMON, RANK],
                "hough_rank",
            ),
            &[&cand, &tab, &output.buffer],
            u,
            groups_1d(LINES_CAPACITY as u64, 64),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_bins_match_rounded_rho() {
        for &(w, h, rho) in &[
            (67u32, 43u32, 1.0f32),
            (1, 1, 1.0),
            (300, 20, 1.5),
            (16384, 16384, 1.0),
        ] {
            let t = HoughTable::new(w, h, rho, 1.0).unwrap();
            for th in [0usize, 1, 45, 90, 135, 179] {
                for (x, y) in [
                    (0, 0),
                    (w - 1, 0),
                    (0, h - 1),
                    (w - 1, h - 1),
                    (w / 2, h / 3),
                ] {
                    let a = (th as f64).to_radians();
                    let exact = (x as f64 * a.cos() + y as f64 * a.sin()) / rho as f64;
                    let k = t.bin(th, x, y) as i64 - t.k0 as i64;
                    // Q16 table: off by at most (x + y) 2^-17 from the exact value before rounding
                    assert!(
                        (k as f64 - exact).abs() <= 0.5 + (x + y) as f64 / 131072.0,
                        "{w}x{h} θ {th} ({x}, {y}): bin {k}, exact {exact}"
                    );
                    assert!(t.bin(th, x, y) < t.n_rho);
                }
            }
        }
        assert!(HoughTable::new(16385, 4, 1.0, 1.0).is_err());
    }
}
