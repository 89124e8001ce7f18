// Gaussian blur, schedule `half` (small sigma): the twin's separable blur in f16
// arithmetic, two channels per instruction, within one level of the twin by a bound that
// gaussian_blur_half.rs computes per sigma (`half_error_bound`). Appended to
// gaussian_blur.wgsl (uniform, bindings); the module starts with `enable f16;`.
//
// Why f16, and why it stays within one level: at sigma 2 the f32 FMAs alone are 1.7x a copy
// of the image at the GPU's peak rate, so the <= 2x target needs packed half arithmetic.
// Samples are centred (byte - 128, exact in f16), so every partial sum is at most 128 times
// the weights summed so far; taps are added outside in, the two taps of equal weight first
// added to each other (exact for the bytes of the first pass). `half_error_bound` adds up
// the rounding of every operation (as separate multiply and add, which Vulkan allows for
// fma), the f16 weights' rounding and the first pass's error carried into the second.
//
// Shape: one workgroup of WGX invocations owns WGX image columns (TW outputs and R halo
// columns each side) and walks TH = NB * K rows down (K = 2R + 1). Each invocation keeps its
// column's K-row window, unpacked, in registers (slots s0 .. s{K-1}, row y - R + j in slot
// (t + j) % K at the block's row t: the K rows of a block are unrolled so the rotation is
// static), computes the vertical pass for one row, stores it into a buffer of BR rows in
// workgroup memory and unpacks the row K below into the slot just freed. Those rows are
// loaded a block ahead (packed, q0 .. q{K-1}), so no row waits for a load issued one row
// earlier; one block per workgroup measured fastest (more workgroups in flight), and then
// every load is issued at the start. Every BR rows the
// workgroup flushes the buffer: the horizontal pass, KH outputs per task (KH + 2R reads
// from the buffer for KH outputs), tasks spread over the invocations row-major so that the
// stores of a row are consecutive. The vertical pass runs first (the twin's order is the
// other: the exact blur is separable, so this only moves where the rounding falls, which the
// bound covers).

const R: u32 = 6u; // @specialize  radius
const K: u32 = 13u; // @specialize  2R + 1
const WGX: u32 = 128u; // @specialize  invocations (columns) per workgroup
const TW: u32 = 116u; // @specialize  output columns per workgroup: WGX - 2R, a multiple of 4
const NB: u32 = 5u; // @specialize  blocks of K rows per workgroup
const BR: u32 = 7u; // @specialize  rows of the vertical pass's buffer
const KH: u32 = 4u; // @specialize  outputs per flush task, a multiple of 4
const TPR: u32 = TW / KH;
const TH: u32 = NB * K;
// one pad slot per 4 columns: a flush's invocations read 4 columns apart, 8 bytes each
const BSTRIDE: u32 = WGX + WGX / 4u + 1u;

// The sample type (f16, or f32 in the `_f32` variant) and its conversions; replaced per
// precision by gaussian_blur_half.rs.
// @generated-begin half_types
alias V = vec4<f16>;

// A packed pixel as centred f16 samples (byte - 128, exact), in the order R, B, G, A (the
// arithmetic is per channel, and this order keeps each word's halves where they are): the
// byte pairs R|B and G|A become halves 1024 + byte (0x6400 | byte), whose conversion to f32
// and back is exact (a compiler may drop it), then 1152 is subtracted in f16, exactly.
fn unpack_c(p: u32) -> V {
    let rb = unpack2x16float((p & 0x00FF00FFu) | 0x64006400u);
    let ga = unpack2x16float(((p >> 8u) & 0x00FF00FFu) | 0x64006400u);
    return V(vec4<f32>(rb, ga)) - V(1152.0h);
}

// Rounds a centred value (R, B, G, A) to the nearest byte in f16 itself: 1152 + c, for c
// clamped to [-128, 127], lies in [1024, 1279], where f16's ulp is 1, so the add rounds to an
// integer and the half's low 8 bits are the byte (clamped first, so the add cannot be
// reassociated into the sums before it). The halves of R|B and G|A are then interleaved.
fn out_pack_c(c: V) -> u32 {
    let v = vec4<f32>(clamp(c, V(-128.0h), V(127.0h)) + V(1152.0h));
    let rb = pack2x16float(v.xy);
    let ga = pack2x16float(v.zw);
    return (rb & 0x00FF00FFu) | ((ga & 0x00FF00FFu) << 8u);
}
// @generated-end half_types

var<workgroup> vbuf: array<V, BR * BSTRIDE>;

// The weights (f16, or f32 in the _f32 variant): W0 the centre, Wk the two taps k away;
// constants, or private copies of the uniform's that `half_load_weights` fills.
// @generated-begin half_weights
const W0: f16 = 1.0h;
// @generated-end half_weights

// This invocation's image column (clamped: halo columns past the edges replicate them).
var<private> xcol: u32;

fn col_pad(c: u32) -> u32 {
    return c + c / 4u;
}

// Pixel (xcol, y), y clamped, packed.
fn load_raw(y: i32) -> u32 {
    return src[u32(clamp(y, 0, i32(gp.height) - 1)) * gp.width + xcol];
}

// The horizontal pass over buffer rows 0 .. n - 1 (image rows yb ..), between barriers.
fn h_flush(lid: u32, x0: u32, yb: u32, n: u32, yend: u32) {
    workgroupBarrier();
    for (var t = lid; t < n * TPR; t += WGX) {
        let row = t / TPR;
        let seg = t - row * TPR;
        let y = yb + row;
        let b = row * BSTRIDE + col_pad(seg * KH);
        // @generated-begin half_h
        let p0 = vbuf[b];
        let o0 = p0;
        let o1 = p0;
        let o2 = p0;
        let o3 = p0;
        // @generated-end half_h
        let x = x0 + seg * KH;
        if (y < yend) {
            // @generated-begin half_store
            let base = y * gp.width + x;
            if (x < gp.width) { dst[base] = out_pack_c(o0); }
            if (x + 1u < gp.width) { dst[base + 1u] = out_pack_c(o1); }
            if (x + 2u < gp.width) { dst[base + 2u] = out_pack_c(o2); }
            if (x + 3u < gp.width) { dst[base + 3u] = out_pack_c(o3); }
            // @generated-end half_store
        }
    }
    workgroupBarrier();
}

// The output as quads, for 16-byte stores when the width is a multiple of 4.
@group(0) @binding(1) var<storage, read_write> dst4: array<vec4<u32>>;

@compute @workgroup_size(WGX)
fn half(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    // @generated-begin half_load_weights
    // @generated-end half_load_weights
    let x0 = wid.x * TW;
    xcol = u32(clamp(i32(x0) - i32(R) + i32(lid), 0, i32(gp.width) - 1));
    let y0 = wid.y * TH;
    let yend = min(y0 + TH, gp.height);
    let col = col_pad(lid);
    // the window: slot j holds row y0 - R + j
    // @generated-begin half_prime
    var s0 = load_c(i32(y0) - i32(R));
    // @generated-end half_prime
    for (var blk = 0u; blk < NB; blk++) {
        let yb = y0 + blk * K;
        if (yb >= yend) {
            break;
        }
        // @generated-begin half_block
        vbuf[col] = s0;
        h_flush(lid, x0, yb, 1u, yend);
        // @generated-end half_block
    }
}
