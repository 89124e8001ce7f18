//! Sobel edge detection. Matches GPUImage's `GPUImageSobelEdgeDetectionFilter`: the 3x3
//! Sobel gradient of luminance (GPUImage weights 0.2125, 0.7154, 0.0721), output
//! `(m, m, m, 1)` with `m = length(h, v) * edge_strength`.
//!
//! Borders replicate the edge pixel. Unlike GPUImage, whose first pass stores luminance in
//! an 8-bit texture, luminance stays f32 between the two steps: the stencil template's scalar
//! load transform, once per loaded pixel (the `rows4s` walk keeps a window of luminances).

use crate::image::luminance;

crate::stencil_filter! {
    /// Sobel gradient magnitude of luminance, scaled by `edge_strength`.
    pub struct SobelEdgeDetection;
    name: "sobel_edge_detection",
    gpuimage: "GPUImageSobelEdgeDetectionFilter",
    summary: "Sobel gradient magnitude of luminance, as grey (replicate-edge borders).",
    doc: "Luminance with GPUImage's weights (0.2125, 0.7154, 0.0721), kept in f32; h = -tl - 2l - bl + tr + 2r + br, v = -bl - 2b - br + tl + 2t + tr; \
          output (m, m, m, 1) with m = length(h, v) * edge_strength, clamped. Borders replicate the edge pixel. \
          GPU: widths that are multiples of 4 walk 256-column strips down with 16-byte loads and stores and the 3-row window in \
          registers (`rows4`); other widths use a 16x16 tile with a one-pixel halo of luminance in workgroup memory (`tile`).",
    size: 3,
    params: { edge_strength: float(0.0, 10.0) = 1.0 => "gradient magnitude multiplier" },
    gray: false,
    border: false,
    // the f32 luminance once per loaded pixel (in .x)
    load_scalar: "return dot(c.rgb, LUMA_W);",
    // `tile` besides the default (`rows4s` on widths that are a multiple of 4, else `tile`)
    schedules: &["tile"],
    // the twin's expression, term for term (same rounding order)
    wgsl: "let h = -n[0].x - 2.0 * n[3].x - n[6].x + n[2].x + 2.0 * n[5].x + n[8].x;
    let v = -n[6].x - 2.0 * n[7].x - n[8].x + n[0].x + 2.0 * n[1].x + n[2].x;
    let m = length(vec2<f32>(h, v)) * p.edge_strength;
    return vec4<f32>(m, m, m, 1.0);",
    cpu: |f, n| {
        let l: [f32; 9] = std::array::from_fn(|k| luminance(&n[k]));
        let h = -l[0] - 2.0 * l[3] - l[6] + l[2] + 2.0 * l[5] + l[8];
        let v = -l[6] - 2.0 * l[7] - l[8] + l[0] + 2.0 * l[1] + l[2];
        let m = (h * h + v * v).sqrt() * f.edge_strength;
        [m, m, m, 1.0]
    },
}
