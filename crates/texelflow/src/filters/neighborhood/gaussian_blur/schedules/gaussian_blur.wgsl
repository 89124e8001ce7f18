// Gaussian blur, separable: a horizontal pass then a vertical pass, both in f32 with no
// intermediate rounding, taps summed in the order k = 0..=2R (left to right, top to
// bottom), replicate-edge borders. Samples stay in 8-bit units (0..255) throughout, so no
// scaling is needed; the result is rounded half up, as pack4x8unorm rounds.
// CPU twin: `blur_cpu` in gaussian_blur.rs.
//
// This file holds the bindings and helpers; the uniform (`GaussianBlurParams`, declared in
// gaussian_blur.rs) is put before it and the kernels are appended to it:
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
