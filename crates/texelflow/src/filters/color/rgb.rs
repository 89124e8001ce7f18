//! Per-channel gains. Matches GPUImage's `GPUImageRGBFilter`.

crate::pixel_filter! {
    /// Multiplies R, G and B by their own factors.
    pub struct Rgb;
    name: "rgb",
    gpuimage: "GPUImageRGBFilter",
    summary: "Multiplies R, G and B by their own factors.",
    params: {
        red: float(0.0, 4.0) = 1.0 => "factor for R",
        green: float(0.0, 4.0) = 1.0 => "factor for G",
        blue: float(0.0, 4.0) = 1.0 => "factor for B",
    },
    per_channel: true,
    schedules: &["table"],
    wgsl: "return vec4<f32>(c.r * p.red, c.g * p.green, c.b * p.blue, c.a);",
    cpu: |f, c, _| [c[0] * f.red, c[1] * f.green, c[2] * f.blue, c[3]],
}
