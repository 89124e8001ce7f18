// The JPEG entropy decode on the GPU (issue 30; `io::jpeg_huffdec`): the uniform every kernel
// of it reads, and where a scan unit's block lies.

struct HdU {
    // subsequences, bits per subsequence, blocks per MCU, components in the scan
    a: vec4<u32>,
    // scan units (dummies included), MCUs, MCUs per row, MCUs per restart interval
    b: vec4<u32>,
    // the synchronisation round (0: the first decode from guesses), intervals, MCUs per DC
    // chunk, DC chunks
    c: vec4<u32>,
    // subsequences one invocation reaches per round, rounds recorded, the first word of the
    // coefficients in their buffer, blocks stored
    d: vec4<u32>,
    // per block of the MCU: its component, its column and row within the component's
    // blocks of the MCU, DC table | AC table << 8
    blk: array<vec4<u32>, 10>,
    // per component: its first block, blocks per row, block rows, h | v << 8
    comp: array<vec4<u32>, 4>,
}

const NONE: u32 = 0xffffffffu;

// The stored block of scan unit `unit`, or NONE for a dummy block past the right or bottom edge.
fn block_of(unit: u32) -> u32 {
    if (hu.a.w == 1u) {
        return unit;
    }
    let bpm = hu.a.z;
    let mcu = unit / bpm;
    let bl = hu.blk[unit % bpm];
    let c = hu.comp[min(bl.x, 3u)];
    let h = c.w & 255u;
    let v = c.w >> 8u;
    let bx = (mcu % hu.b.z) * h + bl.y;
    let by = (mcu / hu.b.z) * v + bl.z;
    if (bx >= c.y || by >= c.z) {
        return NONE;
    }
    return c.x + by * c.y + bx;
}
