// Two-input blends. CPU twins: `AlphaBlend::blend` and `MultiplyBlend::blend`.
struct BlendParams {
    count: u32,
    mix: f32,
    _pad0: u32,
    _pad1: u32,
}

// Schedule choice, not algorithm: four pixels per invocation through 16-byte loads and
// stores (buffers come in 16-byte multiples; the last group's spare lanes write padding).
@group(0) @binding(0) var<storage, read> base: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> top: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(3) var<uniform> p: BlendParams;

// GPUImage: mix(base.rgb, top.rgb, top.a * mix), alpha of base.
fn alpha1(pa: u32, pb: u32) -> u32 {
    let a = unorm_unpack(pa);
    let b = unorm_unpack(pb);
    let t = b.a * p.mix;
    return unorm_pack(vec4<f32>(a.rgb * (1.0 - t) + b.rgb * t, a.a));
}

// GPUImage: top * base + top * (1 - base.a) + base * (1 - top.a).
fn multiply1(pa: u32, pb: u32) -> u32 {
    let a = unorm_unpack(pa);
    let b = unorm_unpack(pb);
    return unorm_pack(b * a + b * (1.0 - a.a) + a * (1.0 - b.a));
}

@compute @workgroup_size(256)
fn alpha_blend(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i * 4u >= p.count) { return; }
    let a = base[i];
    let b = top[i];
    dst[i] = vec4<u32>(alpha1(a.x, b.x), alpha1(a.y, b.y), alpha1(a.z, b.z), alpha1(a.w, b.w));
}

@compute @workgroup_size(256)
fn multiply_blend(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i * 4u >= p.count) { return; }
    let a = base[i];
    let b = top[i];
    dst[i] = vec4<u32>(multiply1(a.x, b.x), multiply1(a.y, b.y), multiply1(a.z, b.z), multiply1(a.w, b.w));
}
