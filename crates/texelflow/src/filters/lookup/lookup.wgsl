// Colour lookup through a 512x512 LUT (8x8 tiles of 64x64: tile = blue level, x = red level,
// y = green level within the tile): trilinear interpolation in the 64^3 cube at
// (63R, 63G, 63B)/255, mixed with the original by `intensity`; alpha kept.
// CPU twin: `lookup_pixel` in lookup.rs (same f32 operations in the same order, in the
// 0..255 domain; `inv255` comes from the uniform so both sides use the same constant).

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
// binding 1 (the LUT, in the schedule's layout) and `cell_corners` come from lookup_tile.wgsl
// or lookup_cells.wgsl.
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(3) var<uniform> params: LookupParams;

// Schedule choice, not algorithm: mirrors `LOOKUP_WG` in lookup.rs.
const LOOKUP_WG: u32 = 256u;

// A packed texel as 0..255 floats.
fn texel(w: u32) -> vec3<f32> {
    return bytes_f32(w).xyz;
}

fn lerp3(a: vec3<f32>, b: vec3<f32>, t: f32) -> vec3<f32> {
    return a + (b - a) * t;
}

// One pixel.
fn look(p: u32) -> u32 {
    let c = unpack_u8(p);
    // Cube coordinate 63 * c / 255 split exactly into level and fraction (integer division).
    let s = c.xyz * 63u;
    // s / 255 for s <= 63 * 255, exactly, without a division: (s + 1 + (s >> 8)) >> 8.
    let l0 = (s + 1u + (s >> vec3<u32>(8u))) >> vec3<u32>(8u);
    let t = small_f32(vec4<u32>(s - l0 * 255u, 0u)).xyz * params.inv255;
    // The cell's 8 corners, red fastest, then green, then blue (cell_corners' layout).
    let k = cell_corners(l0);
    let c00 = lerp3(texel(k[0].x), texel(k[0].y), t.x);
    let c10 = lerp3(texel(k[0].z), texel(k[0].w), t.x);
    let c01 = lerp3(texel(k[1].x), texel(k[1].y), t.x);
    let c11 = lerp3(texel(k[1].z), texel(k[1].w), t.x);
    let v0 = lerp3(c00, c10, t.y);
    let v1 = lerp3(c01, c11, t.y);
    let looked = lerp3(v0, v1, t.z);
    let orig = small_f32(c).xyz;
    let out = lerp3(orig, looked, params.intensity);
    // A convex combination of 0..255 values (>= -0.5 with rounding error): truncating
    // out + 0.5 rounds half up with no clamp.
    let q = floor_u32(vec4<f32>(out + 0.5, 0.0)).xyz;
    return pack_u8(vec4<u32>(q, c.w));
}

// Schedule choice, not algorithm: four pixels per invocation through 16-byte loads and
// stores (buffers come in 16-byte multiples; the last group's spare lanes write padding).
@compute @workgroup_size(256)
fn lookup(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, LOOKUP_WG);
    if (i * 4u >= params.count) { return; }
    let p = src[i];
    dst[i] = vec4<u32>(look(p.x), look(p.y), look(p.z), look(p.w));
}
