//! Luminosity blend (non-separable, W3C). Matches GPUImage's `GPUImageLuminosityBlendFilter`.

use super::twin::{lum, set_lum};

crate::pixel_filter! {
    /// `rgb = c.rgb (1 - t.a) + B t.a` with `B = setlum(c.rgb, lum(t.rgb))` (GPUImage's functions), alpha from the input.
    pub struct LuminosityBlend;
    name: "luminosity_blend",
    family: Blend,
    gpuimage: "GPUImageLuminosityBlendFilter",
    summary: "Takes the luminance of the second image with the hue and saturation of the input.",
    doc: "GPUImage's non-separable blend (the W3C compositing spec's Lum/ClipColor/SetLum/Sat/SetSat, luminance \
          0.3 R + 0.59 G + 0.11 B), weighted by the second image's alpha; alpha from the input. GPUImage's SetSat has a \
          slip in one branch (blue largest, red middle: it zeroes red and leaves green); this follows the spec there.",
    with: "the luminance source",
    params: {},
    helpers: nonseparable_wgsl!("luminosity_blend"),
    wgsl: "return vec4<f32>(c.rgb * (1.0 - t.a) + luminosity_blend_setlum(c.rgb, luminosity_blend_lum(t.rgb)) * t.a, c.a);",
    cpu2: |_f, c, t, _| {
        let rgb = |p: [f32; 4]| [p[0], p[1], p[2]];
        let b = set_lum(rgb(c), lum(rgb(t)));
        [c[0] * (1.0 - t[3]) + b[0] * t[3], c[1] * (1.0 - t[3]) + b[1] * t[3], c[2] * (1.0 - t[3]) + b[2] * t[3], c[3]]
    },
}
