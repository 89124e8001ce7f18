// Separable grey-scale morphology (dilation = max, erosion = min over a square window):
// one horizontal and one vertical 1-D pass, each by the van Herk / Gil-Werman algorithm.
// CPU twin: `separable.rs` (`cpu_morph`).
//
// This file holds what every specialisation shares. The entry points are generated per
// radius by `separable.rs` (`HTile::source`, `VTile::source`) and appended: each invocation owns one
// block of K = 2R+1 consecutive outputs along its line and reads the 2K-1 = 4R+1 inputs
// that cover them, v[0..2K-1) (v[s] is the sample at output position s - R). Then
//   a[j] = max(v[j..K))            suffix maxima of the first K inputs (backward)
//   b[t] = max(v[K..K+t])          prefix maxima of the rest (forward)
//   out[0] = a[0], out[j] = max(a[j], b[j-1])   (window [j, j+2R] = [j, K) + [K, K+j-1])
// about three max operations per output whatever the radius. The code is emitted straight
// (no loops), so every v, a and b is a register and all loads can be in flight at once.
//
//   vertical (`v_words`): invocation (column x, block y) reads its 4R+1 words straight from
//   the buffer (a warp reads 32 adjacent columns: coalesced), rows clamped to the image.
//   horizontal (`h_rgba`, `h_gray`): a workgroup copies TR rows x (NB blocks + halo) into
//   workgroup memory (coalesced, columns clamped), each invocation runs its block from
//   there (stride K is odd, so a warp's reads hit 32 different banks), then the results go
//   back through workgroup memory to be written out coalesced. Past radius 8 this pass
//   runs van Herk on a smaller block radius r' and combines block maxima at 2 or 4
//   offsets (the window of radius r is the union of two overlapping windows of radius
//   ceil((2r-1)/4)): one or two more max per output, measured faster on an H200 than
//   straight-line blocks of more than 17.
//
// Erosion runs the same code on inverted samples (min(a,b) = ~max(~a,~b) per byte): the
// `flip` uniform is 0 or 0xffffffff and is XORed in on load and on store.
//
// Samples stay packed: a u32 holds an RGBA8 pixel, or four horizontally adjacent Gray8
// pixels (vertical pass over Gray8: the four bytes are independent columns); `max4` works
// per byte (written out inline by the generator). The horizontal Gray8 pass unpacks one pixel per element and uses plain `max`.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: MorphParams;

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

// A coordinate clamped into [0, size): replicated edges.
fn clamp_to(v: i32, size: u32) -> u32 {
    return u32(clamp(v, 0, i32(size) - 1));
}

// Vertical pass: word (x, y), y clamped, inverted for erosion.
fn v_load(x: u32, y: i32) -> u32 {
    return src[clamp_to(y, params.height) * params.words_per_row + x] ^ params.flip;
}

fn v_store(x: u32, y: u32, v: u32) {
    if (y < params.height) {
        dst[y * params.words_per_row + x] = v ^ params.flip;
    }
}

// Horizontal passes: sample (x, y) of the source, x clamped; y is already inside.
fn h_load_rgba(x: i32, y: u32) -> u32 {
    return src[y * params.words_per_row + clamp_to(x, params.width)] ^ params.flip;
}

fn h_load_gray(x: i32, y: u32) -> u32 {
    let xc = clamp_to(x, params.width);
    return ((src[y * params.words_per_row + xc / 4u] >> (8u * (xc % 4u))) & 255u) ^ params.flip;
}
