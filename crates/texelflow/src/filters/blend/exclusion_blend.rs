//! Exclusion blend. Matches GPUImage's `GPUImageExclusionBlendFilter`.

crate::pixel_filter! {
    /// `t c.a + c t.a - 2 t c + t (1 - c.a) + c (1 - t.a)` on RGB, alpha from the input.
    pub struct ExclusionBlend;
    name: "exclusion_blend",
    family: Blend,
    gpuimage: "GPUImageExclusionBlendFilter",
    summary: "Exclusion: like difference, with less contrast.",
    with: "the second image",
    params: {},
    wgsl: "return vec4<f32>((t.rgb * c.a + c.rgb * t.a - 2.0 * t.rgb * c.rgb) + t.rgb * (1.0 - c.a) + c.rgb * (1.0 - t.a), c.a);",
    cpu2: |_f, c, t, _| {
        let ch = |k: usize| (t[k] * c[3] + c[k] * t[3] - 2.0 * t[k] * c[k]) + t[k] * (1.0 - c[3]) + c[k] * (1.0 - t[3]);
        [ch(0), ch(1), ch(2), c[3]]
    },
}
