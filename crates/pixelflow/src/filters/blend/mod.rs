//! Blends (GPUImage's "Blending modes"): two RGBA8 images of the same size, combined per
//! pixel, one `pixel_filter!` declaration with a second input per file. The second image
//! arrives as the `with` input (`alpha_blend(with=top.png)`); blends fuse with neighbouring
//! per-pixel filters like any per-pixel filter.

include!(concat!(env!("OUT_DIR"), "/filters_blend.rs"));
