//! Saturation weighted by how unsaturated a pixel is. Matches GPUImage's `GPUImageVibranceFilter`.

crate::pixel_filter! {
    /// Boosts (or cuts) saturation, more where the colour is less saturated.
    pub struct Vibrance;
    name: "vibrance",
    gpuimage: "GPUImageVibranceFilter",
    summary: "Saturation change weighted by how far the largest channel is above the mean.",
    doc: "amount = (max - mean) * (-3 vibrance); rgb = mix(rgb, max, amount), as GPUImage computes it.",
    params: { vibrance: float(-1.2, 1.2) = 0.0 => "-1.2 desaturates, 0 leaves the image unchanged, 1.2 saturates" },
    wgsl: "let average = (c.r + c.g + c.b) / 3.0;
    let mx = max(c.r, max(c.g, c.b));
    let amt = (mx - average) * (-p.vibrance * 3.0);
    return vec4<f32>(mix(c.rgb, vec3<f32>(mx), amt), c.a);",
    cpu: |f, c, _| {
        let mean = (c[0] + c[1] + c[2]) / 3.0;
        let mx = c[0].max(c[1]).max(c[2]);
        let amount = (mx - mean) * (-f.vibrance * 3.0);
        let g = |v: f32| v + (mx - v) * amount;
        [g(c[0]), g(c[1]), g(c[2]), c[3]]
    },
}
