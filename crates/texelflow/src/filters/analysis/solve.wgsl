// The histogram solver nodes: one workgroup reads a small data buffer (`histogram` or `range`
// data) and writes another (`range` or `lut` data), all in integers so that each node equals
// its CPU twin (histogram.rs) exactly. WGSL has no u64: 64-bit values are (lo, hi) u32 pairs (u64.wgsl),
// and a division is a binary search on its (8-bit) result with exact products.
// Bindings: `src` the input data, `dst` the output data, `p` the node's parameters
// (`SolveParams`, declared in analysis/mod.rs).

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> p: SolveParams;

// round(n / d) half up, at most 255 (d > 0): the largest t in 0..255 with t * 2d <= 2n + d
// (twin: `histogram::div_round_255`).
fn div_round_255(n: vec2<u32>, d: vec2<u32>) -> u32 {
    let n2 = add64(add64(n, n), d);
    let d2 = add64(d, d);
    var t = 0u;
    for (var bit = 128u; bit > 0u; bit >>= 1u) {
        if (!less64(n2, mul64(d2, t | bit))) {
            t |= bit;
        }
    }
    return t;
}

// Sum of the 256 bins from word `base` (fits u32: histograms are limited to 2^32 - 1 counts).
fn channel_total(base: u32) -> u32 {
    var t = 0u;
    for (var v = 0u; v < 256u; v++) {
        t += src[base + v];
    }
    return t;
}

// The smallest level v with cdf(v) * den >= num * total and cdf(v) >= 1; 0 for an empty
// channel (twin: `Histogram::percentile_ratio`).
fn percentile(base: u32, num: u32, den: u32, total: u32) -> u32 {
    let goal = mul32(num, total);
    var acc = 0u;
    for (var v = 0u; v < 256u; v++) {
        acc += src[base + v];
        if (acc >= 1u && !less64(mul32(acc, den), goal)) {
            return v;
        }
    }
    return 0u;
}

// histogram -> range. p.a, p.b: the low and high points in thousandths of a percent;
// p.c: the channels' mask (bit c: channel c of r, g, b, y). Twin: `Histogram::range`.
@compute @workgroup_size(64)
fn range_from_histogram(@builtin(local_invocation_index) lid: u32) {
    if (lid < 4u) {
        var lo = 0u;
        var hi = 0u;
        if (((p.c >> lid) & 1u) == 1u) {
            let base = lid * 256u;
            let total = channel_total(base);
            lo = percentile(base, p.a, 100000u, total);
            hi = percentile(base, p.b, 100000u, total);
        }
        dst[lid] = lo;
        dst[4u + lid] = hi;
    } else if (lid < 8u) {
        dst[4u + lid] = select(0u, p.c & 15u, lid == 4u);
    }
}

// range -> lut: R, G, B stretched from [low, high] to [0, 255]; p.a = 1: linked (one stretch
// from the lowest low to the highest high point). Twin: `histogram::levels_lut`.
@compute @workgroup_size(256)
fn levels_lut(@builtin(local_invocation_index) v: u32) {
    var out = v << 24u;
    for (var c = 0u; c < 3u; c++) {
        var lo = src[c];
        var hi = src[4u + c];
        if (p.a == 1u) {
            lo = min(src[0], min(src[1], src[2]));
            hi = max(src[4], max(src[5], src[6]));
        }
        var y = v;
        if (hi > lo) {
            if (v <= lo) {
                y = 0u;
            } else if (v >= hi) {
                y = 255u;
            } else {
                y = div_round_255(vec2<u32>(255u * (v - lo), 0u), vec2<u32>(hi - lo, 0u));
            }
        }
        out |= y << (8u * c);
    }
    dst[v] = out;
}

var<workgroup> level_sums: array<vec2<u32>, 3>;

// histogram -> lut: grey world gains, level v of channel c to round(v (S_r + S_g + S_b) / (3 S_c)),
// S_c the sum of channel c's levels. Twin: `Histogram::grey_world_lut`.
@compute @workgroup_size(256)
fn grey_world_lut(@builtin(local_invocation_index) v: u32) {
    _ = p.a;  // no parameters: keeps the uniform in the bind group layout all solvers share
    if (v < 3u) {
        var s = vec2<u32>(0u, 0u);
        for (var k = 1u; k < 256u; k++) {
            s = add64(s, mul32(src[v * 256u + k], k));
        }
        level_sums[v] = s;
    }
    workgroupBarrier();
    let s = array<vec2<u32>, 3>(level_sums[0], level_sums[1], level_sums[2]);
    let t = add64(add64(s[0], s[1]), s[2]);
    var out = v << 24u;
    for (var c = 0u; c < 3u; c++) {
        var y = v;
        if (s[c].x != 0u || s[c].y != 0u) {
            y = div_round_255(mul64(t, v), mul64(s[c], 3u));
        }
        out |= y << (8u * c);
    }
    dst[v] = out;
}

// histogram -> lut: OpenCV's equalizeHist curve (rounded half up) of Y for R, G and B, or
// of each channel for itself (p.a = 1). Twin: `Histogram::equalization_lut`.
@compute @workgroup_size(256)
fn equalization_lut(@builtin(local_invocation_index) v: u32) {
    var out = v << 24u;
    for (var c = 0u; c < 3u; c++) {
        let base = select(3u, c, p.a == 1u) * 256u;
        var total = 0u;
        var first = 0u;
        var cdf = 0u;
        for (var k = 0u; k < 256u; k++) {
            let b = src[base + k];
            if (first == 0u) {
                first = b;
            }
            total += b;
            if (k <= v) {
                cdf += b;
            }
        }
        var y = v;
        if (total != first) {
            y = div_round_255(mul32(255u, max(cdf, first) - first), vec2<u32>(total - first, 0u));
        }
        out |= y << (8u * c);
    }
    dst[v] = out;
}

// color -> lut: gains making a reference colour neutral, from `color` data (the dominant
// colour's pixel sums s_c at words 2 + 2c): level v of channel c to
// round(v (s_r + s_g + s_b) / (3 s_c)), as `grey_world_lut`. Twin: `histogram::gains_lut`.
@compute @workgroup_size(256)
fn color_gains_lut(@builtin(local_invocation_index) v: u32) {
    _ = p.a;  // no parameters: keeps the uniform in the bind group layout all solvers share
    let s = array<vec2<u32>, 3>(vec2<u32>(src[2], src[3]), vec2<u32>(src[4], src[5]), vec2<u32>(src[6], src[7]));
    let t = add64(add64(s[0], s[1]), s[2]);
    var out = v << 24u;
    for (var c = 0u; c < 3u; c++) {
        var y = v;
        if (s[c].x != 0u || s[c].y != 0u) {
            y = div_round_255(mul64(t, v), mul64(s[c], 3u));
        }
        out |= y << (8u * c);
    }
    dst[v] = out;
}
