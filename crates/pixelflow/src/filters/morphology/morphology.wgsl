// Separable grey-scale morphology (dilation = max, erosion = min over a square window),
// one 1-D pass per direction with the van Herk / Gil-Werman algorithm.
// CPU twin: `separable.rs` (`cpu_pass`).
//
// Each workgroup owns a tile of LINES lines (rows for the horizontal pass, columns for the
// vertical one) and SEG output positions along them. It copies the tile plus a halo of R on
// each side (clamped to the image: replicate edges) into workgroup memory, then every
// invocation runs van Herk sequentially along its own line:
//   - blocks of K = 2R+1 positions start at the first halo position;
//   - a backward sweep stores, for each window start j < SEG, the suffix max of j's block;
//   - a forward sweep keeps the running prefix max p of the current block and, at
//     position i = j + 2R, finishes out[j] = max(suffix[j], p).
// That is three max operations per position whatever the radius.
//
// Erosion runs the same code on inverted samples (min(a,b) = ~max(~a,~b) per byte): the
// `flip` uniform is 0 or 0xffffffff and is XORed in on load and store.
//
// Samples stay packed: a u32 holds an RGBA8 pixel (horizontal pass), four horizontally
// adjacent Gray8 pixels (vertical pass over Gray8: the four bytes are independent columns),
// or one Gray8 pixel in its low byte (horizontal pass over Gray8). `max4` works per byte, so
// one code path serves all three.

// BEGIN SPECIALISATION (replaced at run time by `separable.rs`; these defaults keep the
// file valid on its own)
const R: u32 = 1u;
const SEG: u32 = 64u;
const LINES: u32 = 64u;
const IN_STRIDE: u32 = 67u;
const OUT_STRIDE: u32 = 65u;
const IN_SIZE: u32 = 4288u;
const OUT_SIZE: u32 = 4160u;
// END SPECIALISATION

const K: u32 = 2u * R + 1u;
// Positions each line holds in workgroup memory: the segment plus its halo.
const EXT: u32 = SEG + 2u * R;

struct MorphParams {
    width: u32,          // in samples along a row: pixels (rgba8 / gray8 horizontal) or words (vertical)
    height: u32,
    words_per_row: u32,  // row pitch of the buffers in u32 words
    flip: u32,           // 0 for dilation, 0xffffffff for erosion
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: MorphParams;

var<workgroup> tile_in: array<u32, IN_SIZE>;
var<workgroup> tile_out: array<u32, OUT_SIZE>;

// Per-byte unsigned max of two packed words, without unpacking.
fn max4(a: u32, b: u32) -> u32 {
    let hi = 0x80808080u;
    // bit 7 of each byte: low seven bits of a >= those of b (no borrow crosses bytes
    // because every minuend byte has its top bit set)
    let lo_ge = (a | hi) - (b & ~hi);
    // full 8-bit a >= b: decided by the top bits when they differ, else by the low bits
    let ge = ((a & ~b) | (~(a ^ b) & lo_ge)) & hi;
    let m = (ge >> 7u) * 255u;
    return (a & m) | (b & ~m);
}

// Van Herk along one line of the tile. Element i of the line is tile_in[ib + i * istep];
// result j goes to tile_out[ob + j * ostep].
fn sweep(ib: u32, istep: u32, ob: u32, ostep: u32) {
    // Backward: suffix maxima for window starts j < SEG. The blocks covering them end at
    // ceil(SEG / K) * K <= SEG + 2R = EXT, so no block is clipped.
    let nback = (SEG + K - 1u) / K;
    for (var b = nback; b > 0u; b--) {
        let lo = (b - 1u) * K;
        var s = tile_in[ib + (lo + K - 1u) * istep];
        for (var t = K; t > 0u; t--) {
            let i = lo + t - 1u;
            s = max4(s, tile_in[ib + i * istep]);
            if (i < SEG) {
                tile_out[ob + i * ostep] = s;
            }
        }
    }
    // Forward: prefix maxima; position i completes the window starting at i - 2R.
    for (var lo = 0u; lo < EXT; lo += K) {
        var p = 0u;
        let n = min(K, EXT - lo);
        for (var t = 0u; t < n; t++) {
            let i = lo + t;
            p = max4(p, tile_in[ib + i * istep]);
            if (i >= 2u * R) {
                let o = ob + (i - 2u * R) * ostep;
                tile_out[o] = max4(tile_out[o], p);
            }
        }
    }
}

fn clamp_coord(base: u32, offset: u32, size: u32) -> u32 {
    // base + offset - R, clamped to [0, size)
    let v = i32(base + offset) - i32(R);
    return u32(clamp(v, 0, i32(size) - 1));
}

// Horizontal pass over RGBA8 (one u32 per pixel): LINES rows x SEG columns per workgroup.
@compute @workgroup_size(LINES)
fn h_rgba(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let x0 = wid.x * SEG;
    let y0 = wid.y * LINES;
    for (var q = lid; q < LINES * EXT; q += LINES) {
        let row = q / EXT;
        let col = q % EXT;
        let y = min(y0 + row, params.height - 1u);
        let x = clamp_coord(x0, col, params.width);
        tile_in[row * IN_STRIDE + col] = src[y * params.words_per_row + x] ^ params.flip;
    }
    workgroupBarrier();
    sweep(lid * IN_STRIDE, 1u, lid * OUT_STRIDE, 1u);
    workgroupBarrier();
    for (var q = lid; q < LINES * SEG; q += LINES) {
        let row = q / SEG;
        let col = q % SEG;
        let y = y0 + row;
        let x = x0 + col;
        if (y < params.height && x < params.width) {
            dst[y * params.words_per_row + x] = tile_out[row * OUT_STRIDE + col] ^ params.flip;
        }
    }
}

// Horizontal pass over Gray8 (four pixels per u32, rows padded to whole words): samples are
// unpacked to one per tile element; SEG is a multiple of 4 so output words never straddle
// tiles. Padding bytes past the width get replicated-edge values: every byte is written.
@compute @workgroup_size(LINES)
fn h_gray(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let x0 = wid.x * SEG;
    let y0 = wid.y * LINES;
    for (var q = lid; q < LINES * EXT; q += LINES) {
        let row = q / EXT;
        let col = q % EXT;
        let y = min(y0 + row, params.height - 1u);
        let x = clamp_coord(x0, col, params.width);
        let byte = (src[y * params.words_per_row + x / 4u] >> (8u * (x % 4u))) & 255u;
        tile_in[row * IN_STRIDE + col] = byte ^ params.flip;
    }
    workgroupBarrier();
    sweep(lid * IN_STRIDE, 1u, lid * OUT_STRIDE, 1u);
    workgroupBarrier();
    let wseg = SEG / 4u;
    for (var q = lid; q < LINES * wseg; q += LINES) {
        let row = q / wseg;
        let wc = q % wseg;
        let y = y0 + row;
        let xw = x0 / 4u + wc;
        if (y < params.height && xw < params.words_per_row) {
            let o = row * OUT_STRIDE + wc * 4u;
            var word = 0u;
            for (var b = 0u; b < 4u; b++) {
                word |= ((tile_out[o + b] ^ params.flip) & 255u) << (8u * b);
            }
            dst[y * params.words_per_row + xw] = word;
        }
    }
}

// Vertical pass over u32 words (RGBA8 pixels, or Gray8 words of four pixels):
// SEG rows x LINES word-columns per workgroup; element (i, column t) at i * LINES + t so
// both the coalesced copy and the per-column sweeps are free of bank conflicts.
@compute @workgroup_size(LINES)
fn v_words(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let x0 = wid.x * LINES;
    let y0 = wid.y * SEG;
    for (var q = lid; q < EXT * LINES; q += LINES) {
        let i = q / LINES;
        let t = q % LINES;
        let y = clamp_coord(y0, i, params.height);
        let x = min(x0 + t, params.width - 1u);
        tile_in[q] = src[y * params.words_per_row + x] ^ params.flip;
    }
    workgroupBarrier();
    sweep(lid, LINES, lid, LINES);
    workgroupBarrier();
    for (var q = lid; q < SEG * LINES; q += LINES) {
        let j = q / LINES;
        let t = q % LINES;
        let y = y0 + j;
        let x = x0 + t;
        if (y < params.height && x < params.width) {
            dst[y * params.words_per_row + x] = tile_out[q] ^ params.flip;
        }
    }
}
