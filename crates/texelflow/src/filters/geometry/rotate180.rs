//! Half turn. Matches OpenCV's `cv::rotate(ROTATE_180)` and GPUImage's `kGPUImageRotate180`.

use crate::filters::shape::permute::Orientation;

crate::permute_filter! {
    /// Rotates a half turn; exact.
    pub struct Rotate180;
    name: "rotate180",
    gpuimage: "kGPUImageRotate180",
    summary: "Rotates a half turn; exact.",
    doc: "Output (x, y) = input (width - 1 - x, height - 1 - y), cv::ROTATE_180 (GPUImage's kGPUImageRotate180); the same as flip(mode=both). An exact permutation of pixels (no resampling) on rgba8, rgba16 and gray8.",
    orientation: Orientation::FlipBoth,
}
