//! Geometry (GPUImage's crop and `forceProcessingAtSize` resizing, OpenCV's flips, rotations,
//! resize methods and warps): filters that move pixels or change the image size.

include!(concat!(env!("OUT_DIR"), "/filters_geometry.rs"));

/// Fitting a second image to the first's size (`graph::Fit`), for the graph's `Catalogue`.
pub mod fit;
