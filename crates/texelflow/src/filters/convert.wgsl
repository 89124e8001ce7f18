// Format conversions. CPU twin: `Image::convert` in image.rs.
struct Dims {
    width: u32,
    height: u32,
    words_per_row: u32,  // Gray8 rows are padded to whole u32 words
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> dims: Dims;

// One invocation per output word: 4 gray pixels.
@compute @workgroup_size(256)
fn rgba_to_gray(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let w = linear_id(wid, nwg, lid, 256u);
    if (w >= dims.words_per_row * dims.height) { return; }
    let y = w / dims.words_per_row;
    let x0 = (w % dims.words_per_row) * 4u;
    var word = 0u;
    for (var k = 0u; k < 4u; k++) {
        let x = x0 + k;
        if (x < dims.width) {
            let c = unorm_unpack(src[y * dims.width + x]);
            let g = unorm_pack(vec4<f32>(dot(c.rgb, LUMA_W))) & 255u;
            word |= g << (8u * k);
        }
    }
    dst[w] = word;
}

@compute @workgroup_size(256)
fn gray_to_rgba(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= dims.width * dims.height) { return; }
    let y = i / dims.width;
    let x = i % dims.width;
    let g = (src[y * dims.words_per_row + x / 4u] >> (8u * (x % 4u))) & 255u;
    dst[i] = g | (g << 8u) | (g << 16u) | (255u << 24u);
}

// RGBA8 passthrough, 4 words per invocation (buffers come in 16-byte multiples).
@compute @workgroup_size(256)
fn copy_pixels(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    let w = i * 4u;
    if (w >= dims.width * dims.height) { return; }
    dst[w] = src[w];
    dst[w + 1u] = src[w + 1u];
    dst[w + 2u] = src[w + 2u];
    dst[w + 3u] = src[w + 3u];
}

// RGBA16 to RGBA8, one pixel per invocation: v / 65535 rounded to the nearest 8-bit level (the
// f32 error is far from any tie: v / 257 is never within 1/514 of one).
@compute @workgroup_size(256)
fn rgba16_to_rgba8(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= dims.width * dims.height) { return; }
    dst[i] = unorm_pack(unorm16_unpack(src[2u * i], src[2u * i + 1u]));
}

@compute @workgroup_size(256)
fn copy_words(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= dims.words_per_row * dims.height) { return; }
    dst[i] = src[i];
}
