//! Scales R, G and B around mid-grey. Matches GPUImage's `GPUImageContrastFilter`.

crate::pixel_filter! {
    /// Scales R, G and B around mid-grey.
    pub struct Contrast;
    name: "contrast",
    gpuimage: "GPUImageContrastFilter",
    summary: "Scales R, G and B around mid-grey.",
    params: { contrast: float(0.0, 4.0) = 1.0 => "scale of R, G, B around mid-grey 0.5" },
    wgsl: "return vec4<f32>((c.rgb - vec3<f32>(0.5)) * p.contrast + vec3<f32>(0.5), c.a);",
    cpu: |f, c, _| {
        let g = |v: f32| (v - 0.5) * f.contrast + 0.5;
        [g(c[0]), g(c[1]), g(c[2]), c[3]]
    },
}
