// Pads an image with a border (OpenCV's copyMakeBorder). CPU twin: `Pad::run_cpu` in pad.rs.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: PadParams;

// Euclidean remainder (b > 0).
fn emod(a: i32, b: i32) -> i32 {
    let r = a % b;
    return select(r, r + b, r < 0);
}

// The source index of coordinate p on a side of n pixels (OpenCV's borderInterpolate in
// closed form: reflecting repeatedly is reflecting modulo the period), -1 for the constant.
fn border_at(p: i32, n: i32) -> i32 {
    if (p >= 0 && p < n) { return p; }
    switch params.mode {
        case 0u: { return clamp(p, 0, n - 1); }
        case 1u: {
            let m = emod(p, 2 * n);
            return select(m, 2 * n - 1 - m, m >= n);
        }
        case 2u: {
            if (n == 1) { return 0; }
            let per = 2 * n - 2;
            let m = emod(p, per);
            return select(m, per - m, m >= n);
        }
        case 3u: { return -1; }
        default: { return emod(p, n); }
    }
}

// RGBA8 (one word a pixel) and RGBA16 (two): one invocation per output word.
@compute @workgroup_size(256)
fn pad_words(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = linear_id(wid, nwg, lid, 256u);
    if (g >= params.count) { return; }
    let wpp = params.out_words / params.out_width;
    let y = g / params.out_words;
    let wc = g - y * params.out_words;
    let x = wc / wpp;
    let sub = wc - x * wpp;
    let sx = border_at(i32(x + params.out_x0) - i32(params.left), i32(params.in_width));
    let sy = border_at(i32(y + params.out_y0) - i32(params.top), i32(params.in_height));
    if (sx < 0 || sy < 0) {
        dst[g] = select(params.value0, params.value1, sub == 1u);
        return;
    }
    dst[g] = src[((u32(sy) - params.in_y0) * params.stride + u32(sx) - params.in_x0) * wpp + sub];
}

// Gray8: one invocation per output word (4 pixels); the row's padding bytes are 0.
@compute @workgroup_size(256)
fn pad_gray(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = linear_id(wid, nwg, lid, 256u);
    if (g >= params.count) { return; }
    let y = g / params.out_words;
    let wc = g - y * params.out_words;
    let sy = border_at(i32(y + params.out_y0) - i32(params.top), i32(params.in_height));
    var word = 0u;
    for (var k = 0u; k < 4u; k++) {
        let x = wc * 4u + k;
        if (x >= params.out_width) { break; }
        let sx = border_at(i32(x + params.out_x0) - i32(params.left), i32(params.in_width));
        var v = params.value0 & 255u;
        if (sx >= 0 && sy >= 0) {
            let px = u32(sx) - params.in_x0;
            v = (src[(u32(sy) - params.in_y0) * params.in_words + px / 4u] >> (8u * (px % 4u))) & 255u;
        }
        word |= v << (8u * k);
    }
    dst[g] = word;
}
