// Two-pass fallback of the Gaussian blur; appended to gaussian_blur.wgsl (its uniform,
// bindings and helpers).

// ---- fallback: two passes through an Rgba32F temporary (any radius up to 96) ----

// Invocations per workgroup of `fallback_h`, one output pixel each. Schedule choice.
const ROW_WG: u32 = 256u;
// ROW_WG + 2 * 96 (the largest radius) unpacked samples.
var<workgroup> row_buf: array<vec4<f32>, 448>;

// Horizontal pass: `src` is the RGBA8 input, `dst` the temporary (4 f32 words per pixel).
@compute @workgroup_size(256)
fn fallback_h(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let r = gp.radius;
    let y = wid.y;
    let x0 = i32(wid.x * ROW_WG) - i32(r);
    let wmax = i32(gp.width) - 1;
    for (var i = lid; i < ROW_WG + 2u * r; i += ROW_WG) {
        let gx = u32(clamp(x0 + i32(i), 0, wmax));
        row_buf[i] = bytes4(src[y * gp.width + gx]);
    }
    workgroupBarrier();
    let x = wid.x * ROW_WG + lid;
    if (x >= gp.width) {
        return;
    }
    var acc = vec4<f32>(0.0);
    for (var k = 0u; k <= 2u * r; k++) {
        acc += wt(k) * row_buf[lid + k];
    }
    let o = 4u * (y * gp.width + x);
    dst[o] = bitcast<u32>(acc.x);
    dst[o + 1u] = bitcast<u32>(acc.y);
    dst[o + 2u] = bitcast<u32>(acc.z);
    dst[o + 3u] = bitcast<u32>(acc.w);
}

// The temporary seen as whole pixels by `fallback_v` (the same binding as `src`, which
// `fallback_v` does not use; temporaries are pool buffers, a multiple of 16 bytes).
@group(0) @binding(0) var<storage, read> tmp_px: array<vec4<f32>>;

// Vertical pass: `tmp_px` is the temporary, `dst` the RGBA8 output.
@compute @workgroup_size(64, 4)
fn fallback_v(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= gp.width || gid.y >= gp.height) {
        return;
    }
    let r = i32(gp.radius);
    let hmax = i32(gp.height) - 1;
    var acc = vec4<f32>(0.0);
    for (var k = 0; k <= 2 * r; k++) {
        let yy = u32(clamp(i32(gid.y) - r + k, 0, hmax));
        acc += wt(u32(k)) * tmp_px[yy * gp.width + gid.x];
    }
    dst[gid.y * gp.width + gid.x] = pack_rounded(acc);
}
