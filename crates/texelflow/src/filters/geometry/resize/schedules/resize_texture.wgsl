// Schedule `texture` of the bilinear resize (seed 004's third way): the input is copied into
// an rgba8unorm texture (runtime/to_texture.wgsl) and sampled with the hardware's bilinear
// filter and clamp-to-edge addressing. Texel coordinate u * in - 0.5 = (d + 0.5) * in / out - 0.5,
// OpenCV's alignment; clamping the coordinate to [0, in - 1] and clamp-to-edge give the same
// value. The hardware's interpolation weights are fixed point (8 fractional bits on NVIDIA),
// so results may differ from the f32 twin (`resize_pixel`) by one level.

@group(0) @binding(0) var src_tex: texture_2d<f32>;
@group(0) @binding(1) var src_sampler: sampler;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(3) var<uniform> params: ResizeParams;

fn sample_texture(x: u32, y: u32) -> u32 {
    if (y >= params.out_height) { return 0u; }
    let d = vec2<f32>(f32(x) + 0.5, f32(y) + 0.5) * vec2<f32>(params.ratio_x, params.ratio_y);
    let uv = d / vec2<f32>(f32(params.in_width), f32(params.in_height));
    return unorm_pack(textureSampleLevel(src_tex, src_sampler, uv, 0.0));
}

// Four consecutive output pixels per invocation, one 16-byte store (as resize.wgsl's quads).
@compute @workgroup_size(256)
fn resize_texture(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = linear_id(wid, nwg, lid, 256u);
    let first = g * 4u;
    if (first >= params.out_width * params.out_height) { return; }
    let q = quad_pixels(first, params.out_width);
    let o = vec4<u32>(sample_texture(q[0].x, q[0].y), sample_texture(q[1].x, q[1].y), sample_texture(q[2].x, q[2].y), sample_texture(q[3].x, q[3].y));
    dst[g] = o;
}
