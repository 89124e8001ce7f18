// Poisson blend, last kernel (see poisson_blend.wgsl): the result of the last iteration run
// (all of them, or fewer after an early stop) rounded to RGBA8, alpha the base image's.
@group(0) @binding(0) var<storage, read> even: array<vec4<f32>>; // the start, and even iterations
@group(0) @binding(1) var<storage, read> odd: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> status: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(256)
fn poisson_pack(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= params.count) { return; }
    var n = status[0];
    if (n == 0u) { n = params.iter; }
    var c = even[i];
    if ((n & 1u) == 1u) { c = odd[i]; }
    out[i] = unorm_pack(c);
}
