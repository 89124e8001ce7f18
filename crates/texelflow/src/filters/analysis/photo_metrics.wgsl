// Raw integer sums of the photo assessment over an RGBA8 image, in the
// `DataKind::PhotoMetrics` layout (slots: assess::PhotoMetrics::SUMS). One pass: each
// workgroup walks TILES tiles of TW x TH pixels down a column strip, loads each tile's BT.601
// luma with a 1-pixel replicated halo into workgroup memory (counting the colour sums and the
// luma histogram of the tile's own pixels as they load), then takes the 3x3 stencils (Sobel,
// Laplacian, Immerkaer) from workgroup memory. CPU twin: `metrics_cpu` in photo_metrics.rs.
// Needs one of subgroup_on.wgsl / subgroup_off.wgsl, and one of photo_metrics_plain.wgsl (the
// metrics alone) / photo_metrics_fingerprint.wgsl (the fused photo_assessment pass, which also
// counts the colour fingerprint of the tile's own pixels as they load): each binds the uniform
// `u` and defines the hooks fp_pixel, fp_flush_run and fp_finish.

// The uniform `MetricsParams` is in photo_metrics_params.wgsl.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> m: array<atomic<u32>>;

// Schedule choices, not algorithm: mirror the constants in photo_metrics.rs.
const TW: u32 = 64u;     // tile width: each of the 16 columns of invocations takes 4 pixels
const TH: u32 = 16u;     // tile height: one row per row of invocations
const TILES: u32 = 4u;   // tiles per workgroup, stacked vertically
const HW: u32 = 66u;     // TW + 2
const HALO_N: u32 = 1188u; // (TW + 2) * (TH + 2)
const NSUMS: u32 = 9u;
const SIZE_WORD: u32 = 274u; // 256 + 2 * NSUMS

var<workgroup> tile: array<u32, 1188>;
var<workgroup> hist: array<atomic<u32>, 256>;
// Per-sum workgroup partials, split into low and high 16 bits of the invocations' sums so
// that 256 of them add up without overflow.
var<workgroup> part: array<atomic<u32>, 18>;

// This invocation's sums (at most 16 pixels each: every one fits a u32).
var<private> a_sob: u32;
var<private> a_lap: u32;   // Σ (L + 1020)
var<private> a_lap2: u32;
var<private> a_noise: u32;
var<private> a_rg: u32;    // Σ (R - G + 255)
var<private> a_rg2: u32;
var<private> a_yb: u32;    // Σ (R + G - 2B + 510)
var<private> a_yb2: u32;
var<private> a_sat: u32;

// round(65536 * (max - min) / max), as mean_saturation.wgsl.
fn saturation_fixed(c: vec4<u32>) -> u32 {
    let hi = max(max(c.x, c.y), c.z);
    let lo = min(min(c.x, c.y), c.z);
    return select(0u, ((hi - lo) * 65536u + hi / 2u) / max(hi, 1u), hi > 0u);
}

fn add_colour(c: vec4<u32>, y: u32) {
    atomicAdd(&hist[y], 1u);
    let rg = i32(c.x) - i32(c.y);
    let yb = i32(c.x) + i32(c.y) - 2 * i32(c.z);
    a_rg += u32(rg + 255);
    a_rg2 += u32(rg * rg);
    a_yb += u32(yb + 510);
    a_yb2 += u32(yb * yb);
    a_sat += saturation_fixed(c);
}

fn t(x: u32, y: u32) -> i32 {
    return i32(tile[y * HW + x]);
}

// Stencils at tile position (cx + 1, cy + 1), image pixel (ox, oy).
fn add_stencils(cx: u32, cy: u32, ox: u32, oy: u32) {
    let tl = t(cx, cy);
    let tc = t(cx + 1u, cy);
    let tr = t(cx + 2u, cy);
    let ml = t(cx, cy + 1u);
    let mc = t(cx + 1u, cy + 1u);
    let mr = t(cx + 2u, cy + 1u);
    let bl = t(cx, cy + 2u);
    let bc = t(cx + 1u, cy + 2u);
    let br = t(cx + 2u, cy + 2u);
    let gx = (tr + 2 * mr + br) - (tl + 2 * ml + bl);
    let gy = (bl + 2 * bc + br) - (tl + 2 * tc + tr);
    a_sob += u32(gx * gx + gy * gy);
    let lap = tc + bc + ml + mr - 4 * mc;
    a_lap += u32(lap + 1020);
    a_lap2 += u32(lap * lap);
    if (ox >= 1u && oy >= 1u && ox + 2u <= u.width && oy + 2u <= u.height) {
        a_noise += u32(abs(tl + tr + bl + br - 2 * (tc + bc + ml + mr) + 4 * mc));
    }
}

// Adds the workgroup's sum k (lo16 + hi16 * 65536) to global slot 256 + 2k as a 64-bit value.
fn flush_sum(k: u32) {
    let l = atomicLoad(&part[2u * k]);
    let h = atomicLoad(&part[2u * k + 1u]);
    let lo = (h << 16u) + l;
    let hi = (h >> 16u) + select(0u, 1u, lo < l);
    if (lo == 0u && hi == 0u) {
        return;
    }
    let i = 256u + 2u * k;
    let old = atomicAdd(&m[i], lo);
    let carry = select(0u, 1u, old + lo < old);
    if (hi + carry != 0u) {
        atomicAdd(&m[i + 1u], hi + carry);
    }
}

fn add_part(k: u32, v: u32, leader: bool) {
    let l = sg_add1(v & 0xFFFFu);
    let h = sg_add1(v >> 16u);
    if (leader) {
        if (l != 0u) { atomicAdd(&part[2u * k], l); }
        if (h != 0u) { atomicAdd(&part[2u * k + 1u], h); }
    }
}

@compute @workgroup_size(16, 16)
fn photo_metrics(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    a_sob = 0u; a_lap = 0u; a_lap2 = 0u; a_noise = 0u;
    a_rg = 0u; a_rg2 = 0u; a_yb = 0u; a_yb2 = 0u; a_sat = 0u;
    let w = u.width;
    let h = u.height;
    let x0 = wid.x * TW;
    for (var k = 0u; k < TILES; k++) {
        let y0 = (wid.y * TILES + k) * TH;
        if (y0 >= h) {
            break; // uniform across the workgroup
        }
        for (var i = lid; i < HALO_N; i += 256u) {
            let ty = i / HW;
            let tx = i - ty * HW;
            let ix = i32(x0 + tx) - 1;
            let iy = i32(y0 + ty) - 1;
            let sx = u32(clamp(ix, 0, i32(w) - 1));
            let sy = u32(clamp(iy, 0, i32(h) - 1));
            let c = unpack_u8(src[sy * w + sx]);
            let y = luma601(c);
            tile[i] = y;
            // the tile's own pixels (not the halo, not replicated ones) count once
            if (tx >= 1u && tx <= TW && ty >= 1u && ty <= TH && u32(ix) < w && u32(iy) < h) {
                add_colour(c, y);
                fp_pixel(c, u32(ix), u32(iy));
            }
        }
        workgroupBarrier();
        let oy = y0 + lid3.y;
        for (var j = 0u; j < 4u; j++) {
            let cx = lid3.x + 16u * j;
            let ox = x0 + cx;
            if (ox < w && oy < h) {
                add_stencils(cx, lid3.y, ox, oy);
            }
        }
        workgroupBarrier();
    }
    let leader = sg_leader(lid);
    add_part(0u, a_sob, leader);
    add_part(1u, a_lap, leader);
    add_part(2u, a_lap2, leader);
    add_part(3u, a_noise, leader);
    add_part(4u, a_rg, leader);
    add_part(5u, a_rg2, leader);
    add_part(6u, a_yb, leader);
    add_part(7u, a_yb2, leader);
    add_part(8u, a_sat, leader);
    fp_flush_run();
    workgroupBarrier();
    if (lid < NSUMS) {
        flush_sum(lid);
    }
    let v = atomicLoad(&hist[lid]);
    if (v != 0u) {
        atomicAdd(&m[lid], v);
    }
    let first = lid == 0u && wid.x == 0u && wid.y == 0u;
    if (first) {
        atomicStore(&m[SIZE_WORD], w);
        atomicStore(&m[SIZE_WORD + 1u], h);
    }
    fp_finish(lid, first);
}
