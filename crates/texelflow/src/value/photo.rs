//! The data of the photo-analysis filters (`color_fingerprint`, `photo_metrics`,
//! `photo_assessment`): a colour fingerprint's counts and the photo metrics' raw integer
//! sums, as read back from the GPU. They are values a graph carries (`Data::Fingerprint`,
//! `Data::PhotoMetrics`), so they sit with the other values; what an application derives
//! from them (measures, scores) is `crate::assess`.

use super::{FINGERPRINT_HEADER_WORDS, FINGERPRINT_MAX_BINS, PHOTO_METRICS_WORDS};
use crate::error::{Error, Result};

/// Fingerprint grids accepted: 1x1 to 8x8 blocks.
pub const GRID_RANGE: std::ops::RangeInclusive<u32> = 1..=8;
/// Bits kept per colour channel: 1 to 4.
pub const BITS_RANGE: std::ops::RangeInclusive<u32> = 1..=4;

/// Where each pixel of a `width` x `height` image falls in a fingerprint of `grid` and `bits`.
///
/// Blocks: `rows = min(grid, height)`, `cols = min(grid, width)`, `v_step = height / rows`,
/// `h_step = width / cols`; pixel (x, y) is in block `row * cols + col` with
/// `row = min(y / v_step, rows - 1)`, `col = min(x / h_step, cols - 1)` (the article's formula
/// plus the clamp: without it, for a height not a multiple of `rows`, its last rows got
/// `row = rows` and their block index spilled into the colour bits). The last row and column
/// of blocks take the remainder pixels.
///
/// Bin: `block + grid² × (r' + (g' << bits) + (b' << 2 bits))` with `c' = c >> (8 - bits)`,
/// the top `bits` bits of each channel: R in the lowest colour bits, then G, then B. At the
/// defaults (grid 2, bits 3) that is the article's `block + ((c1>>5)<<2) + ((c2>>5)<<5) +
/// ((c3>>5)<<8)`, 2048 bins, with c1, c2, c3 = R, G, B: bits 0-1 the block, 2-4 R, 5-7 G,
/// 8-10 B (the article reads components y, z, w of a texture whose format it does not show;
/// its diagram `|-3bit-|-3bit-|-3bit-|-2bit-|` puts the three colours above the block).
/// With fewer than grid rows or columns (an image 1 pixel high), blocks from `rows * cols`
/// up stay empty. Alpha is ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FingerprintLayout {
    /// Blocks per side.
    pub grid: u32,
    /// Bits kept per colour channel.
    pub bits: u32,
    /// Block rows: `min(grid, height)`.
    pub rows: u32,
    /// Block columns: `min(grid, width)`.
    pub cols: u32,
    /// Pixel rows per block: `height / rows`.
    pub v_step: u32,
    /// Pixel columns per block: `width / cols`.
    pub h_step: u32,
}

impl FingerprintLayout {
    /// The layout for an image of `width` x `height`; grid and bits out of range name the range.
    pub fn new(grid: u32, bits: u32, width: u32, height: u32) -> Result<Self> {
        check_grid_bits(grid, bits)?;
        if width == 0 || height == 0 {
            return Err(Error::invalid(format!(
                "color_fingerprint needs a non-empty image, got {width}x{height}"
            )));
        }
        let (rows, cols) = (grid.min(height), grid.min(width));
        Ok(Self {
            grid,
            bits,
            rows,
            cols,
            v_step: height / rows,
            h_step: width / cols,
        })
    }
    /// Number of bins: grid² × 2^(3 bits).
    pub fn bins(&self) -> usize {
        bin_count(self.grid, self.bits)
    }
    /// The bin of pixel (x, y) with colour (r, g, b).
    pub fn bin(&self, x: u32, y: u32, r: u8, g: u8, b: u8) -> usize {
        let row = (y / self.v_step).min(self.rows - 1);
        let col = (x / self.h_step).min(self.cols - 1);
        let block = row * self.cols + col;
        let s = 8 - self.bits;
        let colour =
            (r as u32 >> s) | ((g as u32 >> s) << self.bits) | ((b as u32 >> s) << (2 * self.bits));
        (block + self.grid * self.grid * colour) as usize
    }
}

/// grid² × 2^(3 bits).
pub fn bin_count(grid: u32, bits: u32) -> usize {
    (grid * grid) as usize * (1usize << (3 * bits))
}

/// Checks the fingerprint parameters (also checked where the filter is built).
pub fn check_grid_bits(grid: u32, bits: u32) -> Result<()> {
    if !GRID_RANGE.contains(&grid) || !BITS_RANGE.contains(&bits) {
        return Err(Error::invalid(format!("color_fingerprint: grid must be in 1..=8 and bits in 1..=4, got grid={grid}, bits={bits}")));
    }
    debug_assert!(bin_count(grid, bits) <= FINGERPRINT_MAX_BINS as usize);
    Ok(())
}

/// A colour-distribution fingerprint: pixel counts per bin (layout: [`FingerprintLayout`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    /// Blocks per side.
    pub grid: u32,
    /// Bits kept per colour channel.
    pub bits: u32,
    /// Pixels counted (every pixel of the image).
    pub pixels: u64,
    /// `grid² × 2^(3 bits)` counts.
    pub bins: Vec<u32>,
}

impl Fingerprint {
    /// Parses the `DataKind::Fingerprint` GPU layout.
    pub fn from_words(w: &[u32]) -> Result<Fingerprint> {
        let h = FINGERPRINT_HEADER_WORDS as usize;
        let (grid, bits) = (
            w.first().copied().unwrap_or(0),
            w.get(1).copied().unwrap_or(0),
        );
        check_grid_bits(grid, bits)
            .map_err(|e| Error::Gpu(format!("fingerprint buffer header: {e}")))?;
        let n = bin_count(grid, bits);
        let bins = w
            .get(h..h + n)
            .ok_or_else(|| Error::Gpu("fingerprint buffer too small".into()))?
            .to_vec();
        Ok(Fingerprint {
            grid,
            bits,
            pixels: w[2] as u64 | ((w[3] as u64) << 32),
            bins,
        })
    }

    /// Similarity in [0, 1]: the histogram intersection Σ min(a_i / Σa, b_i / Σb) of the two
    /// normalised bin vectors (1 for equal distributions, 0 for disjoint ones; symmetric).
    /// Fingerprints of different grid or bits are not comparable: 0. Computed in integers
    /// (Σ min(a_i Σb, b_i Σa) / (Σa Σb)) so the result does not depend on summation order.
    pub fn similarity(&self, other: &Fingerprint) -> f64 {
        if self.grid != other.grid || self.bits != other.bits || self.bins.len() != other.bins.len()
        {
            return 0.0;
        }
        let sa: u128 = self.bins.iter().map(|&v| v as u128).sum();
        let sb: u128 = other.bins.iter().map(|&v| v as u128).sum();
        if sa == 0 || sb == 0 {
            return if sa == sb { 1.0 } else { 0.0 };
        }
        let inter: u128 = self
            .bins
            .iter()
            .zip(&other.bins)
            .map(|(&a, &b)| (a as u128 * sb).min(b as u128 * sa))
            .sum();
        inter as f64 / (sa as f64 * sb as f64)
    }
}

/// Raw integer sums of `photo_metrics` over one image: exact on the GPU and the CPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PhotoMetrics {
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// Pixels per BT.601 luma level.
    pub luma_hist: [u32; 256],
    /// Σ (gx² + gy²), 3x3 Sobel on luma, replicated borders, every pixel.
    pub sobel_energy: u64,
    /// Σ L, L = N + S + E + W - 4C on luma, replicated borders, every pixel.
    pub laplacian_sum: i64,
    /// Σ L².
    pub laplacian_sq: u64,
    /// Σ |Y * [[1,-2,1],[-2,4,-2],[1,-2,1]]| over the (W-2)(H-2) interior pixels.
    pub noise_abs: u64,
    /// Σ (R - G).
    pub rg_sum: i64,
    /// Σ (R - G)².
    pub rg_sq: u64,
    /// Σ 2 yb = Σ (R + G - 2B).
    pub yb2_sum: i64,
    /// Σ (R + G - 2B)².
    pub yb2_sq: u64,
    /// Σ round(65536 S), S the HSV saturation (as `mean_saturation`).
    pub saturation_sum: u64,
}

impl PhotoMetrics {
    /// The sums in GPU slot order.
    pub const SUMS: [&'static str; 9] = [
        "sobel_energy",
        "laplacian_sum",
        "laplacian_sq",
        "noise_abs",
        "rg_sum",
        "rg_sq",
        "yb2_sum",
        "yb2_sq",
        "saturation_sum",
    ];
    /// Per-pixel offset added to each GPU slot's samples so they are non-negative (signed sums).
    pub const OFFSETS: [u64; 9] = [0, 1020, 0, 0, 255, 0, 510, 0, 0];
    /// Word of the width in the GPU layout (the height follows).
    pub const SIZE_WORD: usize = 256 + 2 * 9;

    /// Parses the `DataKind::PhotoMetrics` GPU layout.
    pub fn from_words(w: &[u32]) -> Result<PhotoMetrics> {
        if w.len() < PHOTO_METRICS_WORDS as usize {
            return Err(Error::Gpu("photo_metrics buffer too small".into()));
        }
        let mut luma_hist = [0u32; 256];
        luma_hist.copy_from_slice(&w[..256]);
        let (width, height) = (w[Self::SIZE_WORD], w[Self::SIZE_WORD + 1]);
        let n = width as u64 * height as u64;
        let raw = |k: usize| w[256 + 2 * k] as u64 | ((w[257 + 2 * k] as u64) << 32);
        // signed sums: the stored samples were v + offset over all n pixels
        let signed = |k: usize| raw(k) as i64 - (Self::OFFSETS[k] * n) as i64;
        Ok(PhotoMetrics {
            width,
            height,
            luma_hist,
            sobel_energy: raw(0),
            laplacian_sum: signed(1),
            laplacian_sq: raw(2),
            noise_abs: raw(3),
            rg_sum: signed(4),
            rg_sq: raw(5),
            yb2_sum: signed(6),
            yb2_sq: raw(7),
            saturation_sum: raw(8),
        })
    }
    /// Pixels in the image.
    pub fn pixels(&self) -> u64 {
        self.width as u64 * self.height as u64
    }
}
