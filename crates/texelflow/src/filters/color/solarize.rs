//! Inverts dark pixels. Matches GPUImage's `GPUImageSolarizeFilter`.

crate::pixel_filter! {
    /// Inverts R, G and B where luminance is at or below the threshold (GPUImage's `step`).
    pub struct Solarize;
    name: "solarize",
    gpuimage: "GPUImageSolarizeFilter",
    summary: "Inverts R, G and B where luminance is at or below the threshold.",
    doc: "As GPUImage's code (not its header comment): pixels at or below the threshold are inverted, brighter ones kept. The \
          comparison is exact, on the 8-bit samples scaled by the luminance weights times 10000.",
    params: { threshold: float(0.0, 1.0) = 0.5 => "luminance at or below which R, G, B are inverted" },
    uniform: |f| { scaled: f32 = threshold_floor(f.threshold) },
    wgsl: "let l = dot(round(c.rgb * 255.0), vec3<f32>(2125.0, 7154.0, 721.0));
    let t = select(0.0, 1.0, l <= p.scaled);
    return vec4<f32>(abs(vec3<f32>(t) - c.rgb), c.a);",
    cpu: |f, c, _| {
        let q = |v: f32| (v * 255.0).round();
        let l = q(c[0]) * 2125.0 + q(c[1]) * 7154.0 + q(c[2]) * 721.0;
        if l <= threshold_floor(f.threshold) { [1.0 - c[0], 1.0 - c[1], 1.0 - c[2], c[3]] } else { c }
    },
}

/// The threshold on the integer scale `2125 R + 7154 G + 721 B`, rounded down: for an
/// integer `l`, `l <= floor(t)` exactly when `l <= t`.
fn threshold_floor(t: f32) -> f32 {
    (t as f64 * 255.0 * 10000.0).floor() as f32
}
