//! Sketch (inverted Sobel edges). Matches GPUImage's `GPUImageSketchFilter`.

use super::{luma8, sobel};

crate::stencil_filter! {
    /// One minus the Sobel magnitude of the 8-bit luminance: dark lines on white.
    pub struct Sketch;
    name: "sketch",
    gpuimage: "GPUImageSketchFilter",
    summary: "Pencil-sketch look: one minus the Sobel gradient magnitude of luminance, as grey; replicate borders.",
    doc: "Sobel of the luminance rounded to 8 bits (as GPUImage's grayscale pass); output (m, m, m, 1), \
          m = 1 - length(h, v) * edge_strength, clamped.",
    size: 3,
    params: { edge_strength: float(0.0, 10.0) = 1.0 => "gradient magnitude multiplier" },
    helpers: concat!(luma8_wgsl!("sketch"), "\n", sobel_wgsl!("sketch")),
    // the 8-bit luminance once per loaded pixel (in .x), not nine times per output
    load_scalar: "return f32(sketch_luma8(c));",
    wgsl: "let w = array<i32, 9>(i32(n[0].x), i32(n[1].x), i32(n[2].x), i32(n[3].x), i32(n[4].x), i32(n[5].x), i32(n[6].x), i32(n[7].x), i32(n[8].x));
    let g = sketch_sobel(w);
    let m = 1.0 - sqrt(f32(g.x * g.x + g.y * g.y)) / 255.0 * p.edge_strength;
    return vec4<f32>(m, m, m, 1.0);",
    cpu: |f, n| {
        let (h, v) = sobel(std::array::from_fn(|k| luma8(n[k])));
        let m = 1.0 - ((h * h + v * v) as f32).sqrt() / 255.0 * f.edge_strength;
        [m, m, m, 1.0]
    },
}
