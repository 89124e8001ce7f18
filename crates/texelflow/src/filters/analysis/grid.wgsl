// Grid-stride loop parameters shared by the analysis kernels (Rust twin: `GridParams` in
// analysis/mod.rs). Images are read as quads of 4 packed RGBA8 pixels (one 16-byte load).
struct GridParams {
    count: u32,   // pixels
    quads: u32,   // whole quads, count / 4; invocation 0 takes the 0..3 pixels after them
    stride: u32,  // invocations in the grid (loop step, in quads)
    extra: u32,   // kernel-specific
}

// Number of pixels after the whole quads (0..3), all in quad `quads`.
fn tail_pixels(g: GridParams) -> u32 {
    return g.count - g.quads * 4u;
}
