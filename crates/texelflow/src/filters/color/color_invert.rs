//! 1 − RGB. Matches GPUImage's `GPUImageColorInvertFilter`.

crate::pixel_filter! {
    /// Inverts R, G and B; alpha kept.
    pub struct ColorInvert;
    name: "color_invert",
    gpuimage: "GPUImageColorInvertFilter",
    summary: "Inverts R, G and B; alpha kept.",
    params: {},
    wgsl: "return vec4<f32>(vec3<f32>(1.0) - c.rgb, c.a);",
    cpu: |_f, c, _| [1.0 - c[0], 1.0 - c[1], 1.0 - c[2], c[3]],
}
