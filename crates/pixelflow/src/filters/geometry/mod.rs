//! Geometry (GPUImage's crop and `forceProcessingAtSize` resizing): filters that change the
//! image size.

pub mod crop;
pub mod resize;

pub use crop::Crop;
pub use resize::Resize;

use crate::registry::FilterDef;

/// Registry entries of this family.
pub static DEFS: &[&FilterDef] = &[&crop::DEF, &resize::DEF];
