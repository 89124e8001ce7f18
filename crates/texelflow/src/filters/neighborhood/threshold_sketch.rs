//! Thresholded sketch. Matches GPUImage's `GPUImageThresholdSketchFilter`.

use super::{luma8, sobel, squared_threshold};

crate::stencil_filter! {
    /// Black where the Sobel magnitude of the 8-bit luminance reaches the threshold, else white.
    pub struct ThresholdSketch;
    name: "threshold_sketch",
    gpuimage: "GPUImageThresholdSketchFilter",
    summary: "Black lines on white where the Sobel gradient magnitude of luminance reaches a threshold; replicate borders.",
    doc: "Sobel of the luminance rounded to 8 bits; output 1 - step(threshold, length(h, v) * edge_strength), decided \
          on the squared gradient in exact integers.",
    size: 3,
    params: {
        threshold: float(0.0, 4.0) = 0.25 => "gradient magnitude at or above which a pixel turns black",
        edge_strength: float(0.0, 10.0) = 1.0 => "gradient magnitude multiplier",
    },
    uniform: |f| { need: u32 = squared_threshold(f.threshold, f.edge_strength) },
    helpers: concat!(luma8_wgsl!("threshold_sketch"), "\n", sobel_wgsl!("threshold_sketch")),
    // the 8-bit luminance once per loaded pixel (in .x), not nine times per output
    load_scalar: "return f32(threshold_sketch_luma8(c));",
    wgsl: "let w = array<i32, 9>(i32(n[0].x), i32(n[1].x), i32(n[2].x), i32(n[3].x), i32(n[4].x), i32(n[5].x), i32(n[6].x), i32(n[7].x), i32(n[8].x));
    let g = threshold_sketch_sobel(w);
    let m = select(1.0, 0.0, u32(g.x * g.x + g.y * g.y) >= p.need);
    return vec4<f32>(m, m, m, 1.0);",
    cpu: |f, n| {
        let (h, v) = sobel(std::array::from_fn(|k| luma8(n[k])));
        let m = if ((h * h + v * v) as u32) >= squared_threshold(f.threshold, f.edge_strength) { 0.0 } else { 1.0 };
        [m, m, m, 1.0]
    },
}
