//! Emboss. Matches GPUImage's `GPUImageEmbossFilter` (a 3x3 convolution).

crate::stencil_filter! {
    /// R, G, B convolved with GPUImage's emboss kernel scaled by intensity.
    pub struct Emboss;
    name: "emboss",
    gpuimage: "GPUImageEmbossFilter",
    summary: "Emboss: a 3x3 relief kernel scaled by intensity; alpha kept; replicate borders.",
    doc: "Kernel (-2i, -i, 0; -i, 1, i; 0, i, 2i), i the intensity, as GPUImage.",
    size: 3,
    params: { intensity: float(0.0, 4.0) = 1.0 => "strength of the relief" },
    wgsl: "let i = p.intensity;
    let s = -2.0 * i * n[0].rgb - i * (n[1].rgb + n[3].rgb) + n[4].rgb + i * (n[5].rgb + n[7].rgb) + 2.0 * i * n[8].rgb;
    return vec4<f32>(s, n[4].a);",
    cpu: |f, n| {
        let i = f.intensity;
        let k = [-2.0 * i, -i, 0.0, -i, 1.0, i, 0.0, i, 2.0 * i];
        let s = |c: usize| n.iter().zip(k).map(|(px, w)| px[c] * w).sum::<f32>();
        [s(0), s(1), s(2), n[4][3]]
    },
}
