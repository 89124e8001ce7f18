// The GPU half of the GPU-assisted JPEG encode (issue 30): `fdct` makes one 8x8 block of one
// component per invocation, from the image: libjpeg-turbo's fixed-point RGB -> YCbCr
// (jccolor.c), its edge replication and h2v1 / h2v2 downsampling with the alternating bias
// (jcprepct.c, jcsample.c), the ISLOW forward DCT (jfdctint.c) and the reciprocal
// quantisation (jcdctmgr.c), in i32 / u32 exactly as the twin `io::jpeg_encode::forward_blocks`.
// The blocks go out two coefficients to a word (the first in the low half), 32 words a block,
// plane after plane, natural order: what `jpeg_enc.c` writes a file from.

struct EncU {
    width: u32,
    height: u32,
    planes: u32,
    // 1: the source is Gray8 (4 samples to a word, rows padded to whole words)
    gray_src: u32,
    total: u32,
    src_row_words: u32,
    // 0: always; 1: only if `flag` says the image is grey and opaque; 2: only if it does not
    // (`JpegFile` makes the blocks of both layouts' plans and keeps the one that applies)
    when: u32,
    pad1: u32,
    // per plane: first block, blocks per row, fh | fv << 4 | component << 8 | table << 12,
    // downsampled rows (jcprepct.c replicates the last one below them)
    p: array<vec4<u32>, 3>,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
// per table entry: the reciprocal, and the correction | the shift << 16 (`reciprocal`)
@group(0) @binding(1) var<storage, read> divisors: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> blocks: array<u32>;
// bit 0: a pixel is not grey (R, G, B differ); bit 1: a pixel is not opaque (`classify`)
@group(0) @binding(3) var<storage, read> flag: array<u32>;
@group(0) @binding(4) var<uniform> eu: EncU;

// Component `comp` (0 Y, 1 Cb, 2 Cr) of the pixel at (x, y), the last column and row
// replicated beyond the image.
fn full_sample(comp: u32, x: u32, y: u32) -> i32 {
    let cx = min(x, eu.width - 1u);
    let cy = min(y, eu.height - 1u);
    if (eu.gray_src == 1u) {
        let w = src[cy * eu.src_row_words + cx / 4u];
        return i32((w >> (8u * (cx & 3u))) & 255u);
    }
    let px = src[cy * eu.width + cx];
    let r = i32(px & 255u);
    let g = i32((px >> 8u) & 255u);
    let b = i32((px >> 16u) & 255u);
    if (comp == 0u) {
        return (19595i * r + 38470i * g + 7471i * b + 32768i) >> 16u;
    }
    // CBCR_OFFSET + ONE_HALF - 1
    let offset = (128i << 16u) + 32767i;
    if (comp == 1u) {
        return (-11059i * r - 21709i * g + 32768i * b + offset) >> 16u;
    }
    return (32768i * r - 27439i * g - 5329i * b + offset) >> 16u;
}

fn descale(x: i32, n: u32) -> i32 {
    return (x + (1i << (n - 1u))) >> n;
}

// One row (pass 1) or column (pass 2) of jpeg_fdct_islow.
fn fdct_pass(v: array<i32, 8>, pass2: bool) -> array<i32, 8> {
    let tmp0 = v[0] + v[7];
    let tmp7 = v[0] - v[7];
    let tmp1 = v[1] + v[6];
    let tmp6 = v[1] - v[6];
    let tmp2 = v[2] + v[5];
    let tmp5 = v[2] - v[5];
    let tmp3 = v[3] + v[4];
    let tmp4 = v[3] - v[4];
    let tmp10 = tmp0 + tmp3;
    let tmp13 = tmp0 - tmp3;
    let tmp11 = tmp1 + tmp2;
    let tmp12 = tmp1 - tmp2;
    var out: array<i32, 8>;
    var n = 11u;
    if (pass2) {
        n = 15u;
        out[0] = descale(tmp10 + tmp11, 2u);
        out[4] = descale(tmp10 - tmp11, 2u);
    } else {
        out[0] = (tmp10 + tmp11) << 2u;
        out[4] = (tmp10 - tmp11) << 2u;
    }
    let e1 = (tmp12 + tmp13) * 4433i;
    out[2] = descale(e1 + tmp13 * 6270i, n);
    out[6] = descale(e1 + tmp12 * -15137i, n);
    let z1 = (tmp4 + tmp7) * -7373i;
    let z2 = (tmp5 + tmp6) * -20995i;
    let o3 = tmp4 + tmp6;
    let o4 = tmp5 + tmp7;
    let z5 = (o3 + o4) * 9633i;
    let z3 = o3 * -16069i + z5;
    let z4 = o4 * -3196i + z5;
    out[7] = descale(tmp4 * 2446i + z1 + z3, n);
    out[5] = descale(tmp5 * 16819i + z2 + z4, n);
    out[3] = descale(tmp6 * 25172i + z2 + z3, n);
    out[1] = descale(tmp7 * 12299i + z1 + z4, n);
    return out;
}

fn quantise(t: i32, d: vec2<u32>) -> i32 {
    let a = u32(abs(t));
    let q = i32(((a + (d.y & 65535u)) * d.x) >> (d.y >> 16u));
    return select(q, -q, t < 0i);
}

@compute @workgroup_size(64)
fn fdct(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let block = linear_id(wid, nwg, lid, 64u);
    if (block >= eu.total) { return; }
    if (eu.when != 0u) {
        let colour = (flag[0] & 1u) != 0u;
        if (colour != (eu.when == 2u)) { return; }
    }
    var plane = 0u;
    for (var i = 1u; i < eu.planes; i++) {
        if (block >= eu.p[i].x) { plane = i; }
    }
    let p = eu.p[plane];
    let local = block - p.x;
    let bx = local % p.y;
    let by = local / p.y;
    let fh = p.z & 15u;
    let fv = (p.z >> 4u) & 15u;
    let comp = (p.z >> 8u) & 15u;
    let table = (p.z >> 12u) & 15u;
    var d: array<i32, 64>;
    for (var yy = 0u; yy < 8u; yy++) {
        let y = min(by * 8u + yy, p.w - 1u);
        for (var xx = 0u; xx < 8u; xx++) {
            let x = bx * 8u + xx;
            var v: i32;
            if (fh == 1u && fv == 1u) {
                v = full_sample(comp, x, y);
            } else if (fv == 1u) {
                // h2v1: bias 0, 1, 0, 1, ... along the row
                v = (full_sample(comp, 2u * x, y) + full_sample(comp, 2u * x + 1u, y) + i32(x & 1u)) >> 1u;
            } else {
                // h2v2: bias 1, 2, 1, 2, ...
                v = (full_sample(comp, 2u * x, 2u * y) + full_sample(comp, 2u * x + 1u, 2u * y)
                    + full_sample(comp, 2u * x, 2u * y + 1u) + full_sample(comp, 2u * x + 1u, 2u * y + 1u)
                    + 1i + i32(x & 1u)) >> 2u;
            }
            d[yy * 8u + xx] = v - 128i;
        }
    }
    for (var row = 0u; row < 8u; row++) {
        var v: array<i32, 8>;
        for (var k = 0u; k < 8u; k++) { v[k] = d[row * 8u + k]; }
        let r = fdct_pass(v, false);
        for (var k = 0u; k < 8u; k++) { d[row * 8u + k] = r[k]; }
    }
    for (var col = 0u; col < 8u; col++) {
        var v: array<i32, 8>;
        for (var k = 0u; k < 8u; k++) { v[k] = d[k * 8u + col]; }
        let r = fdct_pass(v, true);
        for (var k = 0u; k < 8u; k++) { d[k * 8u + col] = r[k]; }
    }
    for (var k = 0u; k < 32u; k++) {
        let lo = quantise(d[2u * k], divisors[table * 64u + 2u * k]);
        let hi = quantise(d[2u * k + 1u], divisors[table * 64u + 2u * k + 1u]);
        blocks[block * 32u + k] = (u32(lo) & 65535u) | (u32(hi) << 16u);
    }
}
