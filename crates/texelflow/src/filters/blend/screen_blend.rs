//! Screen blend. Matches GPUImage's `GPUImageScreenBlendFilter`.

crate::pixel_filter! {
    /// `1 - (1 - t)(1 - c)` on all four channels.
    pub struct ScreenBlend;
    name: "screen_blend",
    family: Blend,
    gpuimage: "GPUImageScreenBlendFilter",
    summary: "Screen: the inverse of multiplying the inverses (always lighter).",
    with: "the second image",
    params: {},
    wgsl: "return vec4<f32>(1.0) - (vec4<f32>(1.0) - t) * (vec4<f32>(1.0) - c);",
    cpu2: |_f, c, t, _| std::array::from_fn(|k| 1.0 - (1.0 - t[k]) * (1.0 - c[k])),
}
