// Fused Gaussian kernel; appended to gaussian_blur.wgsl (its uniform, bindings, helpers).

// ---- fused kernel: one workgroup of 256 invocations computes a TW x TH output tile ----
//
// Workgroup memory is scarce in practice (NVIDIA's Vulkan driver gives about 64 KiB per SM
// to all resident workgroups), so the intermediate is kept per channel: the tile + halo is
// loaded once as packed RGBA8, then for each channel in turn the horizontal pass writes one
// f32 per pixel and the vertical pass reads them back. The 4-byte intermediate instead of
// 16 lets 3-5 workgroups share an SM.

const R: u32 = 6u; // @specialize  radius
const TW: u32 = 16u; // @specialize  tile width
const TH: u32 = 64u; // @specialize  tile height
const KH: u32 = 8u; // @specialize  consecutive outputs per invocation, horizontal pass
const KV: u32 = 4u; // @specialize  consecutive outputs per invocation, vertical pass (TW*TH == 256*KV)
const IN_W: u32 = TW + 2u * R;
const IN_ROWS: u32 = TH + 2u * R;
// Odd row strides: invocations on consecutive rows hit distinct banks.
const IN_STRIDE: u32 = IN_W | 1u;
const H_STRIDE: u32 = TW | 1u;

var<workgroup> tile_in: array<u32, IN_STRIDE * IN_ROWS>;
var<workgroup> tile_h: array<f32, H_STRIDE * IN_ROWS>;

// One byte of a packed pixel as an exact float 0..255 (see bytes4).
fn byte_f32(p: u32, shift: u32) -> f32 {
    return bitcast<f32>(((p >> shift) & 255u) | 0x4B000000u) - 8388608.0;
}

// KH horizontal outputs of one channel from tile_in[ib..ib+KH+2R] into tile_h[hb..hb+KH].
// Each input is converted once and feeds every output it touches (register blocking).
fn h_segment(ib: u32, hb: u32, shift: u32) {
    // @generated-begin h_segment
    var acc: array<f32, KH>;
    for (var j = 0u; j < KH + 2u * R; j++) {
        let p = byte_f32(tile_in[ib + j], shift);
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

// KV vertical outputs of one channel for tile column `col`, tile rows oy..oy+KV, stored
// into component `c` of `res`.
fn v_segment(col: u32, oy: u32, c: u32, res: ptr<function, array<vec4<f32>, KV>>) {
    // @generated-begin v_segment
    var acc: array<f32, KV>;
    for (var j = 0u; j < KV + 2u * R; j++) {
        let p = tile_h[(oy + j) * H_STRIDE + col];
        for (var o = 0u; o < KV; o++) {
            if (j >= o && j - o <= 2u * R) {
                acc[o] += wt(j - o) * p;
            }
        }
    }
    for (var o = 0u; o < KV; o++) {
        (*res)[o][c] = acc[o];
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
    // 1. tile + halo, clamped coordinates (replicate edges), one global read per pixel;
    //    the (row, column) of element lid + 256k is stepped without divisions
    var ry = lid / IN_W;
    var rx = lid - ry * IN_W;
    for (var i = lid; i < IN_W * IN_ROWS; i += 256u) {
        let gx = u32(clamp(x0 + i32(rx), 0, wmax));
        let gy = u32(clamp(y0 + i32(ry), 0, hmax));
        tile_in[ry * IN_STRIDE + rx] = src[gy * gp.width + gx];
        rx += 256u % IN_W;
        ry += 256u / IN_W;
        if (rx >= IN_W) {
            rx -= IN_W;
            ry += 1u;
        }
    }
    workgroupBarrier();
    let col = lid % TW;
    let oy = (lid / TW) * KV;
    var res: array<vec4<f32>, KV>;
    for (var c = 0u; c < 4u; c++) {
        // 2. horizontal pass of channel c over all IN_ROWS rows; consecutive invocations
        //    take consecutive rows so their workgroup-memory accesses do not conflict
        for (var s = lid; s < IN_ROWS * (TW / KH); s += 256u) {
            let row = s % IN_ROWS;
            let sx = s / IN_ROWS;
            h_segment(row * IN_STRIDE + sx * KH, row * H_STRIDE + sx * KH, 8u * c);
        }
        workgroupBarrier();
        // 3. vertical pass of channel c; consecutive invocations take consecutive columns
        v_segment(col, oy, c, &res);
        workgroupBarrier();
    }
    for (var o = 0u; o < KV; o++) {
        store_out(wid.x * TW + col, wid.y * TH + oy + o, res[o]);
    }
}
