//! Half turn. Matches OpenCV's `cv::rotate(ROTATE_180)` and GPUImage's `kGPUImageRotate180`.

use crate::filters::geometry::orient::{self, Orientation};
use crate::filters::registry::{Family, FilterDef, EXACT_ENOUGH, IMAGE};

/// Rotates a half turn; exact.
#[derive(Clone, Debug, Default)]
pub struct Rotate180;

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "rotate180",
    family: Family::Geometry,
    summary: "Rotates a half turn; exact.",
    doc: "Output (x, y) = input (width - 1 - x, height - 1 - y), cv::ROTATE_180 (GPUImage's kGPUImageRotate180); the same as flip(mode=both). An exact permutation of pixels (no resampling) on rgba8, rgba16 and gray8.",
    gpuimage: "kGPUImageRotate180",
    params: &[],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |_| Ok(Box::new(Rotate180)),
    uniforms: orient::UNIFORMS,
    test_inputs: None,
    schedules: &[],
};

crate::__pf_orient_filter_impl!(Rotate180, |_f| Orientation::FlipBoth);
