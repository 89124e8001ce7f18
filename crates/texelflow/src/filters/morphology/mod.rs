//! Morphology (GPUImage's dilation, erosion, opening and closing), on RGBA8 (every channel
//! independently) and Gray8. Dilation and erosion share one separable van Herk / Gil-Werman
//! engine (`separable.rs`, `morphology.wgsl`) whose cost does not depend on the radius,
//! with one-pass schedules for RGBA8 up to radius 14 (`window.rs`, `onepass.rs`);
//! opening and closing are composites that lower to two of those nodes.

include!(concat!(env!("OUT_DIR"), "/filters_morphology.rs"));
mod onepass;
mod separable;
mod window;

pub use separable::MorphParams;
