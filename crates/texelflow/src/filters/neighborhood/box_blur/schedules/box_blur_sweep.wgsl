// Box blur, "sweep" schedule: the mean over a (2r+1) x (2r+1) window, replicate-edge
// borders, output = round_half_up(sum / (2r+1)^2), bit-identical to the CPU twin (`box_cpu`
// in box_blur.rs). Work per pixel does not depend on the radius, apart from priming each
// strip's column sums (2r+1 rows per `strip_h` output rows; the host grows strip_h with r).
//
// One workgroup of NT invocations owns a strip of SW = 4*NT input columns: TW = SW - 2*R4
// output columns plus R4 (= r rounded up to a multiple of 4) halo columns on each side, so
// every invocation's 4 columns are one aligned 16-byte group. It walks `strip_h` rows down:
// - vertical, in registers: per column, the window sum over rows y-r..y+r as two u32 of
//   16-bit lanes (R|B<<16, G|A<<16; at most 129*255 < 2^16), plus the row entering the
//   window, minus the row leaving it (both loaded LB rows ahead, 16 bytes per load; the
//   leaving row was read 2r+1 rows earlier by this workgroup, so it comes from L2);
// - horizontal, per row: inclusive prefix P over the strip's column sums (4 columns serially
//   in registers, a subgroup exclusive scan across invocations, subgroup totals through
//   workgroup memory), stored to workgroup memory; output column o = P[o+r] - P[o-r-1].
//   Invocation t outputs the group whose "+" term P[o+r] it holds itself (when r is a
//   multiple of 4; otherwise DELTA = R4 - r of its 4 outputs read it from the neighbour),
//   so each output pixel costs one or two 16-byte workgroup-memory reads;
// - division exact in f32: s < 2^23, so s + 2^23 as float bits minus 2^23 is s exactly, and
//   fma(s, 1/n, 2^23) rounds s/n to the nearest integer in the low mantissa bits; n is odd, so
//   s/n is never a tie, and an exhaustive check over every s <= 255n and r <= 64 (unit test
//   `float_division_is_exact`) shows it equals floor((2s+n)/2n), fused or not.
// Two barriers per round of CH rows; the rows of the next LB are in flight meanwhile.
//
// Instruction estimate per 4-pixel group and row (thread instructions), NT=128:
//   loads + addressing 10, vertical update 40, unpack + 4-column prefix 28, subgroup scan of
//   a vec4 ~45 (20 shuffles), subgroup total 6, offsets + store P 34       -> ~41 per strip px
//   outputs: 1-2 LDS.128, subtract 16, divide 48, pack ~16, store ~4       -> ~24 per output px
//   priming: ~5 per strip px per primed row, (2r+1)/strip_h primed rows per row.
// Per output pixel: 41*h + 24 + 5*h*(2r+1)/strip_h with h = SW/TW (strip halo ratio).

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
// The `blocks` schedules (box_blur_blocks.wgsl) replace this block with their bindings.
// @generated-begin sp_binding
@group(0) @binding(2) var<uniform> sp: BoxSweepParams;
// @generated-end sp_binding

// Invocations per workgroup = 4-column groups per strip.
const NT: u32 = 128u; // @specialize
// Rows per round of barriers.
const CH: u32 = 1u; // @specialize
// 1 when width % 4 == 0: rows start on 16-byte boundaries, groups load and store as vec4.
const VEC: u32 = 1u; // @specialize
// r4 - radius (0..3): how many of an invocation's 4 outputs take their "+" prefix term
// from the neighbouring invocation.
const DELTA: u32 = 0u; // @specialize
// Rows loaded ahead (ring of enter/leave groups in registers); a multiple of CH.
const LB: u32 = 4u; // @specialize
// Bench-only ablations of the `blocks` schedules (wrong images): 0 = the kernel; 1 = no
// horizontal pass (no scan, no barriers, no workgroup memory in the walk: each output is its
// own column sum's mean); 2 = everything but the walk's two barriers per row (racy); 3 = no
// priming (the host also skips the block-sum pass).
const ABL: u32 = 0u; // @specialize

const SW: u32 = 4u * NT;
// Subgroups per strip, for the smallest subgroups WebGPU allows (4 invocations).
const MAXSG: u32 = NT / 4u;
// Prefix of strip column c (c >= -1) lives at [(c+4) & 3][(c+4) >> 2]: component-major, so
// a warp's 16-byte accesses at consecutive groups hit consecutive addresses; slot [3][0]
// is P[-1] = 0.
const PSTRIDE: u32 = NT + 1u;
const PROW: u32 = 4u * PSTRIDE;
const LO: u32 = 0x00FF00FFu;

var<workgroup> sg_count: atomic<u32>;
var<workgroup> totals: array<vec4<u32>, CH * MAXSG>;
var<workgroup> pre: array<vec4<u32>, CH * PROW>;

fn pre_index(row: u32, cc: u32) -> u32 {
    return row * PROW + (cc & 3u) * PSTRIDE + (cc >> 2u);
}

fn load_px(y: u32, x: u32) -> u32 {
    let p = y * sp.width + x;
    return src[p >> 2u][p & 3u];
}

// The group of 4 columns starting at image column x0 in row y, columns clamped to the image.
fn load_clamped(y: u32, x0: i32) -> vec4<u32> {
    let wmax = i32(sp.width) - 1;
    return vec4<u32>(
        load_px(y, u32(clamp(x0, 0, wmax))),
        load_px(y, u32(clamp(x0 + 1, 0, wmax))),
        load_px(y, u32(clamp(x0 + 2, 0, wmax))),
        load_px(y, u32(clamp(x0 + 3, 0, wmax))));
}

fn clamp_row(y: i32) -> u32 {
    return u32(clamp(y, 0, i32(sp.height) - 1));
}

// round(s / n) per channel, packed as RGBA8 (see the header for why this is exact).
fn div_round(s: vec4<u32>) -> u32 {
    let sf = bitcast<vec4<f32>>(s | vec4<u32>(0x4B000000u)) - vec4<f32>(8388608.0);
    let z = bitcast<vec4<u32>>(fma(sf, vec4<f32>(sp.inv_n), vec4<f32>(8388608.0)));
    return (z.x & 255u) | ((z.y & 255u) << 8u) | ((z.z & 255u) << 16u) | (z.w << 24u);
}

fn channels(lo: u32, hi: u32) -> vec4<u32> {
    return vec4<u32>(lo & 0xFFFFu, hi & 0xFFFFu, lo >> 16u, hi >> 16u);
}

@compute @workgroup_size(NT)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32, @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sg_size: u32) {
    // Strip group of this invocation: subgroup g (numbered by registration, so nothing is
    // assumed about how invocations map to subgroups) covers groups g*sg_size.. in lane order.
    if (lid == 0u) {
        atomicStore(&sg_count, 0u);
    }
    if (lid < CH) {
        pre[lid * PROW + 3u * PSTRIDE] = vec4<u32>(0u);   // P[-1]
    }
    workgroupBarrier();
    var first = 0u;
    if (lane == 0u) {
        first = atomicAdd(&sg_count, 1u);
    }
    let g = subgroupBroadcastFirst(first);
    let t = g * sg_size + lane;

    let r = sp.radius;
    let out_x0 = wid.x * sp.tile_w;
    let x0 = i32(out_x0) - i32(sp.r4) + 4 * i32(t);
    let interior = VEC == 1u && x0 >= 0 && x0 + 3 < i32(sp.width);
    let gi = u32(max(x0, 0)) / 4u;
    let y_start = wid.y * sp.strip_h;
    let y_end = min(y_start + sp.strip_h, sp.height);

    // Ring of the enter/leave groups of the next LB rows (slot i: row y0 + i of the batch);
    // its first batch is loaded before priming, so the two overlap.
    var ring_e: array<vec4<u32>, LB>;
    var ring_l: array<vec4<u32>, LB>;
    for (var i = 0u; i < LB; i++) { // @unroll
        let y = i32(y_start + i);
        let ye = clamp_row(y + i32(r));
        let yl = clamp_row(y - i32(r) - 1);
        if (interior) {
            ring_e[i] = src[ye * sp.width4 + gi];
            ring_l[i] = src[yl * sp.width4 + gi];
        } else {
            ring_e[i] = load_clamped(ye, x0);
            ring_l[i] = load_clamped(yl, x0);
        }
    }

    // Prime: column sums over the window of row y_start - 1 (rows y_start-1-r ..= y_start-1+r).
    // Batches of eight rows, software-pipelined: the next batch's loads are issued before
    // this batch is summed, so 16 loads are in flight (at r=64 this is 16 batches; each
    // would otherwise cost a full memory latency).
    var vlo = vec4<u32>(0u);
    var vhi = vec4<u32>(0u);
    let n_rows = 2u * r + 1u;
    let ybase = i32(y_start) - 1 - i32(r);
    // @generated-begin prime
    var j = 0u;
    if (interior && n_rows >= 8u) {
        var cur: array<vec4<u32>, 8>;
        for (var k = 0u; k < 8u; k++) { // @unroll
            cur[k] = src[clamp_row(ybase + i32(k)) * sp.width4 + gi];
        }
        j = 8u;
        loop {
            let more = j + 8u <= n_rows;
            var nxt: array<vec4<u32>, 8>;
            if (more) {
                for (var k = 0u; k < 8u; k++) { // @unroll
                    nxt[k] = src[clamp_row(ybase + i32(j + k)) * sp.width4 + gi];
                }
            }
            var slo = vec4<u32>(0u);
            var shi = vec4<u32>(0u);
            for (var k = 0u; k < 8u; k++) { // @unroll
                slo += cur[k] & vec4<u32>(LO);
                shi += (cur[k] >> vec4<u32>(8u)) & vec4<u32>(LO);
            }
            vlo += slo;
            vhi += shi;
            if (!more) {
                break;
            }
            cur = nxt;
            j += 8u;
        }
    }
    for (; j < n_rows; j++) {
        let yj = clamp_row(ybase + i32(j));
        var p: vec4<u32>;
        if (interior) {
            p = src[yj * sp.width4 + gi];
        } else {
            p = load_clamped(yj, x0);
        }
        vlo += p & vec4<u32>(LO);
        vhi += (p >> vec4<u32>(8u)) & vec4<u32>(LO);
    }
    // @generated-end prime

    // Output side: invocation t writes output group u = t - r4/2, i.e. strip columns
    // o = 4t + k - r4 (image columns out_x0 + 4u + k), whose "+" term P[o + r] = P[4t + k - DELTA]
    // is its own for k >= DELTA.
    let writes = t >= sp.r4 / 2u;
    let u = select(0u, t - sp.r4 / 2u, writes);
    let ox = out_x0 + 4u * u;
    // index (before the +4 shift of the storage) of the "-" term P[o - r - 1] for k = 0
    let minus_cc0 = 4u * t + 3u - sp.r4 - r;

    var incl: array<array<vec4<u32>, 4>, CH>;
    for (var y0 = y_start; y0 < y_end; y0 += LB) {
      for (var c = 0u; c < LB; c += CH) { // @unroll
        // take this round's rows from the ring and refill their slots LB rows ahead
        var e_cur: array<vec4<u32>, CH>;
        var l_cur: array<vec4<u32>, CH>;
        for (var i = 0u; i < CH; i++) { // @unroll
            e_cur[i] = ring_e[c + i];
            l_cur[i] = ring_l[c + i];
            let y = i32(y0 + LB + c + i);
            let ye = clamp_row(y + i32(r));
            let yl = clamp_row(y - i32(r) - 1);
            if (interior) {
                ring_e[c + i] = src[ye * sp.width4 + gi];
                ring_l[c + i] = src[yl * sp.width4 + gi];
            } else {
                ring_e[c + i] = load_clamped(ye, x0);
                ring_l[c + i] = load_clamped(yl, x0);
            }
        }
        // 1. slide the column windows; prefix within the group and across the subgroup
        for (var i = 0u; i < CH; i++) { // @unroll
            vlo = (vlo + (e_cur[i] & vec4<u32>(LO))) - (l_cur[i] & vec4<u32>(LO));
            vhi = (vhi + ((e_cur[i] >> vec4<u32>(8u)) & vec4<u32>(LO))) - ((l_cur[i] >> vec4<u32>(8u)) & vec4<u32>(LO));
            let p0 = channels(vlo.x, vhi.x);
            let p1 = p0 + channels(vlo.y, vhi.y);
            let p2 = p1 + channels(vlo.z, vhi.z);
            let p3 = p2 + channels(vlo.w, vhi.w);
            var ex = vec4<u32>(0u);
            if (ABL != 1u) {
                ex = subgroupExclusiveAdd(p3);
            }
            if (lane == sg_size - 1u) {
                totals[i * MAXSG + g] = ex + p3;
            }
            incl[i][0] = ex + p0;
            incl[i][1] = ex + p1;
            incl[i][2] = ex + p2;
            incl[i][3] = ex + p3;
        }
        if (ABL == 0u) {
            workgroupBarrier();
        }
        // 2. add the totals of the subgroups to the left: prefix over the strip
        if (ABL != 1u) {
            for (var i = 0u; i < CH; i++) { // @unroll
                var off = vec4<u32>(0u);
                for (var k = 0u; k < g; k++) {
                    off += totals[i * MAXSG + k];
                }
                for (var k = 0u; k < 4u; k++) { // @unroll
                    incl[i][k] += off;
                    pre[pre_index(i, 4u * t + k + 4u)] = incl[i][k];
                }
            }
        }
        if (ABL == 0u) {
            workgroupBarrier();
        }
        // 3. window sums, rounded means, stored
        if (writes && ox < sp.width) {
            for (var i = 0u; i < CH; i++) { // @unroll
                let y = y0 + c + i;
                if (y < y_end) {
                    var q: vec4<u32>;
                    for (var k = 0u; k < 4u; k++) { // @unroll
                        var plus: vec4<u32>;
                        if (k >= DELTA) {
                            plus = incl[i][(k + 4u - DELTA) & 3u]; // = k - DELTA, without a negative constant when unrolled
                        } else {
                            plus = pre[pre_index(i, 4u * t + k + 4u - DELTA)];
                        }
                        if (ABL == 1u) {
                            q[k] = div_round(incl[i][k]);
                        } else {
                            q[k] = div_round(plus - pre[pre_index(i, minus_cc0 + k)]);
                        }
                    }
                    if (VEC == 1u) {
                        dst[y * sp.width4 + ox / 4u] = q;
                    } else {
                        for (var k = 0u; k < 4u; k++) { // @unroll
                            let x = ox + k;
                            if (x < sp.width) {
                                let p = y * sp.width + x;
                                dst[p >> 2u][p & 3u] = q[k];
                            }
                        }
                    }
                }
            }
        }
      }
    }
}
