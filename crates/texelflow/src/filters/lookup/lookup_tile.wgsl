// Lookup, schedule `tile`: lookup.wgsl gathering each pixel's 8 corners straight from the
// LUT image (8 scattered words per pixel). Needs lookup_tile_corners.wgsl.

@group(0) @binding(1) var<storage, read> lut: array<u32>;

fn cell_corners(l0: vec3<u32>) -> array<vec4<u32>, 2> {
    return tile_corners(l0);
}
