//! The histogram of an image drawn as an image, all on the GPU: `histogram` then
//! `histogram_generator`, as GPUImage chains `GPUImageHistogramFilter` into
//! `GPUImageHistogramGenerator` (its FilterShowcase's histogram display).

use super::HistogramGenerator;
use crate::filters::analysis::Histogram;

crate::composite_filter! {
    /// The image's R, G, B (or luma) histogram drawn as bars.
    pub struct HistogramPlot;
    name: "histogram_plot",
    family: Generator,
    gpuimage: "GPUImageHistogramGenerator",
    summary: "The image's R, G, B (or luma) histogram drawn as bars, the input's size (or width x height); histogram | histogram_generator.",
    doc: "Runs `histogram` on the input (RGBA8) and `histogram_generator(mode, background_color, width, height)` on its \
          counts: 256 bins across the width, bars scaled so the tallest bin of the drawn channels fills the height.",
    params: {
        mode: choice("rgb", "luminance") = "rgb" => "rgb: red, green and blue bars (additive where they overlap); luminance: white bars of BT.601 luma",
        background_color: rgba = [0.0, 0.0, 0.0, 1.0] => "where no bar is: red, green, blue, alpha in [0, 1]; opaque black by default (GPUImage's transparent black is half invisible on a white viewer: [0,0,0,0] asks for it)",
        width: uint(0, crate::image::MAX_SIDE as i64) = 0 => "output width in pixels; 0 = the input's width",
        height: uint(0, crate::image::MAX_SIDE as i64) = 0 => "output height in pixels; 0 = the input's height",
    },
    lower: |f, g, inputs| {
        let image = inputs.first().copied().ok_or_else(|| crate::Error::invalid("`histogram_plot` needs an image"))?;
        let hist = g.add(Histogram::new(), &[image])?;
        g.add(HistogramGenerator::new(f.mode, f.background_color, f.width, f.height)?, &[image, hist[0]])
    },
}
