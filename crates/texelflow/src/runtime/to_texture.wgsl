// Copies a packed RGBA8 buffer into an rgba8unorm storage texture, for kernels that sample it
// with the hardware's filtering (`NodeRecorder::temp_texture`). Any width: a buffer-to-texture
// copy would need rows in multiples of 256 bytes. unorm_unpack gives k / 255 exactly, which
// the store converts back to k.
struct ToTextureParams {
    width: u32,
    height: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var dst: texture_storage_2d<rgba8unorm, write>;
@group(0) @binding(2) var<uniform> params: ToTextureParams;

@compute @workgroup_size(16, 16)
fn to_texture(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= params.width || g.y >= params.height) { return; }
    textureStore(dst, g.xy, unorm_unpack(src[g.y * params.width + g.x]));
}
