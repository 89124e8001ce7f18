//! Kernel shapes (GPUImage3's operation base classes): each shape owns one tuned kernel and a
//! declaration macro, so a filter of that shape is its math and its CPU twin, in one file.
//!
//! - `pixel`: one colour in, one colour out (`pixel_filter!`), or two for blends; fused with
//!   neighbouring per-pixel filters.
//! - `stencil`: a 3x3 or 5x5 window in, one colour out (`stencil_filter!`).
//! - `remap`: the position to read for each output pixel, sampled bilinearly (`remap_filter!`).
//! - `generator`: a colour from each pixel's position alone, at the input's size or one given
//!   (`generator_filter!`); per-pixel, so fused like `pixel`.
//! - `solver`: small data in, small data out (`solver_filter!`): a `solve.wgsl` entry point
//!   and a CPU twin of the data.
//! - `composite`: a graph of other filters (`composite_filter!`), no kernel of its own.

pub mod border;
pub mod composite;
pub mod generator;
pub mod pixel;
pub mod remap;
pub mod solver;
pub mod stencil;
