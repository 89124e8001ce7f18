//! Photo assessment (issue 16, after the PhotoAssessment component of seed 003): a colour
//! fingerprint for near-duplicate grouping, and quality metrics with a 0-100 score.
//!
//! One GPU pass per image with integer results, so the GPU and the CPU twins agree exactly and
//! every float here is derived on the CPU from them: the `photo_assessment(grid, bits)` node
//! (`filters::analysis::PhotoAssessment`) reads the image once and gives two data outputs,
//! equal to what the two public nodes give separately:
//! - `color_fingerprint(grid, bits)` → [`Fingerprint`]: pixel counts per (block, colour) bin.
//! - `photo_metrics` → [`PhotoMetrics`]: raw sums (Sobel energy, Laplacian, Immerkaer noise,
//!   Hasler-Süsstrunk opponent channels, HSV saturation) and a 256-bin BT.601 luma histogram.
//!
//! [`Assessment::from_metrics`] turns the sums into measures, [`Assessment::score`] into a
//! score. Why one node: the fingerprint as a second node cost a second read of the image
//! (0.056 ms at 4032x3024 on an H100 beside the metrics' 0.092, copy 0.0385: 3.85x copy for
//! the whole assessment, issue 16's target being 3x). [`add_two_pass_assessment`] keeps the
//! two-node graph as the reference the tests and the benchmark compare the fused pass with.
//!
//! # Measures (all on 8-bit BT.601 luma Y = round(0.299 R + 0.587 G + 0.114 B) unless said)
//! - sharpness: Tenengrad, the mean of gx² + gy² of the 3x3 Sobel derivatives (replicated
//!   borders), and the variance of the 4-neighbour Laplacian N + S + E + W - 4C (OpenCV's
//!   `cv2.Laplacian(y, cv2.CV_64F, ksize=1, borderType=cv2.BORDER_REPLICATE).var()`);
//! - exposure: mean luma; clipped shadows = fraction with Y <= 2, clipped highlights = Y >= 253;
//! - contrast: RMS contrast (standard deviation of Y) and the dynamic range p99 - p1, where
//!   p is the smallest level whose cumulative luma count reaches p of the pixels;
//! - colourfulness (Hasler & Süsstrunk 2003): rg = R - G, yb = (R + G)/2 - B over all
//!   pixels, M = sqrt(σ_rg² + σ_yb²) + 0.3 sqrt(μ_rg² + μ_yb²) (sums kept of 2 yb, exact);
//! - mean HSV saturation (max - min)/max, as `mean_saturation` computes it;
//! - noise (Immerkaer 1996): σ = sqrt(π/2) / (6 (W-2)(H-2)) Σ |Y * [[1,-2,1],[-2,4,-2],[1,-2,1]]|
//!   over the interior pixels (0 for images narrower or shorter than 3).
//!
//! # Score
//! `score = 100 × Π s_i^w_i` (a weighted geometric mean: one failing aspect sinks the photo)
//! over sub-scores in [0, 1]:
//! - sharpness (w 0.35): mean of clamp(log10(1 + Laplacian variance) / 3) and
//!   clamp(log10(1 + Tenengrad) / 4) (1 at variance 1000 and Tenengrad 10000);
//! - exposure (w 0.30): clamp(1 - |mean luma - 118| / 118) × clamp(1 - 3 (shadows + highlights))
//!   (118: mid grey, 18% reflectance in sRGB);
//! - contrast (w 0.15): mean of clamp(σ_Y / 50) and clamp((p99 - p1) / 180);
//! - colourfulness (w 0.10): clamp(0.5 + M / 80) (a grey photo keeps half: black and white is
//!   a choice, not a defect);
//! - noise (w 0.10): clamp(1 - σ_noise / 12).
//!
//! `clamp` is to [0, 1].

use std::borrow::Borrow;

use crate::error::{Error, Result};
use crate::graph::{Backend, Graph, Port, RunOptions};
use crate::image::Image;
pub use crate::value::photo::{
    bin_count, check_grid_bits, Fingerprint, FingerprintLayout, PhotoMetrics, BITS_RANGE,
    GRID_RANGE,
};
use crate::value::Data;

/// Near-duplicate groups: the connected components of the graph linking every two
/// fingerprints with `similarity >= threshold` (so a chain a~b~c is one group even when a and
/// c are further apart). Only groups of two or more are returned; each lists its indices
/// ascending and the groups come in order of their smallest index, so the result depends on
/// nothing but the input order. O(n²) comparisons: fine for folders of thousands.
pub fn group_near_duplicates(fingerprints: &[Fingerprint], threshold: f64) -> Vec<Vec<usize>> {
    let n = fingerprints.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    for i in 0..n {
        for j in i + 1..n {
            if fingerprints[i].similarity(&fingerprints[j]) >= threshold {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                // the smaller index is the root: deterministic
                let (lo, hi) = (a.min(b), a.max(b));
                parent[hi] = lo;
            }
        }
    }
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> =
        std::collections::BTreeMap::new();
    for i in 0..n {
        let r = root(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    groups.into_values().filter(|g| g.len() > 1).collect()
}

/// Default similarity above which `group_near_duplicates` links two photos (fingerprints at
/// grid 2, bits 3): a copy with its brightness moved by a few levels or light noise added
/// stays above it (0.74 to 0.88 in tests/assess.rs: 3-bit bins split a shifted flat colour),
/// different scenes fall well below (at most 0.46 there). Heavily under- or over-exposed photos
/// collapse into few bins and may group with each other.
pub const DUPLICATE_THRESHOLD: f64 = 0.6;

/// Measures derived from [`PhotoMetrics`] (definitions: module docs). Luma values in 8-bit levels.
#[derive(Clone, Debug, PartialEq)]
pub struct Assessment {
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// Mean of gx² + gy² (Sobel on luma).
    pub tenengrad: f64,
    /// Variance of the 4-neighbour Laplacian of luma.
    pub laplacian_variance: f64,
    /// Mean luma.
    pub mean_luma: f64,
    /// Fraction of pixels with Y <= `SHADOW_LEVEL`.
    pub clipped_shadows: f64,
    /// Fraction of pixels with Y >= `HIGHLIGHT_LEVEL`.
    pub clipped_highlights: f64,
    /// RMS contrast: standard deviation of luma.
    pub rms_contrast: f64,
    /// 1st and 99th luma percentiles.
    pub luma_p1: u8,
    /// 99th luma percentile.
    pub luma_p99: u8,
    /// Hasler-Süsstrunk colourfulness M.
    pub colorfulness: f64,
    /// Mean HSV saturation in [0, 1].
    pub mean_saturation: f64,
    /// Immerkaer's noise standard deviation estimate, in luma levels.
    pub noise_sigma: f64,
}

/// Sub-scores in [0, 1] (mappings: module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SubScores {
    /// From the Tenengrad and the Laplacian variance.
    pub sharpness: f64,
    /// From mean luma and the clipped fractions.
    pub exposure: f64,
    /// From RMS contrast and the p1-p99 range.
    pub contrast: f64,
    /// From colourfulness M.
    pub colorfulness: f64,
    /// From the noise estimate.
    pub noise: f64,
}

impl SubScores {
    /// Weights of sharpness, exposure, contrast, colourfulness, noise in the score.
    pub const WEIGHTS: [f64; 5] = [0.35, 0.30, 0.15, 0.10, 0.10];
    /// The sub-scores in `WEIGHTS` order.
    pub fn as_array(&self) -> [f64; 5] {
        [
            self.sharpness,
            self.exposure,
            self.contrast,
            self.colorfulness,
            self.noise,
        ]
    }
}

/// Luma at or below which a pixel counts as clipped shadow.
pub const SHADOW_LEVEL: u8 = 2;
/// Luma at or above which a pixel counts as clipped highlight.
pub const HIGHLIGHT_LEVEL: u8 = 253;
/// Mid grey the exposure sub-score aims at (18% reflectance in sRGB).
pub const MID_GREY: f64 = 118.0;

fn clamp01(v: f64) -> f64 {
    if v.is_nan() {
        0.0
    } else {
        v.clamp(0.0, 1.0)
    }
}

impl Assessment {
    /// The measures from the raw sums.
    pub fn from_metrics(m: &PhotoMetrics) -> Assessment {
        let n = m.pixels().max(1) as f64;
        let h = &m.luma_hist;
        let (mut s1, mut s2) = (0u64, 0u64);
        for (v, &c) in h.iter().enumerate() {
            s1 += v as u64 * c as u64;
            s2 += (v * v) as u64 * c as u64;
        }
        let mean_luma = s1 as f64 / n;
        let var = |sq: u64, sum: i64| (sq as f64 / n - (sum as f64 / n).powi(2)).max(0.0);
        let percentile = |p: f64| -> u8 {
            let need = (p * m.pixels() as f64).ceil().max(1.0) as u64;
            let mut cum = 0u64;
            for (v, &c) in h.iter().enumerate() {
                cum += c as u64;
                if cum >= need {
                    return v as u8;
                }
            }
            255
        };
        let count = |r: std::ops::RangeInclusive<usize>| {
            h[r].iter().map(|&c| c as u64).sum::<u64>() as f64 / n
        };
        let (mu_rg, mu_yb) = (m.rg_sum as f64 / n, m.yb2_sum as f64 / n / 2.0);
        let (var_rg, var_yb) = (var(m.rg_sq, m.rg_sum), var(m.yb2_sq, m.yb2_sum) / 4.0);
        let interior =
            (m.width.saturating_sub(2) as u64 * m.height.saturating_sub(2) as u64) as f64;
        Assessment {
            width: m.width,
            height: m.height,
            tenengrad: m.sobel_energy as f64 / n,
            laplacian_variance: var(m.laplacian_sq, m.laplacian_sum),
            mean_luma,
            clipped_shadows: count(0..=SHADOW_LEVEL as usize),
            clipped_highlights: count(HIGHLIGHT_LEVEL as usize..=255),
            rms_contrast: (s2 as f64 / n - mean_luma * mean_luma).max(0.0).sqrt(),
            luma_p1: percentile(0.01),
            luma_p99: percentile(0.99),
            colorfulness: (var_rg + var_yb).sqrt() + 0.3 * (mu_rg * mu_rg + mu_yb * mu_yb).sqrt(),
            mean_saturation: m.saturation_sum as f64 / n / 65536.0,
            noise_sigma: if interior > 0.0 {
                (std::f64::consts::PI / 2.0).sqrt() * m.noise_abs as f64 / (6.0 * interior)
            } else {
                0.0
            },
        }
    }

    /// The measures from `photo_metrics` data; other data is an error.
    pub fn from_data(data: &Data) -> Result<Assessment> {
        match data {
            Data::PhotoMetrics(m) => Ok(Assessment::from_metrics(m)),
            other => Err(Error::invalid(format!(
                "expected photo_metrics data, got {} data",
                other.kind().name()
            ))),
        }
    }

    /// Dynamic range p99 - p1 in luma levels.
    pub fn dynamic_range(&self) -> u8 {
        self.luma_p99.saturating_sub(self.luma_p1)
    }

    /// The sub-scores (mappings: module docs).
    pub fn sub_scores(&self) -> SubScores {
        let sharp = (clamp01((1.0 + self.laplacian_variance).log10() / 3.0)
            + clamp01((1.0 + self.tenengrad).log10() / 4.0))
            / 2.0;
        let exposure = clamp01(1.0 - (self.mean_luma - MID_GREY).abs() / MID_GREY)
            * clamp01(1.0 - 3.0 * (self.clipped_shadows + self.clipped_highlights));
        let contrast = (clamp01(self.rms_contrast / 50.0)
            + clamp01(self.dynamic_range() as f64 / 180.0))
            / 2.0;
        SubScores {
            sharpness: sharp,
            exposure,
            contrast,
            colorfulness: clamp01(0.5 + self.colorfulness / 80.0),
            noise: clamp01(1.0 - self.noise_sigma / 12.0),
        }
    }

    /// The 0-100 quality score: 100 × Π s_i^w_i over the sub-scores (module docs).
    pub fn score(&self) -> f64 {
        let s = self.sub_scores().as_array();
        100.0
            * s.iter()
                .zip(SubScores::WEIGHTS)
                .map(|(&v, w)| v.powf(w))
                .product::<f64>()
    }
}

/// The ports of one image's assessment in a graph.
#[derive(Clone, Copy, Debug)]
pub struct AssessPorts {
    /// `photo_metrics` data.
    pub metrics: Port,
    /// `fingerprint` data.
    pub fingerprint: Port,
}

/// Options of the assessment: the fingerprint's grid and bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AssessOptions {
    /// Fingerprint grid: `grid` x `grid` blocks.
    pub grid: u32,
    /// Fingerprint bits per channel.
    pub bits: u32,
}

impl Default for AssessOptions {
    /// The article's fingerprint: 2x2 blocks, 3 bits per channel (2048 bins).
    fn default() -> Self {
        Self { grid: 2, bits: 3 }
    }
}

/// The size an image of `width`×`height` is analysed at with its longest side capped at
/// `max_side` (the CLI's `assess --max-side`, the article's downsampled analysis): the aspect
/// kept, each side rounded (at least 1); `None` where the image is not larger. The CLI decodes
/// a JPEG at the DCT scale (1/2, 1/4, 1/8) that keeps this size (shrink-on-load,
/// `LoadOptions::min_size`) and resizes from there.
pub fn max_side_size(width: u32, height: u32, max_side: u32) -> Option<(u32, u32)> {
    let long = width.max(height);
    if long <= max_side {
        return None;
    }
    let scale = max_side as f64 / long as f64;
    let side = |s: u32| ((s as f64 * scale).round() as u32).max(1);
    Some((side(width), side(height)))
}

/// Output names `build_assessment_graph` gives the two data values.
pub const METRICS_OUTPUT: &str = "metrics";
/// Output name of the fingerprint (`build_assessment_graph`).
pub const FINGERPRINT_OUTPUT: &str = "fingerprint";

/// Adds the assessment of `image` (an RGBA8 port) to `g`: `photo_metrics` and
/// `color_fingerprint`, each reading the image. Faster than the one-pass `photo_assessment`
/// (`add_fused_assessment`) on the H200 at 4032x3024: 0.131 against 0.142-0.152 ms (session 13,
/// BENCHMARKS.md): the metrics pass is instruction-bound, and the fingerprint's atomics cost it
/// more than the fingerprint's own memory-bound read (0.030 ms) does.
pub fn add_assessment(g: &mut Graph, image: Port, opts: AssessOptions) -> Result<AssessPorts> {
    let metrics = g.add1(crate::filters::analysis::PhotoMetrics::new(), &[image])?;
    let fingerprint = g.add1(
        crate::filters::analysis::ColorFingerprint::new(opts.grid, opts.bits)?,
        &[image],
    )?;
    Ok(AssessPorts {
        metrics,
        fingerprint,
    })
}

/// The same assessment as one `photo_assessment` node: one pass over the image for both
/// outputs (equal results; tested and benchmarked against `add_assessment`).
pub fn add_fused_assessment(
    g: &mut Graph,
    image: Port,
    opts: AssessOptions,
) -> Result<AssessPorts> {
    let ports = g.add(
        crate::filters::analysis::PhotoAssessment::new(opts.grid, opts.bits)?,
        &[image],
    )?;
    match ports[..] {
        [metrics, fingerprint] => Ok(AssessPorts {
            metrics,
            fingerprint,
        }),
        _ => Err(Error::invalid(format!(
            "photo_assessment gave {} outputs, expected 2",
            ports.len()
        ))),
    }
}

/// A graph with source `"image"` of `img`'s description (RGBA8; other formats are converted by
/// `assess_image`) and the two outputs `METRICS_OUTPUT` and `FINGERPRINT_OUTPUT`.
pub fn build_assessment_graph(desc: crate::ImageDesc, opts: AssessOptions) -> Result<Graph> {
    assessment_graph(desc, opts, add_assessment)
}

/// `build_assessment_graph` with the one-pass assessment (`add_fused_assessment`).
pub fn build_fused_assessment_graph(desc: crate::ImageDesc, opts: AssessOptions) -> Result<Graph> {
    assessment_graph(desc, opts, add_fused_assessment)
}

fn assessment_graph(
    desc: crate::ImageDesc,
    opts: AssessOptions,
    add: fn(&mut Graph, Port, AssessOptions) -> Result<AssessPorts>,
) -> Result<Graph> {
    let mut g = Graph::new();
    let src = g.source("image", desc)?;
    let p = add(&mut g, src, opts)?;
    g.output(METRICS_OUTPUT, p.metrics)?;
    g.output(FINGERPRINT_OUTPUT, p.fingerprint)?;
    Ok(g)
}

/// One image's result: the measures, the raw sums they came from, and the fingerprint.
#[derive(Clone, Debug, PartialEq)]
pub struct PhotoReport {
    /// The measures.
    pub assessment: Assessment,
    /// The raw sums the measures came from.
    pub metrics: PhotoMetrics,
    /// The colour fingerprint.
    pub fingerprint: Fingerprint,
}

/// Assesses one image on `backend` (one graph run, one submission on the GPU). Images that are
/// not RGBA8 (Gray8, 16-bit, float) are converted to RGBA8 first.
pub fn assess_image(backend: &Backend, img: &Image, opts: AssessOptions) -> Result<PhotoReport> {
    let converted;
    let img = if img.format() == crate::PixelFormat::Rgba8 {
        img
    } else {
        converted = img.convert(crate::PixelFormat::Rgba8);
        &converted
    };
    let g = build_assessment_graph(img.desc(), opts)?;
    let mut r = backend.run(&g, &[("image", img)], &RunOptions::default())?;
    let metrics = match r.take(METRICS_OUTPUT) {
        Some(crate::Value::Data(Data::PhotoMetrics(m))) => m,
        _ => {
            return Err(Error::invalid(
                "assessment graph gave no photo_metrics data",
            ))
        }
    };
    let fingerprint = match r.take(FINGERPRINT_OUTPUT) {
        Some(crate::Value::Data(Data::Fingerprint(f))) => f,
        _ => return Err(Error::invalid("assessment graph gave no fingerprint data")),
    };
    Ok(PhotoReport {
        assessment: Assessment::from_metrics(&metrics),
        metrics,
        fingerprint,
    })
}

/// Assesses many images with up to `in_flight` at once on one backend (kernels compiled once;
/// loading, GPU runs and the sink overlap, as `Pipeline::run_stream`): `load` turns an item
/// into an image on a worker thread, `sink` gets `(index, result)` in input order. A failure
/// to load or run is that item's result; the others go on.
pub fn assess_stream<T, R, I, L, S>(
    backend: &Backend,
    inputs: I,
    load: L,
    opts: AssessOptions,
    in_flight: usize,
    sink: S,
) where
    I: Iterator<Item = T> + Send,
    R: Borrow<Image>,
    L: Fn(T) -> Result<R> + Sync,
    S: FnMut(usize, Result<PhotoReport>) + Send,
{
    crate::graph::stream::stream(
        inputs,
        |item| load(item).and_then(|img| assess_image(backend, img.borrow(), opts)),
        in_flight,
        sink,
    );
}
