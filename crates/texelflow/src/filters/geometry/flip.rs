//! Mirrors an image. Matches OpenCV's `cv::flip` (flipCode 1 = horizontal, 0 = vertical,
//! -1 = both) and GPUImage's `kGPUImageFlipHorizonal` / `kGPUImageFlipVertical` rotation modes.

use crate::error::{Error, Result};
use crate::filters::geometry::orient::{self, Orientation};
use crate::filters::registry::{Family, FilterDef, EXACT_ENOUGH, IMAGE};
use crate::graph::params::ParamDef;

const MODES: &[&str] = &["horizontal", "vertical", "both"];

/// Mirrors left-right, top-bottom or both.
#[derive(Clone, Debug)]
pub struct Flip {
    /// Which flip.
    pub orientation: Orientation,
}

impl Flip {
    /// `mode` is horizontal, vertical or both.
    pub fn new(mode: &str) -> Result<Self> {
        let orientation = match mode {
            "horizontal" => Orientation::FlipHorizontal,
            "vertical" => Orientation::FlipVertical,
            "both" => Orientation::FlipBoth,
            other => {
                return Err(Error::BadParam {
                    filter: "flip".into(),
                    param: "mode".into(),
                    message: format!("`{other}` is not one of {}", MODES.join(", ")),
                })
            }
        };
        Ok(Self { orientation })
    }
}

impl Default for Flip {
    fn default() -> Self {
        Self {
            orientation: Orientation::FlipHorizontal,
        }
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "flip",
    family: Family::Geometry,
    summary: "Mirrors the image left-right (horizontal), top-bottom (vertical) or both; exact.",
    doc: "OpenCV's cv::flip: mode=horizontal is flipCode 1 (x -> width - 1 - x), vertical is flipCode 0, both is -1 (the same \
as rotate180). An exact permutation of pixels (no resampling) on rgba8, rgba16 and gray8.",
    gpuimage: "kGPUImageFlipHorizonal",
    params: &[ParamDef::choice("mode", "horizontal", MODES, "horizontal (left-right), vertical (top-bottom) or both")],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(Flip::new(a.choice("mode")?)?)),
    uniforms: orient::UNIFORMS,
    test_inputs: None,
    schedules: &[],
};

crate::__pf_orient_filter_impl!(Flip, |f| f.orientation);
