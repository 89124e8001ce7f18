//! Histogram equalisation. Matches GPUImage's `GPUImageHistogramEqualizationFilter` and, on a
//! grey image, OpenCV's `cv::equalizeHist` (its curve, rounded half up exactly where OpenCV
//! rounds an f32 product: at most one level apart; see scripts/opencv_compare.py).
//! `channels=luma` (default) applies the BT.601 luma's curve to R, G and B alike; `rgb`
//! equalises each channel by its own curve (colours shift).
//!
//! A composite that runs in one GPU submission with no read-back: `histogram` ->
//! `equalization_lut` -> `apply_lut`.

use super::apply_lut::ApplyLut;
use super::equalization_lut::EqualizationLut;
use super::histogram::Histogram;

crate::composite_filter! {
    /// Histogram equalisation by the luma's curve (or per channel).
    pub struct HistogramEqualization;
    name: "histogram_equalization",
    family: Analysis,
    gpuimage: "GPUImageHistogramEqualizationFilter",
    summary: "Histogram equalisation: the luma's equalizeHist curve on R, G, B (or each channel's own).",
    doc: "The curve is OpenCV's equalizeHist: level v becomes round(255 (cdf(v) - cdf_min) / (total - cdf_min)) \
(half up, exact integers), cdf_min the count of the lowest level present; a one-level channel is kept. \
channels=luma: the curve of Y = round(0.299R + 0.587G + 0.114B) applied to R, G and B (on a grey image, \
equalizeHist itself); channels=rgb: each channel its own. Alpha kept. Runs as histogram -> equalization_lut -> \
apply_lut, all on the GPU.",
    params: {
        channels: choice("luma", "rgb") = "luma" => "luma: the luma's curve on R, G, B alike; rgb: each channel its own curve",
    },
    lower: |f, g, inputs| {
        let image = *inputs.first().ok_or_else(|| crate::Error::invalid("`histogram_equalization` needs an image"))?;
        let hist = g.add(Histogram::new(), &[image])?;
        let lut = g.add(EqualizationLut::new(f.channels)?, &hist)?;
        g.add(ApplyLut, &[image, lut[0]])
    },
}
