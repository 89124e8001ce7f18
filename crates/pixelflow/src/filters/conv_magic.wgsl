// Integer <-> float conversions, schedule `conv=magic`: the same results as conv_builtin.wgsl
// without conversion instructions. Why: NVIDIA GPUs convert between int and float at 16 per
// clock per SM, an eighth of the FMA rate, and a kernel that unpacks and repacks 8-bit pixels
// spends most of its issue time there (bilinear upscaling: ~20 conversions per output pixel
// = ~40 us on an H200 at 4K, against a copy's 21 us), 16 of them int -> float. Instead, a
// byte OR'd into the mantissa of 2^23 is exactly that float plus 2^23: one OR and one
// subtraction at the full rate.

const MAGIC_F: f32 = 8388608.0; // 2^23
const MAGIC_U: u32 = 0x4B000000u; // bit pattern of 2^23

fn small_f32(v: vec4<u32>) -> vec4<f32> {
    return bitcast<vec4<f32>>(v | vec4<u32>(MAGIC_U)) - vec4<f32>(MAGIC_F);
}
fn bytes_f32(p: u32) -> vec4<f32> {
    return small_f32(vec4<u32>(p & 255u, (p >> 8u) & 255u, (p >> 16u) & 255u, p >> 24u));
}
// Exact e / 255 up to the last bit of the reciprocal's rounding (<= 1 ulp from the built-in).
fn unorm_unpack(p: u32) -> vec4<f32> {
    return bytes_f32(p) * (1.0 / 255.0);
}
// Float -> integer stays on the built-ins: the mirror trick (add 2^23, subtract it again to
// correct the rounding) is folded away by optimising compilers (Mesa's turned
// (y + 2^23) - 2^23 back into y; conversion_helpers_are_exact_in_both_variants caught it).
fn floor_u32(y: vec4<f32>) -> vec4<u32> {
    return vec4<u32>(y);
}
fn unorm_pack(c: vec4<f32>) -> u32 {
    return pack4x8unorm(c);
}

// Round to the 8-bit grid, as storing and reloading an RGBA8 pixel would.
fn quantize8(c: vec4<f32>) -> vec4<f32> {
    return unorm_unpack(unorm_pack(c));
}
