//! Harris cornerness of packed derivatives: the per-pixel stage of GPUImage's `GPUImageHarrisCornerDetectionFilter`.

crate::pixel_filter! {
    /// Harris cornerness of packed derivatives.
    pub struct HarrisResponse;
    name: "harris_response",
    family: Neighborhood,
    gpuimage: "GPUImageHarrisCornerDetectionFilter",
    summary: "Harris cornerness of packed derivatives (the response stage of harris_corner_detection).",
    doc: "On `xy_derivative` output (Ix², Iy², (Ix Iy + 1) / 2), usually blurred: R = Ix² Iy² - (Ix Iy)² - k (Ix² + Iy²)², times sensitivity, as grey (GPUImage's harrisConstant k = 0.04).",
    params: { sensitivity: float(0.0, 100.0) = 5.0 => "response multiplier (GPUImage's sensitivity)" },
    wgsl: "let z = c.z * 2.0 - 1.0;
    let s = c.x + c.y;
    let r = (c.x * c.y - z * z - 0.04 * s * s) * p.sensitivity;
    return vec4<f32>(r, r, r, 1.0);",
    cpu: |f, c, _| {
        let z = c[2] * 2.0 - 1.0;
        let s = c[0] + c[1];
        let r = (c[0] * c[1] - z * z - 0.04 * s * s) * f.sensitivity;
        [r, r, r, 1.0]
    },
}
