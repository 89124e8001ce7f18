//! The four-colour CGA palette. Matches GPUImage's `GPUImageCGAColorspaceFilter`.

/// CGA palette 1 (high intensity) as GPUImage orders its ties: black, white, cyan, magenta.
const PALETTE: [[f32; 4]; 4] = [[0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0], [85.0 / 255.0, 1.0, 1.0, 1.0], [1.0, 85.0 / 255.0, 1.0, 1.0]];

crate::remap_filter! {
    /// Coarse cells mapped to the nearest of black, white, cyan and magenta.
    pub struct CgaColorspace;
    name: "cga_colorspace",
    gpuimage: "GPUImageCGAColorspaceFilter",
    summary: "CGA look: 200x320 cells, each the nearest of black, white, cyan and magenta.",
    doc: "As GPUImage: the position is rounded down to a grid of 1/200 of the width by 1/320 of the height, the input \
          read there (bilinear, so at the corner between four pixels), and the nearest palette colour taken by RGBA \
          distance (ties to black, then white, cyan, magenta). Opaque output.",
    params: {},
    helpers: "fn cga_distance2(c: vec4<f32>, k: vec4<f32>) -> f32 {
    let e = c - k;
    return e.x * e.x + e.y * e.y + e.z * e.z + e.w * e.w;
}",
    wgsl: "let n = vec2<f32>(200.0, 320.0);
    return tie_floor2(uv * n) / n;",
    cpu: |_f, uv, _| [crate::filters::tie_floor(uv[0] * 200.0) / 200.0, crate::filters::tie_floor(uv[1] * 320.0) / 320.0],
    post_wgsl: "var best = vec4<f32>(0.0, 0.0, 0.0, 1.0);
    var least = cga_distance2(c, best);
    let white = vec4<f32>(1.0);
    if (cga_distance2(c, white) < least) { least = cga_distance2(c, white); best = white; }
    let cyan = vec4<f32>(85.0 / 255.0, 1.0, 1.0, 1.0);
    if (cga_distance2(c, cyan) < least) { least = cga_distance2(c, cyan); best = cyan; }
    let magenta = vec4<f32>(1.0, 85.0 / 255.0, 1.0, 1.0);
    if (cga_distance2(c, magenta) < least) { best = magenta; }
    return best;",
    post: |_f, c, _uv, _size, _sample| {
        let d = |k: [f32; 4]| {
            let e = [c[0] - k[0], c[1] - k[1], c[2] - k[2], c[3] - k[3]];
            e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3]
        };
        let mut best = PALETTE[0];
        let mut least = d(best);
        for k in &PALETTE[1..] {
            if d(*k) < least {
                least = d(*k);
                best = *k;
            }
        }
        best
    },
}
