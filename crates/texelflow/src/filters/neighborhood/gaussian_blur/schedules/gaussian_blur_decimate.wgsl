// Decimated Gaussian for large sigma; appended to gaussian_blur.wgsl (its uniform, bindings
// and helpers). gaussian_blur.rs (`decimation_step`) picks the node spacing D and states
// the error bound.
//
// The exact blur h = T (x) T * f (T the twin's truncated kernel) is computed only at the
// nodes of a grid with spacing D (node n at position (n - 1) * D, so nodes -1 and the two
// past the image exist and every pixel has the 4 nodes a cubic needs), then interpolated
// back to every pixel with 4-point Lagrange cubics, first down the node columns, then
// along the rows. Computing h exactly at the nodes (not blurring a decimated image) leaves
// the interpolation as the only approximation: for any image in [0, 255] its error is at
// most (1 + L) * 127.5 * max_p || T(p - .) - sum_j c_j(p) T(jD - .) ||_1, L = max_p sum_j
// |c_j(p)|, which gaussian_blur.rs computes per sigma and keeps below one level.
//
// Three kernels:
// - `decim_h`: row pass at node columns only. One workgroup of HWG invocations per
//   SEG = HWG * B node columns of one row; the row segment (ROW_IN pixels) sits in
//   workgroup memory; each invocation makes B consecutive node columns. The taps are split
//   by phase (polyphase): with k = q * D + s, node b sums w[q * D + s] * f(x0 + s + (q + b) * D),
//   so for each phase s the inputs x0 + s + t * D (t = 0, 1, ...) form a stride-1 sequence
//   and a window of B of them in registers feeds B nodes per read, as in the two-pass
//   window kernels. Taps past 2R have zero weight. Out: value / 255 as `Node`.
// - `decim_v`: column pass at node rows, same scheme with BV nodes per invocation and the
//   phases split over PS invocations (for enough invocations: there are only
//   nodes_x * nodes_y / BV), reading the row pass's output straight from memory
//   (consecutive invocations, consecutive node columns).
// The two node passes run in either order (gaussian_blur_decimate.rs picks; the sums are
// the same, the twin's replicate-edge blur being separable either way). Column pass first
// (the default): `decim_v` reads the image (`dec_src_col`) at node rows for every column, so
// each warp reads whole rows, and `decim_h` then reads those node rows (`dec_node_row_in`);
// optionally both as column passes, the node rows stored transposed in between.
// - `decim_up`: cubic interpolation to every pixel; each invocation makes 2 consecutive
//   columns of TH consecutive rows, keeping the 4 node rows its cubic needs, each already
//   interpolated along the row, in registers, and the next one loaded ahead; 8-byte stores
//   when the width is even.

const R: u32 = 24u; // @specialize  radius
const D: u32 = 3u; // @specialize  node spacing
const Q: u32 = 17u; // @specialize  taps per phase: ceil((2R + 1) / D)
const QV: u32 = 5u; // @specialize  vec4s per phase in `wp`: ceil(Q / 4)
const B: u32 = 8u; // @specialize  node outputs per invocation of the row pass
const BV: u32 = 2u; // @specialize  node outputs per invocation of the column pass
const HWG: u32 = 32u; // @specialize  invocations per row-pass workgroup
// where the row pass reads its row segment: 0 unpacked vec4<f32> in workgroup memory, 1
// packed RGBA8 in workgroup memory, 2 straight from memory (through the L1 cache: no
// workgroup memory, which on NVIDIA's Vulkan driver limits the resident workgroups)
const ROW_MODE: u32 = 1u; // @specialize
const TH: u32 = 16u; // @specialize  output rows per `decim_up` invocation

// Node columns per row-pass workgroup: at most SEG; `gp.seg_nodes` (a multiple of B) spreads
// a row's nodes evenly over its workgroups.
const SEG: u32 = HWG * B;
// pixels of the largest row segment: the last invocation's last phase reads t = Q + B - 2
const ROW_IN: u32 = D * (SEG + Q - 1u);
// one padding slot per B * D pixels: invocation i starts at slot i * (B * D + 1), an odd
// stride (B is even), so the HWG invocations' reads hit distinct banks
const ROW_SLOTS: u32 = ROW_IN + ROW_IN / (B * D) + 1u;
// each array is ROW_SLOTS long in its mode, 1 otherwise
const PX_SLOTS: u32 = 1u; // @specialize
const PACKED_SLOTS: u32 = 851u; // @specialize
var<workgroup> dec_px: array<vec4<f32>, PX_SLOTS>;
var<workgroup> dec_packed: array<u32, PACKED_SLOTS>;
// mode 2: the row and the segment's first pixel
var<private> dec_row: u32;
var<private> dec_x0: i32;

fn dec_slot(i: u32) -> u32 {
    return i + i / (B * D);
}

fn dec_row_in(i: u32) -> vec4<f32> {
    if (ROW_MODE == 2u) {
        return bytes4(src[dec_row + u32(clamp(dec_x0 + i32(i), 0, i32(gp.width) - 1))]);
    }
    if (ROW_MODE == 1u) {
        return bytes4(dec_packed[dec_slot(i)]);
    }
    return dec_px[dec_slot(i)];
}

// How node values (0..1: value / 255) are stored between passes: unorm16 x 4 (default
// here), f16 x 4 (offset by -0.5, halving the rounding error) or f32 x 4. Replaced per
// schedule by gaussian_blur.rs.
// @generated-begin node_format
alias Node = vec2<u32>;
fn node_store(v: vec4<f32>) -> Node {
    return vec2<u32>(pack2x16unorm(v.xy), pack2x16unorm(v.zw));
}
fn node_load(p: Node) -> vec4<f32> {
    return vec4<f32>(unpack2x16unorm(p.x), unpack2x16unorm(p.y));
}
// @generated-end node_format

// Node values: row pass output (nodes_x per image row), column pass output (nodes_x per
// node row). Bindings as the other passes' src/dst.
@group(0) @binding(1) var<storage, read_write> node_out: array<Node>;
@group(0) @binding(0) var<storage, read> node_in: array<Node>;

fn dec_put(i: u32, p: u32) {
    if (ROW_MODE == 1u) {
        dec_packed[dec_slot(i)] = p;
    } else {
        dec_px[dec_slot(i)] = bytes4(p);
    }
}

@compute @workgroup_size(HWG)
fn decim_h(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    // first node of the workgroup: n = wid.x * seg_nodes, at x = (n - 1) * D; its first tap
    // R to the left
    let x0 = (i32(wid.x * gp.seg_nodes) - 1) * i32(D) - i32(R);
    let n_in = D * (gp.seg_nodes + Q - 1u);
    let wmax = i32(gp.width) - 1;
    let row = wid.y * gp.width;
    dec_row = row;
    dec_x0 = x0;
    // the segment: every load of an invocation in flight at once (generated: ROW_IN / HWG
    // rounded up, at most ~B * D + Q); in rounds of 4 they were a chain of memory latencies
    // that every workgroup of a wave waited out together before computing
    // @generated-begin decim_h_load
    for (var i = lid; ROW_MODE != 2u && i < n_in; i += HWG) {
        dec_put(i, src[row + u32(clamp(x0 + i32(i), 0, wmax))]);
    }
    // @generated-end decim_h_load
    workgroupBarrier();
    if (lid * B >= gp.seg_nodes) {
        return;
    }
    let base = lid * B * D;
    // @generated-begin decim_h
    var a0 = vec4<f32>(0.0);
    for (var s = 0u; s < D; s++) {
        a0 += gp.wp[s * QV].x * dec_row_in(base + s);
    }
    // @generated-end decim_h
    let n0 = wid.x * gp.seg_nodes + lid * B;
    let out_row = wid.y * gp.nodes_x;
    // @generated-begin decim_h_store
    if (n0 < gp.nodes_x) {
        node_out[out_row + n0] = node_store(a0 * (1.0 / 255.0));
    }
    // @generated-end decim_h_store
}

// Column-first order (`cf`): the row pass reads the column pass's node rows (row `dec_row`
// of width gp.width, clamped at the row's ends) ...
fn dec_node_row_in(i: u32) -> vec4<f32> {
    return node_load(node_in[dec_row + u32(clamp(dec_x0 + i32(i), 0, i32(gp.width) - 1))]);
}

// ... and the column pass reads the image at column x, row y (clamped).
fn dec_src_col(x: u32, y: i32) -> vec4<f32> {
    let yc = u32(clamp(y, 0, i32(gp.height) - 1));
    return bytes4(src[yc * gp.width + x]);
}

// Row-pass output row y (clamped: rows outside the image are the edge rows' row pass) at
// node column n.
fn dec_col_in(n: u32, y: i32) -> vec4<f32> {
    let yc = u32(clamp(y, 0, i32(gp.height) - 1));
    return node_load(node_in[yc * gp.nodes_x + n]);
}

// Column pass: PS invocations per node column and BV node rows, each summing the phases
// s = g, g + PS, ... (g its index), so that a column's D phases run side by side (with one
// invocation per column they were D rounds of dependent loads, and at sigma 32 there are
// few columns); the partial sums meet in workgroup memory, added in the order of g.
const PS: u32 = 1u; // @specialize  phase groups
const VPART: u32 = 1u; // @specialize  (PS - 1) * 64 * BV, at least 1
var<workgroup> vpart: array<vec4<f32>, VPART>;

@compute @workgroup_size(64, PS)
fn decim_v(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let n = wid.x * 64u + lid.x;
    let m0 = wid.y * BV;
    let g = lid.y;
    let live = n < gp.nodes_x && m0 < gp.nodes_y;
    // node row m0 sits at y = (m0 - 1) * D; its first tap R above
    let y0 = (i32(m0) - 1) * i32(D) - i32(R);
    // @generated-begin decim_v
    var a0 = vec4<f32>(0.0);
    if (live) {
        for (var s = g; s < D; s += PS) {
            a0 += gp.wp[s * QV].x * dec_col_in(n, y0 + i32(s));
        }
    }
    // @generated-end decim_v
    // @generated-begin decim_v_combine
    // @generated-end decim_v_combine
    if (g != 0u || !live) {
        return;
    }
    // @generated-begin decim_v_store
    node_out[m0 * gp.nodes_x + n] = node_store(a0);
    // @generated-end decim_v_store
}

// The 5 node values of node row m (clamped to the grid: the row past the last is loaded
// ahead and never used), still packed.
struct Raw5 {
    v0: Node,
    v1: Node,
    v2: Node,
    v3: Node,
    v4: Node,
}

fn load5(m: u32, j0: u32) -> Raw5 {
    let row = min(m, gp.nodes_y - 1u) * gp.nodes_x;
    let last = gp.nodes_x - 1u;
    return Raw5(node_in[row + j0], node_in[row + j0 + 1u], node_in[row + j0 + 2u], node_in[row + j0 + 3u], node_in[row + min(j0 + 4u, last)]);
}

fn taps_of(x: u32, j0: u32) -> array<f32, 5> {
    let k = gp.cubic[x % D];
    let e = (x / D) != j0;
    return array<f32, 5>(select(k.x, 0.0, e), select(k.y, k.x, e), select(k.z, k.y, e), select(k.w, k.z, e), select(0.0, k.w, e));
}

// Output pixel from 0..1 values (replaced by float-magic rounding in some schedules).
// @generated-begin out_pack
fn out_pack(v: vec4<f32>) -> u32 {
    return pack4x8unorm(v);
}
// @generated-end out_pack

// Node m's row interpolated along the row for the invocation's 2 output columns: node
// columns j0 .. j0 + 4 (the last clamped to the grid; its weight is zero when it is past it)
// with 5-tap coefficient vectors (the cubic's 4 taps, shifted by one for a column whose
// cubic starts one node later). Two columns per invocation, not 4: half the registers for
// the 4 node rows kept, more invocations resident (H200 run g11: sigma 8 / 12 / 32 0.1075 /
// 0.1090 / 0.1187 ms against 0.1102 / 0.1096 / 0.1234 with 4 columns and 16-byte stores).
struct Across {
    o0: vec4<f32>,
    o1: vec4<f32>,
}

struct Taps5 {
    c0: vec2<f32>,
    c1: vec2<f32>,
    c2: vec2<f32>,
    c3: vec2<f32>,
    c4: vec2<f32>,
}

fn across(r: Raw5, c: Taps5) -> Across {
    let v0 = node_load(r.v0);
    let v1 = node_load(r.v1);
    let v2 = node_load(r.v2);
    let v3 = node_load(r.v3);
    let v4 = node_load(r.v4);
    return Across(
        c.c0.x * v0 + c.c1.x * v1 + c.c2.x * v2 + c.c3.x * v3 + c.c4.x * v4,
        c.c0.y * v0 + c.c1.y * v1 + c.c2.y * v2 + c.c3.y * v3 + c.c4.y * v4,
    );
}

// The output as pixel pairs, for 8-byte stores when the width is even.
@group(0) @binding(1) var<storage, read_write> dst2: array<vec2<u32>>;

@compute @workgroup_size(64)
fn decim_up(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x0 = gid.x * 2u;
    let y0 = gid.y * TH;
    if (x0 >= gp.width || y0 >= gp.height) {
        return;
    }
    let j0 = x0 / D;
    let t0 = taps_of(x0, j0);
    let t1 = taps_of(x0 + 1u, j0);
    let c = Taps5(vec2<f32>(t0[0], t1[0]), vec2<f32>(t0[1], t1[1]), vec2<f32>(t0[2], t1[2]), vec2<f32>(t0[3], t1[3]), vec2<f32>(t0[4], t1[4]));
    var k = y0 / D;
    var q = y0 % D;
    var r0 = across(load5(k, j0), c);
    var r1 = across(load5(k + 1u, j0), c);
    var r2 = across(load5(k + 2u, j0), c);
    var r3 = across(load5(k + 3u, j0), c);
    var ahead = load5(k + 4u, j0);
    // @generated-begin decim_up_rows
    let y_end = min(y0 + TH, gp.height);
    for (var y = y0; y < y_end; y++) {
        if (q == D) {
            q = 0u;
            k += 1u;
            r0 = r1;
            r1 = r2;
            r2 = r3;
            r3 = across(ahead, c);
            ahead = load5(k + 4u, j0);
        }
        put_row(y, x0, gp.cubic[q], r0, r1, r2, r3);
        q += 1u;
    }
    // @generated-end decim_up_rows
}

fn put_row(y: u32, x0: u32, cy: vec4<f32>, r0: Across, r1: Across, r2: Across, r3: Across) {
    let row = y * gp.width;
    let o0 = out_pack(cy.x * r0.o0 + cy.y * r1.o0 + cy.z * r2.o0 + cy.w * r3.o0);
    let o1 = out_pack(cy.x * r0.o1 + cy.y * r1.o1 + cy.z * r2.o1 + cy.w * r3.o1);
    // @generated-begin decim_up_store
    dst[row + x0] = o0;
    if (x0 + 1u < gp.width) { dst[row + x0 + 1u] = o1; }
    // @generated-end decim_up_store
}
