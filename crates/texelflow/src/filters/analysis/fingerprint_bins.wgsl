// Colour-fingerprint bins (assess::FingerprintLayout), shared by color_fingerprint.wgsl and
// the fused photo_assessment pass (photo_metrics_fingerprint.wgsl). The including kernel
// binds the `DataKind::Fingerprint` buffer as `fp` and defines `fn fp_layout() -> FpLayout`
// from its uniform; the generated part (`fingerprint_generated` in color_fingerprint.rs)
// gives FP_GRID, FP_BITS, BINS, USE_WG and the workgroup bins `fp_wg`. Grid and bits are
// constants so the block lookup unrolls and the shifts fold.

// Header words before the first bin (value::FINGERPRINT_HEADER_WORDS).
const FP_HEADER: u32 = 4u;

// The image's blocks (the grid and bits are the constants FP_GRID, FP_BITS).
struct FpLayout {
    rows: u32,    // block rows, min(grid, height)
    cols: u32,    // block columns, min(grid, width)
    v_step: u32,  // height / rows
    h_step: u32,  // width / cols
}

// min(v / step, n - 1) without a division: the number of block boundaries k * step
// (k = 1..n-1, n <= FP_GRID) at or below v.
fn block_coord(v: u32, step: u32, n: u32) -> u32 {
    var b = 0u;
    for (var k = 1u; k < FP_GRID; k++) {
        b += select(0u, 1u, k < n && v >= k * step);
    }
    return b;
}

// The bin of pixel (x, y) of colour c: block + grid^2 * (R' + (G' << bits) + (B' << 2 bits)).
fn fingerprint_bin(l: FpLayout, c: vec4<u32>, x: u32, y: u32) -> u32 {
    let s = 8u - FP_BITS;
    let colour = (c.x >> s) | ((c.y >> s) << FP_BITS) | ((c.z >> s) << (2u * FP_BITS));
    let block = block_coord(y, l.v_step, l.rows) * l.cols + block_coord(x, l.h_step, l.cols);
    return block + FP_GRID * FP_GRID * colour;
}

// Adds n pixels to bin b: in the workgroup's bins, or straight to the global ones.
fn fp_count(b: u32, n: u32) {
    if (USE_WG) {
        atomicAdd(&fp_wg[b], n);
    } else {
        atomicAdd(&fp[FP_HEADER + b], n);
    }
}

// Adds the workgroup's bins to the global counts (after a barrier); empty bins cost no
// global atomic.
fn fp_merge(lid: u32, wg_size: u32) {
    if (USE_WG) {
        for (var i = lid; i < BINS; i += wg_size) {
            let v = atomicLoad(&fp_wg[i]);
            if (v != 0u) {
                atomicAdd(&fp[FP_HEADER + i], v);
            }
        }
    }
}

// The header: grid, bits and the pixel count (below 2^31, so its high word stays 0).
fn fp_header(pixels: u32) {
    atomicStore(&fp[0], FP_GRID);
    atomicStore(&fp[1], FP_BITS);
    atomicStore(&fp[2], pixels);
}
