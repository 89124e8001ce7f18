//! Local binary pattern per colour channel. Matches GPUImage's `GPUImageColorLocalBinaryPatternFilter`.

use super::byte;
use super::local_binary_pattern::LBP_BITS;

crate::stencil_filter! {
    /// The local binary pattern of each of R, G and B on its own.
    pub struct ColorLocalBinaryPattern;
    name: "color_local_binary_pattern",
    gpuimage: "GPUImageColorLocalBinaryPatternFilter",
    summary: "Local binary pattern of each of R, G and B separately (a byte per channel); opaque.",
    doc: "For each of R, G, B: bits as `local_binary_pattern` (top-right 1 ... right 128) where that neighbour's channel \
          is >= the centre's, compared as 8-bit values; output the three bytes / 255 and alpha 1. Replicate borders.",
    size: 3,
    params: {},
    // one pattern per colour channel: local_binary_pattern is the Gray8 one
    gray: false,
    wgsl: "let c = n[4].rgb;
    let one = vec3<f32>(1.0);
    let zero = vec3<f32>(0.0);
    let b = select(zero, one, n[2].rgb >= c) + select(zero, 2.0 * one, n[1].rgb >= c) + select(zero, 4.0 * one, n[0].rgb >= c)
        + select(zero, 8.0 * one, n[3].rgb >= c) + select(zero, 16.0 * one, n[6].rgb >= c) + select(zero, 32.0 * one, n[7].rgb >= c)
        + select(zero, 64.0 * one, n[8].rgb >= c) + select(zero, 128.0 * one, n[5].rgb >= c);
    return vec4<f32>(b / 255.0, 1.0);",
    cpu: |_f, n| {
        let ch = |c: usize| LBP_BITS.iter().filter(|&&(k, _)| byte(n[k][c]) >= byte(n[4][c])).map(|&(_, w)| w).sum::<u32>() as f32 / 255.0;
        [ch(0), ch(1), ch(2), 1.0]
    },
}
