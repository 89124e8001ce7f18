//! Thresholded Sobel edges. Matches GPUImage's `GPUImageThresholdEdgeDetectionFilter`.

use super::{luma8, sobel, squared_threshold};

crate::stencil_filter! {
    /// White where the Sobel magnitude of the 8-bit luminance reaches the threshold, else black.
    pub struct ThresholdEdgeDetection;
    name: "threshold_edge_detection",
    gpuimage: "GPUImageThresholdEdgeDetectionFilter",
    summary: "White where the Sobel gradient magnitude of luminance reaches a threshold, black elsewhere; replicate borders.",
    doc: "Sobel of the luminance rounded to 8 bits (as GPUImage's grayscale pass into an 8-bit texture); output \
          step(threshold, length(h, v) * edge_strength), decided on the squared gradient in exact integers.",
    size: 3,
    params: {
        threshold: float(0.0, 4.0) = 0.25 => "gradient magnitude at or above which a pixel is an edge",
        edge_strength: float(0.0, 10.0) = 1.0 => "gradient magnitude multiplier",
    },
    uniform: |f| { need: u32 = squared_threshold(f.threshold, f.edge_strength) },
    helpers: concat!(luma8_wgsl!("threshold_edge_detection"), "\n", sobel_wgsl!("threshold_edge_detection")),
    // the 8-bit luminance once per loaded pixel (in .x), not nine times per output
    load_scalar: "return f32(threshold_edge_detection_luma8(c));",
    wgsl: "let w = array<i32, 9>(i32(n[0].x), i32(n[1].x), i32(n[2].x), i32(n[3].x), i32(n[4].x), i32(n[5].x), i32(n[6].x), i32(n[7].x), i32(n[8].x));
    let g = threshold_edge_detection_sobel(w);
    let m = select(0.0, 1.0, u32(g.x * g.x + g.y * g.y) >= p.need);
    return vec4<f32>(m, m, m, 1.0);",
    cpu: |f, n| {
        let (h, v) = sobel(std::array::from_fn(|k| luma8(n[k])));
        let m = if ((h * h + v * v) as u32) >= squared_threshold(f.threshold, f.edge_strength) { 1.0 } else { 0.0 };
        [m, m, m, 1.0]
    },
}
