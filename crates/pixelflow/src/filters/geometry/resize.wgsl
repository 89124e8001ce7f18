// Bilinear resize of an RGBA8 image with OpenCV INTER_LINEAR's pixel-centre alignment:
// src = (dst + 0.5) * in / out - 0.5, clamped to [0, in - 1]; no antialiasing. Channels
// (alpha too) are interpolated independently in the 0..255 domain and rounded.
// CPU twin: `resize_pixel` in resize.rs (same f32 operations in the same order).
struct ResizeParams {
    in_width: u32,
    in_height: u32,
    out_width: u32,
    out_height: u32,
    ratio_x: f32,  // in_width / out_width, computed once in f32 on the CPU
    ratio_y: f32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> params: ResizeParams;

fn px(x: u32, y: u32) -> vec4<f32> {
    return bytes_f32(src[y * params.in_width + x]);
}

// One output pixel; lanes past the last row (the padding of the final group) give 0.
fn sample(x: u32, y: u32) -> u32 {
    if (y >= params.out_height) { return 0u; }
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

// ---- `cached` schedule: the same pixels, with input columns reused across outputs ----
//
// Counted per output pixel, the kernel above is bound by int<->float conversions (about 16
// per clock per SM on NVIDIA): 16 to unpack its four samples, 2 for the coordinates, 4 to
// round, ~22 in all, which at 4K (1080p -> 4K) is ~0.047 ms, the time measured (run 13).
// Here each invocation keeps the two input columns (rows y0 and y1, unpacked) of its last
// output and loads only columns it does not hold: upscaling by 2, its 4 outputs touch 3
// columns, so 6 unpacked samples instead of 16. f32(x) is stepped by exact additions.
// Every output is computed by the same f32 operations on the same values as `sample`.

struct ColumnPair {
    x: u32,
    top: vec4<f32>,
    bottom: vec4<f32>,
}

struct Cache {
    y: u32,
    row0: u32,
    row1: u32,
    ty: f32,
    a: ColumnPair,
    b: ColumnPair,
}

fn column(x: u32, c: ptr<function, Cache>) -> ColumnPair {
    return ColumnPair(x, bytes_f32(src[(*c).row0 + x]), bytes_f32(src[(*c).row1 + x]));
}

fn sample_cached(x: u32, xf: f32, y: u32, c: ptr<function, Cache>) -> u32 {
    if (y >= params.out_height) { return 0u; }
    if (y != (*c).y) {
        let fy = clamp((f32(y) + 0.5) * params.ratio_y - 0.5, 0.0, f32(params.in_height - 1u));
        let y0 = u32(fy);
        let y1 = min(y0 + 1u, params.in_height - 1u);
        (*c).y = y;
        (*c).row0 = y0 * params.in_width;
        (*c).row1 = y1 * params.in_width;
        (*c).ty = fy - f32(y0);
        (*c).a.x = 0xFFFFFFFFu;
        (*c).b.x = 0xFFFFFFFFu;
    }
    let fx = clamp((xf + 0.5) * params.ratio_x - 0.5, 0.0, f32(params.in_width - 1u));
    let x0 = u32(fx);
    let x1 = min(x0 + 1u, params.in_width - 1u);
    let tx = fx - f32(x0);
    // column pair a holds x0, b holds x1: shift or load what is missing
    if ((*c).a.x != x0) {
        if ((*c).b.x == x0) { (*c).a = (*c).b; } else { (*c).a = column(x0, c); }
    }
    if ((*c).b.x != x1) {
        if ((*c).a.x == x1) { (*c).b = (*c).a; } else { (*c).b = column(x1, c); }
    }
    let p00 = (*c).a.top;
    let p10 = (*c).b.top;
    let p01 = (*c).a.bottom;
    let p11 = (*c).b.bottom;
    let top = p00 + (p10 - p00) * tx;
    let bottom = p01 + (p11 - p01) * tx;
    let v = top + (bottom - top) * (*c).ty;
    let q = floor_u32(v + 0.5);
    return pack_u8(q);
}

@compute @workgroup_size(256)
fn resize_cached(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = linear_id(wid, nwg, lid, 256u);
    let first = g * 4u;
    if (first >= params.out_width * params.out_height) { return; }
    var y = first / params.out_width;
    var x = first - y * params.out_width;
    var xf = f32(x);
    var c: Cache;
    c.y = 0xFFFFFFFFu;
    var o: vec4<u32>;
    o.x = sample_cached(x, xf, y, &c);
    x += 1u; xf += 1.0; if (x == params.out_width) { x = 0u; xf = 0.0; y += 1u; }
    o.y = sample_cached(x, xf, y, &c);
    x += 1u; xf += 1.0; if (x == params.out_width) { x = 0u; xf = 0.0; y += 1u; }
    o.z = sample_cached(x, xf, y, &c);
    x += 1u; xf += 1.0; if (x == params.out_width) { x = 0u; xf = 0.0; y += 1u; }
    o.w = sample_cached(x, xf, y, &c);
    dst[g] = o;
}
