//! Neighbourhood filters (GPUImage's "Image processing" group): Gaussian blur, box blur,
//! Sobel edge detection, and the stencil-shape filters (convolution_3x3, laplacian, emboss,
//! sharpen) on RGBA8 images. Borders replicate the edge pixel (coordinates are
//! clamped), as GPUImage's clamp-to-edge texture sampling does.
//!
//! Their kernels are specialised per schedule (tile sizes, radius) with the WGSL templating of
//! `runtime::wgsl_template`; the files themselves are valid WGSL with default values, so they
//! parse and validate on their own.

include!(concat!(env!("OUT_DIR"), "/filters_neighborhood.rs"));
