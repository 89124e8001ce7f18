// Lookup, schedule `cells`, step 1: re-lays the 512x512 LUT cell-major, so that the 8 corners
// a pixel interpolates between are one 32-byte sector instead of 8 scattered words (the
// gathers of the tile layout, not the arithmetic, bound the direct kernel: 6.9x copy on the
// H200 with random colours). Cell (r, g, b), r, g, b in 0..63, holds the texels at
// (r + i, g + j, b + k) for k, j, i in 0..1 (clamped to level 63), i fastest: 64^3 cells x
// 32 B = 8 MiB, written once per run (~2% of a 4K lookup's traffic).

@group(0) @binding(0) var<storage, read> lut: array<u32>;
@group(0) @binding(1) var<storage, read_write> cells: array<vec4<u32>>;

// Word offset of blue level b's tile: row b / 8, column b % 8 of 64x64 tiles.
fn tile_base(b: u32) -> u32 {
    return (b >> 3u) * (64u * 512u) + (b & 7u) * 64u;
}

@compute @workgroup_size(256)
fn expand(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let cell = linear_id(wid, nwg, lid, 256u);
    if (cell >= 64u * 64u * 64u) { return; }
    let r0 = cell & 63u;
    let g0 = (cell >> 6u) & 63u;
    let b0 = cell >> 12u;
    let r1 = min(r0 + 1u, 63u);
    let g1 = min(g0 + 1u, 63u);
    let t0 = tile_base(b0);
    let t1 = tile_base(min(b0 + 1u, 63u));
    cells[2u * cell] = vec4<u32>(lut[t0 + g0 * 512u + r0], lut[t0 + g0 * 512u + r1], lut[t0 + g1 * 512u + r0], lut[t0 + g1 * 512u + r1]);
    cells[2u * cell + 1u] = vec4<u32>(lut[t1 + g0 * 512u + r0], lut[t1 + g0 * 512u + r1], lut[t1 + g1 * 512u + r0], lut[t1 + g1 * 512u + r1]);
}
