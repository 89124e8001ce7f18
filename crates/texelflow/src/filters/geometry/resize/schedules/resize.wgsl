// Bilinear resize of an RGBA8 image with OpenCV INTER_LINEAR's pixel-centre alignment:
// src = (dst + 0.5) * in / out - 0.5, clamped to [0, in - 1]; no antialiasing. Channels
// (alpha too) are interpolated independently in the 0..255 domain and rounded.
// CPU twin: `resize_pixel` in resize.rs (same f32 operations in the same order).

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> params: ResizeParams;

// 1: a part of a larger resize (the window fields apply); 0: the whole, with none of their arithmetic.
const WINDOW: u32 = 0u; // @specialize

fn px(x: u32, y: u32) -> vec4<f32> {
    if (WINDOW == 1u) {
        return bytes_f32(src[(y - params.in_y0) * params.stride + (x - params.in_x0)]);
    }
    return bytes_f32(src[y * params.in_width + x]);
}

// One output pixel; lanes past the last row (the padding of the final group) give 0.
fn sample(part_x: u32, part_y: u32) -> u32 {
    if (part_y >= params.out_height) { return 0u; }
    var x = part_x;
    var y = part_y;
    if (WINDOW == 1u) {
        x += params.out_x0;
        y += params.out_y0;
    }
    let fx = clamp((f32(x) + 0.5) * params.ratio_x - 0.5, 0.0, f32(params.in_width - 1u));
    let fy = clamp((f32(y) + 0.5) * params.ratio_y - 0.5, 0.0, f32(params.in_height - 1u));
    let x0 = u32(fx);
    let y0 = u32(fy);
    let x1 = min(x0 + 1u, params.in_width - 1u);
    let y1 = min(y0 + 1u, params.in_height - 1u);
    let tx = fx - f32(x0);
    let ty = fy - f32(y0);
    let p00 = px(x0, y0);
    let p10 = px(x1, y0);
    let p01 = px(x0, y1);
    let p11 = px(x1, y1);
    let top = p00 + (p10 - p00) * tx;
    let bottom = p01 + (p11 - p01) * tx;
    let v = top + (bottom - top) * ty;
    // v is a convex combination of 0..255 samples (>= -0.5 even with rounding error), so
    // truncating v + 0.5 rounds half up with no clamp.
    let q = floor_u32(v + 0.5);
    return pack_u8(q);
}

// Schedule choice, not algorithm: four consecutive output pixels per invocation, stored
// with one 16-byte write (4-byte stores cost ~1.6x a copy on the H200, experiment 1).
// Output buffers are allocated in 16-byte multiples, so the last group's spare lanes
// land in padding nobody reads.
@compute @workgroup_size(256)
fn resize(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = linear_id(wid, nwg, lid, 256u);
    let first = g * 4u;
    if (first >= params.out_width * params.out_height) { return; }
    var y = first / params.out_width;
    var x = first - y * params.out_width;
    var o: vec4<u32>;
    o.x = sample(x, y);
    x += 1u; if (x == params.out_width) { x = 0u; y += 1u; }
    o.y = sample(x, y);
    x += 1u; if (x == params.out_width) { x = 0u; y += 1u; }
    o.z = sample(x, y);
    x += 1u; if (x == params.out_width) { x = 0u; y += 1u; }
    o.w = sample(x, y);
    dst[g] = o;
}
