//! Linear burn blend. Matches GPUImage's `GPUImageLinearBurnBlendFilter`.

crate::pixel_filter! {
    /// `clamp(c.rgb + t.rgb - 1, 0, 1)`, alpha from the input.
    pub struct LinearBurnBlend;
    name: "linear_burn_blend",
    family: Blend,
    gpuimage: "GPUImageLinearBurnBlendFilter",
    summary: "Linear burn: the sum of the two images minus one (RGB; alpha kept).",
    with: "the second image",
    params: {},
    wgsl: "return vec4<f32>(clamp(c.rgb + t.rgb - vec3<f32>(1.0), vec3<f32>(0.0), vec3<f32>(1.0)), c.a);",
    cpu2: |_f, c, t, _| {
        let ch = |k: usize| (c[k] + t[k] - 1.0).clamp(0.0, 1.0);
        [ch(0), ch(1), ch(2), c[3]]
    },
}
