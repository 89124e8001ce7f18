//! Squared derivatives for corner detection. Matches GPUImage's `GPUImageXYDerivativeFilter`.

use super::luma8;

crate::stencil_filter! {
    /// (Ix², Iy², (Ix Iy + 1) / 2, 1) of the 8-bit luminance with Prewitt derivatives.
    pub struct XyDerivative;
    name: "xy_derivative",
    gpuimage: "GPUImageXYDerivativeFilter",
    summary: "Prewitt derivatives of luminance packed for corner detectors: (Ix², Iy², (Ix Iy + 1) / 2, 1); replicate borders.",
    doc: "As GPUImage (the input of its Harris, Noble and Shi-Tomasi detectors): luminance rounded to 8 bits, \
          Iy = (-tl - t - tr + bl + b + br) s, Ix = (-bl - l - tl + br + r + tr) s with s = edge_strength; \
          the product is offset to (Ix Iy + 1) / 2 so that negative values survive 8-bit storage.",
    size: 3,
    params: { edge_strength: float(0.0, 10.0) = 1.0 => "derivative multiplier" },
    // four channels of output, not a grey value
    gray: false,
    helpers: luma8_wgsl!("xy_derivative"),
    // the 8-bit luminance once per loaded pixel (in .x), not nine times per output
    load_scalar: "return f32(xy_derivative_luma8(c));",
    wgsl: "let w = array<i32, 9>(i32(n[0].x), i32(n[1].x), i32(n[2].x), i32(n[3].x), i32(n[4].x), i32(n[5].x), i32(n[6].x), i32(n[7].x), i32(n[8].x));
    let iy = f32(-w[0] - w[1] - w[2] + w[6] + w[7] + w[8]) / 255.0 * p.edge_strength;
    let ix = f32(-w[6] - w[3] - w[0] + w[8] + w[5] + w[2]) / 255.0 * p.edge_strength;
    return vec4<f32>(ix * ix, iy * iy, (iy * ix + 1.0) / 2.0, 1.0);",
    cpu: |f, n| {
        let w: Vec<i32> = n.iter().map(|&c| luma8(c)).collect();
        let iy = (-w[0] - w[1] - w[2] + w[6] + w[7] + w[8]) as f32 / 255.0 * f.edge_strength;
        let ix = (-w[6] - w[3] - w[0] + w[8] + w[5] + w[2]) as f32 / 255.0 * f.edge_strength;
        [ix * ix, iy * iy, (iy * ix + 1.0) / 2.0, 1.0]
    },
}
