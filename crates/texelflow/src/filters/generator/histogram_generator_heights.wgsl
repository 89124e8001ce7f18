// Pass 1 of histogram_generator: each bin's bar height in rows, round(height * count / max)
// (halves up) with max the tallest bin of the channels drawn, in exact integer arithmetic
// (64-bit products from 16-bit halves). One workgroup; invocation i takes bin i of R, G, B, Y.
@group(0) @binding(0) var<storage, read> hist: array<u32>;
@group(0) @binding(1) var<storage, read_write> bars: array<u32>;
@group(0) @binding(2) var<uniform> hp: HistogramGeneratorParams;

var<workgroup> tallest: atomic<u32>;

// a * b as (low word, high word)
fn mul_wide(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xFFFFu;
    let a1 = a >> 16u;
    let b0 = b & 0xFFFFu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let mid = (p00 >> 16u) + (p01 & 0xFFFFu) + (p10 & 0xFFFFu);
    return vec2<u32>((p00 & 0xFFFFu) | (mid << 16u), a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u));
}

fn wide_le(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y < b.y || (a.y == b.y && a.x <= b.x);
}

@compute @workgroup_size(256)
fn heights(@builtin(local_invocation_index) i: u32) {
    if (i == 0u) {
        atomicStore(&tallest, 0u);
    }
    workgroupBarrier();
    if (hp.mode == 0u) {
        atomicMax(&tallest, max(max(hist[i], hist[256u + i]), hist[512u + i]));
    } else {
        atomicMax(&tallest, hist[768u + i]);
    }
    workgroupBarrier();
    let top = atomicLoad(&tallest);
    for (var c = 0u; c < 4u; c++) {
        // the largest k in [0, height] with (2k - 1) top <= 2 height count: rows j = 1..k from
        // the bottom have their centre (j - 1/2) / height at or under count / top
        let goal = mul_wide(2u * hp.height, hist[c * 256u + i]);
        var lo = 0u;
        var hi = hp.height;
        if (top == 0u) {
            hi = 0u;
        }
        while (lo < hi) {
            let mid = (lo + hi + 1u) / 2u;
            if (wide_le(mul_wide(2u * mid - 1u, top), goal)) {
                lo = mid;
            } else {
                hi = mid - 1u;
            }
        }
        bars[c * 256u + i] = lo;
    }
}
