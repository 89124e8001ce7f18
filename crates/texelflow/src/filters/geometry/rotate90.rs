//! Quarter turn clockwise. Matches OpenCV's `cv::rotate(ROTATE_90_CLOCKWISE)` and GPUImage's `kGPUImageRotateRight`.

use crate::filters::shape::permute::Orientation;

crate::permute_filter! {
    /// Rotates a quarter turn clockwise; exact.
    pub struct Rotate90;
    name: "rotate90",
    gpuimage: "kGPUImageRotateRight",
    summary: "Rotates a quarter turn clockwise; exact.",
    doc: "Output width = input height; output (x, y) = input (y, height - 1 - x), cv::ROTATE_90_CLOCKWISE (GPUImage's kGPUImageRotateRight). An exact permutation of pixels (no resampling) on rgba8, rgba16 and gray8.",
    orientation: Orientation::Rotate90,
}
