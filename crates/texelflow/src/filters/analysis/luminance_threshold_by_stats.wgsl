// White where a pixel's BT.601 luma Y satisfies Y * count * 1000 >= multiplier_milli * sum_y
// (i.e. Y >= multiplier * mean Y), black elsewhere; alpha kept. The statistics come from a
// `reduce` node's GPU buffer (`DataKind::Stats`). CPU twin: `is_white` in
// luminance_threshold_by_stats.rs. Needs grid.wgsl (GridParams.extra = multiplier_milli).

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> stats: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(3) var<uniform> grid: GridParams;

// Schedule choice, not algorithm: mirrors `THRESHOLD_WG` in luminance_threshold_by_stats.rs.
const THRESHOLD_WG: u32 = 256u;

fn to_f32(a: vec2<u32>) -> f32 {
    return f32(a.y) * 4294967296.0 + f32(a.x);
}

// The smallest integer luma t in [0, 256] with t * d >= n: an f32 estimate of n / d (off
// by less than 1, as n / d <= 1021), then exact 64-bit corrections, so every invocation
// derives the same threshold with no division and no workgroup traffic.
fn threshold(n: vec2<u32>, d: vec2<u32>) -> u32 {
    if (d.x == 0u && d.y == 0u) {
        return 0u;  // no pixels counted: n = 0 too, everything passes (as on the CPU)
    }
    let est = u32(clamp(ceil(to_f32(n) / to_f32(d)), 1.0, 257.0));
    var t = est - 1u;  // t <= the true threshold
    for (var k = 0u; k < 3u; k++) {
        if (less64(mul64(d, t), n)) {
            t += 1u;
        }
    }
    return min(t, 256u);
}

fn apply(p: u32, t: u32) -> u32 {
    let c = unpack_u8(p);
    let v = select(0u, 255u, luma601(c) >= t);
    return v | (v << 8u) | (v << 16u) | (c.w << 24u);
}

// Schedule `dp4`: the same test without unpacking or dividing. luma601 = floor(n / 1000) with
// n = 299R + 587G + 114B + 500 (two packed byte dot products, as in reduce_packed.wgsl), so
// Y >= t exactly when n >= 1000 t (`t1000`).
fn apply_dp4(p: u32, t1000: u32) -> u32 {
    let n = dot4U8Packed(p, 0x00000201u) * 256u + (dot4U8Packed(p, 0x00724B2Bu) + 500u);
    return select(0u, 0x00FFFFFFu, n >= t1000) | (p & 0xFF000000u);
}

@compute @workgroup_size(256)
fn threshold_by_stats_dp4(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let n = mul64(vec2<u32>(stats[18], stats[19]), grid.extra);
    let d = mul64(vec2<u32>(stats[20], stats[21]), 1000u);
    let t = threshold(n, d) * 1000u;
    let quads = (grid.count + 3u) / 4u;
    for (var q = wid.x * THRESHOLD_WG + lid; q < quads; q += grid.stride) {
        let a = src[q];
        dst[q] = vec4<u32>(apply_dp4(a.x, t), apply_dp4(a.y, t), apply_dp4(a.z, t), apply_dp4(a.w, t));
    }
}

@compute @workgroup_size(256)
fn threshold_by_stats(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    // Stats layout: Y is channel 4 (sum at words 18, 19); the count is at words 20, 21.
    let n = mul64(vec2<u32>(stats[18], stats[19]), grid.extra);
    let d = mul64(vec2<u32>(stats[20], stats[21]), 1000u);
    let t = threshold(n, d);
    // The partial last quad is processed whole: its extra lanes land in the buffer's padding.
    let quads = (grid.count + 3u) / 4u;
    for (var q = wid.x * THRESHOLD_WG + lid; q < quads; q += grid.stride) {
        let a = src[q];
        dst[q] = vec4<u32>(apply(a.x, t), apply(a.y, t), apply(a.z, t), apply(a.w, t));
    }
}
