// Bilinear resize, schedule `rows`: the same per-pixel f32 values as resize.wgsl (and its CPU
// twin `resize_pixel`), with the work shared differently. For output widths that are multiples
// of 4 (rows then start on 16-byte boundaries).
//
// An invocation owns 4 consecutive output columns and walks RB output rows down. Per column it
// computes fx, x0, x1, tx once. A source row's horizontal interpolation at those columns,
// h(r) = p(x0, r) + (p(x1, r) - p(x0, r)) * tx, is exactly the `top` (r = y0) or `bottom`
// (r = y1) of the old kernel, so it is computed once per source row and kept while output rows
// use it: when y0 moves to the previous y1, `bottom` becomes `top` and only the new y1 row is
// loaded. Each output row then costs one vertical lerp, the rounding and one 16-byte store.
// Within a row, a column's source pixels are unpacked only when they differ from the previous
// column's (for upscales x0 advances by at most 1, so 4 columns at 2x unpack 4 pixels, not 8).
// The raw loads of the row after the newest one are issued a row ahead.
//
// Per output pixel at 2x with RB = 8 (6 source rows per 8 output rows, plus one unused
// prefetch): ~1.1 4-byte loads, ~7.5 int<->float conversions (3 unpack, 4 round, 0.5 row
// coordinates), ~20 f32 and ~12 integer instructions; the linear kernel (resize.wgsl) spends
// 4 loads, ~26 conversions, ~34 f32 and ~35 integer instructions. Efficient for upscales;
// correct for any ratio (a column's or row's source pixels are loaded afresh whenever the
// indices jump, as they do when shrinking).

// Appended to resize.wgsl: its uniform, bindings and helpers.

const WG: u32 = 64u; // invocations per workgroup, 4 output columns each (mirrors @workgroup_size)
const RB: u32 = 8u; // @specialize output rows per invocation
// 1: source pixels unpacked by placing each byte in the mantissa of 2^23 and subtracting
// 2^23 (exact; two full-rate instructions per channel instead of a conversion, which NVIDIA
// runs at a quarter of the rate). Schedule `rows16_mu`.
const MU: u32 = 0u; // @specialize
// 1: bench-only ablation, not the twin's rounding: outputs rounded by adding 2^23 (ties to
// even, where the twin rounds half up), to measure what the 4 conversions per output pixel
// cost. Schedule `rows16_ablate_round`.
const AR: u32 = 0u; // @specialize

// A source pixel's channels as exact floats 0..255.
fn src_px(p: u32) -> vec4<f32> {
    if (MU == 1u) {
        let b = (vec4<u32>(p) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(255u);
        return bitcast<vec4<f32>>(b | vec4<u32>(0x4B000000u)) - vec4<f32>(8388608.0);
    }
    return bytes_f32(p);
}

// This invocation's 4 columns: x0, x1 (= min(x0 + 1, in_width - 1)) and tx per column.
var<private> xa: vec4<u32>;
var<private> xb: vec4<u32>;
var<private> tx: vec4<f32>;

// Raw pixels of one source row at x0 of column 0 and x1 of every column (x0 of columns 1-3 is
// almost always one of the previous column's two pixels, and is loaded late when not).
struct Raw {
    a0: u32,
    b0: u32,
    b1: u32,
    b2: u32,
    b3: u32,
}

// One source row interpolated horizontally at the 4 columns.
struct Hrow {
    c0: vec4<f32>,
    c1: vec4<f32>,
    c2: vec4<f32>,
    c3: vec4<f32>,
}

fn load_raw(row: u32) -> Raw {
    let base = row * params.in_width;
    return Raw(src[base + xa.x], src[base + xb.x], src[base + xb.y], src[base + xb.z], src[base + xb.w]);
}

// x0's pixel of column k: the previous column's x0 or x1 pixel when the index is the same.
fn left(base: u32, x: u32, xa_prev: u32, xb_prev: u32, a_prev: vec4<f32>, b_prev: vec4<f32>) -> vec4<f32> {
    if (x == xa_prev) { return a_prev; }
    if (x == xb_prev) { return b_prev; }
    return src_px(src[base + x]);
}

// x1's pixel of column k: the previous column's x1 pixel when the index is the same.
fn right(raw: u32, x: u32, xb_prev: u32, b_prev: vec4<f32>) -> vec4<f32> {
    if (x == xb_prev) { return b_prev; }
    return src_px(raw);
}

fn hrow(row: u32, raw: Raw) -> Hrow {
    let base = row * params.in_width;
    let a0 = src_px(raw.a0);
    let b0 = src_px(raw.b0);
    let a1 = left(base, xa.y, xa.x, xb.x, a0, b0);
    let b1 = right(raw.b1, xb.y, xb.x, b0);
    let a2 = left(base, xa.z, xa.y, xb.y, a1, b1);
    let b2 = right(raw.b2, xb.z, xb.y, b1);
    let a3 = left(base, xa.w, xa.z, xb.z, a2, b2);
    let b3 = right(raw.b3, xb.w, xb.z, b2);
    return Hrow(a0 + (b0 - a0) * tx.x, a1 + (b1 - a1) * tx.y, a2 + (b2 - a2) * tx.z, a3 + (b3 - a3) * tx.w);
}

// The raw loads of the row after the newest one, issued a row ahead.
var<private> pre_row: u32;
var<private> pre: Raw;

// Source row `row` interpolated horizontally; prefetches the next row.
fn fetch(row: u32) -> Hrow {
    var raw = pre;
    if (row != pre_row) { raw = load_raw(row); }
    pre_row = min(row + 1u, params.in_height - 1u);
    pre = load_raw(pre_row);
    return hrow(row, raw);
}

// v is a convex combination of 0..255 samples, so truncating v + 0.5 rounds half up, to
// 0..255: the bytes need no masks (pack_u8's would cost 3 instructions per pixel).
fn out_px(top: vec4<f32>, bottom: vec4<f32>, ty: f32) -> u32 {
    let v = top + (bottom - top) * ty;
    if (AR == 1u) {
        let z = bitcast<vec4<u32>>(v + vec4<f32>(8388608.0)) & vec4<u32>(255u);
        return z.x | (z.y << 8u) | (z.z << 16u) | (z.w << 24u);
    }
    let q = floor_u32(v + 0.5);
    return q.x | (q.y << 8u) | (q.z << 16u) | (q.w << 24u);
}

@compute @workgroup_size(64)
fn resize_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let w4 = params.out_width / 4u;
    let quad = wid.x * WG + lid;
    if (quad >= w4) { return; }
    let wmax = params.in_width - 1u;
    let hmax = params.in_height - 1u;
    // f32(x) for x = 4 * quad + k: exact integers, as the linear kernel's f32(x)
    let fx0 = f32(quad * 4u);
    let fx = clamp((vec4<f32>(fx0, fx0 + 1.0, fx0 + 2.0, fx0 + 3.0) + 0.5) * params.ratio_x - 0.5, vec4<f32>(0.0), vec4<f32>(f32(wmax)));
    xa = floor_u32(fx);
    xb = min(xa + 1u, vec4<u32>(wmax));
    tx = fx - small_f32(xa);
    pre_row = 0xffffffffu;
    // source rows held in `top` and `bottom` (none yet)
    var ra = 0xffffffffu;
    var rb = 0xffffffffu;
    var top: Hrow;
    var bottom: Hrow;
    let y_first = wid.y * RB;
    let y_end = min(y_first + RB, params.out_height);
    var yf = f32(y_first);
    for (var y = y_first; y < y_end; y++) {
        let fy = clamp((yf + 0.5) * params.ratio_y - 0.5, 0.0, f32(hmax));
        yf += 1.0;
        let y0 = u32(fy);
        let y1 = min(y0 + 1u, hmax);
        let ty = fy - f32(y0);
        if (ra != y0) {
            // y0 is usually the previous y1, whose row is already in `bottom`
            if (rb != y0) { bottom = fetch(y0); }
            top = bottom;
            ra = y0;
            rb = y0;
        }
        if (rb != y1) {
            bottom = fetch(y1);
            rb = y1;
        }
        dst[y * w4 + quad] = vec4<u32>(out_px(top.c0, bottom.c0, ty), out_px(top.c1, bottom.c1, ty), out_px(top.c2, bottom.c2, ty), out_px(top.c3, bottom.c3, ty));
    }
}
