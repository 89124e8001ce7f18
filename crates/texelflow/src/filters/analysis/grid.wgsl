// Grid-stride loop helpers shared by the analysis kernels, on `GridParams` (declared in
// analysis/mod.rs, prepended to the kernel). Images are read as quads of 4 packed RGBA8
// pixels (one 16-byte load).

// Number of pixels after the whole quads (0..3), all in quad `quads`.
fn tail_pixels(g: GridParams) -> u32 {
    return g.count - g.quads * 4u;
}
