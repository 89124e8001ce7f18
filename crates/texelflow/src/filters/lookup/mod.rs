//! Lookup (GPUImage's `GPUImageLookupFilter` family): colour grading through a 512x512 LUT
//! image holding a 64x64x64 colour cube (`lookup`), or through a `.cube` LUT file, 3D or 1D
//! (`lut_cube`), and the built-in looks made of such LUTs (`amatorka`, `miss_etikate`,
//! `soft_elegance`; `preset`).

// one file per filter, named after it: `lookup::lookup`
#![allow(clippy::module_inception)]

include!(concat!(env!("OUT_DIR"), "/filters_lookup.rs"));

pub use lookup::identity_lut;
pub mod preset;
