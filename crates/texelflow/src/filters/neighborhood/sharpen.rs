//! Sharpen from the four neighbours. Matches GPUImage's `GPUImageSharpenFilter`.

crate::stencil_filter! {
    /// Centre times (1 + 4 sharpness) minus the four edge neighbours times sharpness.
    pub struct Sharpen;
    name: "sharpen",
    gpuimage: "GPUImageSharpenFilter",
    summary: "Sharpens with the four edge neighbours (negative sharpness blurs); replicate borders.",
    doc: "rgb = c (1 + 4 s) - (left + right + top + bottom) s, as GPUImage; alpha is the centre's (GPUImage takes the bottom \
          neighbour's).",
    size: 3,
    params: { sharpness: float(-4.0, 4.0) = 0.0 => "0 unchanged; positive sharpens, negative blurs" },
    wgsl: "let s = n[4].rgb * (1.0 + 4.0 * p.sharpness) - (n[3].rgb + n[5].rgb + n[1].rgb + n[7].rgb) * p.sharpness;
    return vec4<f32>(s, n[4].a);",
    cpu: |f, n| {
        let s = |c: usize| n[4][c] * (1.0 + 4.0 * f.sharpness) - (n[3][c] + n[5][c] + n[1][c] + n[7][c]) * f.sharpness;
        [s(0), s(1), s(2), n[4][3]]
    },
}
