//! Threshold against the local mean of luminance. Matches GPUImage's
//! `GPUImageAdaptiveThresholdFilter` (a filter group: grayscale, box blur, compare).

use crate::filters::color::{Grayscale, LocalThreshold};
use crate::filters::neighborhood::BoxBlur;

crate::composite_filter! {
    /// White where luminance is at least its local box mean minus an offset.
    pub struct AdaptiveThreshold;
    name: "adaptive_threshold",
    family: Color,
    gpuimage: "GPUImageAdaptiveThresholdFilter",
    summary: "White where luminance >= its (2r+1)x(2r+1) box mean - offset, else black; alpha kept.",
    doc: "Runs as `grayscale`, `box_blur(radius)` of it, and `local_threshold(offset)` of the two. OpenCV's \
          adaptiveThreshold(MEAN_C, BINARY, blockSize = 2 radius + 1, C = 255 offset) is the same up to its strict \
          comparison (src > mean - C) and its rounding of the mean.",
    params: {
        radius: uint(0, 64) = 4 => "box half-size in pixels (GPUImage's blurRadiusInPixels)",
        offset: float(-1.0, 1.0) = 0.05 => "how far below the local mean a pixel may be and still turn white",
    },
    lower: |f, g, inputs| {
        let gray = g.add(Grayscale, inputs)?;
        let mean = g.add(BoxBlur::new(f.radius)?, &gray)?;
        g.add(LocalThreshold::new(f.offset)?, &[gray[0], mean[0]])
    },
}
