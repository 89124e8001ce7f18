// Sweep kernel of the Gaussian blur; appended to gaussian_blur.wgsl (its uniform, helpers).
// Schedule variants `sweep*` (gaussian_blur.rs: `SweepShape`, cost reasoning there).
//
// One workgroup of TW invocations owns a strip of TW output columns and walks down TH output
// rows, KH input rows (a "chunk") at a time:
//   1. the chunk's input rows (TW + 2*R4 pixels each, clamped at the edges) were loaded into
//      registers during the previous chunk with 16-byte loads; they are stored packed into
//      `raw` and the next chunk's loads are issued at once, so they fly during the compute;
//   2. horizontal pass: invocation (row, segment) computes KH consecutive outputs of one row,
//      all 4 channels, from KH + 2R inputs unpacked once each (register blocking), into `hbuf`;
//   3. vertical pass: invocation `lid` owns column x0 + lid and keeps the 2R+1 pending output
//      rows of that column as vec4<f32> accumulators in registers (scatter form: each new
//      horizontal row is multiplied into every pending output; the oldest is then complete
//      and stored). One workgroup-memory read per pixel instead of 2R+1.
// Two barriers per chunk. The chunk loop is unrolled over lcm(KH, 2R+1) rows (2R+1 calls of
// `v_chunk` with rotated accumulators), so the rotation is static (no register arrays
// indexed at run time, no moves).
// Taps are summed in the CPU twin's order (k = 0..2R) in both passes.

const R: u32 = 6u; // @specialize  radius
const R4: u32 = 8u; // @specialize  radius rounded up to a multiple of 4 (16-byte aligned halo)
const TW: u32 = 64u; // @specialize  strip width = invocations per workgroup
const TH: u32 = 128u; // @specialize  output rows per strip
const KH: u32 = 8u; // @specialize  rows per chunk = horizontal outputs per invocation (TW/KH segments x KH rows = TW)
// vec4<u32> (4 pixels) per input row of a chunk, and the padded row stride of `raw`: odd, so
// the 8 rows that a quarter-warp reads at once fall in distinct banks.
const IQ: u32 = (TW + 2u * R4) / 4u;
const IQS: u32 = IQ | 1u;
// Row stride of `hbuf` (one spare element: consecutive rows start in different banks).
const HS: u32 = TW + 1u;

// The input as 16-byte groups (buffers are 16-byte multiples); only this kernel uses it.
@group(0) @binding(0) var<storage, read> src4: array<vec4<u32>>;

var<workgroup> raw: array<vec4<u32>, KH * IQS>;
// @generated-begin hbuf_decl
var<workgroup> hbuf: array<vec4<f32>, KH * HS>;
// @generated-end hbuf_decl

// The input pixel group starting at pixel column `x` (a multiple of 4) of row `y`.
// Interior groups of images whose width is a multiple of 4 are one aligned 16-byte load;
// groups crossing an edge (or rows not 16-byte aligned) clamp pixel by pixel (replicate).
fn load_group(y: u32, x: i32, fast: bool) -> vec4<u32> {
    let wmax = i32(gp.width) - 1;
    if (fast && x >= 0 && x + 3 <= wmax) {
        return src4[(y * gp.width + u32(x)) >> 2u];
    }
    var v: vec4<u32>;
    for (var e = 0; e < 4; e++) {
        let i = y * gp.width + u32(clamp(x + e, 0, wmax));
        v[e] = src4[i >> 2u][i & 3u];
    }
    return v;
}

// Rounds 8-bit-unit values half up and packs them, as `pack_rounded` does but without its
// clamp: the weights are positive and sum to 1 within 1e-6, so every value lies in
// [0, 255.01] and v + 0.5 truncates into 0..255.
// Not the cheaper "add 2^23 and keep the low mantissa bits" rounding: compilers treat the
// add as reassociable with the FMA chain before it (Mesa's lavapipe did: errors of 2 levels),
// which rounds partial sums to integers.
fn pack_half_up(v: vec4<f32>) -> u32 {
    let q = vec4<u32>(v + vec4<f32>(0.5));
    return q.x | (q.y << 8u) | (q.z << 16u) | (q.w << 24u);
}

// Horizontal pass of one chunk for this invocation: KH outputs of raw row `hrow`, segment
// `hseg`, from raw[rbase..] into hbuf[hb..].
fn h_chunk(rbase: u32, hb: u32) {
    // @generated-begin h_chunk
    // @generated-end h_chunk
}

// Vertical pass of one chunk: `fn v_chunk(tb, ..., a0, ..., a2R)` (generated: its parameter
// list depends on R). Row `row` of the chunk starts an output in accumulator `a{row mod n}`
// and completes the one in `a{(row + 1) mod n}` (n = 2R+1); the caller passes the variables
// rotated by chunk*KH mod n, so every output stays in one variable from start to store. Written once and called with the 2R+1 rotations, which
// keeps the source small; drivers inline it, so the rotation is static in the machine code.
// @generated-begin v_chunk
// @generated-end v_chunk

@compute @workgroup_size(TW)
fn sweep(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let x0 = wid.x * TW;
    let y0 = wid.y * TH;
    let xs = i32(x0) - i32(R4);
    let hmax = i32(gp.height) - 1;
    let fast = (gp.width & 3u) == 0u;
    let x = x0 + lid;
    let x_ok = x < gp.width;
    // input row of h-row 0 (h-row t is input row y0 - R + t, clamped)
    let row0 = i32(y0) - i32(R);
    let rows_out = min(TH, gp.height - y0);
    // chunks this strip needs (uniform: the loop below holds barriers)
    let nch = (rows_out + 2u * R + KH - 1u) / KH;
    // this invocation's horizontal segment: consecutive invocations take consecutive rows
    // of one segment (distinct banks, see IQS and HS)
    let hrow = lid % KH;
    let hseg = lid / KH;
    let rbase = hrow * IQS + hseg * (KH / 4u);
    let hb = hrow * HS + hseg * KH;
    // @generated-begin sweep_body
    // @generated-end sweep_body
}
