//! Adds a constant to R, G and B. Matches GPUImage's `GPUImageBrightnessFilter`.

crate::pixel_filter! {
    /// Adds a constant to R, G and B.
    pub struct Brightness;
    name: "brightness",
    gpuimage: "GPUImageBrightnessFilter",
    summary: "Adds a constant to R, G and B.",
    params: { brightness: float(-1.0, 1.0) = 0.0 => "offset added to R, G and B" },
    wgsl: "return vec4<f32>(c.rgb + vec3<f32>(p.brightness), c.a);",
    cpu: |f, c, _| [c[0] + f.brightness, c[1] + f.brightness, c[2] + f.brightness, c[3]],
}
