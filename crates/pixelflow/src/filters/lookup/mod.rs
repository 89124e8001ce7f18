//! Lookup (GPUImage's `GPUImageLookupFilter` family): colour grading through a 512x512 LUT
//! image holding a 64x64x64 colour cube.

#[allow(clippy::module_inception)] // one file per filter, named after it
pub mod lookup;

pub use lookup::{identity_lut, Lookup};

use crate::registry::FilterDef;

/// Registry entries of this family.
pub static DEFS: &[&FilterDef] = &[&lookup::DEF];
