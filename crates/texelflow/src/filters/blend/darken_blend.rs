//! Darken blend. Matches GPUImage's `GPUImageDarkenBlendFilter`.

crate::pixel_filter! {
    /// `min(t c.a, c t.a) + t (1 - c.a) + c (1 - t.a)` on RGB; alpha 1.
    pub struct DarkenBlend;
    name: "darken_blend",
    family: Blend,
    gpuimage: "GPUImageDarkenBlendFilter",
    summary: "Keeps the darker of the two images per channel (alpha-aware; opaque output).",
    with: "the second image",
    params: {},
    wgsl: "return vec4<f32>(min(t.rgb * c.a, c.rgb * t.a) + t.rgb * (1.0 - c.a) + c.rgb * (1.0 - t.a), 1.0);",
    cpu2: |_f, c, t, _| {
        let ch = |k: usize| (t[k] * c[3]).min(c[k] * t[3]) + t[k] * (1.0 - c[3]) + c[k] * (1.0 - t[3]);
        [ch(0), ch(1), ch(2), 1.0]
    },
}
