// The Huffman decode of a JPEG scan (issue 30; `io::jpeg_huffdec`), shared by the
// synchronisation kernels (jpeg_huffdec_sync.wgsl) and the writing one
// (jpeg_huffdec_write.wgsl), each of which defines `emit_dc(unit, diff)`,
// `emit_ac(unit, k, value)`, `emit_bad(unit)` (a code longer than 16 bits in scan unit `unit`:
// libjpeg's JWRN_HUFF_BAD_CODE) and `emit_end(unit)` (unit `unit` complete, `p_pos` past its
// last bit: the writing kernel checks it against its interval's real end). A decoder's state at a subsequence boundary is packed in one word:
// the bits its last symbol ran past the boundary (0..31) | the coefficient expected next in
// zigzag order (0: the DC) << 5 | the block of the MCU << 11 | blocks started in the
// subsequence << 15. What libjpeg-turbo's jdhuff.c decodes (`decode_mcu`), AC runs past 63
// landing on 63 as its `jpeg_natural_order` does, a code longer than 16 bits read as symbol 0
// after 17 bits.

// the entropy-coded bits, most significant first in each word; each restart interval from a
// subsequence boundary
@group(0) @binding(0) var<storage, read> sbits: array<u32>;
// 8 tables (DC 0..4, AC 0..4) of TABLE_WORDS, then the natural index of each zigzag position
@group(0) @binding(1) var<storage, read> tabs: array<u32>;
// per subsequence its interval, then per interval its first subsequence, then per interval the
// bit where its entropy-coded data really ends (before the padding)
@group(0) @binding(2) var<storage, read> ivls: array<u32>;
// per subsequence the state at its end, then per round whether it changed a state
@group(0) @binding(3) var<storage, read_write> st: array<atomic<u32>>;

const LOOK: u32 = 9u;
const TABLE_WORDS: u32 = 804u;
const MAXCODE: u32 = 512u;
const VALOFF: u32 = 530u;
const VALS: u32 = 548u;

var<private> p_pos: u32;
var<private> p_z: u32;
var<private> p_b: u32;
var<private> p_unit: u32;
var<private> p_count: u32;

// 32 bits from bit `pos` (zeros past the end)
fn peek(pos: u32) -> u32 {
    let w = pos >> 5u;
    let s = pos & 31u;
    let n = arrayLength(&sbits);
    var a = 0u;
    var c = 0u;
    if (w < n) {
        a = sbits[w];
    }
    if (w + 1u < n) {
        c = sbits[w + 1u];
    }
    if (s == 0u) {
        return a;
    }
    return (a << s) | (c >> (32u - s));
}

fn take(n: u32) -> u32 {
    if (n == 0u) {
        return 0u;
    }
    let v = peek(p_pos) >> (32u - n);
    p_pos += n;
    return v;
}

// libjpeg's HUFF_EXTEND
fn extend(r: u32, s: u32) -> i32 {
    if (s == 0u) {
        return 0i;
    }
    if (r < (1u << (s - 1u))) {
        return i32(r) - (1i << s) + 1i;
    }
    return i32(r);
}

fn huff(slot: u32) -> u32 {
    let bits = peek(p_pos);
    let base = min(slot, 7u) * TABLE_WORDS;
    let e = tabs[base + (bits >> (32u - LOOK))];
    if (e != 0u) {
        p_pos += e >> 8u;
        return e & 255u;
    }
    for (var l = LOOK + 1u; l <= 16u; l += 1u) {
        let code = i32(bits >> (32u - l));
        if (code <= bitcast<i32>(tabs[base + MAXCODE + l])) {
            p_pos += l;
            let k = u32(code + bitcast<i32>(tabs[base + VALOFF + l])) & 255u;
            return tabs[base + VALS + k];
        }
    }
    // libjpeg reads 17 bits as symbol 0 (warning, except in libjpeg-turbo's fast path): the
    // data is damaged (DC tables are slots 0..3, their unit not yet counted)
    emit_bad(select(p_unit - 1u, p_unit, slot < 4u));
    p_pos += 17u;
    return 0u;
}

// one symbol and its value bits
fn step() {
    let blk = hu.blk[min(p_b, 9u)];
    if (p_z == 0u) {
        let s = huff(blk.w & 255u) & 15u;
        emit_dc(p_unit, extend(take(s), s));
        p_unit += 1u;
        p_count += 1u;
        p_z = 1u;
        return;
    }
    let sym = huff(4u + (blk.w >> 8u));
    let r = sym >> 4u;
    let s = sym & 15u;
    if (s != 0u) {
        p_z += r;
        let v = extend(take(s), s);
        emit_ac(p_unit - 1u, min(p_z, 63u), v);
        p_z += 1u;
    } else if (r == 15u) {
        p_z += 16u;
    } else {
        p_z = 64u;
    }
    if (p_z >= 64u) {
        emit_end(p_unit - 1u);
        p_z = 0u;
        p_b += 1u;
        if (p_b >= hu.a.z) {
            p_b = 0u;
        }
    }
}

// Decodes subsequence `j` from the packed state `entry` (its block count ignored): every
// symbol that starts within it. The state at its end, packed.
fn run_sub(j: u32, entry: u32) -> u32 {
    let end = (j + 1u) * hu.a.y;
    p_pos = j * hu.a.y + (entry & 31u);
    p_z = (entry >> 5u) & 63u;
    p_b = (entry >> 11u) & 15u;
    if (p_b >= hu.a.z) {
        p_b = 0u;
    }
    p_count = 0u;
    while (p_pos < end) {
        step();
    }
    return min(p_pos - end, 31u) | (p_z << 5u) | (p_b << 11u) | (min(p_count, 65535u) << 15u);
}

// whether subsequence `j` starts a restart interval (its state there is known)
fn is_head(j: u32) -> bool {
    return ivls[hu.a.x + ivls[j]] == j;
}
