//! Mirrors an image. Matches OpenCV's `cv::flip` (flipCode 1 = horizontal, 0 = vertical,
//! -1 = both) and GPUImage's `kGPUImageFlipHorizonal` / `kGPUImageFlipVertical` rotation modes.

use crate::error::{Error, Result};
use crate::filters::shape::permute::Orientation;
use crate::graph::params::ParamDef;

const MODES: &[&str] = &["horizontal", "vertical", "both"];

crate::permute_filter! {
    /// Mirrors left-right, top-bottom or both.
    pub struct Flip {
        /// Which flip.
        pub orientation: Orientation,
    }
    name: "flip",
    gpuimage: "kGPUImageFlipHorizonal",
    summary: "Mirrors the image left-right (horizontal), top-bottom (vertical) or both; exact.",
    doc: "OpenCV's cv::flip: mode=horizontal is flipCode 1 (x -> width - 1 - x), vertical is flipCode 0, both is -1 (the same \
as rotate180). An exact permutation of pixels (no resampling) on rgba8, rgba16 and gray8.",
    params: [ParamDef::choice("mode", "horizontal", MODES, "horizontal (left-right), vertical (top-bottom) or both")],
    build: |a| Flip::new(a.choice("mode")?)?,
    orientation: |f| f.orientation,
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
