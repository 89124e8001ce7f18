// `reduce` schedule variants `swar` and `dp4`: the same statistics as reduce.wgsl's
// `add_pixel`, bit for bit, with fewer instructions on the integer ALU pipe per pixel.
// Appended after reduce.wgsl; `visit_pixels` is generated (`packed_visit_pixels_wgsl` in
// reduce.rs) and calls `swar_quad` + `swar_flush` or `dp4_quad`, then `packed_finish`.
//
// Both, per pixel p = 0xAABBGGRR:
// - luma: the exact numerator n = 299R + 587G + 114B + 500 of `luma601` from two packed byte
//   dot products (299 = 256 + 43, 587 = 2 * 256 + 75), Y = n / 1000 for the sum; min and max
//   are taken over n (n / 1000 is monotonic, so min Y = (min n) / 1000).
// - min/max of R, G, B, A on four words in `mlo` / `mhi` (below); A is always p itself: the
//   top byte decides the order of the words, so (min p) >> 24 = min A.
// `swar`: R|B<<16 and G|A<<16 summed as two 16-bit lanes per word, flushed to the 32-bit sums
//   (`swar_flush`) after at most 32 pixels (a lane then holds at most 32 * 255); the min/max
//   words are R (p & 255), G (p << 16: G decides) and R|B<<16 (B decides).
// `dp4`: R, G, B extracted by packed dot products with a one-hot byte (work for the
//   multiply pipe, not the integer ALU), summed as extracted; A summed by another.

var<private> mlo: vec4<u32>;
var<private> mhi: vec4<u32>;
var<private> nlo: u32;
var<private> nhi: u32;
// `swar`: lane partial sums since the last flush.
var<private> w_rb: u32;
var<private> w_ga: u32;

fn luma_num(p: u32) -> u32 {
    // bytes (1, 2, 0, 0) and (43, 75, 114, 0)
    return dot4U8Packed(p, 0x00000201u) * 256u + (dot4U8Packed(p, 0x00724B2Bu) + 500u);
}

fn luma_stats(p: u32) {
    let n = luma_num(p);
    nlo = min(nlo, n);
    nhi = max(nhi, n);
    ysum += n / 1000u;
}

fn packed_init() {
    // The identities: every word's channel bits all ones for min, zero for max;
    // 255999 / 1000 = 255 for the luma numerator.
    mlo = vec4<u32>(0xFFFFFFFFu);
    mhi = vec4<u32>(0u);
    nlo = 255999u;
    nhi = 0u;
    w_rb = 0u;
    w_ga = 0u;
}

fn swar_pixel(p: u32) {
    let rb = p & 0x00FF00FFu;
    w_rb += rb;
    w_ga += (p >> 8u) & 0x00FF00FFu;
    let v = vec4<u32>(p & 255u, p << 16u, rb, p);
    mlo = min(mlo, v);
    mhi = max(mhi, v);
    luma_stats(p);
}

fn swar_quad(a: vec4<u32>) {
    swar_pixel(a.x); swar_pixel(a.y); swar_pixel(a.z); swar_pixel(a.w);
}

fn swar_flush() {
    sum += vec4<u32>(w_rb & 0xFFFFu, w_ga & 0xFFFFu, w_rb >> 16u, w_ga >> 16u);
    w_rb = 0u;
    w_ga = 0u;
}

fn dp4_pixel(p: u32) {
    let c = vec4<u32>(dot4U8Packed(p, 0x00000001u), dot4U8Packed(p, 0x00000100u), dot4U8Packed(p, 0x00010000u), p);
    mlo = min(mlo, c);
    mhi = max(mhi, c);
    sum += vec4<u32>(c.xyz, dot4U8Packed(p, 0x01000000u));
    luma_stats(p);
}

fn dp4_quad(a: vec4<u32>) {
    dp4_pixel(a.x); dp4_pixel(a.y); dp4_pixel(a.z); dp4_pixel(a.w);
}

// The R, G, B, A samples of the min/max words, `swar` (`swar` true) or `dp4` layout.
fn packed_channels(m: vec4<u32>, swar: bool) -> vec4<u32> {
    if (swar) {
        return vec4<u32>(m.x & 255u, m.y >> 24u, (m.z >> 16u) & 255u, m.w >> 24u);
    }
    return vec4<u32>(m.x & 255u, m.y & 255u, m.z & 255u, m.w >> 24u);
}

// Merges this invocation's accumulators into reduce.wgsl's (`swar` flushed its sums already).
fn packed_finish(swar: bool) {
    lo = min(lo, packed_channels(mlo, swar));
    hi = max(hi, packed_channels(mhi, swar));
    ylo = min(ylo, nlo / 1000u);
    yhi = max(yhi, nhi / 1000u);
}

// `ysum` (the reduction behind `average_luminance_threshold=ysum`): only the Y sum; every
// other slot keeps its identity (min 255, max 0, sum 0).
fn ysum_pixel(p: u32) {
    ysum += luma_num(p) / 1000u;
}

fn ysum_quad(a: vec4<u32>) {
    ysum += luma_num(a.x) / 1000u + luma_num(a.y) / 1000u + luma_num(a.z) / 1000u + luma_num(a.w) / 1000u;
}
