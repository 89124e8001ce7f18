//! Subtract blend. Matches GPUImage's `GPUImageSubtractBlendFilter`.

crate::pixel_filter! {
    /// `c.rgb - t.rgb`, alpha from the input.
    pub struct SubtractBlend;
    name: "subtract_blend",
    family: Blend,
    gpuimage: "GPUImageSubtractBlendFilter",
    summary: "Subtracts the second image from the input (RGB; alpha kept).",
    with: "the image subtracted",
    params: {},
    wgsl: "return vec4<f32>(c.rgb - t.rgb, c.a);",
    cpu2: |_f, c, t, _| [c[0] - t[0], c[1] - t[1], c[2] - t[2], c[3]],
}
