//! FAST corners drawn on the photo: `fast_corner_detection`, `corner_points`, then
//! `draw_points` over the input, so a user sees where the corners are. GPUImage's examples do
//! the same with a detector, its corners callback and `GPUImageCrosshairGenerator` blended over
//! the camera image. Other detectors' corners: the graph API with `corner_points` and `draw_points`.

use super::FastCornerDetection;
use crate::filters::analysis::{CornerPoints, DrawPoints};

crate::composite_filter! {
    /// FAST corners drawn as crosshairs over the image.
    pub struct DrawCorners;
    name: "draw_corners",
    family: Neighborhood,
    gpuimage: "GPUImageCrosshairGenerator",
    summary: "FAST corners drawn as crosshairs over the image (fast_corner_detection, corner_points, draw_points).",
    doc: "Runs `fast_corner_detection(threshold, nonmax=true)`, `corner_points`, then `draw_points(width, color)` over \
          the input image (RGBA8). Crosses are drawn for up to 65536 corners.",
    params: {
        threshold: uint(1, 255) = 10 => "FAST threshold in 8-bit levels (OpenCV's default 10)",
        width: uint(1, 255) = 5 => "crosshair size in pixels (GPUImage's crosshairWidth)",
        color: rgb = [0.0, 1.0, 0.0] => "crosshair colour (GPUImage's default green)",
    },
    lower: |f, g, inputs| {
        let map = g.add(FastCornerDetection::new(f.threshold, true)?, inputs)?;
        let points = g.add(CornerPoints::default(), &map)?;
        let image = inputs.first().copied().ok_or_else(|| crate::Error::invalid("`draw_corners` needs an image"))?;
        g.add(DrawPoints::new(f.width, f.color)?, &[image, points[0]])
    },
}
