// Dilation / erosion for small radii (schedule `window`, radius up to MAX_WINDOW_RADIUS in
// window.rs): one pass instead of two, RGBA8. Appended to morphology.wgsl (uniform, `max4`,
// bindings); the same per-byte maxima as the separable passes, so the same bits.
//
// One workgroup of WGX invocations owns WGX image columns (TW outputs and R halo columns
// each side) and TH rows. Each invocation walks its column down keeping the 2R + 1 rows of
// the vertical window in registers (packed: one word per row, nothing to unpack), takes
// their per-byte maximum for each row and stores it in a buffer of BR rows in workgroup
// memory; every BR rows the workgroup flushes the buffer: 4 consecutive outputs per task, the
// maximum of their 2R + 4 buffered neighbours, one 16-byte store where the width allows.
// Erosion: samples XORed with `flip` on load and on store (max of inverted = inverted min).

const R: u32 = 1u; // @specialize  radius
const WGX: u32 = 128u; // @specialize  invocations (columns) per workgroup
const TW: u32 = 124u; // @specialize  output columns per workgroup: WGX - 2R, a multiple of 4
const TH: u32 = 32u; // @specialize  rows per workgroup
const BR: u32 = 8u; // @specialize  rows of the buffer
const TPR: u32 = TW / 4u;
// one pad slot per 4 columns: a flush's invocations read 4 columns apart
const BSTRIDE: u32 = WGX + WGX / 4u + 1u;

var<workgroup> vbuf: array<u32, BR * BSTRIDE>;

fn col_pad(c: u32) -> u32 {
    return c + c / 4u;
}

// The output as quads, for 16-byte stores when the width is a multiple of 4.
@group(0) @binding(1) var<storage, read_write> dst4: array<vec4<u32>>;

// The flush: buffer rows 0 .. n - 1 (image rows yb ..), between barriers.
fn w_flush(lid: u32, x0: u32, yb: u32, n: u32) {
    workgroupBarrier();
    for (var t = lid; t < n * TPR; t += WGX) {
        let row = t / TPR;
        let seg = t - row * TPR;
        let y = yb + row;
        let b = row * BSTRIDE + col_pad(seg * 4u);
        let x = x0 + seg * 4u;
        // @generated-begin w_h
        let o0 = vbuf[b];
        let o1 = o0;
        let o2 = o0;
        let o3 = o0;
        // @generated-end w_h
        // @generated-begin w_store
        let base = y * params.words_per_row + x;
        if (x < params.width) { dst[base] = o0 ^ params.flip; }
        if (x + 1u < params.width) { dst[base + 1u] = o1 ^ params.flip; }
        if (x + 2u < params.width) { dst[base + 2u] = o2 ^ params.flip; }
        if (x + 3u < params.width) { dst[base + 3u] = o3 ^ params.flip; }
        // @generated-end w_store
    }
    workgroupBarrier();
}

fn w_load(x: u32, y: i32) -> u32 {
    return src[clamp_to(y, params.height) * params.words_per_row + x] ^ params.flip;
}

@compute @workgroup_size(WGX)
fn window(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let x0 = wid.x * TW;
    let xc = clamp_to(i32(x0) - i32(R) + i32(lid), params.width);
    let y0 = wid.y * TH;
    let rows = min(TH, params.height - y0);
    let col = col_pad(lid);
    // the window: rows y - R .. y + R in s0 .. s{2R}
    // @generated-begin w_prime
    var s0 = w_load(xc, i32(y0) - 1);
    var s1 = w_load(xc, i32(y0));
    var s2 = 0u;
    // @generated-end w_prime
    for (var yb = 0u; yb < rows; yb += BR) {
        let n = min(BR, rows - yb);
        for (var t = 0u; t < n; t++) {
            // @generated-begin w_v
            s2 = w_load(xc, i32(y0 + yb + t) + 1);
            vbuf[t * BSTRIDE + col] = max4(max4(s0, s1), s2);
            s0 = s1;
            s1 = s2;
            // @generated-end w_v
        }
        w_flush(lid, x0, y0 + yb, n);
    }
}
