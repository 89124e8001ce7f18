// Colour lookup through a .cube LUT (lut_cube.rs): the input colour, mapped from the LUT's
// domain to [0, N-1] per channel, is interpolated trilinearly in the N^3 cube (`cube3d`) or
// linearly per channel in the N-entry 1D table (`cube1d`), then mixed with the original by
// `intensity`; alpha kept. CPU twin: `LutCube::pixel` (same f32 operations in the same order).

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
// entries as f16 pairs (r, g), (b, 0); 3D: index r + N (g + N b)
@group(0) @binding(1) var<storage, read> lut_h: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(3) var<uniform> params: LutCubeParams;

// Schedule choice, not algorithm: mirrors `LUT_CUBE_WG` in lut_cube.rs.
const LUT_CUBE_WG: u32 = 256u;

// The lower grid index and the fraction per channel, in [0, N-2] and [0, 1].
struct GridPos {
    index: vec3<u32>,
    frac: vec3<f32>,
}

fn grid_pos(c: vec3<f32>) -> GridPos {
    let last = f32(params.size - 1u);
    let t = clamp((c - params.domain_min) * params.inv_span, vec3<f32>(0.0), vec3<f32>(1.0)) * last;
    let index = min(vec3<u32>(t), vec3<u32>(params.size - 2u));
    return GridPos(index, t - vec3<f32>(index));
}

fn entry(i: u32) -> vec3<f32> {
    let e = lut_h[i];
    return vec3<f32>(unpack2x16float(e.x), unpack2x16float(e.y).x);
}

fn lerp3(a: vec3<f32>, b: vec3<f32>, t: f32) -> vec3<f32> {
    return a + (b - a) * t;
}

fn finish(c: vec4<f32>, looked: vec3<f32>) -> u32 {
    return unorm_pack(vec4<f32>(lerp3(c.rgb, looked, params.intensity), c.a));
}

fn look3d(p: u32) -> u32 {
    let c = unorm_unpack(p);
    let g = grid_pos(c.rgb);
    let n = params.size;
    let i = g.index.x + n * (g.index.y + n * g.index.z);
    let dg = n;
    let db = n * n;
    let c00 = lerp3(entry(i), entry(i + 1u), g.frac.x);
    let c10 = lerp3(entry(i + dg), entry(i + dg + 1u), g.frac.x);
    let c01 = lerp3(entry(i + db), entry(i + db + 1u), g.frac.x);
    let c11 = lerp3(entry(i + dg + db), entry(i + dg + db + 1u), g.frac.x);
    let looked = lerp3(lerp3(c00, c10, g.frac.y), lerp3(c01, c11, g.frac.y), g.frac.z);
    return finish(c, looked);
}

fn look1d(p: u32) -> u32 {
    let c = unorm_unpack(p);
    let g = grid_pos(c.rgb);
    let lo = vec3<f32>(entry(g.index.x).r, entry(g.index.y).g, entry(g.index.z).b);
    let hi = vec3<f32>(entry(g.index.x + 1u).r, entry(g.index.y + 1u).g, entry(g.index.z + 1u).b);
    return finish(c, lo + (hi - lo) * g.frac);
}

// Four pixels per invocation through 16-byte loads and stores (buffers come in 16-byte
// multiples; the last group's spare lanes write padding). Schedule choice, not algorithm.
@compute @workgroup_size(256)
fn cube3d(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, LUT_CUBE_WG);
    if (i * 4u >= params.count) { return; }
    let p = src[i];
    dst[i] = vec4<u32>(look3d(p.x), look3d(p.y), look3d(p.z), look3d(p.w));
}

@compute @workgroup_size(256)
fn cube1d(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, LUT_CUBE_WG);
    if (i * 4u >= params.count) { return; }
    let p = src[i];
    dst[i] = vec4<u32>(look1d(p.x), look1d(p.y), look1d(p.z), look1d(p.w));
}
