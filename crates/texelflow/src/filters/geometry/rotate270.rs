//! Quarter turn counter-clockwise. Matches OpenCV's `cv::rotate(ROTATE_90_COUNTERCLOCKWISE)` and GPUImage's `kGPUImageRotateLeft`.

use crate::filters::geometry::orient::{self, Orientation};
use crate::filters::registry::{Family, FilterDef, EXACT_ENOUGH, IMAGE};

/// Rotates three quarter turns clockwise (a quarter turn counter-clockwise); exact.
#[derive(Clone, Debug, Default)]
pub struct Rotate270;

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "rotate270",
    family: Family::Geometry,
    summary: "Rotates three quarter turns clockwise (a quarter turn counter-clockwise); exact.",
    doc: "Output width = input height; output (x, y) = input (width - 1 - y, x), cv::ROTATE_90_COUNTERCLOCKWISE (GPUImage's kGPUImageRotateLeft). An exact permutation of pixels (no resampling) on rgba8, rgba16 and gray8.",
    gpuimage: "kGPUImageRotateLeft",
    params: &[],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |_| Ok(Box::new(Rotate270)),
    uniforms: orient::UNIFORMS,
    test_inputs: None,
    schedules: &[],
};

crate::__pf_orient_filter_impl!(Rotate270, |_f| Orientation::Rotate270);
