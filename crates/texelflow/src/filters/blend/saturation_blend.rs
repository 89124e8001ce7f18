//! Saturation blend (non-separable, W3C). Matches GPUImage's `GPUImageSaturationBlendFilter`.

use super::twin::{lum, sat, set_lum, set_sat};

crate::pixel_filter! {
    /// `rgb = c.rgb (1 - t.a) + B t.a` with `B = setlum(setsat(c.rgb, sat(t.rgb)), lum(c.rgb))` (GPUImage's functions), alpha from the input.
    pub struct SaturationBlend;
    name: "saturation_blend",
    family: Blend,
    gpuimage: "GPUImageSaturationBlendFilter",
    summary: "Takes the saturation of the second image with the hue and luminance of the input.",
    doc: "GPUImage's non-separable blend (the W3C compositing spec's Lum/ClipColor/SetLum/Sat/SetSat, luminance \
          0.3 R + 0.59 G + 0.11 B), weighted by the second image's alpha; alpha from the input. GPUImage's SetSat has a \
          slip in one branch (blue largest, red middle: it zeroes red and leaves green); this follows the spec there.",
    with: "the saturation source",
    params: {},
    helpers: nonseparable_wgsl!("saturation_blend"),
    wgsl: "return vec4<f32>(c.rgb * (1.0 - t.a) + saturation_blend_setlum(saturation_blend_setsat(c.rgb, saturation_blend_sat(t.rgb)), saturation_blend_lum(c.rgb)) * t.a, c.a);",
    cpu2: |_f, c, t, _| {
        let rgb = |p: [f32; 4]| [p[0], p[1], p[2]];
        let b = set_lum(set_sat(rgb(c), sat(rgb(t))), lum(rgb(c)));
        [c[0] * (1.0 - t[3]) + b[0] * t[3], c[1] * (1.0 - t[3]) + b[1] * t[3], c[2] * (1.0 - t[3]) + b[2] * t[3], c[3]]
    },
}
