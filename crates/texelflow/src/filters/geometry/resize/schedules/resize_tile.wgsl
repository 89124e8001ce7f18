// Bilinear resize, schedule `tile` (seed 004's shared-memory kernel): a 16 x 16 block of output
// pixels first copies the source pixels it reads (its footprint, at most TILE x TILE: any
// enlargement and reductions down to 1/2) into workgroup memory, then each invocation
// interpolates from there. The per-pixel f32 values are those of resize.wgsl's `sample` (and its
// CPU twin `resize_pixel`): the same coordinates, taps and lerps, only read from the tile. A
// block whose footprint is larger (reductions past 1/2) reads the source directly.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: ResizeParams;

const TILE: u32 = 34u; // 16 outputs at ratio 2 span 32 source pixels, plus the two taps' spill
var<workgroup> tile: array<u32, 1156>; // TILE * TILE packed pixels

fn src_x(x: u32) -> f32 {
    return clamp((f32(x) + 0.5) * params.ratio_x - 0.5, 0.0, f32(params.in_width - 1u));
}
fn src_y(y: u32) -> f32 {
    return clamp((f32(y) + 0.5) * params.ratio_y - 0.5, 0.0, f32(params.in_height - 1u));
}

@compute @workgroup_size(16, 16)
fn resize_tile(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    // the block's footprint: source coordinates are monotonic in the output's, so the first and
    // last output column (row) bound every tap
    let o0 = wid.xy * 16u;
    let o1 = min(o0 + vec2<u32>(15u), vec2<u32>(params.out_width, params.out_height) - 1u);
    let sx0 = u32(src_x(o0.x));
    let sy0 = u32(src_y(o0.y));
    let tw = min(u32(src_x(o1.x)) + 1u, params.in_width - 1u) - sx0 + 1u;
    let th = min(u32(src_y(o1.y)) + 1u, params.in_height - 1u) - sy0 + 1u;
    let fits = tw <= TILE && th <= TILE;
    if (fits) {
        for (var i = li; i < tw * th; i += 256u) {
            let r = i / tw;
            tile[i] = src[(sy0 + r) * params.in_width + sx0 + i - r * tw];
        }
    }
    workgroupBarrier();
    let g = o0 + lid.xy;
    if (g.x >= params.out_width || g.y >= params.out_height) { return; }
    let fx = src_x(g.x);
    let fy = src_y(g.y);
    let x0 = u32(fx);
    let y0 = u32(fy);
    let x1 = min(x0 + 1u, params.in_width - 1u);
    let y1 = min(y0 + 1u, params.in_height - 1u);
    let tx = fx - f32(x0);
    let ty = fy - f32(y0);
    var p00: vec4<f32>;
    var p10: vec4<f32>;
    var p01: vec4<f32>;
    var p11: vec4<f32>;
    if (fits) {
        p00 = bytes_f32(tile[(y0 - sy0) * tw + x0 - sx0]);
        p10 = bytes_f32(tile[(y0 - sy0) * tw + x1 - sx0]);
        p01 = bytes_f32(tile[(y1 - sy0) * tw + x0 - sx0]);
        p11 = bytes_f32(tile[(y1 - sy0) * tw + x1 - sx0]);
    } else {
        p00 = bytes_f32(src[y0 * params.in_width + x0]);
        p10 = bytes_f32(src[y0 * params.in_width + x1]);
        p01 = bytes_f32(src[y1 * params.in_width + x0]);
        p11 = bytes_f32(src[y1 * params.in_width + x1]);
    }
    let top = p00 + (p10 - p00) * tx;
    let bottom = p01 + (p11 - p01) * tx;
    let v = top + (bottom - top) * ty;
    dst[g.y * params.out_width + g.x] = pack_u8(floor_u32(v + 0.5));
}
