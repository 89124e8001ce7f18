//! Kernel shapes (GPUImage3's operation base classes): each shape owns one tuned kernel and a
//! declaration macro, so a filter of that shape is its math and its CPU twin, in one file.
//!
//! - `pixel`: one colour in, one colour out (`pixel_filter!`), fused with its neighbours.

pub mod pixel;
