//! Hough lines drawn on the photo: `canny_edge_detection`, `hough_line_detection`, then
//! `draw_lines` over the input, so a user sees the lines found in one step. GPUImage's
//! FilterShowcase does the same with `GPUImageHoughTransformLineDetector` (Canny inside), its
//! lines callback and `GPUImageLineGenerator` blended over the camera image.

use super::CannyEdgeDetection;
use crate::filters::analysis::{DrawLines, HoughLineDetection};

crate::composite_filter! {
    /// Straight lines found by Hough drawn over the image.
    pub struct DrawHoughLines;
    name: "draw_hough_lines",
    family: Neighborhood,
    gpuimage: "GPUImageHoughTransformLineDetector",
    summary: "Straight lines drawn over the image (canny_edge_detection, hough_line_detection, draw_lines).",
    doc: "Runs `canny_edge_detection(sigma, upper, lower)`, `hough_line_detection(threshold, relative, max)` (1 pixel, 1 degree) \
          then `draw_lines(width, color)` over the input image (RGBA8). The Canny defaults are GPUImage's detector's \
          (cannyBlurRadiusInPixels 2, upper 0.4, lower 0.1), `relative` its lineDetectionThreshold 0.2.",
    params: {
        sigma: float(0.0, 16.0) = 2.0 => "Canny's Gaussian sigma in pixels",
        upper: float(0.0, 6.0) = 0.4 => "Canny's strong-edge threshold (fraction of 255 on the Sobel magnitude)",
        lower: float(0.0, 6.0) = 0.1 => "Canny's candidate threshold, at most upper",
        threshold: uint(0, 100000000) = 0 => "a line needs more votes than this (OpenCV's threshold)",
        relative: float(0.0, 1.0) = 0.2 => "... and at least this fraction of the strongest line's votes",
        max: uint(1, 65536) = 32 => "most lines drawn, the strongest",
        width: uint(1, 63) = 1 => "line thickness in pixels (GPUImage's lineWidth)",
        color: rgb = [1.0, 0.0, 0.0] => "line colour (red, as GPUImage's FilterShowcase)",
    },
    lower: |f, g, inputs| {
        let edges = g.add(CannyEdgeDetection::new(f.sigma, f.upper, f.lower, true)?, inputs)?;
        let lines = g.add(HoughLineDetection::new(0.5, 1.0, 1.0, f.threshold, f.relative, f.max)?, &edges)?;
        let image = inputs.first().copied().ok_or_else(|| crate::Error::invalid("`draw_hough_lines` needs an image"))?;
        g.add(DrawLines::new(f.width, f.color)?, &[image, lines[0]])
    },
}
