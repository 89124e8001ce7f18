//! Toon (cartoon) shading. Matches GPUImage's `GPUImageToonFilter`.

use super::{byte, sobel, squared_threshold};

crate::stencil_filter! {
    /// Posterised colours with black outlines where the red channel's Sobel magnitude reaches the threshold.
    pub struct Toon;
    name: "toon",
    gpuimage: "GPUImageToonFilter",
    summary: "Cartoon look: colours posterised to a few levels, black outlines at strong edges; replicate borders.",
    doc: "As GPUImage: the Sobel magnitude of the red channel (GPUImage samples `.r`), edge where it reaches threshold; \
          elsewhere each of R, G, B is floor(c levels + 0.5) / levels; alpha kept. Levels are whole numbers here \
          (GPUImage's float quantizationLevels), so the rounding is exact integer arithmetic on both GPU and CPU.",
    size: 3,
    params: {
        threshold: float(0.0, 4.0) = 0.2 => "red-channel gradient magnitude at or above which a pixel is an outline",
        levels: uint(1, 256) = 10 => "colour levels per channel (GPUImage's quantizationLevels)",
    },
    uniform: |f| { need: u32 = squared_threshold(f.threshold, 1.0), levels: u32 = f.levels, inv_levels: f32 = 1.0 / f.levels as f32 },
    helpers: sobel_wgsl!("toon"),
    wgsl: "let w = array<i32, 9>(i32(round(n[0].r * 255.0)), i32(round(n[1].r * 255.0)), i32(round(n[2].r * 255.0)), i32(round(n[3].r * 255.0)), i32(round(n[4].r * 255.0)), i32(round(n[5].r * 255.0)), i32(round(n[6].r * 255.0)), i32(round(n[7].r * 255.0)), i32(round(n[8].r * 255.0)));
    let g = toon_sobel(w);
    let edge = u32(g.x * g.x + g.y * g.y) >= p.need;
    // floor(c levels + 0.5) with c = b / 255, as (2 b levels + 255) / 510 in integers
    let q = (2u * vec3<u32>(round(n[4].rgb * 255.0)) * p.levels + vec3<u32>(255u)) / 510u;
    let rgb = select(vec3<f32>(q) * p.inv_levels, vec3<f32>(0.0), edge);
    return vec4<f32>(rgb, n[4].a);",
    cpu: |f, n| {
        let (h, v) = sobel(std::array::from_fn(|k| byte(n[k][0])));
        let edge = (h * h + v * v) as u32 >= squared_threshold(f.threshold, 1.0);
        let inv = 1.0 / f.levels as f32;
        let q = |c: f32| ((2 * byte(c) as u32 * f.levels + 255) / 510) as f32 * inv;
        if edge { [0.0, 0.0, 0.0, n[4][3]] } else { [q(n[4][0]), q(n[4][1]), q(n[4][2]), n[4][3]] }
    },
}
