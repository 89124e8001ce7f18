// Canny edge detection: what its kernels (canny_*.wgsl) share. CPU twin:
// `CannyEdgeDetection::run_cpu` (canny_edge_detection/mod.rs). Grey images and the per-pixel
// classes are packed 4 pixels per u32 (the Gray8 layout, rows padded to whole words).
// Everything is integer arithmetic, so the GPU and the twin agree bit for bit.

// Classes the classify kernels find: not an edge, candidate (weak), strong.
const CLASS_NONE: u32 = 0u;
const CLASS_WEAK: u32 = 1u;
const CLASS_STRONG: u32 = 2u;

// A label is a pixel index (the union-find parent); a root's top bit says its component
// holds a strong pixel (set by canny_resolve). Images stay below 2^31 pixels.
const LABEL_INDEX: u32 = 0x7fffffffu;
const LABEL_MARK: u32 = 0x80000000u;

// Byte k of a packed word.
fn byte_of(w: u32, k: u32) -> u32 {
    return (w >> (8u * k)) & 255u;
}
