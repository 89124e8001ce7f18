// Two-pass Gaussian with register blocking; appended to gaussian_blur.wgsl (its uniform,
// bindings and helpers). The default between the fused tile's radii and the decimated
// schedule's sigmas (radius 8 to ~15).
//
// Both passes make B consecutive outputs per invocation from a sliding window of B inputs
// held in registers (p0..p{B-1}): every input read feeds B outputs, so a pass reads each
// input about (2R + 2B) / B times instead of 2R + 1 times. The window runs over the taps
// k = 0..STEPS-1, STEPS being 2R + 1 rounded up to a multiple of B; the weights past the
// last tap are zero, and `fma(0, p, a) == a` exactly, so every output is the same sum, in
// the same order, as the one-output-per-invocation form. Window slot of input j: j % B,
// so after unrolling B steps every register index is static (`window_steps` below is
// generated per B).
//
// - `window_h`: one workgroup of HWG invocations per SEG = HWG * B outputs of one row. The
//   row segment plus halo is unpacked once into workgroup memory (one vec4<f32> per
//   pixel, one padding slot every 8 so the invocations' stride-B reads hit distinct
//   banks); RGBA32F to the temporary.
// - `window_v`: one invocation per column and B consecutive rows, reading the temporary
//   straight from memory (consecutive invocations, consecutive columns: 16-byte coalesced
//   loads); RGBA8 to the output.

const R: u32 = 24u; // @specialize  radius
const B: u32 = 8u; // @specialize  outputs per invocation (window length)
const HWG: u32 = 32u; // @specialize  invocations per row-pass workgroup
const SEG: u32 = HWG * B;
const STEPS: u32 = ((2u * R + B) / B) * B;
// inputs of one row segment: SEG + STEPS (the last step's load is never used)
const ROW_IN: u32 = SEG + STEPS;

// 1: the row segment stays packed RGBA8 in workgroup memory (4 bytes per pixel instead of
// 16, so 4x the resident invocations) and is unpacked at every window read ((2R + 2B) / B
// times per output instead of once). The unused array shrinks to one element.
const PACKED: u32 = 0u; // @specialize
const ROW_SLOTS: u32 = ROW_IN + ROW_IN / 8u + 1u;
var<workgroup> row_px: array<vec4<f32>, (1u - PACKED) * ROW_SLOTS + PACKED>;
var<workgroup> row_packed: array<u32, PACKED * ROW_SLOTS + (1u - PACKED)>;

fn row_slot(i: u32) -> u32 {
    return i + (i >> 3u);
}


// Weight of tap k, zero past the last tap.
fn tap(k: u32) -> f32 {
    return select(0.0, wt(min(k, 2u * R)), k <= 2u * R);
}

fn row_in(base: u32, j: u32) -> vec4<f32> {
    if (PACKED == 1u) {
        return bytes4(row_packed[row_slot(base + j)]);
    }
    return row_px[row_slot(base + j)];
}

@compute @workgroup_size(HWG)
fn window_h(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let x0 = i32(wid.x * SEG) - i32(R);
    let wmax = i32(gp.width) - 1;
    let row = wid.y * gp.width;
    for (var i = lid; i < ROW_IN; i += HWG) {
        let gx = u32(clamp(x0 + i32(i), 0, wmax));
        if (PACKED == 1u) {
            row_packed[row_slot(i)] = src[row + gx];
        } else {
            row_px[row_slot(i)] = bytes4(src[row + gx]);
        }
    }
    workgroupBarrier();
    let base = lid * B;
    // @generated-begin window_h
    var a0 = vec4<f32>(0.0);
    var p0 = row_in(base, 0u);
    for (var kb = 0u; kb < STEPS; kb += B) {
        let w = gp.w[kb / 4u].x;
        a0 += w * p0;
        p0 = row_in(base, kb + B);
    }
    // @generated-end window_h
    let x = wid.x * SEG + base;
    // @generated-begin window_h_store
    if (x < gp.width) {
        tmp_out[row + x] = a0;
    }
    // @generated-end window_h_store
}

// The temporary as whole pixels: written by `window_h` (binding 1, like `dst`), read by
// `window_v` (binding 0, like `src`). Temporaries are pool buffers, a multiple of 16 bytes.
@group(0) @binding(1) var<storage, read_write> tmp_out: array<vec4<f32>>;
@group(0) @binding(0) var<storage, read> tmp_in: array<vec4<f32>>;

// Input row j of the column window that starts at output row y0 (edges replicated).
fn col_in(x: u32, y0: u32, j: u32) -> vec4<f32> {
    let y = u32(clamp(i32(y0 + j) - i32(R), 0, i32(gp.height) - 1));
    return tmp_in[y * gp.width + x];
}

@compute @workgroup_size(64, 4)
fn window_v(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = gid.x;
    let y0 = gid.y * B;
    if (x >= gp.width || y0 >= gp.height) {
        return;
    }
    // @generated-begin window_v
    var a0 = vec4<f32>(0.0);
    var p0 = col_in(x, y0, 0u);
    for (var kb = 0u; kb < STEPS; kb += B) {
        let w = gp.w[kb / 4u].x;
        a0 += w * p0;
        p0 = col_in(x, y0, kb + B);
    }
    // @generated-end window_v
    // @generated-begin window_v_store
    dst[y0 * gp.width + x] = pack_rounded(a0);
    // @generated-end window_v_store
}
