//! Transposes an image. Matches OpenCV's `cv::transpose`.

use crate::filters::shape::permute::Orientation;

crate::permute_filter! {
    /// Swaps rows and columns (output (x, y) = input (y, x)); exact.
    pub struct Transpose;
    name: "transpose",
    gpuimage: "",
    summary: "Swaps rows and columns (output (x, y) = input (y, x)); exact.",
    doc: "Output width = input height: pixel (x, y) of the output is pixel (y, x) of the input (a mirror about the main diagonal). An exact permutation of pixels (no resampling) on rgba8, rgba16 and gray8.",
    orientation: Orientation::Transpose,
}
