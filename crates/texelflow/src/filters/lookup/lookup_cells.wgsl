// Lookup, schedule `cells` (the default), step 2: lookup.wgsl reading each pixel's 8 corners
// as one 32-byte cell of the re-laid LUT (step 1: lookup_cells_expand.wgsl).

@group(0) @binding(1) var<storage, read> cells: array<vec4<u32>>;

fn cell_corners(l0: vec3<u32>) -> array<vec4<u32>, 2> {
    let cell = (l0.z * 64u + l0.y) * 64u + l0.x;
    return array<vec4<u32>, 2>(cells[2u * cell], cells[2u * cell + 1u]);
}
