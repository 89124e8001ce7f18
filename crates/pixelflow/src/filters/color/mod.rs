//! Colour adjustments (GPUImage's "Color adjustments" group): per-pixel RGBA8 filters that
//! fuse into one kernel when chained.

pub mod brightness;
pub mod color_invert;
pub mod color_matrix;
pub mod contrast;
pub mod exposure;
pub mod gamma;
pub mod grayscale;
pub mod luminance_threshold;
pub mod saturation;

pub use brightness::Brightness;
pub use color_invert::ColorInvert;
pub use color_matrix::ColorMatrix;
pub use contrast::Contrast;
pub use exposure::Exposure;
pub use gamma::Gamma;
pub use grayscale::Grayscale;
pub use luminance_threshold::LuminanceThreshold;
pub use saturation::Saturation;

use crate::registry::FilterDef;

/// Registry entries of this family.
pub static DEFS: &[&FilterDef] = &[
    &brightness::DEF,
    &contrast::DEF,
    &saturation::DEF,
    &exposure::DEF,
    &gamma::DEF,
    &color_invert::DEF,
    &grayscale::DEF,
    &color_matrix::DEF,
    &luminance_threshold::DEF,
];
