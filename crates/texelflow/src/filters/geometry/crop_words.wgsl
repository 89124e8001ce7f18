// Copies a rectangle of an RGBA16 (`crop_words`) or Gray8 (`crop_gray`) image, one output word
// per invocation. CPU twin: `Crop::run_cpu` in crop.rs; RGBA8: crop.wgsl.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: CropParams;

// RGBA16: two words a pixel, so whole words move.
@compute @workgroup_size(256)
fn crop_words(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = linear_id(wid, nwg, lid, 256u);
    if (g >= params.count) { return; }
    let y = g / params.out_words;
    let c = g - y * params.out_words;
    dst[g] = src[(y + params.y0) * params.in_words + 2u * params.x0 + c];
}

// Gray8: four pixels a word, the source bytes at any offset; the row's padding bytes are 0.
@compute @workgroup_size(256)
fn crop_gray(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = linear_id(wid, nwg, lid, 256u);
    if (g >= params.count) { return; }
    let y = g / params.out_words;
    let c = g - y * params.out_words;
    let row = (y + params.y0) * params.in_words;
    var word = 0u;
    for (var k = 0u; k < 4u; k++) {
        let x = c * 4u + k;
        if (x >= params.out_width) { break; }
        let sx = x + params.x0;
        word |= ((src[row + sx / 4u] >> (8u * (sx % 4u))) & 255u) << (8u * k);
    }
    dst[g] = word;
}
