//! Any 3x3 convolution of R, G and B. Matches GPUImage's `GPUImage3x3ConvolutionFilter`.

crate::stencil_filter! {
    /// R, G, B convolved with a 3x3 kernel given row by row; alpha kept.
    pub struct Convolution3x3;
    name: "convolution_3x3",
    gpuimage: "GPUImage3x3ConvolutionFilter",
    summary: "R, G, B convolved with a user 3x3 kernel (row by row); alpha kept; replicate borders.",
    doc: "kernel is 9 numbers, the top row first: out = sum of kernel[i] * the window's pixel i (not normalised, as in \
          GPUImage; divide the weights by their sum for a blur), clamped when stored.",
    size: 3,
    params: { kernel: mat3(-16.0, 16.0) = [0., 0., 0., 0., 1., 0., 0., 0., 0.] => "9 weights, row-major, top row first" },
    uniform: |f| { top: [f32; 3] = row(f, 0), middle: [f32; 3] = row(f, 1), bottom: [f32; 3] = row(f, 2) },
    wgsl: "let s = n[0].rgb * p.top.x + n[1].rgb * p.top.y + n[2].rgb * p.top.z
        + n[3].rgb * p.middle.x + n[4].rgb * p.middle.y + n[5].rgb * p.middle.z
        + n[6].rgb * p.bottom.x + n[7].rgb * p.bottom.y + n[8].rgb * p.bottom.z;
    return vec4<f32>(s, n[4].a);",
    cpu: |f, n| {
        let mut s = [0.0f32; 3];
        for (i, px) in n.iter().enumerate() {
            for (c, v) in s.iter_mut().enumerate() {
                *v += px[c] * f.kernel[i];
            }
        }
        [s[0], s[1], s[2], n[4][3]]
    },
}

fn row(f: &Convolution3x3, r: usize) -> [f32; 3] {
    [f.kernel[3 * r], f.kernel[3 * r + 1], f.kernel[3 * r + 2]]
}
