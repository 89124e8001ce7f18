//! Noble corners as white points on black. Matches GPUImage's `GPUImageNobleCornerDetectionFilter`: derivatives, a Gaussian, the response,
//! thresholded non-maximum suppression.

use super::{corner_chain, NobleResponse};

crate::composite_filter! {
    /// Noble corners as white points on black.
    pub struct NobleCornerDetection;
    name: "noble_corner_detection",
    family: Neighborhood,
    gpuimage: "GPUImageNobleCornerDetectionFilter",
    summary: "Noble corners as white points on black.",
    doc: "Runs as GPUImage's chain: `xy_derivative`, `gaussian_blur(sigma = blur_radius)`, `noble_response(sensitivity)`, \
          `thresholded_non_maximum_suppression(threshold)`; each stage stores 8-bit RGBA as GPUImage's textures do. \
          The corners as a list (x, y, score) are not produced yet: read the white pixels of the map.",
    params: {
        blur_radius: float(0.1, 32.0) = 2.0 => "Gaussian sigma of the derivative products (GPUImage's blurRadiusInPixels)",
        sensitivity: float(0.0, 100.0) = 5.0 => "response multiplier",
        threshold: float(0.0, 1.0) = 0.2 => "response at or above which a local maximum is a corner",
    },
    // A threshold after a blur: GPU and CPU Gaussians agree within one level, which can flip a
    // corner on the threshold. Each stage is checked on its own; the golden image checks the CPU chain.
    tolerance: crate::filters::registry::Tolerance { max_diff: 255, why: "a threshold after a blur: a one-level difference of the blurs flips corners on the threshold (each stage is tested on its own)" },
    lower: |f, g, inputs| corner_chain(g, inputs, f.blur_radius, NobleResponse::new(f.sensitivity)?, f.threshold),
}
