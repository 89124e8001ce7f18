//! 3x3 non-maximum suppression. Matches GPUImage's `GPUImageNonMaximumSuppressionFilter`.

crate::stencil_filter! {
    /// Keeps a pixel whose red channel is the 3x3 maximum (ties go to the later pixel), else black.
    pub struct NonMaximumSuppression;
    name: "non_maximum_suppression",
    gpuimage: "GPUImageNonMaximumSuppressionFilter",
    summary: "Keeps pixels whose red channel is the largest of their 3x3 window, black elsewhere (for corner maps); replicate borders.",
    doc: "As GPUImage: the centre's red must be at least that of the bottom, bottom-right, right and top-right \
          neighbours and strictly more than that of the top, top-left, left and bottom-left ones (a tie-break so \
          that a plateau keeps one pixel); kept pixels output (r, g, b, 1) of the centre, others (0, 0, 0, 1). GPUImage \
          writes the strict part as `multiplier * 1.0 - step(...)`, which subtracts instead of multiplying; this \
          follows what its comment says it does.",
    size: 3,
    params: {},
    wgsl: "let c = n[4];
    let later = c.r >= max(max(n[7].r, n[8].r), max(n[5].r, n[2].r));
    let earlier = c.r > max(max(n[1].r, n[0].r), max(n[3].r, n[6].r));
    return vec4<f32>(select(vec3<f32>(0.0), c.rgb, later && earlier), 1.0);",
    cpu: |_f, n| {
        let c = n[4];
        let later = [7, 8, 5, 2].iter().all(|&k| c[0] >= n[k][0]);
        let earlier = [1, 0, 3, 6].iter().all(|&k| c[0] > n[k][0]);
        if later && earlier { [c[0], c[1], c[2], 1.0] } else { [0.0, 0.0, 0.0, 1.0] }
    },
}
