// Poisson blend, first kernel (see poisson_blend.wgsl).
@group(0) @binding(0) var<storage, read> base: array<u32>;
@group(0) @binding(1) var<storage, read> top: array<u32>;
@group(0) @binding(2) var<storage, read_write> cur: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> guide: array<vec4<f32>>;

// The start of the iteration (the base image as floats) and, per pixel, the guidance term
// (the second image's colour minus its 4-neighbour mean, GPUImage's `diffColor2`) with the
// weight `top.a * mix` in w: both stay fixed over the iterations.
@compute @workgroup_size(256)
fn poisson_init(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= params.count) { return; }
    let y = i / params.width;
    let x = i - y * params.width;
    let n = neighbours(x, y);
    let t = unorm_unpack(top[i]);
    let mean = (((unorm_unpack(top[n.x]).rgb + unorm_unpack(top[n.y]).rgb) + unorm_unpack(top[n.z]).rgb) + unorm_unpack(top[n.w]).rgb) * 0.25;
    cur[i] = unorm_unpack(base[i]); // alpha rides along in w, unchanged to the end
    guide[i] = vec4<f32>(t.rgb - mean, t.a * params.mix);
}
