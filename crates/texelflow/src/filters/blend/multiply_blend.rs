//! Multiply blend. Matches GPUImage's `GPUImageMultiplyBlendFilter`.

crate::pixel_filter! {
    /// `top * base + top * (1 - base.a) + base * (1 - top.a)` on all four channels.
    pub struct MultiplyBlend;
    name: "multiply_blend",
    family: Blend,
    gpuimage: "GPUImageMultiplyBlendFilter",
    summary: "Multiplies two images (GPUImage's alpha-aware multiply).",
    doc: "A second image of another size needs `fit=` (see `texelflow help`).",
    with: "the second image",
    params: {},
    wgsl: "return t * c + t * (1.0 - c.a) + c * (1.0 - t.a);",
    cpu2: |_f, c, t, _| std::array::from_fn(|k| t[k] * c[k] + t[k] * (1.0 - c[3]) + c[k] * (1.0 - t[3])),
}
