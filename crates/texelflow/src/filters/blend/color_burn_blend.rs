//! Colour burn blend. Matches GPUImage's `GPUImageColorBurnBlendFilter`.

crate::pixel_filter! {
    /// `1 - (1 - c) / t` on all four channels (GPUImage applies it to alpha too).
    pub struct ColorBurnBlend;
    name: "color_burn_blend",
    family: Blend,
    gpuimage: "GPUImageColorBurnBlendFilter",
    summary: "Colour burn: darkens the input by dividing its inverse by the second image.",
    doc: "GPUImage's `1 - (1 - c) / t`, clamped, with its divisions by zero given the W3C values: c = 1 gives 1, \
          else t = 0 gives 0 (the limit); so GPU and CPU never see a NaN.",
    with: "the burning image",
    params: {},
    wgsl: "let burnt = vec4<f32>(1.0) - (vec4<f32>(1.0) - c) / max(t, vec4<f32>(1e-30));
    return select(select(burnt, vec4<f32>(0.0), t <= vec4<f32>(0.0)), vec4<f32>(1.0), c >= vec4<f32>(1.0));",
    cpu2: |_f, c, t, _| std::array::from_fn(|k| if c[k] >= 1.0 { 1.0 } else if t[k] <= 0.0 { 0.0 } else { 1.0 - (1.0 - c[k]) / t[k] }),
}
