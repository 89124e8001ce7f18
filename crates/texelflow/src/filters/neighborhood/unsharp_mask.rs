//! Unsharp mask. Matches GPUImage's `GPUImageUnsharpMaskFilter`: a Gaussian, then the input
//! pushed away from it.

use crate::filters::blend::AddWeighted;

use super::GaussianBlur;

crate::composite_filter! {
    /// Sharpens by pushing each pixel away from a Gaussian blur.
    pub struct UnsharpMask;
    name: "unsharp_mask",
    family: Neighborhood,
    gpuimage: "GPUImageUnsharpMaskFilter",
    summary: "Sharpens by pushing each pixel away from a Gaussian blur of the image.",
    doc: "Runs as `gaussian_blur(sigma = blur_radius)` and `add_weighted(alpha = intensity, beta = 1 - intensity, \
          keep_alpha)`: out = input intensity + blurred (1 - intensity), alpha from the input, as GPUImage's shader. \
          intensity 1 leaves the image unchanged; 2 is the classic input + (input - blurred).",
    params: {
        blur_radius: float(0.1, 32.0) = 4.0 => "Gaussian sigma in pixels (GPUImage's blurRadiusInPixels)",
        intensity: float(0.0, 4.0) = 1.0 => "weight of the input; the blur gets 1 - intensity (GPUImage's intensity)",
    },
    // The blur is within one level of its twin; the sum scales that by |1 - intensity| <= 3.
    tolerance: crate::filters::registry::Tolerance { max_diff: 4, why: "the Gaussian's one level of difference multiplied by |1 - intensity| (at most 3), plus rounding" },
    lower: |f, g, inputs| {
        let input = inputs.first().copied().ok_or_else(|| crate::Error::invalid("`unsharp_mask` needs an input"))?;
        let blurred = g.add(GaussianBlur::new(f.blur_radius)?, inputs)?;
        g.add(AddWeighted::new(f.intensity, 1.0 - f.intensity, 0.0, true)?, &[input, blurred[0]])
    },
}
