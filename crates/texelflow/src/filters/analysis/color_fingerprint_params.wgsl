// Uniform of color_fingerprint.wgsl (Rust twin: `FingerprintParams` in color_fingerprint.rs).
struct FingerprintParams {
    width: u32,
    height: u32,
    count: u32,   // pixels
    quads: u32,   // whole quads, count / 4; invocation 0 takes the 0..3 pixels after them
    stride: u32,  // invocations in the grid (loop step, in quads)
    rows: u32,    // block rows, min(grid, height)
    cols: u32,    // block columns, min(grid, width)
    v_step: u32,  // height / rows
    h_step: u32,  // width / cols
    _pad0: u32,   // grid and bits are constants of the kernel
    _pad1: u32,
    _pad2: u32,
}
