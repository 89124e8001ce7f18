//! Binary threshold on luminance. Matches GPUImage's `GPUImageLuminanceThresholdFilter`.

crate::pixel_filter! {
    /// White where luminance (GPUImage weights) is at least the threshold, black elsewhere.
    pub struct LuminanceThreshold;
    name: "luminance_threshold",
    gpuimage: "GPUImageLuminanceThresholdFilter",
    summary: "White where luminance (GPUImage weights) is at least the threshold, black elsewhere; alpha kept.",
    params: { threshold: float(0.0, 1.0) = 0.5 => "luminance at or above which a pixel turns white" },
    uniform: |f| { scaled: f32 = threshold_scaled(f.threshold) },
    // Exact integer comparison: 10000 * luminance * 255 against the threshold scaled the
    // same way, so GPU and CPU never disagree at the boundary.
    wgsl: "let l = dot(round(c.rgb * 255.0), vec3<f32>(2125.0, 7154.0, 721.0));
    let v = select(0.0, 1.0, l >= p.scaled);
    return vec4<f32>(v, v, v, c.a);",
    cpu: |f, c, _| {
        let q = |v: f32| (v * 255.0).round();
        let l = q(c[0]) * 2125.0 + q(c[1]) * 7154.0 + q(c[2]) * 721.0;
        let v = if l >= threshold_scaled(f.threshold) { 1.0 } else { 0.0 };
        [v, v, v, c[3]]
    },
}

/// The threshold on the integer scale `2125 R + 7154 G + 721 B` (R, G, B in 0..=255): the
/// GPUImage weights times 10000, so comparisons are exact in f32 on both sides.
pub fn threshold_scaled(t: f32) -> f32 {
    (t as f64 * 255.0 * 10000.0).ceil() as f32
}
