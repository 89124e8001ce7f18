// Bilateral filter from a workgroup tile (schedules `tile`, `tile_bh2` and `tile_lut` of
// `Bilateral`; CPU twin `Bilateral::run_cpu`). The tile holds the workgroup's input pixels and a
// halo of R as exact floats 0..255, loaded once with replicated borders; each invocation
// computes a block of outputs whose windows overlap, so one tile read serves several outputs.
// The window walk is generated for the radius (`bilateral::tile_source`): every tap's tile
// offset and squared distance d2 are literals, the disc test is done when generating, and
// the spatial term is read from the uniform at a literal index.
// Weight of a tap: exp(d2 * space + D^2 * color), D the L1 distance of the colours (an integer
// 0..765), either as exp2 of the summed log2 terms (`tile`) or, as OpenCV computes it, the
// product of a spatial weight and a range weight from a table indexed by D (`tile_lut`; the
// table, 768 entries, copied to workgroup memory; both tables made on the CPU by
// `bilateral::weights`, the twin's).

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> bp: BilateralTileParams;

const R: u32 = 5u; // @specialize
// output rows per invocation
const BH: u32 = 4u; // @specialize
// tile width and height in input pixels
const IW: u32 = 42u; // @specialize
const IH: u32 = 42u; // @specialize
// invocations per workgroup: WX x WY
const WX: u32 = 32u;
const WY: u32 = 8u;

// @generated-begin range_table
// @generated-end range_table

// The range table's index of an exact integer distance 0..765 held as f32: its bits after
// adding 2^23 (no conversion instruction).
fn range_index(d: f32) -> u32 {
    return bitcast<u32>(d + 8388608.0) - 0x4B000000u;
}
