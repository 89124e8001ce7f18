//! Morphology (GPUImage's dilation, erosion, opening and closing), on RGBA8 (every channel
//! independently) and Gray8. Dilation and erosion share one separable van Herk / Gil-Werman
//! engine (`separable.rs`, `morphology.wgsl`) whose cost does not depend on the radius,
//! with one-pass schedules for RGBA8 up to radius 14 (`window.rs`, `onepass.rs`);
//! opening and closing are composites that lower to two of those nodes.

pub mod closing;
pub mod dilation;
pub mod erosion;
pub mod opening;
mod onepass;
mod separable;
mod window;

pub use closing::Closing;
pub use dilation::Dilation;
pub use erosion::Erosion;
pub use opening::Opening;
pub use separable::MorphParams;

use crate::registry::FilterDef;

/// Registry entries of this family.
pub static DEFS: &[&FilterDef] = &[&dilation::DEF, &erosion::DEF, &opening::DEF, &closing::DEF];
