// The last decode of the JPEG entropy decode (jpeg_huffdec.wgsl): each subsequence from its
// exact state, its first block's scan unit from the prefix sum of blocks started
// (jpeg_huffdec_scan.wgsl); AC coefficients into their blocks (natural order, two i16 to a
// word, the first in the low half, ORed into a zeroed buffer), DC differences per unit.
// Units past their restart interval (the padding decoded as symbols) are dropped.

// per subsequence the blocks started before it within its workgroup of 256, then per
// workgroup those before it
@group(0) @binding(4) var<storage, read> scan: array<u32>;
@group(0) @binding(5) var<storage, read_write> coef: array<atomic<u32>>;
// per scan unit its DC difference
@group(0) @binding(6) var<storage, read_write> dcd: array<i32>;
@group(0) @binding(7) var<uniform> hu: HdU;

var<private> p_lo: u32;
var<private> p_hi: u32;

fn emit_dc(unit: u32, diff: i32) {
    if (unit >= p_lo && unit < p_hi) {
        dcd[unit] = diff;
    }
}

fn emit_ac(unit: u32, k: u32, v: i32) {
    if (unit < p_lo || unit >= p_hi) {
        return;
    }
    let b = block_of(unit);
    if (b == NONE || b >= hu.d.w) {
        return;
    }
    let n = tabs[8u * TABLE_WORDS + k];
    atomicOr(&coef[hu.d.z + b * 32u + n / 2u], (u32(v) & 0xffffu) << ((n & 1u) * 16u));
}

fn blocks_before(j: u32) -> u32 {
    return scan[j] + scan[hu.a.x + j / 256u];
}

@compute @workgroup_size(64)
fn decode(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let j = linear_id(wid, nwg, lid, 64u);
    let subs = hu.a.x;
    if (j >= subs) {
        return;
    }
    // a `DataKind::Bytes` stream's header word 1: the synchronisation rounds that changed a
    // state, | 1 << 16 where the in-order walk ran
    if (j == 0u && hu.d.z == 4u) {
        var changed = 0u;
        for (var r = 1u; r <= hu.d.y; r += 1u) {
            changed += min(atomicLoad(&st[subs + r]), 1u);
        }
        if (atomicLoad(&st[subs + hu.d.y]) != 0u) {
            changed |= 1u << 16u;
        }
        atomicStore(&coef[1], changed);
    }
    let ivl = ivls[j];
    let first = ivls[subs + ivl];
    let per = hu.b.w * hu.a.z;
    p_lo = ivl * per;
    p_hi = min(p_lo + per, hu.b.x);
    p_unit = p_lo + blocks_before(j) - blocks_before(first);
    var entry = 0u;
    if (first != j) {
        entry = atomicLoad(&st[j - 1u]);
    }
    run_sub(j, entry);
}
