//! Quarter turn counter-clockwise. Matches OpenCV's `cv::rotate(ROTATE_90_COUNTERCLOCKWISE)` and GPUImage's `kGPUImageRotateLeft`.

use crate::filters::shape::permute::Orientation;

crate::permute_filter! {
    /// Rotates three quarter turns clockwise (a quarter turn counter-clockwise); exact.
    pub struct Rotate270;
    name: "rotate270",
    gpuimage: "kGPUImageRotateLeft",
    summary: "Rotates three quarter turns clockwise (a quarter turn counter-clockwise); exact.",
    doc: "Output width = input height; output (x, y) = input (width - 1 - y, x), cv::ROTATE_90_COUNTERCLOCKWISE (GPUImage's kGPUImageRotateLeft). An exact permutation of pixels (no resampling) on rgba8, rgba16 and gray8.",
    orientation: Orientation::Rotate270,
}
