// 64-bit unsigned arithmetic on (lo, hi) u32 pairs (WGSL has no u64), shared by the kernels
// whose integer results must equal their CPU twins' u64 arithmetic exactly.

// Full 64-bit product of two u32 as (lo, hi), from 16-bit halves.
fn mul32(a: u32, b: u32) -> vec2<u32> {
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

// (lo, hi) * b modulo 2^64; the callers keep their products below 2^64 (their Rust docs state the bounds).
fn mul64(a: vec2<u32>, b: u32) -> vec2<u32> {
    let q = mul32(a.x, b);
    return vec2<u32>(q.x, q.y + a.y * b);
}

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

fn less64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}
