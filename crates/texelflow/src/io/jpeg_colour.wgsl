struct ColourU {
    width: u32,
    height: u32,
    planes: u32,
    // EXIF orientation 1-8: the output is the decoded image turned upright
    orientation: u32,
    // per plane: horizontal and vertical upsampling factors, real width and rows (samples)
    f: array<vec4<u32>, 4>,
    // per plane: first word of its samples, bytes per sample row
    s: array<vec4<u32>, 4>,
}

@group(0) @binding(0) var<storage, read> samples: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> cu: ColourU;

fn samp(i: u32, x: u32, y: u32) -> u32 {
    let byte = cu.s[i].y * y + x;
    return (samples[cu.s[i].x + byte / 4u] >> ((byte & 3u) * 8u)) & 255u;
}

// libjpeg's context rows: above the first row is the first, below the last the last
fn near_row(i: u32, y: u32, inrow: u32) -> u32 {
    if ((y & 1u) == 0u) { return select(inrow - 1u, 0u, inrow == 0u); }
    return min(inrow + 1u, cu.f[i].w - 1u);
}

fn upsampled(i: u32, x: u32, y: u32) -> u32 {
    let f = cu.f[i];
    let w = f.z;
    let inrow = y / f.y;
    if (f.x == 2u && w <= 2u) { return samp(i, x / 2u, inrow); }
    if (f.x == 1u && f.y == 1u) { return samp(i, x, y); }
    let ix = x / 2u;
    if (f.x == 2u && f.y == 1u) {
        let c = samp(i, ix, inrow) * 3u;
        if ((x & 1u) == 0u) {
            if (ix == 0u) { return samp(i, 0u, inrow); }
            return (c + samp(i, ix - 1u, inrow) + 1u) >> 2u;
        }
        if (ix == w - 1u) { return samp(i, ix, inrow); }
        return (c + samp(i, ix + 1u, inrow) + 2u) >> 2u;
    }
    let r1 = near_row(i, y, inrow);
    if (f.x == 1u) {
        let bias = select(2u, 1u, (y & 1u) == 0u);
        return (samp(i, x, inrow) * 3u + samp(i, x, r1) + bias) >> 2u;
    }
    let here = samp(i, ix, inrow) * 3u + samp(i, ix, r1);
    if ((x & 1u) == 0u) {
        if (ix == 0u) { return (here * 4u + 8u) >> 4u; }
        return (here * 3u + samp(i, ix - 1u, inrow) * 3u + samp(i, ix - 1u, r1) + 8u) >> 4u;
    }
    if (ix == w - 1u) { return (here * 4u + 7u) >> 4u; }
    return (here * 3u + samp(i, ix + 1u, inrow) * 3u + samp(i, ix + 1u, r1) + 7u) >> 4u;
}

// The stored pixel shown at (ox, oy) of the upright image (EXIF orientation; 5-8 swap axes).
fn stored(ox: u32, oy: u32) -> vec2<u32> {
    let w1 = cu.width - 1u;
    let h1 = cu.height - 1u;
    switch cu.orientation {
        case 2u: { return vec2<u32>(w1 - ox, oy); }
        case 3u: { return vec2<u32>(w1 - ox, h1 - oy); }
        case 4u: { return vec2<u32>(ox, h1 - oy); }
        case 5u: { return vec2<u32>(oy, ox); }
        case 6u: { return vec2<u32>(oy, h1 - ox); }
        case 7u: { return vec2<u32>(w1 - oy, h1 - ox); }
        case 8u: { return vec2<u32>(w1 - oy, ox); }
        default: { return vec2<u32>(ox, oy); }
    }
}

fn out_width() -> u32 {
    return select(cu.width, cu.height, cu.orientation >= 5u);
}

// A pixel per invocation: RGBA8 (a grey file's value in r, g and b).
@compute @workgroup_size(64)
fn colour(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 64u);
    if (i >= cu.width * cu.height) { return; }
    let ow = out_width();
    let p = stored(i % ow, i / ow);
    let x = p.x;
    let y = p.y;
    let yy = i32(upsampled(0u, x, y));
    if (cu.planes == 1u) {
        let g = u32(yy);
        dst[i] = g | (g << 8u) | (g << 16u) | (255u << 24u);
        return;
    }
    let cb = i32(upsampled(1u, x, y)) - 128i;
    let cr = i32(upsampled(2u, x, y)) - 128i;
    let r = clamp(yy + ((91881i * cr + 32768i) >> 16u), 0i, 255i);
    let g = clamp(yy + ((-22554i * cb + 32768i - 46802i * cr) >> 16u), 0i, 255i);
    let b = clamp(yy + ((116130i * cb + 32768i) >> 16u), 0i, 255i);
    dst[i] = u32(r) | (u32(g) << 8u) | (u32(b) << 16u) | (255u << 24u);
}

// A grey file to Gray8: four pixels of a row per invocation (rows padded to 4 bytes).
@compute @workgroup_size(64)
fn grey(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 64u);
    let ow = out_width();
    let words = (ow + 3u) / 4u;
    let oh = cu.width * cu.height / ow;
    if (i >= words * oh) { return; }
    let oy = i / words;
    let ox = (i % words) * 4u;
    var word = 0u;
    for (var k = 0u; k < 4u; k++) {
        if (ox + k < ow) {
            let p = stored(ox + k, oy);
            word |= samp(0u, p.x, p.y) << (8u * k);
        }
    }
    dst[i] = word;
}
