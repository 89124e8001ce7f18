// White where luminance (GPUImage weights) is at least the threshold, black elsewhere; alpha kept. CPU twin: `LuminanceThreshold::apply` in luminance_threshold.rs.
struct LuminanceThresholdParams {
    threshold: f32,
    _pad0: f32,
    _pad1: f32,
    _pad2: f32,
}

fn luminance_threshold(c: vec4<f32>, p: LuminanceThresholdParams) -> vec4<f32> {
    // Exact integer comparison (see the Rust twin): 10000*luminance*255 against the
    // threshold scaled the same way, so GPU and CPU never disagree at the boundary.
    let q = round(c.rgb * 255.0);
    let l = dot(q, vec3<f32>(2125.0, 7154.0, 721.0));
    let v = select(0.0, 1.0, l >= p.threshold);
    return vec4<f32>(v, v, v, c.a);
}
