//! Prewitt edge detection. Matches GPUImage's `GPUImagePrewittEdgeDetectionFilter`.

use super::luma8;

crate::stencil_filter! {
    /// Prewitt gradient magnitude of the 8-bit luminance, as grey.
    pub struct PrewittEdgeDetection;
    name: "prewitt_edge_detection",
    gpuimage: "GPUImagePrewittEdgeDetectionFilter",
    summary: "Prewitt gradient magnitude of luminance, as grey; replicate borders.",
    doc: "Luminance with GPUImage's weights rounded to 8 bits (GPUImage's grayscale pass writes an 8-bit texture); \
          h = -tl - l - bl + tr + r + br, v = -bl - b - br + tl + t + tr; output (m, m, m, 1), m = length(h, v) * edge_strength, clamped.",
    size: 3,
    params: { edge_strength: float(0.0, 10.0) = 1.0 => "gradient magnitude multiplier" },
    helpers: luma8_wgsl!("prewitt_edge_detection"),
    // the 8-bit luminance once per loaded pixel (in .x), not nine times per output
    load_scalar: "return f32(prewitt_edge_detection_luma8(c));",
    wgsl: "let w = array<i32, 9>(i32(n[0].x), i32(n[1].x), i32(n[2].x), i32(n[3].x), i32(n[4].x), i32(n[5].x), i32(n[6].x), i32(n[7].x), i32(n[8].x));
    let h = -w[0] - w[3] - w[6] + w[2] + w[5] + w[8];
    let v = -w[6] - w[7] - w[8] + w[0] + w[1] + w[2];
    let m = sqrt(f32(h * h + v * v)) / 255.0 * p.edge_strength;
    return vec4<f32>(m, m, m, 1.0);",
    cpu: |f, n| {
        let w: Vec<i32> = n.iter().map(|&c| luma8(c)).collect();
        let h = -w[0] - w[3] - w[6] + w[2] + w[5] + w[8];
        let v = -w[6] - w[7] - w[8] + w[0] + w[1] + w[2];
        let m = ((h * h + v * v) as f32).sqrt() / 255.0 * f.edge_strength;
        [m, m, m, 1.0]
    },
}
