//! Local binary pattern of the luminance. Matches GPUImage's `GPUImageLocalBinaryPatternFilter`.

use super::luma8;

/// Bit weights of the eight neighbours, in the window's order (top-left first, row by row,
/// the centre skipped): GPUImage's top-right 1, top 2, top-left 4, left 8, bottom-left 16,
/// bottom 32, bottom-right 64, right 128.
pub(crate) const LBP_BITS: [(usize, u32); 8] = [
    (2, 1),
    (1, 2),
    (0, 4),
    (3, 8),
    (6, 16),
    (7, 32),
    (8, 64),
    (5, 128),
];

crate::stencil_filter! {
    /// Each neighbour at least as bright as the centre sets its bit; the byte as grey.
    pub struct LocalBinaryPattern;
    name: "local_binary_pattern",
    gpuimage: "GPUImageLocalBinaryPatternFilter",
    summary: "Local binary pattern: a byte whose bits say which neighbours are at least as bright as the pixel, as grey.",
    doc: "Luminance rounded to 8 bits (GPUImage's weights); bit weights as GPUImage: top-right 1, top 2, top-left 4, \
          left 8, bottom-left 16, bottom 32, bottom-right 64, right 128, each set where that neighbour >= the centre; \
          output (b, b, b, 1) / 255. Replicate borders.",
    size: 3,
    params: {},
    helpers: luma8_wgsl!("local_binary_pattern"),
    load_scalar: "return f32(local_binary_pattern_luma8(c));",
    wgsl: "let c = n[4].x;
    let b = select(0.0, 1.0, n[2].x >= c) + select(0.0, 2.0, n[1].x >= c) + select(0.0, 4.0, n[0].x >= c) + select(0.0, 8.0, n[3].x >= c)
        + select(0.0, 16.0, n[6].x >= c) + select(0.0, 32.0, n[7].x >= c) + select(0.0, 64.0, n[8].x >= c) + select(0.0, 128.0, n[5].x >= c);
    return vec4<f32>(vec3<f32>(b / 255.0), 1.0);",
    cpu: |_f, n| {
        let l: Vec<i32> = n.iter().map(|&c| luma8(c)).collect();
        let b: u32 = LBP_BITS.iter().filter(|&&(k, _)| l[k] >= l[4]).map(|&(_, w)| w).sum();
        let v = b as f32 / 255.0;
        [v, v, v, 1.0]
    },
}
