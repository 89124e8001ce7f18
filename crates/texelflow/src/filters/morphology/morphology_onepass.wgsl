// Dilation / erosion in one pass (schedule `onepass`, radius up to MAX_ONEPASS_RADIUS in
// onepass.rs), RGBA8: van Herk / Gil-Werman down each column in registers, then along the
// rows from a buffer in workgroup memory. Appended to morphology.wgsl (uniform, bindings,
// `max4`); the same per-byte maxima as the separable passes, so the same bits.
//
// Why one pass: the two passes move the image through a temporary (one copy's worth of
// traffic more) and the row pass's tile pays a halo per row; here the image is read once
// and written once.
//
// A workgroup of WGX invocations owns WGX image columns (TW outputs and R clamped halo
// columns each side) and M blocks of K = 2R + 1 output rows. Invocation `lid` walks its
// column in blocks of K rows: block c holds rows y0 - R + cK + t, t < K. With the previous
// block's suffix maxima a[t] = max(block c-1 rows t..K) and this block's prefix maxima
// b[t] = max(block c rows 0..t), output row (c-1)K + t is max(a[t], b[t-1]) (its window is
// rows t..K of block c-1 and 0..t-1 of block c; t = 0: a[0] alone). Then the suffix maxima
// of block c replace a. About 3 `max4` per output and 2K live words, whatever the radius.
//
// The K column maxima of a block go to the buffer, one row each; the flush then runs the
// same van Herk along every buffered row: one task per (row, block of KH buffer columns),
// KH window maxima from the 2KH - 1 words that cover them; once every task of a round has
// read its inputs (barrier) the maxima replace them in place, and the workgroup copies TW
// of each row out with 16-byte stores where the width allows. KH = K up to a block radius
// of MAX_BLOCK (onepass.rs); past it the row window [j, j + 2R] is the union of two
// windows of KH = 2RB + 1 starting at j and j + D (D = 2(R - RB)), and the copy-out takes
// the maximum of the two (as the two-pass row tiles do). Rounds of G buffered rows keep
// every task one invocation's.
//
// Erosion: samples XORed with `flip` on load and on store (max of inverted = inverted min).

const R: u32 = 1u; // @specialize  radius
const K: u32 = 3u; // @specialize  2R + 1
const WGX: u32 = 128u; // @specialize  invocations (columns) per workgroup
const TW: u32 = 124u; // @specialize  output columns per workgroup: <= WGX - 2R, a multiple of 4
const M: u32 = 4u; // @specialize  blocks of K output rows per workgroup
const KH: u32 = 3u; // @specialize  row task block: 2RB + 1
const NBX: u32 = 42u; // @specialize  row tasks per buffered row: ceil((TW + D) / KH)
const G: u32 = 3u; // @specialize  buffered rows per round of row tasks
const BS: u32 = 136u; // @specialize  buffer row stride in words, tuned for banks
const TQ: u32 = TW / 4u;

var<workgroup> hbuf: array<u32, K * BS>;

// The output as quads, for 16-byte stores when the width is a multiple of 4.
@group(0) @binding(1) var<storage, read_write> dst4: array<vec4<u32>>;

fn o_load(x: u32, y: i32) -> u32 {
    return src[clamp_to(y, params.height) * params.words_per_row + x] ^ params.flip;
}

// The flush: buffer rows 0 .. n - 1 are image rows yb .., columns x0 - R ..
fn o_flush(lid: u32, x0: u32, yb: u32, n: u32) {
    for (var r0 = 0u; r0 < n; r0 += G) {
        workgroupBarrier();
        // task (row, block): buffer columns block * KH .. + 2KH - 1; rows past n (and past
        // the round: WGX may exceed G * NBX) compute from stale words and store nothing
        let tr = lid / NBX;
        let row = min(r0 + min(tr, G - 1u), K - 1u);
        let b = row * BS + (lid - tr * NBX) * KH;
        // @generated-begin o_h
        let o0 = hbuf[b];
        let o1 = o0;
        let o2 = o0;
        // @generated-end o_h
        workgroupBarrier();
        if (tr < G && r0 + tr < n) {
            // @generated-begin o_back
            hbuf[b] = o0;
            hbuf[b + 1u] = o1;
            hbuf[b + 2u] = o2;
            // @generated-end o_back
        }
    }
    workgroupBarrier();
    for (var q = lid; q < n * TQ; q += WGX) {
        let qr = q / TQ;
        let c = (q - qr * TQ) * 4u;
        let x = x0 + c;
        let y = yb + qr;
        let i = qr * BS + c;
        // @generated-begin o_out
        let o = vec4<u32>(hbuf[i], hbuf[i + 1u], hbuf[i + 2u], hbuf[i + 3u]);
        // @generated-end o_out
        // @generated-begin o_store
        let base = y * params.words_per_row + x;
        if (x < params.width) { dst[base] = o.x ^ params.flip; }
        if (x + 1u < params.width) { dst[base + 1u] = o.y ^ params.flip; }
        if (x + 2u < params.width) { dst[base + 2u] = o.z ^ params.flip; }
        if (x + 3u < params.width) { dst[base + 3u] = o.w ^ params.flip; }
        // @generated-end o_store
    }
    workgroupBarrier();
}

@compute @workgroup_size(WGX)
fn onepass(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let x0 = wid.x * TW;
    let xc = clamp_to(i32(x0) - i32(R) + i32(lid), params.width);
    let y0 = wid.y * (M * K);
    let rows = min(M * K, params.height - y0);
    let ys = i32(y0) - i32(R);
    // block 0: its suffix maxima in a0 .. a{K-1}
    // @generated-begin o_prime
    var a0 = o_load(xc, ys);
    var a1 = a0;
    var a2 = a0;
    // @generated-end o_prime
    for (var c = 1u; (c - 1u) * K < rows; c++) {
        let yc = ys + i32(c * K);
        // @generated-begin o_v
        // @generated-end o_v
        o_flush(lid, x0, y0 + (c - 1u) * K, min(K, rows - (c - 1u) * K));
    }
}
