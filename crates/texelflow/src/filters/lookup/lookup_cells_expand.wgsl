// Lookup, schedule `cells`, step 1: re-lays the 512x512 LUT cell-major, so that the 8 corners
// a pixel interpolates between are one 32-byte sector instead of 8 scattered words (the
// gathers of the tile layout, not the arithmetic, bound the direct kernel: 6.9x copy on the
// H200 with random colours). Cell (r, g, b), r, g, b in 0..63, holds its 8 corners in
// tile_corners' order: 64^3 cells x 32 B = 8 MiB, written once per run (~2% of a 4K
// lookup's traffic).

@group(0) @binding(0) var<storage, read> lut: array<u32>;
@group(0) @binding(1) var<storage, read_write> cells: array<vec4<u32>>;

// tile_corners: lookup_tile_corners.wgsl.

@compute @workgroup_size(256)
fn expand(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let cell = linear_id(wid, nwg, lid, 256u);
    if (cell >= 64u * 64u * 64u) { return; }
    let k = tile_corners(vec3<u32>(cell & 63u, (cell >> 6u) & 63u, cell >> 12u));
    cells[2u * cell] = k[0];
    cells[2u * cell + 1u] = k[1];
}
