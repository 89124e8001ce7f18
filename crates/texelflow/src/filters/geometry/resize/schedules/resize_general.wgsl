// Resize by OpenCV's other interpolations (and bilinear with align_corners): nearest, bilinear,
// bicubic (a = -0.75), lanczos3 (6 taps), area (exact box weights when shrinking; OpenCV's
// area-bilinear when enlarging). One output pixel per invocation; separable weights per axis,
// replicate edges, all four channels in f32 over 0..255, rounded half up and clamped.
// CPU twin: `general_pixel` and `axis_taps` in resize.rs (the same f32 operations in the same order).

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: ResizeGeneralParams;

// Follows resize_taps.wgsl (METHOD, WINDOW, `axis_taps`, `texel`).

@compute @workgroup_size(16, 16)
fn resize_general(@builtin(global_invocation_id) part: vec3<u32>) {
    if (part.x >= params.part_width || part.y >= params.part_height) { return; }
    var g = part;
    if (WINDOW == 1u) {
        g.x += params.out_x0;
        g.y += params.out_y0;
    }
    var acc = vec4<f32>(0.0);
    if (METHOD == 4u) {
        let ax = area_taps(g.x, params.in_width, params.scale_x);
        let ay = area_taps(g.y, params.in_height, params.scale_y);
        for (var j = 0; j < ay.count; j++) {
            let y = ay.first + j;
            var row = vec4<f32>(0.0);
            for (var i = 0; i < ax.count; i++) {
                let x = ax.first + i;
                row += texel(x, y) * area_weight(ax, x);
            }
            acc += row * area_weight(ay, y);
        }
    } else {
        let tx = axis_taps(g.x, params.in_width, params.out_width, params.scale_x, params.corner_x, params.inv_x);
        let ty = axis_taps(g.y, params.in_height, params.out_height, params.scale_y, params.corner_y, params.inv_y);
        let n = taps_count();
        for (var j = 0; j < n; j++) {
            var row = vec4<f32>(0.0);
            for (var i = 0; i < n; i++) {
                row += texel(tx.first + i, ty.first + j) * tx.w[i];
            }
            acc += row * ty.w[j];
        }
    }
    let q = vec4<u32>(clamp(floor(acc + 0.5), vec4<f32>(0.0), vec4<f32>(255.0)));
    dst[part.y * params.part_width + part.x] = pack_u8(q);
}
