//! Noble cornerness of packed derivatives: the per-pixel stage of GPUImage's `GPUImageNobleCornerDetectionFilter`.

crate::pixel_filter! {
    /// Noble cornerness of packed derivatives.
    pub struct NobleResponse;
    name: "noble_response",
    family: Neighborhood,
    gpuimage: "GPUImageNobleCornerDetectionFilter",
    summary: "Noble cornerness of packed derivatives (the response stage of noble_corner_detection).",
    doc: "R = (Ix² Iy² - (Ix Iy)²) / (Ix² + Iy²), times sensitivity, as grey; 0 where Ix² + Iy² = 0 (GPUImage divides by zero there).",
    params: { sensitivity: float(0.0, 100.0) = 5.0 => "response multiplier (GPUImage's sensitivity)" },
    wgsl: "let z = c.z * 2.0 - 1.0;
    let s = c.x + c.y;
    let r = select(0.0, (c.x * c.y - z * z) / s, s > 0.0) * p.sensitivity;
    return vec4<f32>(r, r, r, 1.0);",
    cpu: |f, c, _| {
        let z = c[2] * 2.0 - 1.0;
        let s = c[0] + c[1];
        let r = if s > 0.0 { (c[0] * c[1] - z * z) / s } else { 0.0 } * f.sensitivity;
        [r, r, r, 1.0]
    },
}
