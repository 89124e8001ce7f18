//! ColourFAST feature descriptors. Matches GPUImage's `GPUImageColourFASTFeatureDetector`: a
//! box blur (`blurRadiusInPixels`, default 3), then `colour_fast_sampling`.
//!
//! GPUImage wires the blur into the sampling operation's second texture, which the sampling
//! shader never reads; as its single-input filter takes whichever frame arrived last, what it
//! samples depends on frame order. Here the sampling reads the blurred image, which is what
//! the blur is there for (blur_radius=0 samples the image itself).

use super::{BoxBlur, ColourFastSampling};

crate::composite_filter! {
    /// ColourFAST descriptors: a box blur, then `colour_fast_sampling`.
    pub struct ColourFastFeatureDetector;
    name: "colour_fast_feature_detector",
    family: Neighborhood,
    gpuimage: "GPUImageColourFASTFeatureDetector",
    summary: "ColourFAST descriptors: a box blur, then each pixel's ring-minus-centre colour (RGB) and its direction (alpha).",
    doc: "Runs as `box_blur(radius = blur_radius)` then `colour_fast_sampling` (see its help for the math). GPUImage feeds \
          the blur to a texture its shader never reads; here the sampling reads the blurred image (blur_radius=0: the image).",
    params: {
        blur_radius: uint(0, 64) = 3 => "box blur radius in pixels (GPUImage's blurRadiusInPixels)",
    },
    lower: |f, g, inputs| {
        let blurred = g.add(BoxBlur::new(f.blur_radius)?, inputs)?;
        g.add(ColourFastSampling, &blurred)
    },
}
