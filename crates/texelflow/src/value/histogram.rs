//! The `Histogram` object (what the `histogram` filter produces) and the histogram solvers'
//! CPU side: percentiles, moments, entropy, comparison (OpenCV's `cv::compareHist`), and the
//! curves the image-producing solvers apply (`auto_levels`, `auto_white_balance`,
//! `histogram_equalization`).
//!
//! Everything a GPU solver node also computes is integer arithmetic here, so the node and its
//! CPU twin agree exactly: percentiles are taken at a rational `num / den`, curves round
//! `a / b` half up in 64-bit integers.

use super::{Lut, Range};

/// The colour space a histogram's first three channels count (channels 3 and 4 are always
/// BT.601 luma Y and alpha).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum HistogramSpace {
    /// R, G, B.
    #[default]
    Rgb,
    /// OpenCV's 8-bit full-range HSV (`COLOR_RGB2HSV_FULL`): H * 256 / 360, S and V in 0..255.
    Hsv,
    /// OpenCV's 8-bit CIE L*a*b* (`COLOR_RGB2Lab`, sRGB D65): L * 255 / 100, a + 128, b + 128.
    Lab,
}

impl HistogramSpace {
    /// The value stored in the histogram buffer's space word.
    pub fn to_u32(self) -> u32 {
        match self {
            HistogramSpace::Rgb => 0,
            HistogramSpace::Hsv => 1,
            HistogramSpace::Lab => 2,
        }
    }
    /// The space stored as `v` (`to_u32`'s inverse).
    pub fn from_u32(v: u32) -> Option<HistogramSpace> {
        [
            HistogramSpace::Rgb,
            HistogramSpace::Hsv,
            HistogramSpace::Lab,
        ]
        .get(v as usize)
        .copied()
    }
    /// `rgb`, `hsv` or `lab`.
    pub fn name(self) -> &'static str {
        ["rgb", "hsv", "lab"][self.to_u32() as usize]
    }
    /// Names of the five channels in storage order (JSON keys, `analyze` labels).
    pub fn channel_names(self) -> [&'static str; 5] {
        match self {
            HistogramSpace::Rgb => ["r", "g", "b", "y", "a"],
            HistogramSpace::Hsv => ["h", "s", "v", "y", "alpha"],
            HistogramSpace::Lab => ["l", "a", "b", "y", "alpha"],
        }
    }
}

/// How `Histogram::compare` measures two histograms (OpenCV's `HistCompMethods`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareMethod {
    /// Sum of min(p, q) over the bins: 1 for equal distributions, 0 for disjoint ones.
    Intersection,
    /// OpenCV's `HISTCMP_CHISQR`: sum of (p - q)^2 / p over the bins where p > 0.
    ChiSquare,
    /// OpenCV's `HISTCMP_BHATTACHARYYA` (Hellinger): sqrt(1 - sum sqrt(p q) / sqrt(sum p sum q));
    /// 0 for equal distributions, 1 for disjoint ones.
    Bhattacharyya,
}

/// 256-bin histograms of five channels: the space's three (R, G, B by default), BT.601 luma Y
/// and alpha, as exact counts (or alpha-weighted sums, see the `histogram` filter).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Histogram {
    /// `bins[c][v]`: channel c (see `CHANNELS`) at level v.
    pub bins: [[u32; 256]; 5],
    /// The colour space of the first three channels.
    pub space: HistogramSpace,
}

impl Histogram {
    /// Channel names of an RGB histogram in storage order (`channel_names` for any space).
    pub const CHANNELS: [&'static str; 5] = ["r", "g", "b", "y", "a"];
    /// Index of the red (or first) channel.
    pub const R: usize = 0;
    /// Index of the green (or second) channel.
    pub const G: usize = 1;
    /// Index of the blue (or third) channel.
    pub const B: usize = 2;
    /// Index of BT.601 luma.
    pub const Y: usize = 3;
    /// Index of alpha.
    pub const A: usize = 4;

    /// An empty RGB histogram.
    pub fn new() -> Histogram {
        Histogram {
            bins: [[0; 256]; 5],
            space: HistogramSpace::Rgb,
        }
    }
    /// Names of the channels in storage order.
    pub fn channel_names(&self) -> [&'static str; 5] {
        self.space.channel_names()
    }
    /// Sum of channel `c`'s bins (the pixel count, or the alpha sum when weighted).
    pub fn total(&self, c: usize) -> u64 {
        self.bins[c].iter().map(|&b| b as u64).sum()
    }
    /// Cumulative counts: `cdf(c)[v]` = the sum of bins 0..=v.
    pub fn cdf(&self, c: usize) -> [u64; 256] {
        let mut acc = 0u64;
        std::array::from_fn(|v| {
            acc += self.bins[c][v] as u64;
            acc
        })
    }
    /// The q-th quantile (q in [0, 1], rounded to millionths): the smallest level whose
    /// cumulative count is at least q * total, and at least 1 (so q = 0 gives the lowest level
    /// present, q = 1 the highest). 0 for an empty channel.
    pub fn percentile(&self, c: usize, q: f64) -> u8 {
        let m = (q.clamp(0.0, 1.0) * 1e6).round() as u64;
        self.percentile_ratio(c, m, 1_000_000)
    }
    /// `percentile` at the exact fraction `num / den` (`num <= den`): the smallest level v with
    /// cdf(v) * den >= num * total and cdf(v) >= 1. What the GPU solvers compute.
    pub fn percentile_ratio(&self, c: usize, num: u64, den: u64) -> u8 {
        let total = self.total(c) as u128;
        let cdf = self.cdf(c);
        cdf.iter()
            .position(|&k| k >= 1 && k as u128 * den as u128 >= num as u128 * total)
            .unwrap_or(0) as u8
    }
    /// Mean level of channel `c` (0 for an empty channel).
    pub fn mean(&self, c: usize) -> f64 {
        let t = self.total(c);
        if t == 0 {
            return 0.0;
        }
        self.bins[c]
            .iter()
            .enumerate()
            .map(|(v, &b)| v as f64 * b as f64)
            .sum::<f64>()
            / t as f64
    }
    /// Population variance of channel `c`'s levels (0 for an empty channel).
    pub fn variance(&self, c: usize) -> f64 {
        let t = self.total(c);
        if t == 0 {
            return 0.0;
        }
        let m = self.mean(c);
        self.bins[c]
            .iter()
            .enumerate()
            .map(|(v, &b)| (v as f64 - m).powi(2) * b as f64)
            .sum::<f64>()
            / t as f64
    }
    /// Channel `c`'s bins divided by its total (all zero for an empty channel).
    pub fn normalised(&self, c: usize) -> [f64; 256] {
        let t = self.total(c).max(1) as f64;
        std::array::from_fn(|v| self.bins[c][v] as f64 / t)
    }
    /// Fractions of channel `c` at level 0 and at level 255 (clipped shadows, highlights).
    pub fn clip_fractions(&self, c: usize) -> (f64, f64) {
        let t = self.total(c).max(1) as f64;
        (self.bins[c][0] as f64 / t, self.bins[c][255] as f64 / t)
    }
    /// Shannon entropy of channel `c` in bits (0 to 8).
    pub fn entropy(&self, c: usize) -> f64 {
        self.normalised(c)
            .iter()
            .filter(|&&p| p > 0.0)
            .map(|&p| -p * p.log2())
            .sum()
    }
    /// Compares channel `c` of two histograms, each normalised to sum 1 first (so images of
    /// different sizes compare by their distributions): equal to `cv2.compareHist` on the two
    /// normalised arrays (`self` is OpenCV's H1).
    pub fn compare(&self, other: &Histogram, c: usize, method: CompareMethod) -> f64 {
        compare_bins(&self.normalised(c), &other.normalised(c), method)
    }

    // ---- solvers (CPU twins of the GPU solver nodes) ----

    /// Black and white points: per channel c with bit c of `channels` set (0 r, 1 g, 2 b, 3 y),
    /// `percentile_ratio` at `low_milli / 100000` and `high_milli / 100000` (percentages in
    /// thousandths of a percent). CPU twin of `range_from_histogram`.
    pub fn range(&self, low_milli: u32, high_milli: u32, channels: u32) -> Range {
        let mut r = Range {
            low: [0; 4],
            high: [0; 4],
            channels: channels & 0xF,
        };
        for c in (0..4).filter(|c| channels >> c & 1 == 1) {
            r.low[c] = self.percentile_ratio(c, low_milli as u64, PERCENT_DEN);
            r.high[c] = self.percentile_ratio(c, high_milli as u64, PERCENT_DEN);
        }
        r
    }
    /// `auto_levels`' curves: the black and white points of R, G, B at `clip_milli / 1000`
    /// percent from either end, each channel stretched to 0..255 (`levels_lut`).
    pub fn auto_levels_lut(&self, clip_milli: u32, linked: bool) -> Lut {
        levels_lut(
            &self.range(clip_milli, PERCENT_DEN as u32 - clip_milli, 0b0111),
            linked,
        )
    }
    /// `auto_white_balance(method=grey_world)`'s curves: R, G, B scaled by gains that make the
    /// mean colour neutral: channel c's level v becomes round(v * (S_r + S_g + S_b) / (3 S_c))
    /// (S_c the sum of channel c's levels), at most 255. A channel with no signal (S_c = 0)
    /// is left as it is. A grey image gets the identity.
    pub fn grey_world_lut(&self) -> Lut {
        let s: [u64; 3] = std::array::from_fn(|c| {
            self.bins[c]
                .iter()
                .enumerate()
                .map(|(v, &b)| v as u64 * b as u64)
                .sum()
        });
        gains_lut(s)
    }
    /// `histogram_equalization`'s curves: OpenCV's `equalizeHist` curve (the first level
    /// present maps to 0, level v to round(255 (cdf(v) - cdf_min) / (total - cdf_min)), half
    /// up) of Y applied to R, G and B alike (`per_channel` false), or of each channel to itself.
    pub fn equalization_lut(&self, per_channel: bool) -> Lut {
        let mut lut = Lut::identity();
        for c in 0..3 {
            lut.table[c] = equalize_curve(&self.bins[if per_channel { c } else { Histogram::Y }]);
        }
        lut
    }
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram::new()
    }
}

/// Denominator of percentages given in thousandths of a percent (100% = 100000).
pub const PERCENT_DEN: u64 = 100_000;

/// `cv2.compareHist` on two arrays (not normalised here).
pub fn compare_bins(p: &[f64], q: &[f64], method: CompareMethod) -> f64 {
    match method {
        CompareMethod::Intersection => p.iter().zip(q).map(|(a, b)| a.min(*b)).sum(),
        CompareMethod::ChiSquare => p
            .iter()
            .zip(q)
            .filter(|(a, _)| a.abs() > f64::EPSILON)
            .map(|(a, b)| (a - b) * (a - b) / a)
            .sum(),
        CompareMethod::Bhattacharyya => {
            let bc: f64 = p.iter().zip(q).map(|(a, b)| (a * b).sqrt()).sum();
            let s = p.iter().sum::<f64>() * q.iter().sum::<f64>();
            let norm = if s.abs() > f32::EPSILON as f64 {
                1.0 / s.sqrt()
            } else {
                1.0
            };
            (1.0 - bc * norm).max(0.0).sqrt()
        }
    }
}

/// round(num / den) half up, at most 255 (`den` > 0). The GPU finds the same value by a binary
/// search on the result with exact 64-bit products (`div_round_255` in solve.wgsl).
pub fn div_round_255(num: u64, den: u64) -> u8 {
    ((2 * num as u128 + den as u128) / (2 * den as u128)).min(255) as u8
}

/// Stretches [low, high] to [0, 255] per channel R, G, B (alpha kept): v <= low gives 0,
/// v >= high 255, between round(255 (v - low) / (high - low)); a channel with high <= low is
/// left as it is. `linked`: one stretch for all three, from the lowest low point to the
/// highest high point (keeps the colour balance). CPU twin of `levels_lut`.
pub fn levels_lut(range: &Range, linked: bool) -> Lut {
    let mut lut = Lut::identity();
    for c in 0..3 {
        let (lo, hi) = if linked {
            (
                range.low[..3].iter().min().copied().unwrap_or(0),
                range.high[..3].iter().max().copied().unwrap_or(255),
            )
        } else {
            (range.low[c], range.high[c])
        };
        if hi <= lo {
            continue;
        }
        let (lo, hi) = (lo as u64, hi as u64);
        for v in 0..256u64 {
            lut.table[c][v as usize] = if v <= lo {
                0
            } else if v >= hi {
                255
            } else {
                div_round_255(255 * (v - lo), hi - lo)
            };
        }
    }
    lut
}

/// Curves scaling R, G, B by gains that make a reference colour neutral: with `s` the
/// reference's channels in any common unit, channel c's level v becomes
/// round(v * (s_r + s_g + s_b) / (3 s_c)), at most 255; a channel with s_c = 0 is left as it is.
pub fn gains_lut(s: [u64; 3]) -> Lut {
    let t: u64 = s.iter().sum();
    let mut lut = Lut::identity();
    for (c, &sc) in s.iter().enumerate() {
        if sc == 0 {
            continue;
        }
        for v in 0..256u64 {
            lut.table[c][v as usize] = div_round_255(v * t, 3 * sc);
        }
    }
    lut
}

/// OpenCV's `equalizeHist` curve of one channel's bins, rounded half up in integers (OpenCV
/// rounds the f32 product `cdf * (255 / (total - cdf_min))` to nearest). A channel with one
/// level (or none) gets the identity.
pub fn equalize_curve(bins: &[u32; 256]) -> [u8; 256] {
    let total: u64 = bins.iter().map(|&b| b as u64).sum();
    let first = bins.iter().copied().find(|&b| b > 0).unwrap_or(0) as u64;
    if total == first {
        return std::array::from_fn(|v| v as u8);
    }
    let mut acc = 0u64;
    std::array::from_fn(|v| {
        acc += bins[v] as u64;
        div_round_255(255 * acc.saturating_sub(first), total - first)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(levels: &[(u8, u32)]) -> Histogram {
        let mut h = Histogram::new();
        for &(v, n) in levels {
            for c in 0..5 {
                h.bins[c][v as usize] += n;
            }
        }
        h
    }

    #[test]
    fn moments_percentiles_entropy() {
        // 10 pixels: 4 at level 0, 6 at level 10
        let h = hist(&[(0, 4), (10, 6)]);
        assert_eq!(h.total(0), 10);
        assert_eq!(h.cdf(0)[9], 4);
        assert_eq!(h.cdf(0)[255], 10);
        assert_eq!(h.mean(0), 6.0);
        assert_eq!(h.variance(0), (4.0 * 36.0 + 6.0 * 16.0) / 10.0);
        // cdf(0) = 4 >= 0.4 * 10: level 0; 0.41 needs 4.1 -> level 10
        assert_eq!(h.percentile(0, 0.4), 0);
        assert_eq!(h.percentile(0, 0.41), 10);
        assert_eq!(h.percentile(0, 0.0), 0);
        assert_eq!(h.percentile(0, 1.0), 10);
        assert_eq!(hist(&[(7, 3), (200, 1)]).percentile(0, 0.0), 7); // lowest level present
        assert_eq!(h.clip_fractions(0), (0.4, 0.0));
        let e = -(0.4f64 * 0.4f64.log2() + 0.6 * 0.6f64.log2());
        assert!((h.entropy(0) - e).abs() < 1e-12);
        assert_eq!(hist(&[(5, 8)]).entropy(1), 0.0);
        let flat = Histogram {
            bins: [[1; 256]; 5],
            space: HistogramSpace::Rgb,
        };
        assert!((flat.entropy(2) - 8.0).abs() < 1e-12);
        assert_eq!(Histogram::new().percentile(0, 0.5), 0);
    }

    #[test]
    fn compare_by_hand() {
        // p = (0.5, 0.5, 0), q = (0.25, 0.25, 0.5)
        let a = hist(&[(0, 1), (1, 1)]);
        let b = hist(&[(0, 1), (1, 1), (2, 2)]);
        assert!((a.compare(&b, 0, CompareMethod::Intersection) - 0.5).abs() < 1e-12);
        // (0.25^2 / 0.5) * 2; bin 2 skipped (p = 0)
        assert!((a.compare(&b, 0, CompareMethod::ChiSquare) - 0.25).abs() < 1e-12);
        // sum sqrt(pq) = 2 sqrt(0.125); sqrt(1 - that)
        let bh = (1.0 - 2.0 * 0.125f64.sqrt()).sqrt();
        assert!((a.compare(&b, 0, CompareMethod::Bhattacharyya) - bh).abs() < 1e-12);
        for m in [CompareMethod::ChiSquare, CompareMethod::Bhattacharyya] {
            assert!(a.compare(&a, 0, m).abs() < 1e-7, "{m:?}");
        }
        assert!((a.compare(&a, 0, CompareMethod::Intersection) - 1.0).abs() < 1e-12);
        let c = hist(&[(9, 3)]);
        assert!((a.compare(&c, 0, CompareMethod::Bhattacharyya) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn curves_by_hand() {
        // levels 60..190 stretched: ends at 0 and 255, 125 at round(255 * 65 / 130) = 128 (127.5 up)
        let mut h = Histogram::new();
        for v in 60..=190usize {
            for c in 0..5 {
                h.bins[c][v] = 10;
            }
        }
        let lut = h.auto_levels_lut(0, false);
        assert_eq!(
            (lut.table[0][60], lut.table[1][125], lut.table[2][190]),
            (0, 128, 255)
        );
        assert_eq!(lut.table[3], Lut::identity().table[3]);
        // clip 1%: 1310 pixels, 13.1 clipped at either end: points 61 and 189
        let r = h.range(1000, 99000, 0b1111);
        assert_eq!((r.low, r.high), ([61; 4], [189; 4]));
        // grey world on a grey image: identity; on (100, 50, 150): gains 2, 1 / 0.5... ->
        // v * 300 / (3 * 100) for r, v * 300 / 150 for g, v * 300 / 450 for b
        let grey = hist(&[(77, 5)]);
        assert_eq!(grey.grey_world_lut(), Lut::identity());
        let mut cast = Histogram::new();
        cast.bins[0][100] = 1;
        cast.bins[1][50] = 1;
        cast.bins[2][150] = 1;
        let lut = cast.grey_world_lut();
        assert_eq!(
            (lut.table[0][100], lut.table[1][50], lut.table[2][150]),
            (100, 100, 100)
        );
        assert_eq!((lut.table[1][200], lut.table[2][3]), (255, 2));
        // equalisation: 2 pixels at 10, 2 at 20: 10 -> 0, 20 -> 255; one level: identity
        let eq = equalize_curve(&hist(&[(10, 2), (20, 2)]).bins[3]);
        assert_eq!(
            (eq[0], eq[10], eq[15], eq[20], eq[255]),
            (0, 0, 0, 255, 255)
        );
        assert_eq!(equalize_curve(&hist(&[(10, 2)]).bins[3])[77], 77);
    }
}
