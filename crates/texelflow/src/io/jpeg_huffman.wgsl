// Baseline Huffman coding of quantised JPEG blocks on the GPU (issue 30), shared by `count`
// (jpeg_huffman_count.wgsl) and `pack` (jpeg_huffman_pack.wgsl), each of which defines
// `emit(code, len)`: `count` adds up each scan unit's bits and scans them within its
// workgroup; `pack` adds the sums of the workgroups before it and writes the unit's codes at
// that bit offset. What libjpeg-turbo's jchuff.c writes with the standard tables (the CPU twin:
// `io::jpeg_file::huffman_twin`): units in scan order (one component: its blocks in raster
// order; three: MCU after MCU, each component's h x v blocks in raster order, the dummy blocks
// past the right and bottom edges coded as a zero block whose DC is the last real block's, as
// jctrans.c makes them), DC as the difference from the component's previous block, AC as
// run/size symbols in zigzag order with ZRL and EOB.

struct Plan {
    // scan units (dummies included), MCUs per row, planes (1: non-interleaved), blocks per MCU
    head: vec4<u32>,
    // per plane: first block in `blocks`, blocks per row, block rows, h | v << 4 | table << 8
    p: array<vec4<u32>, 3>,
}

struct HuffU {
    // [0]: the grey layout's plan, [1]: the colour layout's
    plans: array<Plan, 2>,
    // workgroups `count` ran, the layout when fixed (0: by `flag`, 1: grey, 2: colour), the
    // image's width | height << 16, 0
    misc: vec4<u32>,
}

// the quantised blocks as `jpeg_encode.wgsl`'s `fdct` leaves them: 32 words a block, natural order
@group(0) @binding(0) var<storage, read> blocks: array<u32>;
// per table t (0 luma, 1 chroma), at t * TABLE_WORDS: 12 DC entries, then 256 AC entries; each
// code | length << 16
@group(0) @binding(1) var<storage, read> tables: array<u32>;
// bit 0: not grey, bit 1: not opaque (`jpeg_classify.wgsl`)
@group(0) @binding(2) var<storage, read> flag: array<u32>;
// per unit: its bit offset within its workgroup's bits
@group(0) @binding(3) var<storage, read_write> offs: array<u32>;
// per workgroup of `count`: its bits
@group(0) @binding(4) var<storage, read_write> sums: array<u32>;

const TABLE_WORDS: u32 = 268u;
const NONE: u32 = 0xffffffffu;

var<private> ZIGZAG: array<u32, 64> = array<u32, 64>(
    0u, 1u, 8u, 16u, 9u, 2u, 3u, 10u, 17u, 24u, 32u, 25u, 18u, 11u, 4u, 5u,
    12u, 19u, 26u, 33u, 40u, 48u, 41u, 34u, 27u, 20u, 13u, 6u, 7u, 14u, 21u, 28u,
    35u, 42u, 49u, 56u, 57u, 50u, 43u, 36u, 29u, 22u, 15u, 23u, 30u, 37u, 44u, 51u,
    58u, 59u, 52u, 45u, 38u, 31u, 39u, 46u, 53u, 60u, 61u, 54u, 47u, 55u, 62u, 63u);

// Which plan codes this image: 0 grey, 1 colour.
fn plan_index() -> u32 {
    let fixed = hu.misc.y;
    if (fixed != 0u) { return fixed - 1u; }
    return select(0u, 1u, (flag[0] & 1u) != 0u);
}

fn coef(block: u32, i: u32) -> i32 {
    let w = blocks[block * 32u + (i >> 1u)];
    if ((i & 1u) == 0u) { return bitcast<i32>(w << 16u) >> 16u; }
    return bitcast<i32>(w) >> 16u;
}

fn nbits(a: u32) -> u32 {
    return 32u - countLeadingZeros(a);
}

struct Unit {
    // the block in `blocks`, NONE for a dummy
    block: u32,
    // the block whose DC this one's is coded against, NONE for the component's first
    prev: u32,
    table: u32,
}

fn unit(pl: Plan, n: u32) -> Unit {
    var u: Unit;
    if (pl.head.z == 1u) {
        let q = pl.p[0];
        u.block = q.x + n;
        u.prev = select(NONE, q.x + n - 1u, n > 0u);
        u.table = (q.w >> 8u) & 15u;
        return u;
    }
    let bpm = pl.head.w;
    let mcux = pl.head.y;
    let mcu = n / bpm;
    var r = n % bpm;
    let mx = mcu % mcux;
    let my = mcu / mcux;
    var c = 0u;
    loop {
        let hv = (pl.p[c].w & 15u) * ((pl.p[c].w >> 4u) & 15u);
        if (r < hv || c >= 2u) { break; }
        r -= hv;
        c++;
    }
    let q = pl.p[c];
    let h = q.w & 15u;
    let v = (q.w >> 4u) & 15u;
    u.table = (q.w >> 8u) & 15u;
    let i = r % h;
    let j = r / h;
    let bx = mx * h + i;
    let by = my * v + j;
    u.prev = NONE;
    if (bx >= q.y || by >= q.z) {
        u.block = NONE;
        return u;
    }
    u.block = q.x + by * q.y + bx;
    // the last real block of this component before it in scan order (a dummy carries its DC)
    if (i > 0u) {
        u.prev = u.block - 1u;
    } else if (j > 0u) {
        let col = min(h - 1u, q.y - 1u - mx * h);
        u.prev = q.x + (by - 1u) * q.y + mx * h + col;
    } else if (mcu > 0u) {
        let pmx = (mcu - 1u) % mcux;
        let pmy = (mcu - 1u) / mcux;
        let row = min(v - 1u, q.z - 1u - pmy * v);
        let col = min(h - 1u, q.y - 1u - pmx * h);
        u.prev = q.x + (pmy * v + row) * q.y + pmx * h + col;
    }
    return u;
}

fn emit_symbol(entry: u32) {
    emit(entry & 65535u, entry >> 16u);
}

// A value's `s` low bits as jchuff.c writes them (negative values as v - 1).
fn emit_value(v: i32, s: u32) {
    if (s > 0u) {
        emit(bitcast<u32>(select(v, v - 1i, v < 0i)) & ((1u << s) - 1u), s);
    }
}

fn code_unit(u: Unit) {
    let base = u.table * TABLE_WORDS;
    var diff = 0i;
    if (u.block != NONE) {
        diff = coef(u.block, 0u);
        if (u.prev != NONE) { diff -= coef(u.prev, 0u); }
    }
    let s = nbits(u32(abs(diff)));
    emit_symbol(tables[base + s]);
    emit_value(diff, s);
    if (u.block == NONE) {
        emit_symbol(tables[base + 12u]);
        return;
    }
    var run = 0u;
    for (var k = 1u; k < 64u; k++) {
        let v = coef(u.block, ZIGZAG[k]);
        if (v == 0i) {
            run++;
            continue;
        }
        while (run > 15u) {
            emit_symbol(tables[base + 12u + 0xf0u]);
            run -= 16u;
        }
        let sz = nbits(u32(abs(v)));
        emit_symbol(tables[base + 12u + (run << 4u) + sz]);
        emit_value(v, sz);
        run = 0u;
    }
    if (run > 0u) {
        emit_symbol(tables[base + 12u]);
    }
}
