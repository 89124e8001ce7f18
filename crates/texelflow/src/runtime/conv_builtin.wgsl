// Integer <-> float conversions behind neutral names (WGSL's built-ins here), so a device-
// specific set can replace them without touching kernels (see CONV_WGSL in runtime/kernel.rs).

// RGBA8 pixel as four unorm floats (e / 255).
fn unorm_unpack(p: u32) -> vec4<f32> {
    return unpack4x8unorm(p);
}
// floor(0.5 + 255 * clamp(c, 0, 1)) per channel, packed.
fn unorm_pack(c: vec4<f32>) -> u32 {
    return pack4x8unorm(c);
}
// RGBA8 pixel as four exact floats 0..255.
fn bytes_f32(p: u32) -> vec4<f32> {
    return vec4<f32>(unpack_u8(p));
}
// Small non-negative integers (< 2^23) as exact floats.
fn small_f32(v: vec4<u32>) -> vec4<f32> {
    return vec4<f32>(v);
}
// floor of non-negative floats below 2^22 (conversion to u32 truncates).
fn floor_u32(y: vec4<f32>) -> vec4<u32> {
    return vec4<u32>(y);
}

// Round to the 8-bit grid, as storing and reloading an RGBA8 pixel would.
fn quantize8(c: vec4<f32>) -> vec4<f32> {
    return unorm_unpack(unorm_pack(c));
}
// RGBA16 pixel (two words: `pack2x16unorm(r, g)`, `pack2x16unorm(b, a)`) as four unorm floats (e / 65535).
fn unorm16_unpack(rg: u32, ba: u32) -> vec4<f32> {
    return vec4<f32>(unpack2x16unorm(rg), unpack2x16unorm(ba));
}
// floor(0.5 + 65535 * clamp(c, 0, 1)) per channel, as the two words of an RGBA16 pixel.
fn unorm16_pack(c: vec4<f32>) -> vec2<u32> {
    return vec2<u32>(pack2x16unorm(c.xy), pack2x16unorm(c.zw));
}
