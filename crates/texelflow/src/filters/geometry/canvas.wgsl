// Places an RGBA8 image on a transparent canvas at an offset. CPU twin: `Canvas::run_cpu` in canvas.rs.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> params: CanvasParams;

fn pick(x: u32, y: u32) -> u32 {
    let sx = i32(x) - params.x;
    let sy = i32(y) - params.y;
    if (y >= params.out_height || sx < 0 || sy < 0 || sx >= i32(params.in_width) || sy >= i32(params.in_height)) { return 0u; }
    return src[u32(sy) * params.in_width + u32(sx)];
}

// Schedule choice, not algorithm: four consecutive output pixels per invocation and one
// 16-byte store, as crop.wgsl.
@compute @workgroup_size(256)
fn canvas(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
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
