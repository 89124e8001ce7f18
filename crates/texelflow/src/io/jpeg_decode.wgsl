// The GPU half of the GPU-assisted JPEG decode (issue 30): `idct` turns each 8x8 block of
// quantised coefficients into samples (libjpeg's ISLOW IDCT in wrapping i32, as the twin
// `io::jpeg_coef::idct_islow`), `colour` upsamples each component (libjpeg-turbo's fancy
// upsampling and its edge rules) and converts YCbCr to RGBA8 (jdcolor.c's fixed point).

struct IdctU {
    total: u32,
    planes: u32,
    pad0: u32,
    pad1: u32,
    // per plane: first block, blocks per row, first word of its samples, words per sample row
    p: array<vec4<u32>, 4>,
}

@group(0) @binding(0) var<storage, read> coef: array<u32>;
@group(0) @binding(1) var<storage, read> quant: array<u32>;
@group(0) @binding(2) var<storage, read_write> samples: array<u32>;
@group(0) @binding(3) var<uniform> iu: IdctU;

fn coef_at(block: u32, k: u32) -> i32 {
    let w = coef[block * 32u + k / 2u];
    // two i16 to a word, the first in the low half
    return bitcast<i32>(select(w << 16u, w, (k & 1u) == 1u)) >> 16u;
}

fn descale(x: i32, n: u32) -> i32 {
    return (x + (1i << (n - 1u))) >> n;
}

fn butterfly(v: array<i32, 8>) -> array<i32, 8> {
    let z2 = v[2];
    let z3 = v[6];
    let z1 = (z2 + z3) * 4433i;
    let tmp2 = z1 - z3 * 15137i;
    let tmp3 = z1 + z2 * 6270i;
    let tmp0 = (v[0] + v[4]) << 13u;
    let tmp1 = (v[0] - v[4]) << 13u;
    let tmp10 = tmp0 + tmp3;
    let tmp13 = tmp0 - tmp3;
    let tmp11 = tmp1 + tmp2;
    let tmp12 = tmp1 - tmp2;
    var t0 = v[7];
    var t1 = v[5];
    var t2 = v[3];
    var t3 = v[1];
    let o1 = t0 + t3;
    let o2 = t1 + t2;
    let o3 = t0 + t2;
    let o4 = t1 + t3;
    let z5 = (o3 + o4) * 9633i;
    t0 = t0 * 2446i;
    t1 = t1 * 16819i;
    t2 = t2 * 25172i;
    t3 = t3 * 12299i;
    let y1 = o1 * -7373i;
    let y2 = o2 * -20995i;
    let y3 = o3 * -16069i + z5;
    let y4 = o4 * -3196i + z5;
    t0 = t0 + y1 + y3;
    t1 = t1 + y2 + y4;
    t2 = t2 + y2 + y3;
    t3 = t3 + y1 + y4;
    return array<i32, 8>(tmp10 + t3, tmp11 + t2, tmp12 + t1, tmp13 + t0,
                         tmp13 - t0, tmp12 - t1, tmp11 - t2, tmp10 - t3);
}

fn range_limit(x: i32) -> u32 {
    let i = x & 1023i;
    if (i < 128i) { return u32(i + 128i); }
    if (i < 512i) { return 255u; }
    if (i < 896i) { return 0u; }
    return u32(i - 896i);
}

@compute @workgroup_size(64)
fn idct(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let block = linear_id(wid, nwg, lid, 64u);
    if (block >= iu.total) { return; }
    var plane = 0u;
    for (var i = 1u; i < iu.planes; i++) {
        if (block >= iu.p[i].x) { plane = i; }
    }
    let p = iu.p[plane];
    let local = block - p.x;
    let bx = local % p.y;
    let by = local / p.y;
    var ws: array<i32, 64>;
    for (var col = 0u; col < 8u; col++) {
        var v: array<i32, 8>;
        for (var k = 0u; k < 8u; k++) {
            v[k] = coef_at(block, k * 8u + col) * i32(quant[plane * 64u + k * 8u + col]);
        }
        let r = butterfly(v);
        for (var k = 0u; k < 8u; k++) { ws[k * 8u + col] = descale(r[k], 11u); }
    }
    for (var row = 0u; row < 8u; row++) {
        var v: array<i32, 8>;
        for (var k = 0u; k < 8u; k++) { v[k] = ws[row * 8u + k]; }
        let r = butterfly(v);
        var lo = 0u;
        var hi = 0u;
        for (var k = 0u; k < 4u; k++) {
            lo |= range_limit(descale(r[k], 18u)) << (8u * k);
            hi |= range_limit(descale(r[k + 4u], 18u)) << (8u * k);
        }
        let at = p.z + (by * 8u + row) * p.w + bx * 2u;
        samples[at] = lo;
        samples[at + 1u] = hi;
    }
}
