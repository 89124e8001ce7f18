//! Colour matrix: a 4×4 matrix and an offset applied to RGBA, mixed with the original by
//! `intensity`. Matches GPUImage's `GPUImageColorMatrixFilter` (plus the offset column).

crate::pixel_filter! {
    /// `out = intensity * (M · c + offset) + (1 - intensity) * c`, `M` given row by row
    /// (row i produces output channel i; channels R, G, B, A).
    pub struct ColorMatrix;
    name: "color_matrix",
    gpuimage: "GPUImageColorMatrixFilter",
    summary: "4×4 colour matrix plus offset, mixed with the original by intensity.",
    doc: "matrix is 16 numbers, row by row: row i gives output channel i (R, G, B, A) as a weighted sum of the input's R, G, B, A. offset is added after. Sepia, for example: matrix=[0.3588,0.7044,0.1368,0,0.299,0.587,0.114,0,0.2392,0.4696,0.0912,0,0,0,0,1].",
    params: {
        matrix: mat4(-16.0, 16.0) = [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1.] => "16 numbers, row-major; row i produces output channel i",
        offset: vec4(-1.0, 1.0) = [0.0, 0.0, 0.0, 0.0] => "added to R, G, B, A after the matrix",
        intensity: float(0.0, 1.0) = 1.0 => "mix between the original (0) and the transformed colour (1)",
    },
    // The rows go up as the WGSL matrix's columns, so `c * m` there is `M · c` here.
    uniform: |f| { m: [f32; 16] = folded(f).0, offset: [f32; 4] = folded(f).1 },
    wgsl: "return c * p.m + p.offset;",
    cpu: |f, c, _| {
        let (m, off) = folded(f);
        std::array::from_fn(|i| m[4 * i] * c[0] + m[4 * i + 1] * c[1] + m[4 * i + 2] * c[2] + m[4 * i + 3] * c[3] + off[i])
    },
}

/// The mix with the original folded into the matrix and offset, computed once:
/// intensity * (M c + o) + (1 - intensity) c = (intensity M + (1 - intensity) I) c +
/// intensity o. Both sides apply the folded form (20 operations per pixel instead of 28).
fn folded(f: &ColorMatrix) -> ([f32; 16], [f32; 4]) {
    let k = f.intensity;
    let m = std::array::from_fn(|n| k * f.matrix[n] + if n % 5 == 0 { 1.0 - k } else { 0.0 });
    (m, f.offset.map(|o| k * o))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::shape::pixel::{PixelAt, PixelOp};
    /// The folded form is the documented mix: intensity * (M c + o) + (1 - intensity) c.
    #[test]
    fn folded_matrix_is_the_documented_mix() {
        let m = [
            0.3588, 0.7044, 0.1368, 0.0, 0.2990, -0.5870, 0.1140, 0.2, 1.5, 0.4696, 0.0912, 0.0,
            0.0, 0.1, 0.0, 0.9,
        ];
        let at = PixelAt {
            x: 0,
            y: 0,
            width: 1,
            height: 1,
        };
        for k in [0.0f32, 0.25, 0.7, 1.0] {
            let f = ColorMatrix::new(m, [0.1, -0.2, 0.0, 0.05], k).unwrap();
            for c in [
                [0.0f32, 0.0, 0.0, 0.0],
                [1.0, 0.5, 0.25, 1.0],
                [0.2, 0.9, 0.4, 0.6],
            ] {
                let got = f.apply(c, at);
                for i in 0..4 {
                    let t: f32 = (0..4).map(|j| m[4 * i + j] * c[j]).sum::<f32>() + f.offset[i];
                    let want = k * t + (1.0 - k) * c[i];
                    assert!(
                        (got[i] - want).abs() < 1e-5,
                        "intensity {k} channel {i}: {} vs {want}",
                        got[i]
                    );
                }
            }
        }
    }
}
