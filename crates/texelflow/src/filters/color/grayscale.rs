//! Luminance only. Matches GPUImage's `GPUImageGrayscaleFilter`.

crate::pixel_filter! {
    /// Replaces R, G, B with luminance; RGBA out.
    pub struct Grayscale;
    name: "grayscale",
    gpuimage: "GPUImageGrayscaleFilter",
    summary: "Replaces R, G, B with luminance (GPUImage weights 0.2125, 0.7154, 0.0721); RGBA out.",
    params: {},
    wgsl: "let l = dot(c.rgb, LUMA_W);\n    return vec4<f32>(l, l, l, c.a);",
    cpu: |_f, c, _| {
        let l = crate::image::luminance(&c);
        [l, l, l, c[3]]
    },
}
