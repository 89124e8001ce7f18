//! Hue rotation in YIQ. Matches GPUImage's `GPUImageHueFilter`.

crate::pixel_filter! {
    /// Rotates hue in the YIQ plane by an angle in degrees.
    pub struct Hue;
    name: "hue",
    gpuimage: "GPUImageHueFilter",
    summary: "Rotates hue (YIQ chroma plane) by an angle in degrees.",
    doc: "GPUImage rotates the (I, Q) chroma of each pixel by -hue with atan, sqrt, sin and cos. The rotation is linear, so the \
          GPU applies it as one 3x3 matrix (YIQ to RGB x rotation x RGB to YIQ, built once in f64); the CPU twin keeps \
          GPUImage's per-pixel polar form. The default, 90, already changes the image, as in GPUImage.",
    params: { hue: float(-360.0, 360.0) = 90.0 => "rotation in degrees" },
    uniform: |f| { r: [f32; 3] = matrix(f.hue)[0], g: [f32; 3] = matrix(f.hue)[1], b: [f32; 3] = matrix(f.hue)[2] },
    wgsl: "return vec4<f32>(dot(c.rgb, p.r), dot(c.rgb, p.g), dot(c.rgb, p.b), c.a);",
    cpu: |f, c, _| {
        let a = (f.hue % 360.0).to_radians();
        let y = 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2];
        let i = 0.595716 * c[0] - 0.274453 * c[1] - 0.321263 * c[2];
        let q = 0.211456 * c[0] - 0.522591 * c[1] + 0.31135 * c[2];
        let (h, chroma) = (q.atan2(i) - a, (i * i + q * q).sqrt());
        let (q, i) = (chroma * h.sin(), chroma * h.cos());
        [y + 0.9563 * i + 0.6210 * q, y - 0.2721 * i - 0.6474 * q, y - 1.1070 * i + 1.7046 * q, c[3]]
    },
}

const TO_YIQ: [[f64; 3]; 3] = [
    [0.299, 0.587, 0.114],
    [0.595716, -0.274453, -0.321263],
    [0.211456, -0.522591, 0.31135],
];
const TO_RGB: [[f64; 3]; 3] = [
    [1.0, 0.9563, 0.6210],
    [1.0, -0.2721, -0.6474],
    [1.0, -1.1070, 1.7046],
];

/// Rows of YIQ→RGB · R(-hue) · RGB→YIQ.
fn matrix(hue: f32) -> [[f32; 3]; 3] {
    let a = ((hue % 360.0) as f64).to_radians();
    let (s, c) = a.sin_cos();
    // (I, Q) rotated by -a: I' = I cos a + Q sin a, Q' = Q cos a - I sin a
    let rot = [[1.0, 0.0, 0.0], [0.0, c, s], [0.0, -s, c]];
    let mul = |x: &[[f64; 3]; 3], y: &[[f64; 3]; 3]| -> [[f64; 3]; 3] {
        std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| x[i][k] * y[k][j]).sum()))
    };
    mul(&mul(&TO_RGB, &rot), &TO_YIQ).map(|row| row.map(|v| v as f32))
}
