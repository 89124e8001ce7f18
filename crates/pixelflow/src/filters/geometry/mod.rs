//! Geometry (GPUImage's crop and `forceProcessingAtSize` resizing): filters that change the
//! image size.

include!(concat!(env!("OUT_DIR"), "/filters_geometry.rs"));



