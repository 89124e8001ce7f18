//! Normal blend. Matches GPUImage's `GPUImageNormalBlendFilter`.

crate::pixel_filter! {
    /// Straight-alpha source-over: `a = t.a + c.a (1 - t.a)`,
    /// `rgb = (t.rgb t.a + c.rgb c.a (1 - t.a)) / a` (divided by 1 where `a = 0`).
    pub struct NormalBlend;
    name: "normal_blend",
    family: Blend,
    gpuimage: "GPUImageNormalBlendFilter",
    summary: "The second image over the input (Porter-Duff source-over on straight alpha).",
    with: "the image laid over the input",
    params: {},
    wgsl: "let a = t.a + c.a * (1.0 - t.a);
    let d = a + select(0.0, 1.0, a <= 0.0);
    return vec4<f32>((t.rgb * t.a + c.rgb * c.a * (1.0 - t.a)) / d, a);",
    cpu2: |_f, c, t, _| {
        let a = t[3] + c[3] * (1.0 - t[3]);
        let d = if a <= 0.0 { 1.0 } else { a };
        let ch = |k: usize| (t[k] * t[3] + c[k] * c[3] * (1.0 - t[3])) / d;
        [ch(0), ch(1), ch(2), a]
    },
}
