//! Multiplies alpha. Matches GPUImage's `GPUImageOpacityFilter`.

crate::pixel_filter! {
    /// Multiplies alpha by a factor (straight alpha: R, G, B unchanged).
    pub struct Opacity;
    name: "opacity",
    gpuimage: "GPUImageOpacityFilter",
    summary: "Multiplies alpha by a factor; R, G, B unchanged (straight alpha).",
    params: { opacity: float(0.0, 1.0) = 1.0 => "factor for alpha" },
    per_channel: true,
    schedules: &["table"],
    wgsl: "return vec4<f32>(c.rgb, c.a * p.opacity);",
    cpu: |f, c, _| [c[0], c[1], c[2], c[3] * f.opacity],
}
