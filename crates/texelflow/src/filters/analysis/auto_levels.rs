//! Automatic levels: each of R, G, B (or all three linked) stretched so that its black and
//! white points at `clip`% from either end become 0 and 255. Photoshop's Auto Levels
//! ("Enhance Per Channel Contrast", clip 0.5% by default in this filter) or, linked, its
//! "Enhance Monochromatic Contrast"; GPUImage's `GPUImageLevelsFilter` with the points found.
//!
//! A composite that runs in one GPU submission with no read-back: `histogram` ->
//! `range_from_histogram` -> `levels_lut` -> `apply_lut`.

use super::apply_lut::ApplyLut;
use super::histogram::Histogram;
use super::levels_lut::LevelsLut;
use super::range_from_histogram::RangeFromHistogram;

crate::composite_filter! {
    /// Per-channel (or linked) histogram stretch at clip percentiles.
    pub struct AutoLevels;
    name: "auto_levels",
    family: Analysis,
    gpuimage: "GPUImageLevelsFilter",
    summary: "Stretches each of R, G, B (or all linked) from its clip-percentile black/white points to 0..255.",
    doc: "Black point: the level at clip% of the pixels, white point at (100 - clip)% (`dynamic_range`); \
then level v becomes round(255 (v - black) / (white - black)), 0 and 255 beyond the points; a flat channel is \
kept; alpha is kept. linked=true stretches R, G, B alike from the lowest black to the highest white point \
(colours kept). Runs as histogram -> range_from_histogram -> levels_lut -> apply_lut, all on the GPU.",
    params: {
        clip: float(0.0, 50.0) = 0.5 => "percent of the pixels clipped at each end",
        linked: bool = false => "one stretch for R, G and B (keeps the colour balance) instead of one per channel",
    },
    lower: |f, g, inputs| {
        let image = *inputs.first().ok_or_else(|| crate::Error::invalid("`auto_levels` needs an image"))?;
        let hist = g.add(Histogram::new(), &[image])?;
        let range = g.add(RangeFromHistogram::new(f.clip, 100.0 - f.clip, 1)?, &hist)?;
        let lut = g.add(LevelsLut::new(f.linked)?, &range)?;
        g.add(ApplyLut, &[image, lut[0]])
    },
}
