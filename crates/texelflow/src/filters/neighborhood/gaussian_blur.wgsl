// Gaussian blur, separable: a horizontal pass then a vertical pass, both in f32 with no
// intermediate rounding, taps summed in the order k = 0..=2R (left to right, top to
// bottom), replicate-edge borders. Samples stay in 8-bit units (0..255) throughout, so no
// scaling is needed; the result is rounded half up, as pack4x8unorm rounds.
// CPU twin: `blur_cpu` in gaussian_blur.rs.
//
// This file holds the uniform, bindings and helpers; the kernels are appended to it:
// The strategies (gaussian_blur.rs picks one):
// - `fused` (gaussian_blur_fused.wgsl): one workgroup per output tile; the tile plus its halo is loaded once into
//   workgroup memory, then per channel the horizontal pass writes f32 rows into workgroup
//   memory and the vertical pass reads them; RGBA8 goes straight to the output. No
//   full-size intermediate.
//   Its constants are specialised per radius and tile (lines marked @specialize), and the
//   bodies of `h_segment`/`v_segment` are replaced by unrolled straight-line code.
// - `window_h` + `window_v` (gaussian_blur_window.wgsl, appended to this file): two
//   register-blocked passes through an Rgba32F temporary, for larger radii.
// - `decim_h` + `decim_v` + `decim_up` (gaussian_blur_decimate.wgsl): the exact blur at the
//   nodes of a coarser grid, cubic interpolation between them, for large sigma.
// - `half` (gaussian_blur_half.wgsl): the direct filter in f16 (or f32) arithmetic, each
//   column's vertical window in registers, the horizontal pass from rows buffered in
//   workgroup memory; the default for small sigma.
// Separate files, so that each module declares only its own kernel's workgroup variables.

struct GaussianBlurParams {
    width: u32,
    height: u32,
    radius: u32,
    // node columns and rows of the decimated schedule (gaussian_blur_decimate.wgsl)
    nodes_x: u32,
    nodes_y: u32,
    // node columns per workgroup of the decimated row pass
    seg_nodes: u32,
    _pad1: u32,
    _pad2: u32,
    // weights[k] for k in 0..=2*radius at w[k / 4][k % 4]: symmetric, summing to 1; zero
    // past 2*radius (the two-pass window reads whole blocks of 8)
    w: array<vec4<f32>, 50>,
    // decimated schedule, node spacing D: weight q * D + s (zero past 2*radius) at
    // wp[s * QV + q / 4][q % 4], QV = ceil(ceil((2 * radius + 1) / D) / 4)
    wp: array<vec4<f32>, 80>,
    // decimated schedule: the 4-point Lagrange cubic's weights at t = p / D, p < D, for the
    // nodes at t = -1, 0, 1, 2
    cubic: array<vec4<f32>, 16>,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> gp: GaussianBlurParams;

fn wt(k: u32) -> f32 {
    return gp.w[k / 4u][k % 4u];
}

// The four bytes of a packed pixel as exact floats 0..255 without int-to-float conversions
// (quarter rate on many GPUs): 2^23 + b holds b in its low mantissa bits.
fn bytes4(p: u32) -> vec4<f32> {
    let b = (vec4<u32>(p) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(255u);
    return bitcast<vec4<f32>>(b | vec4<u32>(0x4B000000u)) - vec4<f32>(8388608.0);
}

// Clamps 8-bit-unit values to 0..255, rounds half up and packs (pack4x8unorm's rounding).
fn pack_rounded(v: vec4<f32>) -> u32 {
    let q = vec4<u32>(clamp(v, vec4<f32>(0.0), vec4<f32>(255.0)) + vec4<f32>(0.5));
    return q.x | (q.y << 8u) | (q.z << 16u) | (q.w << 24u);
}
