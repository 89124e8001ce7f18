//! Sepia tone. Matches GPUImage's `GPUImageSepiaFilter` (its colour matrix and intensity).

crate::pixel_filter! {
    /// GPUImage's sepia matrix, mixed with the original by intensity.
    pub struct Sepia;
    name: "sepia",
    gpuimage: "GPUImageSepiaFilter",
    summary: "Sepia tone (GPUImage's matrix), mixed with the original by intensity.",
    params: { intensity: float(0.0, 1.0) = 1.0 => "mix between the original (0) and sepia (1)" },
    // intensity folded into the matrix once: k M + (1 - k) I
    uniform: |f| { r: [f32; 3] = folded(f)[0], g: [f32; 3] = folded(f)[1], b: [f32; 3] = folded(f)[2] },
    wgsl: "return vec4<f32>(dot(c.rgb, p.r), dot(c.rgb, p.g), dot(c.rgb, p.b), c.a);",
    cpu: |f, c, _| {
        let k = f.intensity;
        let s = |row: [f32; 3], i: usize| k * (row[0] * c[0] + row[1] * c[1] + row[2] * c[2]) + (1.0 - k) * c[i];
        [s(SEPIA[0], 0), s(SEPIA[1], 1), s(SEPIA[2], 2), c[3]]
    },
}

const SEPIA: [[f32; 3]; 3] = [
    [0.3588, 0.7044, 0.1368],
    [0.2990, 0.5870, 0.1140],
    [0.2392, 0.4696, 0.0912],
];

fn folded(f: &Sepia) -> [[f32; 3]; 3] {
    std::array::from_fn(|i| {
        std::array::from_fn(|j| {
            f.intensity * SEPIA[i][j] + if i == j { 1.0 - f.intensity } else { 0.0 }
        })
    })
}
