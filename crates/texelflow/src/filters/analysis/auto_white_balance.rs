//! Automatic white balance: R, G, B scaled by gains that make a reference colour neutral:
//! the image's mean colour (`grey_world`, OpenCV's `xphoto::GrayworldWB` with no saturation
//! threshold) or its dominant colour (`dominant`, the RGBY-histogram article's white balance
//! from the colour dominant). A grey image is left unchanged; a uniform colour cast is removed.
//!
//! A composite that runs in one GPU submission with no read-back: `histogram` ->
//! `grey_world_lut` -> `apply_lut`, or `dominant_color` -> `color_gains_lut` -> `apply_lut`.

use super::apply_lut::ApplyLut;
use super::color_gains_lut::ColorGainsLut;
use super::dominant_color::DominantColor;
use super::grey_world_lut::GreyWorldLut;
use super::histogram::Histogram;

crate::composite_filter! {
    /// Gains on R, G, B making the mean colour neutral.
    pub struct AutoWhiteBalance;
    name: "auto_white_balance",
    family: Analysis,
    gpuimage: "",
    summary: "White balance by gains on R, G, B that make the image's mean (grey world) or dominant colour neutral.",
    doc: "method=grey_world: with S_c the sum of channel c, level v of channel c becomes \
round(v (S_r + S_g + S_b) / (3 S_c)), at most 255 (exact integers); a channel with no signal is kept; alpha is \
kept. method=dominant: the same gains with S_c the sums over the pixels of the dominant colour (dominant_color, bits 4). \
Runs as histogram -> grey_world_lut -> apply_lut (or dominant_color -> color_gains_lut -> apply_lut), all on the GPU.",
    params: {
        method: choice("grey_world", "dominant") = "grey_world" => "the reference made neutral: grey_world (the mean colour) or dominant (the dominant colour)",
    },
    lower: |f, g, inputs| {
        let image = *inputs.first().ok_or_else(|| crate::Error::invalid("`auto_white_balance` needs an image"))?;
        let lut = if f.method == 1 {
            let colour = g.add(DominantColor::default(), &[image])?;
            g.add(ColorGainsLut, &colour)?
        } else {
            let hist = g.add(Histogram::new(), &[image])?;
            g.add(GreyWorldLut, &hist)?
        };
        g.add(ApplyLut, &[image, lut[0]])
    },
}
