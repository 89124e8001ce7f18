//! Transposes an image. Matches OpenCV's `cv::transpose`.

use crate::filters::geometry::orient::{self, Orientation};
use crate::filters::registry::{Family, FilterDef, EXACT_ENOUGH, IMAGE};

/// Swaps rows and columns (output (x, y) = input (y, x)); exact.
#[derive(Clone, Debug, Default)]
pub struct Transpose;

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "transpose",
    family: Family::Geometry,
    summary: "Swaps rows and columns (output (x, y) = input (y, x)); exact.",
    doc: "Output width = input height: pixel (x, y) of the output is pixel (y, x) of the input (a mirror about the main diagonal). An exact permutation of pixels (no resampling) on rgba8, rgba16 and gray8.",
    gpuimage: "",
    params: &[],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |_| Ok(Box::new(Transpose)),
    uniforms: orient::UNIFORMS,
    test_inputs: None,
    schedules: &[],
};

crate::__pf_orient_filter_impl!(Transpose, |_f| Orientation::Transpose);
