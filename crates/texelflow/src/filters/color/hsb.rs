//! Hue, saturation and brightness as one colour matrix. Matches GPUImage's `GPUImageHSBFilter`.

crate::pixel_filter! {
    /// Rotates hue (luminance-preserving), scales saturation and brightness, in that order.
    pub struct Hsb;
    name: "hsb",
    gpuimage: "GPUImageHSBFilter",
    summary: "Hue rotation, saturation and brightness as one colour matrix (Haeberli's method).",
    doc: "GPUImage's rotateHue, adjustSaturation and adjustBrightness, applied in that order to one 4x4 matrix (Paul Haeberli's \
          matrix operations, luminance weights 0.3, 0.59, 0.11; the hue rotation keeps grey grey and luminance constant).",
    params: {
        hue: float(-360.0, 360.0) = 0.0 => "hue rotation in degrees",
        saturation: float(0.0, 2.0) = 1.0 => "0 is grey, 1 unchanged, 2 doubly saturated",
        brightness: float(0.0, 2.0) = 1.0 => "factor for R, G, B",
    },
    uniform: |f| { r: [f32; 3] = column(f, 0), g: [f32; 3] = column(f, 1), b: [f32; 3] = column(f, 2) },
    wgsl: "return vec4<f32>(dot(c.rgb, p.r), dot(c.rgb, p.g), dot(c.rgb, p.b), c.a);",
    cpu: |f, c, _| {
        // the hue matrix, then saturation and brightness as the formulas they are
        let h = hue_rotation(f.hue as f64);
        let rot: [f32; 3] = std::array::from_fn(|j| (0..3).map(|i| c[i] * h[i][j] as f32).sum());
        let l = 0.3 * rot[0] + 0.59 * rot[1] + 0.11 * rot[2];
        let s = |v: f32| ((1.0 - f.saturation) * l + f.saturation * v) * f.brightness;
        [s(rot[0]), s(rot[1]), s(rot[2]), c[3]]
    },
}

type M4 = [[f64; 4]; 4];
const LUM: [f64; 3] = [0.3, 0.59, 0.11];

fn identity() -> M4 {
    std::array::from_fn(|i| std::array::from_fn(|j| if i == j { 1.0 } else { 0.0 }))
}
/// `a · b`.
fn mul(a: &M4, b: &M4) -> M4 {
    std::array::from_fn(|i| std::array::from_fn(|j| (0..4).map(|k| a[i][k] * b[k][j]).sum()))
}
/// Haeberli's row-vector matrices: `then(m, x)` applies `x` after `m`.
fn then(m: &M4, x: M4) -> M4 {
    mul(m, &x)
}
fn rot(axis: usize, s: f64, c: f64) -> M4 {
    let mut m = identity();
    let (a, b) = match axis {
        0 => (1, 2),
        1 => (2, 0),
        _ => (0, 1),
    };
    m[a][a] = c;
    m[a][b] = s;
    m[b][a] = -s;
    m[b][b] = c;
    m
}
fn zshear(dx: f64, dy: f64) -> M4 {
    let mut m = identity();
    m[0][2] = dx;
    m[1][2] = dy;
    m
}

/// GPUImage's `huerotatemat`: grey axis to z, shear so luminance is constant, rotate, undo.
fn hue_rotation(degrees: f64) -> M4 {
    let (r2, r3) = (2f64.sqrt(), 3f64.sqrt());
    let mut m = then(&identity(), rot(0, 1.0 / r2, 1.0 / r2));
    m = then(&m, rot(1, -1.0 / r3, r2 / r3));
    let l: [f64; 3] =
        std::array::from_fn(|j| (0..3).map(|i| LUM[i] * m[i][j]).sum::<f64>() + m[3][j]);
    let (zsx, zsy) = (l[0] / l[2], l[1] / l[2]);
    m = then(&m, zshear(zsx, zsy));
    let (s, c) = degrees.to_radians().sin_cos();
    m = then(&m, rot(2, s, c));
    m = then(&m, zshear(-zsx, -zsy));
    m = then(&m, rot(1, 1.0 / r3, r2 / r3));
    then(&m, rot(0, -1.0 / r2, 1.0 / r2))
}

/// The whole matrix: hue, then saturation (`saturatemat`), then brightness (`cscalemat`).
fn matrix(f: &Hsb) -> M4 {
    let s = f.saturation as f64;
    let mut sat = identity();
    for (i, row) in sat.iter_mut().take(3).enumerate() {
        for (j, v) in row.iter_mut().take(3).enumerate() {
            *v = (1.0 - s) * LUM[i] + if i == j { s } else { 0.0 };
        }
    }
    let b = f.brightness as f64;
    let mut scale = identity();
    (0..3).for_each(|k| scale[k][k] = b);
    then(&then(&hue_rotation(f.hue as f64), sat), scale)
}

/// Output channel `j` as weights of the input's R, G, B (row-vector convention: column j).
fn column(f: &Hsb, j: usize) -> [f32; 3] {
    let m = matrix(f);
    std::array::from_fn(|i| m[i][j] as f32)
}

#[cfg(test)]
mod tests {
    /// GPUImage's rotateHue(90) from the identity, computed by a port of its C code.
    #[test]
    fn hue_rotation_matches_gpuimage() {
        let want = [
            [0.0229, 0.6002, -0.5545],
            [0.1223, 0.6997, 1.2770],
            [0.8548, -0.2999, 0.2774],
        ];
        let m = super::hue_rotation(90.0);
        for i in 0..3 {
            for j in 0..3 {
                assert!(
                    (m[i][j] - want[i][j]).abs() < 1e-3,
                    "[{i}][{j}] {} vs {}",
                    m[i][j],
                    want[i][j]
                );
            }
        }
    }
}
