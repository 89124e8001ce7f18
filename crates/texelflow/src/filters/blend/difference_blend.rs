//! Difference blend. Matches GPUImage's `GPUImageDifferenceBlendFilter`.

crate::pixel_filter! {
    /// `|t.rgb - c.rgb|`, alpha from the input.
    pub struct DifferenceBlend;
    name: "difference_blend",
    family: Blend,
    gpuimage: "GPUImageDifferenceBlendFilter",
    summary: "Absolute difference of the two images (RGB; alpha kept).",
    with: "the second image",
    params: {},
    wgsl: "return vec4<f32>(abs(t.rgb - c.rgb), c.a);",
    cpu2: |_f, c, t, _| [(t[0] - c[0]).abs(), (t[1] - c[1]).abs(), (t[2] - c[2]).abs(), c[3]],
}
