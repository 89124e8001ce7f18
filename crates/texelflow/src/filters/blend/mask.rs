//! Mask: the second image's brightness becomes the input's alpha. Matches GPUImage's
//! `GPUImageMaskFilter`.

crate::pixel_filter! {
    /// `rgb = c.rgb`, `alpha = mean(t.rgb) * t.a`.
    pub struct Mask;
    name: "mask",
    family: Blend,
    gpuimage: "GPUImageMaskFilter",
    summary: "Sets the input's alpha from a mask image (mean of its RGB times its alpha).",
    doc: "GPUImage's mask: alpha = (R + G + B) / 3 of the mask, times the mask's alpha; the input's colour is kept. \
          The input's own alpha is replaced, not multiplied. A grey (Gray8) mask file is accepted.",
    with: "the mask image (white keeps, black makes transparent)",
    params: {},
    wgsl: "return vec4<f32>(c.rgb, dot(t.rgb, vec3<f32>(0.33333334)) * t.a);",
    cpu2: |_f, c, t, _| [c[0], c[1], c[2], (t[0] * 0.333_333_34 + t[1] * 0.333_333_34 + t[2] * 0.333_333_34) * t[3]],
}
