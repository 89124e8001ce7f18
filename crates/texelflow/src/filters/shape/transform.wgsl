// Affine or perspective warp of an RGBA8 image: each output pixel (x, y) reads the input at
// M^-1 (x, y, 1) (pixel coordinates, no half-pixel shift, as OpenCV's warpAffine and
// warpPerspective), bilinear, every tap outside the input taking the background colour
// (BORDER_CONSTANT). f32 over 0..255, rounded half up. CPU twin: `warp_pixel` in transform.rs.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: TransformParams;

fn tap(x: i32, y: i32) -> vec4<f32> {
    if (x < 0 || y < 0 || x >= i32(params.in_width) || y >= i32(params.in_height)) { return params.background; }
    return vec4<f32>(unpack_u8(src[u32(y - i32(params.in_y0)) * params.stride + u32(x - i32(params.in_x0))]));
}

@compute @workgroup_size(16, 16)
fn transform(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= params.out_width || g.y >= params.out_height) { return; }
    let p = vec3<f32>(f32(g.x + params.out_x0), f32(g.y + params.out_y0), 1.0);
    let z = dot(params.row2.xyz, p);
    var v = params.background;
    // the line at infinity and |coordinates| beyond 2^24 are outside: background
    if (z != 0.0) {
        let sx = dot(params.row0.xyz, p) / z;
        let sy = dot(params.row1.xyz, p) / z;
        if (abs(sx) < 16777216.0 && abs(sy) < 16777216.0) {
            let fx = floor(sx);
            let fy = floor(sy);
            let tx = sx - fx;
            let ty = sy - fy;
            let x = i32(fx);
            let y = i32(fy);
            let top = tap(x, y) * (1.0 - tx) + tap(x + 1, y) * tx;
            let bottom = tap(x, y + 1) * (1.0 - tx) + tap(x + 1, y + 1) * tx;
            v = top * (1.0 - ty) + bottom * ty;
        }
    }
    let q = vec4<u32>(clamp(floor(v + 0.5), vec4<f32>(0.0), vec4<f32>(255.0)));
    dst[g.y * params.out_width + g.x] = pack_u8(q);
}
