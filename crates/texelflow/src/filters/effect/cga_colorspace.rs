//! The four-colour CGA palette. Matches GPUImage's `GPUImageCGAColorspaceFilter`.

/// CGA palette 1 (high intensity) as GPUImage orders its ties: black, white, cyan, magenta (8-bit RGBA).
const PALETTE: [[i32; 4]; 4] = [
    [0, 0, 0, 255],
    [255, 255, 255, 255],
    [85, 255, 255, 255],
    [255, 85, 255, 255],
];

crate::remap_filter! {
    /// Coarse cells mapped to the nearest of black, white, cyan and magenta.
    pub struct CgaColorspace;
    name: "cga_colorspace",
    gpuimage: "GPUImageCGAColorspaceFilter",
    summary: "CGA look: 200x320 cells, each the nearest of black, white, cyan and magenta.",
    doc: "As GPUImage: the position is rounded down to a grid of 1/200 of the width by 1/320 of the height and the \
          nearest palette colour taken by RGBA distance (ties to black, then white, cyan, magenta). Differences, so that \
          every device picks the same colour: the input is read at the pixel holding the grid point (GPUImage reads \
          bilinearly at the point, a corner between pixels) and distances are in 8-bit levels. Opaque output.",
    params: {},
    helpers: "fn cga_distance2(c: vec4<i32>, k: vec4<i32>) -> i32 {
    let e = c - k;
    return dot(e, e);
}",
    wgsl: "let n = vec2<f32>(200.0, 320.0);
    return (tie_floor2(tie_floor2(uv * n) / n * size) + 0.5) / size;",
    cpu: |_f, uv, size| {
        use crate::filters::tie_floor;
        let q = [tie_floor(uv[0] * 200.0) / 200.0, tie_floor(uv[1] * 320.0) / 320.0];
        [(tie_floor(q[0] * size[0]) + 0.5) / size[0], (tie_floor(q[1] * size[1]) + 0.5) / size[1]]
    },
    post_wgsl: "let b = vec4<i32>(round(c * 255.0));
    var best = vec4<i32>(0, 0, 0, 255);
    var least = cga_distance2(b, best);
    let white = vec4<i32>(255, 255, 255, 255);
    if (cga_distance2(b, white) < least) { least = cga_distance2(b, white); best = white; }
    let cyan = vec4<i32>(85, 255, 255, 255);
    if (cga_distance2(b, cyan) < least) { least = cga_distance2(b, cyan); best = cyan; }
    let magenta = vec4<i32>(255, 85, 255, 255);
    if (cga_distance2(b, magenta) < least) { best = magenta; }
    return vec4<f32>(best) / 255.0;",
    post: |_f, c, _uv, _size, _sample| {
        let b = c.map(|v| (v * 255.0).round() as i32);
        let d = |k: &[i32; 4]| (0..4).map(|i| (b[i] - k[i]) * (b[i] - k[i])).sum::<i32>();
        let mut best = &PALETTE[0];
        for k in &PALETTE[1..] {
            if d(k) < d(best) {
                best = k;
            }
        }
        best.map(|v| v as f32 / 255.0)
    },
}
