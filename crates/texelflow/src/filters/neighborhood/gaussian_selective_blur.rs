//! Blur outside a circle. Matches GPUImage's `GPUImageGaussianSelectiveBlurFilter`: a Gaussian outside a circle, sharp inside.

use crate::filters::blend::BlendWithMask;

use super::{GaussianBlur, RadialMask};

crate::composite_filter! {
    /// Keeps a circle sharp and blurs the rest, with a smooth edge.
    pub struct GaussianSelectiveBlur;
    name: "gaussian_selective_blur",
    family: Neighborhood,
    gpuimage: "GPUImageGaussianSelectiveBlurFilter",
    summary: "Keeps a circle sharp and blurs the rest, with a smooth edge.",
    doc: "Runs as `gaussian_blur(sigma = blur_radius)` mixed in by `blend_with_mask` with `radial_mask(center, radius, edge)`: \
          mix(sharp, blurred, smoothstep(radius - edge, radius, distance)), GPUImage's excludeCircle parameters.",
    params: {
        blur_radius: float(0.1, 32.0) = 5.0 => "Gaussian sigma in pixels (GPUImage's blurRadiusInPixels)",
        center: point = [0.5, 0.5] => "centre of the sharp circle (x, y in [0, 1], from the top left)",
        radius: float(0.0, 2.0) = 0.1875 => "radius of the sharp circle, in widths (GPUImage's excludeCircleRadius)",
        edge: float(0.001, 2.0) = 0.09375 => "width of the transition (GPUImage's excludeBlurSize)",
    },
    // The blend's weight is the Gaussian's output, each stage within one level of its twin.
    tolerance: crate::filters::registry::Tolerance { max_diff: 2, why: "a Gaussian and a mask mixed: each within one level of its twin" },
    lower: |f, g, inputs| {
        let input = inputs.first().copied().ok_or_else(|| crate::Error::invalid("`gaussian_selective_blur` needs an input"))?;
        let blurred = g.add(GaussianBlur::new(f.blur_radius)?, inputs)?;
        let mask = g.add(RadialMask::new(f.center, f.radius, f.edge, false)?, inputs)?;
        g.add(BlendWithMask::new(0, false)?, &[input, blurred[0], mask[0]])
    },
}
