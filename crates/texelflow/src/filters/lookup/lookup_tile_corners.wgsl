// The 8 corner texels of cube cell l0 (levels 0..63, the far corners clamped to 63) gathered
// from the 512x512 LUT image as given: 8x8 tiles of 64x64, tile = blue level, x = red,
// y = green. Needs a `lut: array<u32>` binding from the including kernel. Used by the `tile`
// lookup schedule and by the `cells` schedule's re-layout (lookup_cells_expand.wgsl).

// Word offset of blue level b's tile: row b / 8, column b % 8 of 64x64 tiles.
fn tile_base(b: u32) -> u32 {
    return (b >> 3u) * (64u * 512u) + (b & 7u) * 64u;
}

// [c000, c100, c010, c110], [c001, c101, c011, c111] with cXYZ at (r + X, g + Y, b + Z).
fn tile_corners(l0: vec3<u32>) -> array<vec4<u32>, 2> {
    let l1 = min(l0 + 1u, vec3<u32>(63u));
    // the 8 corners share their index arithmetic: tile base + green row + red column
    let b0 = tile_base(l0.z);
    let b1 = tile_base(l1.z);
    let g0 = l0.y * 512u;
    let g1 = l1.y * 512u;
    return array<vec4<u32>, 2>(
        vec4<u32>(lut[b0 + g0 + l0.x], lut[b0 + g0 + l1.x], lut[b0 + g1 + l0.x], lut[b0 + g1 + l1.x]),
        vec4<u32>(lut[b1 + g0 + l0.x], lut[b1 + g0 + l1.x], lut[b1 + g1 + l0.x], lut[b1 + g1 + l1.x]),
    );
}
