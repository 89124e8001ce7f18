// Colour lookup through a 512x512 LUT (8x8 tiles of 64x64: tile = blue level, x = red level,
// y = green level within the tile): trilinear interpolation in the 64^3 cube at
// (63R, 63G, 63B)/255, mixed with the original by `intensity`; alpha kept.
// CPU twin: `lookup_pixel` in lookup.rs (same f32 operations in the same order, in the
// 0..255 domain; `inv255` comes from the uniform so both sides use the same constant).

struct LookupParams {
    count: u32,
    intensity: f32,
    inv255: f32,
    _pad: u32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read> lut: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<uniform> params: LookupParams;

// Schedule choice, not algorithm: mirrors `LOOKUP_WG` in lookup.rs.
const LOOKUP_WG: u32 = 256u;

fn texel(r: u32, g: u32, b: u32) -> vec3<f32> {
    let x = (b % 8u) * 64u + r;
    let y = (b / 8u) * 64u + g;
    return vec3<f32>(unpack_u8(lut[y * 512u + x]).xyz);
}

fn lerp3(a: vec3<f32>, b: vec3<f32>, t: f32) -> vec3<f32> {
    return a + (b - a) * t;
}

@compute @workgroup_size(256)
fn lookup(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, LOOKUP_WG);
    if (i >= params.count) { return; }
    let c = unpack_u8(src[i]);
    // Cube coordinate 63 * c / 255 split exactly into level and fraction (integer division).
    let s = c.xyz * 63u;
    let l0 = s / 255u;
    let l1 = min(l0 + 1u, vec3<u32>(63u));
    let t = vec3<f32>(s - l0 * 255u) * params.inv255;
    let c00 = lerp3(texel(l0.x, l0.y, l0.z), texel(l1.x, l0.y, l0.z), t.x);
    let c10 = lerp3(texel(l0.x, l1.y, l0.z), texel(l1.x, l1.y, l0.z), t.x);
    let c01 = lerp3(texel(l0.x, l0.y, l1.z), texel(l1.x, l0.y, l1.z), t.x);
    let c11 = lerp3(texel(l0.x, l1.y, l1.z), texel(l1.x, l1.y, l1.z), t.x);
    let v0 = lerp3(c00, c10, t.y);
    let v1 = lerp3(c01, c11, t.y);
    let looked = lerp3(v0, v1, t.z);
    let orig = vec3<f32>(c.xyz);
    let out = lerp3(orig, looked, params.intensity);
    let q = vec3<u32>(floor(clamp(out, vec3<f32>(0.0), vec3<f32>(255.0)) + 0.5));
    dst[i] = pack_u8(vec4<u32>(q, c.w));
}
