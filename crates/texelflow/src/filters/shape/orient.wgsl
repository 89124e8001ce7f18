// Exact pixel permutations (flips, transpose, quarter turns) of RGBA8, RGBA16 and Gray8 images:
// each output word is gathered from the source, no resampling. CPU twin: `permute` in orient.rs.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: OrientParams;

// The source pixel of output pixel (x, y).
fn source_of(x: u32, y: u32) -> vec2<u32> {
    let w = params.in_width - 1u;
    let h = params.in_height - 1u;
    switch params.mode {
        case 0u: { return vec2<u32>(w - x, y); }
        case 1u: { return vec2<u32>(x, h - y); }
        case 2u: { return vec2<u32>(w - x, h - y); }
        case 3u: { return vec2<u32>(y, x); }
        // clockwise quarter turn: output (x, y) shows input (y, h - x)
        case 4u: { return vec2<u32>(y, h - x); }
        default: { return vec2<u32>(w - y, x); }
    }
}

@compute @workgroup_size(256)
fn orient(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = linear_id(wid, nwg, lid, 256u);
    if (g >= params.count) { return; }
    let y = g / params.out_width;
    let s = source_of(g - y * params.out_width, y);
    dst[g] = src[s.y * params.in_width + s.x];
}

// RGBA16: two words per pixel.
@compute @workgroup_size(256)
fn orient_words(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = linear_id(wid, nwg, lid, 256u);
    if (g >= params.count) { return; }
    let y = g / params.out_words;
    let k = g - y * params.out_words;
    let s = source_of(k / 2u, y);
    dst[g] = src[s.y * params.in_words + 2u * s.x + (k & 1u)];
}

// Gray8: four pixels per word, rows padded to whole words (the padding bytes written as 0).
@compute @workgroup_size(256)
fn orient_gray(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = linear_id(wid, nwg, lid, 256u);
    if (g >= params.count) { return; }
    let y = g / params.out_words;
    let x0 = (g - y * params.out_words) * 4u;
    var word = 0u;
    for (var k = 0u; k < 4u; k++) {
        let x = x0 + k;
        if (x < params.out_width) {
            let s = source_of(x, y);
            let b = (src[s.y * params.in_words + s.x / 4u] >> (8u * (s.x & 3u))) & 255u;
            word |= b << (8u * k);
        }
    }
    dst[g] = word;
}
