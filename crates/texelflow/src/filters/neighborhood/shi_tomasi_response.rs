//! Shi-Tomasi cornerness: the per-pixel stage of GPUImage's `GPUImageShiTomasiFeatureDetectionFilter`.

crate::pixel_filter! {
    /// Shi-Tomasi cornerness of packed derivatives.
    pub struct ShiTomasiResponse;
    name: "shi_tomasi_response",
    family: Neighborhood,
    gpuimage: "GPUImageShiTomasiFeatureDetectionFilter",
    summary: "Shi-Tomasi cornerness (twice the smaller eigenvalue) of packed derivatives (the response stage of shi_tomasi_feature_detection).",
    doc: "R = Ix² + Iy² - sqrt((Ix² - Iy²)² + 4 (Ix Iy)²), times sensitivity, as grey (GPUImage's form).",
    params: { sensitivity: float(0.0, 100.0) = 1.5 => "response multiplier (GPUImage's sensitivity)" },
    wgsl: "let z = c.z * 2.0 - 1.0;
    let d = c.x - c.y;
    let r = (c.x + c.y - sqrt(d * d + 4.0 * z * z)) * p.sensitivity;
    return vec4<f32>(r, r, r, 1.0);",
    cpu: |f, c, _| {
        let z = c[2] * 2.0 - 1.0;
        let d = c[0] - c[1];
        let r = (c[0] + c[1] - (d * d + 4.0 * z * z).sqrt()) * f.sensitivity;
        [r, r, r, 1.0]
    },
}
