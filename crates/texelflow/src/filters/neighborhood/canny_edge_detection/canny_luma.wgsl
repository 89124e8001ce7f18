// Canny, RGBA8 input: 8-bit luminance, GPUImage's weights in exact integers (the twin's
// `luma_gpuimage`), packed 4 pixels per word. One invocation per output word.
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: CannyParams;

fn luma_gpuimage(p: u32) -> u32 {
    let c = unpack_u8(p);
    return (2125u * c.x + 7154u * c.y + 721u * c.z + 5000u) / 10000u;
}

@compute @workgroup_size(256)
fn canny_luma(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= params.words * params.height) { return; }
    let y = i / params.words;
    let x0 = (i - y * params.words) * 4u;
    let row = y * params.width;
    var word = 0u;
    for (var k = 0u; k < 4u; k++) {
        if (x0 + k < params.width) {
            word |= luma_gpuimage(src[row + x0 + k]) << (8u * k);
        }
    }
    dst[i] = word;
}
