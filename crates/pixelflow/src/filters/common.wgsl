// Shared helpers, prepended to every kernel (see runtime/kernel.rs).

// GPUImage's luminance weights (its `W` constant).
const LUMA_W = vec3<f32>(0.2125, 0.7154, 0.0721);

// Linear invocation index for dispatches folded into 2-D by `groups_1d`.
fn linear_id(wid: vec3<u32>, nwg: vec3<u32>, lid: u32, wg_size: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * wg_size + lid;
}

// The four 8-bit samples of a packed RGBA8 pixel as integers.
fn unpack_u8(p: u32) -> vec4<u32> {
    return vec4<u32>(p & 255u, (p >> 8u) & 255u, (p >> 16u) & 255u, p >> 24u);
}

fn pack_u8(c: vec4<u32>) -> u32 {
    return (c.x & 255u) | ((c.y & 255u) << 8u) | ((c.z & 255u) << 16u) | (c.w << 24u);
}

// BT.601 luma, exact integer twin of `image::luma601`.
fn luma601(c: vec4<u32>) -> u32 {
    return (299u * c.x + 587u * c.y + 114u * c.z + 500u) / 1000u;
}
