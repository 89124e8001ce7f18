// `pack` of jpeg_huffman.wgsl: each unit's codes at its bit offset, most significant bit first
// in 32-bit words (the host writes each word big-endian); the header of the `DataKind::Bytes`
// output: [0] bytes of whole words, [1] bits, [2] bit 0: the colour layout, bit 1: not opaque,
// [3] the image's width | height << 16.

@group(0) @binding(5) var<storage, read_write> out: array<atomic<u32>>;
@group(0) @binding(6) var<uniform> hu: HuffU;

const HEADER_WORDS: u32 = 4u;

var<private> pos: u32;
var<private> cur: u32;
var<private> first_word: u32;
var<workgroup> part: array<u32, 256>;

// The first and the last word a unit writes are shared with its neighbours: ORed in (the
// buffer starts zeroed); those between are its own.
fn flush(word: u32, edge: bool) {
    if (edge || word == first_word) {
        atomicOr(&out[HEADER_WORDS + word], cur);
    } else {
        atomicStore(&out[HEADER_WORDS + word], cur);
    }
}

fn emit(code: u32, len: u32) {
    let off = pos & 31u;
    if (off + len < 32u) {
        cur |= code << (32u - off - len);
    } else {
        let rest = off + len - 32u;
        cur |= code >> rest;
        flush(pos >> 5u, false);
        cur = select(0u, code << (32u - rest), rest > 0u);
    }
    pos += len;
}

@compute @workgroup_size(256)
fn pack(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = wid.y * nwg.x + wid.x;
    let n = g * 256u + lid;
    let which = plan_index();
    let pl = hu.plans[which];
    // this workgroup's first bit: the bits of the workgroups before it
    var s = 0u;
    for (var k = lid; k < g; k += 256u) {
        s += sums[k];
    }
    part[lid] = s;
    workgroupBarrier();
    for (var d = 128u; d > 0u; d >>= 1u) {
        if (lid < d) { part[lid] += part[lid + d]; }
        workgroupBarrier();
    }
    let base = part[0];
    if (g + 1u == hu.misc.x && lid == 0u) {
        let total = base + sums[g];
        atomicStore(&out[0], (total + 31u) / 32u * 4u);
        atomicStore(&out[1], total);
        atomicStore(&out[2], which | (flag[0] & 2u));
        atomicStore(&out[3], hu.misc.z);
    }
    if (n >= pl.head.x) { return; }
    pos = base + offs[n];
    first_word = pos >> 5u;
    cur = 0u;
    code_unit(unit(pl, n));
    if ((pos & 31u) != 0u) {
        flush(pos >> 5u, true);
    }
}
