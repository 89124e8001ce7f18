//! Smoothed toon shading. Matches GPUImage's `GPUImageSmoothToonFilter` (a Gaussian blur, then
//! `GPUImageToonFilter`).

use super::{GaussianBlur, Toon};

crate::composite_filter! {
    /// Cartoon look: a Gaussian blur, then `toon`.
    pub struct SmoothToon;
    name: "smooth_toon",
    family: Neighborhood,
    gpuimage: "GPUImageSmoothToonFilter",
    summary: "Cartoon look with fewer stray outlines: a Gaussian blur, then toon.",
    doc: "Runs as `gaussian_blur(sigma = blur_radius)` then `toon(threshold, levels)`, as GPUImage (its \
          blurRadiusInPixels is the Gaussian's sigma).",
    params: {
        blur_radius: float(0.1, 64.0) = 2.0 => "Gaussian sigma in pixels (GPUImage's blurRadiusInPixels)",
        threshold: float(0.0, 4.0) = 0.2 => "red-channel gradient magnitude at or above which a pixel is an outline",
        levels: uint(1, 256) = 10 => "colour levels per channel",
    },
    // GPU and CPU Gaussians agree within one level (gaussian_blur's own test), which flips
    // toon's outline decision at pixels on the threshold: a whole-sample difference there.
    // Each stage is checked exactly on its own; the golden image checks the CPU chain exactly.
    tolerance: crate::filters::registry::Tolerance { max_diff: 255, why: "a threshold after a blur: a one-level difference of the blurs flips outline pixels on the threshold (each stage is tested on its own)" },
    lower: |f, g, inputs| {
        let blurred = g.add(GaussianBlur::new(f.blur_radius)?, inputs)?;
        g.add(Toon::new(f.threshold, f.levels)?, &blurred)
    },
}
