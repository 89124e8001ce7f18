// Two-input blends. CPU twins: `AlphaBlend::blend` and `MultiplyBlend::blend`.
struct BlendParams {
    count: u32,
    mix: f32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> base: array<u32>;
@group(0) @binding(1) var<storage, read> top: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<uniform> p: BlendParams;

// GPUImage: mix(base.rgb, top.rgb, top.a * mix), alpha of base.
@compute @workgroup_size(256)
fn alpha_blend(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= p.count) { return; }
    let a = unpack4x8unorm(base[i]);
    let b = unpack4x8unorm(top[i]);
    let t = b.a * p.mix;
    dst[i] = pack4x8unorm(vec4<f32>(a.rgb * (1.0 - t) + b.rgb * t, a.a));
}

// GPUImage: top * base + top * (1 - base.a) + base * (1 - top.a).
@compute @workgroup_size(256)
fn multiply_blend(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= p.count) { return; }
    let a = unpack4x8unorm(base[i]);
    let b = unpack4x8unorm(top[i]);
    dst[i] = pack4x8unorm(b * a + b * (1.0 - a.a) + a * (1.0 - b.a));
}
