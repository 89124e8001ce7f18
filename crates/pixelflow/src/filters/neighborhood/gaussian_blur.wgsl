// Gaussian blur, separable: a horizontal pass then a vertical pass, both in f32 with no
// intermediate rounding, taps summed in the order k = 0..=2R (left to right, top to
// bottom), replicate-edge borders. Samples stay in 8-bit units (0..255) throughout, so no
// scaling is needed; the result is rounded half up, as pack4x8unorm rounds.
// CPU twin: `blur_cpu` in gaussian_blur.rs.
//
// Two strategies (gaussian_blur.rs picks one):
// - `fused`: one workgroup per output tile; the tile plus its halo is loaded once into
//   workgroup memory, the horizontal pass writes vec4<f32> rows into workgroup memory, the
//   vertical pass writes RGBA8 straight to the output. No full-size intermediate.
//   The constants below are specialised per radius and tile (lines marked @specialize), and
//   the bodies of `h_segment`/`v_segment` are replaced by unrolled straight-line code.
// - `fallback_h` + `fallback_v`: two passes through an Rgba32F temporary, for radii whose
//   tile does not fit in workgroup memory.

struct GaussianBlurParams {
    width: u32,
    height: u32,
    radius: u32,
    _pad: u32,
    // weights[k] for k in 0..=2*radius at w[k / 4][k % 4]: symmetric, summing to 1
    w: array<vec4<f32>, 49>,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> gp: GaussianBlurParams;

fn wt(k: u32) -> f32 {
    return gp.w[k / 4u][k % 4u];
}

// The four bytes of a packed pixel as exact floats 0..255 without int-to-float conversions
// (quarter rate on many GPUs): 2^23 + b holds b in its low mantissa bits.
fn bytes4(p: u32) -> vec4<f32> {
    let b = (vec4<u32>(p) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(255u);
    return bitcast<vec4<f32>>(b | vec4<u32>(0x4B000000u)) - vec4<f32>(8388608.0);
}

// Clamps 8-bit-unit values to 0..255, rounds half up and packs (pack4x8unorm's rounding).
fn pack_rounded(v: vec4<f32>) -> u32 {
    let q = vec4<u32>(clamp(v, vec4<f32>(0.0), vec4<f32>(255.0)) + vec4<f32>(0.5));
    return q.x | (q.y << 8u) | (q.z << 16u) | (q.w << 24u);
}

// ---- fused kernel: one workgroup of 256 invocations computes a TW x TH output tile ----

const R: u32 = 6u; // @specialize  radius
const TW: u32 = 16u; // @specialize  tile width
const TH: u32 = 64u; // @specialize  tile height
const KH: u32 = 4u; // @specialize  consecutive outputs per invocation, horizontal pass
const KV: u32 = 4u; // @specialize  consecutive outputs per invocation, vertical pass (TW*TH == 256*KV)
const IN_W: u32 = TW + 2u * R;
const IN_ROWS: u32 = TH + 2u * R;
// Odd row strides: invocations on consecutive rows hit distinct banks.
const IN_STRIDE: u32 = IN_W | 1u;
const H_STRIDE: u32 = TW | 1u;

var<workgroup> tile_in: array<u32, IN_STRIDE * IN_ROWS>;
var<workgroup> tile_h: array<vec4<f32>, H_STRIDE * IN_ROWS>;

// KH horizontal outputs from tile_in[ib..ib+KH+2R] into tile_h[hb..hb+KH]. Each input is
// unpacked once and feeds every output it touches (register blocking).
fn h_segment(ib: u32, hb: u32) {
    // @generated-begin h_segment
    var acc: array<vec4<f32>, KH>;
    for (var j = 0u; j < KH + 2u * R; j++) {
        let p = bytes4(tile_in[ib + j]);
        for (var o = 0u; o < KH; o++) {
            if (j >= o && j - o <= 2u * R) {
                acc[o] += wt(j - o) * p;
            }
        }
    }
    for (var o = 0u; o < KH; o++) {
        tile_h[hb + o] = acc[o];
    }
    // @generated-end h_segment
}

// KV vertical outputs of tile column `col`, tile rows oy..oy+KV, stored at image column x.
fn v_segment(col: u32, oy: u32, x: u32, y0: u32) {
    // @generated-begin v_segment
    var acc: array<vec4<f32>, KV>;
    for (var j = 0u; j < KV + 2u * R; j++) {
        let p = tile_h[(oy + j) * H_STRIDE + col];
        for (var o = 0u; o < KV; o++) {
            if (j >= o && j - o <= 2u * R) {
                acc[o] += wt(j - o) * p;
            }
        }
    }
    for (var o = 0u; o < KV; o++) {
        store_out(x, y0 + oy + o, acc[o]);
    }
    // @generated-end v_segment
}

fn store_out(x: u32, y: u32, v: vec4<f32>) {
    if (x < gp.width && y < gp.height) {
        dst[y * gp.width + x] = pack_rounded(v);
    }
}

@compute @workgroup_size(256)
fn fused(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let x0 = i32(wid.x * TW) - i32(R);
    let y0 = i32(wid.y * TH) - i32(R);
    let wmax = i32(gp.width) - 1;
    let hmax = i32(gp.height) - 1;
    // 1. tile + halo, clamped coordinates (replicate edges), one global read per pixel
    for (var i = lid; i < IN_W * IN_ROWS; i += 256u) {
        let ry = i / IN_W;
        let rx = i - ry * IN_W;
        let gx = u32(clamp(x0 + i32(rx), 0, wmax));
        let gy = u32(clamp(y0 + i32(ry), 0, hmax));
        tile_in[ry * IN_STRIDE + rx] = src[gy * gp.width + gx];
    }
    workgroupBarrier();
    // 2. horizontal pass over all IN_ROWS rows; consecutive invocations take consecutive
    //    rows so their workgroup-memory accesses do not conflict
    for (var s = lid; s < IN_ROWS * (TW / KH); s += 256u) {
        let row = s % IN_ROWS;
        let sx = s / IN_ROWS;
        h_segment(row * IN_STRIDE + sx * KH, row * H_STRIDE + sx * KH);
    }
    workgroupBarrier();
    // 3. vertical pass; consecutive invocations take consecutive columns (coalesced stores)
    let col = lid % TW;
    let oy = (lid / TW) * KV;
    v_segment(col, oy, wid.x * TW + col, wid.y * TH);
}

// ---- fallback: two passes through an Rgba32F temporary (any radius up to 96) ----

// Invocations per workgroup of `fallback_h`, one output pixel each. Schedule choice.
const ROW_WG: u32 = 256u;
// ROW_WG + 2 * 96 (the largest radius) unpacked samples.
var<workgroup> row_buf: array<vec4<f32>, 448>;

// Horizontal pass: `src` is the RGBA8 input, `dst` the temporary (4 f32 words per pixel).
@compute @workgroup_size(256)
fn fallback_h(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let r = gp.radius;
    let y = wid.y;
    let x0 = i32(wid.x * ROW_WG) - i32(r);
    let wmax = i32(gp.width) - 1;
    for (var i = lid; i < ROW_WG + 2u * r; i += ROW_WG) {
        let gx = u32(clamp(x0 + i32(i), 0, wmax));
        row_buf[i] = bytes4(src[y * gp.width + gx]);
    }
    workgroupBarrier();
    let x = wid.x * ROW_WG + lid;
    if (x >= gp.width) {
        return;
    }
    var acc = vec4<f32>(0.0);
    for (var k = 0u; k <= 2u * r; k++) {
        acc += wt(k) * row_buf[lid + k];
    }
    let o = 4u * (y * gp.width + x);
    dst[o] = bitcast<u32>(acc.x);
    dst[o + 1u] = bitcast<u32>(acc.y);
    dst[o + 2u] = bitcast<u32>(acc.z);
    dst[o + 3u] = bitcast<u32>(acc.w);
}

// Vertical pass: `src` is the temporary, `dst` the RGBA8 output.
@compute @workgroup_size(64, 4)
fn fallback_v(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= gp.width || gid.y >= gp.height) {
        return;
    }
    let r = i32(gp.radius);
    let hmax = i32(gp.height) - 1;
    var acc = vec4<f32>(0.0);
    for (var k = 0; k <= 2 * r; k++) {
        let yy = u32(clamp(i32(gid.y) - r + k, 0, hmax));
        let o = 4u * (yy * gp.width + gid.x);
        let p = bitcast<vec4<f32>>(vec4<u32>(src[o], src[o + 1u], src[o + 2u], src[o + 3u]));
        acc += wt(u32(k)) * p;
    }
    dst[gid.y * gp.width + gid.x] = pack_rounded(acc);
}
