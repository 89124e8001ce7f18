//! Laplacian (edges of both signs, around mid-grey). Matches GPUImage's `GPUImageLaplacianFilter`.

crate::stencil_filter! {
    /// GPUImage's 3x3 Laplacian of R, G, B, offset by 0.5 so negative responses show.
    pub struct Laplacian;
    name: "laplacian",
    gpuimage: "GPUImageLaplacianFilter",
    summary: "3x3 Laplacian of R, G, B plus 0.5 (mid-grey is flat); alpha kept; replicate borders.",
    doc: "Kernel (0.5, 1, 0.5; 1, -6, 1; 0.5, 1, 0.5), as GPUImage, then + 0.5.",
    size: 3,
    params: {},
    wgsl: "let s = 0.5 * (n[0].rgb + n[2].rgb + n[6].rgb + n[8].rgb) + (n[1].rgb + n[3].rgb + n[5].rgb + n[7].rgb) - 6.0 * n[4].rgb;
    return vec4<f32>(s + vec3<f32>(0.5), n[4].a);",
    cpu: |_f, n| {
        const K: [f32; 9] = [0.5, 1.0, 0.5, 1.0, -6.0, 1.0, 0.5, 1.0, 0.5];
        let s = |c: usize| n.iter().zip(K).map(|(px, k)| px[c] * k).sum::<f32>() + 0.5;
        [s(0), s(1), s(2), n[4][3]]
    },
}
