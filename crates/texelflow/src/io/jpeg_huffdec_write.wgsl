// The last decode of the JPEG entropy decode (jpeg_huffdec.wgsl): each subsequence from its
// exact state, its first block's scan unit from the prefix sum of blocks started
// (jpeg_huffdec_scan.wgsl); AC coefficients into their blocks (natural order, two i16 to a
// word, the first in the low half, ORed into a zeroed buffer), DC differences per unit.
// Units past their restart interval (the padding decoded as symbols) are dropped. Damage that
// libjpeg-turbo warns about is flagged in `status` (one atomic write, only where found): a bad
// code in a unit of the interval; the interval's units running past its real data (JWRN_HIT_MARKER),
// or not complete within its subsequences; a whole byte or more left after them
// (JWRN_EXTRANEOUS_DATA; libjpeg-turbo may not warn for the last interval's few bytes: flagged
// anyway, the host then decodes an undamaged file the same).

// per subsequence the blocks started before it within its workgroup of 256, then per
// workgroup those before it
@group(0) @binding(4) var<storage, read> scan: array<u32>;
@group(0) @binding(5) var<storage, read_write> coef: array<atomic<u32>>;
// per scan unit its DC difference
@group(0) @binding(6) var<storage, read_write> dcd: array<i32>;
// word 1 (a `DataKind::Bytes` header's): the damage found, `io::jpeg_coef::DAMAGE_*` bits
@group(0) @binding(7) var<storage, read_write> status: array<atomic<u32>>;
@group(0) @binding(8) var<uniform> hu: HdU;

const BAD_CODE: u32 = 1u;
const SHORT: u32 = 2u;
const EXTRA: u32 = 4u;

var<private> p_lo: u32;
var<private> p_hi: u32;
// the bit where the interval's real data ends
var<private> p_end: u32;

fn emit_bad(unit: u32) {
    if (unit >= p_lo && unit < p_hi) {
        atomicOr(&status[1], BAD_CODE);
    }
}

// the interval's last unit complete: its bits must end within the data, and less than a byte
// before its end (the encoder's padding)
fn emit_end(unit: u32) {
    if (unit + 1u != p_hi) {
        return;
    }
    if (p_pos > p_end) {
        atomicOr(&status[1], SHORT);
    } else if (p_end - p_pos >= 8u) {
        atomicOr(&status[1], EXTRA);
    }
}

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
    p_end = ivls[subs + hu.c.y + ivl];
    var entry = 0u;
    if (first != j) {
        entry = atomicLoad(&st[j - 1u]);
    }
    run_sub(j, entry);
    // the interval's last subsequence: its units must be complete (else they run on into the
    // next interval's data, which libjpeg would read as zeros past a marker)
    let last = j + 1u == subs || is_head(j + 1u);
    if (last && (p_unit < p_hi || (p_unit == p_hi && p_z != 0u))) {
        atomicOr(&status[1], SHORT);
    }
}
