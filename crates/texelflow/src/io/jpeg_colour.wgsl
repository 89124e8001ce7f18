struct ColourU {
    width: u32,
    height: u32,
    planes: u32,
    pad0: u32,
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

@compute @workgroup_size(64)
fn colour(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 64u);
    if (i >= cu.width * cu.height) { return; }
    let x = i % cu.width;
    let y = i / cu.width;
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
