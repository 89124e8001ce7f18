//! Mixes each pixel with its luminance. Matches GPUImage's `GPUImageSaturationFilter`.

crate::pixel_filter! {
    /// Mixes each pixel with its luminance (GPUImage weights).
    pub struct Saturation;
    name: "saturation",
    gpuimage: "GPUImageSaturationFilter",
    summary: "Mixes each pixel with its luminance (GPUImage weights).",
    params: { saturation: float(0.0, 2.0) = 1.0 => "0 is greyscale, 1 unchanged, 2 doubly saturated" },
    wgsl: "let l = dot(c.rgb, LUMA_W);\n    return vec4<f32>(mix(vec3<f32>(l), c.rgb, p.saturation), c.a);",
    cpu: |f, c, _| {
        let l = crate::image::luminance(&c);
        let g = |v: f32| l * (1.0 - f.saturation) + v * f.saturation;
        [g(c[0]), g(c[1]), g(c[2]), c[3]]
    },
}
