//! Quarter turn clockwise. Matches OpenCV's `cv::rotate(ROTATE_90_CLOCKWISE)` and GPUImage's `kGPUImageRotateRight`.

use crate::filters::geometry::orient::{self, Orientation};
use crate::filters::registry::{Family, FilterDef, EXACT_ENOUGH, IMAGE};

/// Rotates a quarter turn clockwise; exact.
#[derive(Clone, Debug, Default)]
pub struct Rotate90;

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "rotate90",
    family: Family::Geometry,
    summary: "Rotates a quarter turn clockwise; exact.",
    doc: "Output width = input height; output (x, y) = input (y, height - 1 - x), cv::ROTATE_90_CLOCKWISE (GPUImage's kGPUImageRotateRight). An exact permutation of pixels (no resampling) on rgba8, rgba16 and gray8.",
    gpuimage: "kGPUImageRotateRight",
    params: &[],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |_| Ok(Box::new(Rotate90)),
    uniforms: orient::UNIFORMS,
    test_inputs: None,
    schedules: &[],
};

crate::__pf_orient_filter_impl!(Rotate90, |_f| Orientation::Rotate90);
