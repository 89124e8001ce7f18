// Canny, schedule `tiles`: what its kernels share (canny_tiles_*.wgsl; see
// canny_tiles_classify.wgsl for the scheme). Tiles of 64 x 16 pixels (16 x 16 packed words).

// Node slots of the global union-find per tile (at most 78 components touch a tile's ring).
const NODES_PER_TILE: u32 = 80u;
// Border bytes per tile (top row 64, bottom row 64, left column 16, right column 16), 4 a word.
const BORDER_WORDS: u32 = 40u;
// Per tile in `pending`: the mask of packed words holding a pending pixel (256 bits, 8 words),
// then the number of weak nodes.
const PENDING_WORDS: u32 = 8u;
const PENDING_STRIDE: u32 = 9u;
// A border byte without a node.
const NO_NODE: u32 = 0xffu;

fn tiles_x() -> u32 {
    return (params.words + 15u) / 16u;
}

fn tiles_y() -> u32 {
    return (params.height + 15u) / 16u;
}
