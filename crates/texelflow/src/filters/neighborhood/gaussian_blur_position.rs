//! Blur inside a circle. Matches GPUImage's `GPUImageGaussianBlurPositionFilter`: a Gaussian inside a circle only.

use crate::filters::blend::BlendWithMask;

use super::{GaussianBlur, RadialMask};

crate::composite_filter! {
    /// Blurs a circle and keeps the rest sharp.
    pub struct GaussianBlurPosition;
    name: "gaussian_blur_position",
    family: Neighborhood,
    gpuimage: "GPUImageGaussianBlurPositionFilter",
    summary: "Blurs a circle and keeps the rest sharp (the inverse of gaussian_selective_blur).",
    doc: "Runs as `gaussian_blur(sigma = blur_radius)` mixed in by `blend_with_mask` with `radial_mask(center, radius, edge, invert)`. \
          GPUImage's circle has a hard edge; here `edge` sets a narrow smooth one (default 0.005 of the width).",
    params: {
        blur_radius: float(0.1, 32.0) = 2.0 => "Gaussian sigma in pixels",
        center: point = [0.5, 0.5] => "centre of the blurred circle (x, y in [0, 1], from the top left)",
        radius: float(0.0, 2.0) = 0.25 => "radius of the blurred circle, in widths",
        edge: float(0.001, 2.0) = 0.005 => "width of the transition",
    },
    // The blend's weight is the Gaussian's output, each stage within one level of its twin.
    tolerance: crate::filters::registry::Tolerance { max_diff: 2, why: "a Gaussian and a mask mixed: each within one level of its twin" },
    lower: |f, g, inputs| {
        let input = inputs.first().copied().ok_or_else(|| crate::Error::invalid("`gaussian_blur_position` needs an input"))?;
        let blurred = g.add(GaussianBlur::new(f.blur_radius)?, inputs)?;
        let mask = g.add(RadialMask::new(f.center, f.radius, f.edge, true)?, inputs)?;
        g.add(BlendWithMask::new(0, false)?, &[input, blurred[0], mask[0]])
    },
}
