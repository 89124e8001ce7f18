// Copies a rectangle of an RGBA8 image (RGBA16 and Gray8: crop_words.wgsl). CPU twin: `Crop::run_cpu` in crop.rs.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> params: CropParams;

fn pick(x: u32, y: u32) -> u32 {
    if (y >= params.out_height) { return 0u; }
    return src[(y + params.y0) * params.in_width + x + params.x0];
}

// Schedule choice, not algorithm: four consecutive output pixels per invocation and one
// 16-byte store (see resize.wgsl); spare lanes of the last group write padding.
@compute @workgroup_size(256)
fn crop(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = linear_id(wid, nwg, lid, 256u);
    let first = g * 4u;
    if (first >= params.count) { return; }
    var y = first / params.out_width;
    var x = first - y * params.out_width;
    var o: vec4<u32>;
    o.x = pick(x, y);
    x += 1u; if (x == params.out_width) { x = 0u; y += 1u; }
    o.y = pick(x, y);
    x += 1u; if (x == params.out_width) { x = 0u; y += 1u; }
    o.z = pick(x, y);
    x += 1u; if (x == params.out_width) { x = 0u; y += 1u; }
    o.w = pick(x, y);
    dst[g] = o;
}
