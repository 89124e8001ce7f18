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
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: ResizeParams;

fn px(x: u32, y: u32) -> vec4<f32> {
    return vec4<f32>(unpack_u8(src[y * params.in_width + x]));
}

// Schedule choice, not algorithm: a 32x8 tile (mirrors `RESIZE_WG` in resize.rs), so a
// subgroup covers a row segment and the tile re-reads few source rows.
@compute @workgroup_size(32, 8)
fn resize(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= params.out_width || gid.y >= params.out_height) { return; }
    let fx = clamp((f32(gid.x) + 0.5) * params.ratio_x - 0.5, 0.0, f32(params.in_width - 1u));
    let fy = clamp((f32(gid.y) + 0.5) * params.ratio_y - 0.5, 0.0, f32(params.in_height - 1u));
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
    let q = vec4<u32>(v + 0.5);
    dst[gid.y * params.out_width + gid.x] = pack_u8(q);
}
