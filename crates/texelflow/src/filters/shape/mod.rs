//! Kernel shapes (GPUImage3's operation base classes): each shape owns one tuned kernel and a
//! declaration macro, so a filter of that shape is its math and its CPU twin, in one file.
//!
//! - `pixel`: one colour in, one colour out (`pixel_filter!`), or two for blends; fused with
//!   neighbouring per-pixel filters.
//! - `stencil`: a 3x3 or 5x5 window in, one colour out (`stencil_filter!`).
//! - `remap`: the position to read for each output pixel, sampled bilinearly (`remap_filter!`).
//! - `generator`: a colour from each pixel's position alone, at the input's size or one given
//!   (`generator_filter!`); per-pixel, so fused like `pixel`.
//! - `permute`: each output pixel one input pixel (or a fill colour) at an integer index map,
//!   the size from the input's and the parameters (`permute_filter!`): flips, turns, crop, pad.
//! - `warp`: an affine or perspective map, sampled bilinearly onto a background
//!   (`warp_filter!`).
//! - `solver`: small data in, small data out (`solver_filter!`): a `solve.wgsl` entry point
//!   and a CPU twin of the data.
//! - `draw`: an image and data in, an image out (`draw_filter!`): the data drawn over the
//!   image, applied to it, or drawn on a canvas the image sizes.
//! - `composite`: a graph of other filters (`composite_filter!`), no kernel of its own.
//! - `reduction`: a whole image in, data out (`reduction_filter!`), with its own kernel; the
//!   shape owns the struct, `DEF` and the `impl Filter`.

pub mod border;
pub mod composite;
pub mod draw;
pub mod generator;
pub mod permute;
pub mod pixel;
pub mod reduction;
pub mod remap;
pub mod solver;
pub mod stencil;
pub mod warp;
