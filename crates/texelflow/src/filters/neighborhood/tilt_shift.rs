//! Tilt-shift (miniature) look. Matches GPUImage's `GPUImageTiltShiftFilter`: a sharp band, blurred above and below.

use crate::filters::blend::BlendWithMask;

use super::{BandMask, GaussianBlur};

crate::composite_filter! {
    /// Keeps a horizontal band sharp and blurs above and below it.
    pub struct TiltShift;
    name: "tilt_shift",
    family: Neighborhood,
    gpuimage: "GPUImageTiltShiftFilter",
    summary: "Keeps a horizontal band sharp and blurs above and below it (a miniature look).",
    doc: "Runs as `gaussian_blur(sigma = blur_radius)` mixed in by `blend_with_mask` with `band_mask(top, bottom, falloff)`, \
          GPUImage's tilt-shift weights.",
    params: {
        blur_radius: float(0.1, 32.0) = 7.0 => "Gaussian sigma in pixels (GPUImage's blurRadiusInPixels)",
        top: float(0.0, 1.0) = 0.4 => "top of the sharp band (GPUImage's topFocusLevel)",
        bottom: float(0.0, 1.0) = 0.6 => "bottom of the sharp band (GPUImage's bottomFocusLevel)",
        falloff: float(0.001, 1.0) = 0.2 => "height of the transition (GPUImage's focusFallOffRate)",
    },
    // The blend's weight is the Gaussian's output, each stage within one level of its twin.
    tolerance: crate::filters::registry::Tolerance { max_diff: 2, why: "a Gaussian and a mask mixed: each within one level of its twin" },
    lower: |f, g, inputs| {
        let input = inputs.first().copied().ok_or_else(|| crate::Error::invalid("`tilt_shift` needs an input"))?;
        let blurred = g.add(GaussianBlur::new(f.blur_radius)?, inputs)?;
        let mask = g.add(BandMask::new(f.top, f.bottom, f.falloff)?, inputs)?;
        g.add(BlendWithMask::new(0, false)?, &[input, blurred[0], mask[0]])
    },
}
