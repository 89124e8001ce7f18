// Sobel edge detection on luminance (GPUImage weights), replicate-edge borders.
// h = -tl - 2l - bl + tr + 2r + br, v = -bl - 2b - br + tl + 2t + tr (GPUImage's
// convention; top = the row above), output (m, m, m, 1) with m = length(h, v) * strength.
// CPU twin: `sobel_cpu` in sobel_edge_detection.rs.
//
// A workgroup of TX x TY invocations computes a TX x (TY*RY) tile: it loads the tile plus
// a one-pixel halo once, converting each pixel to luminance (one f32 in workgroup memory),
// then each invocation walks RY rows of one column keeping a 3x3 window in registers.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> sp: SobelEdgeDetectionParams;

// Schedule choice (mirrored in sobel_edge_detection.rs): 32 x 8 invocations, 4 rows each.
const TX: u32 = 32u;
const TY: u32 = 8u;
const RY: u32 = 4u;
const LW: u32 = TX + 2u;
const LH: u32 = TY * RY + 2u;

var<workgroup> lum: array<f32, LW * LH>;

@compute @workgroup_size(32, 8)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let x0 = i32(wid.x * TX) - 1;
    let y0 = i32(wid.y * TY * RY) - 1;
    let wmax = i32(sp.width) - 1;
    let hmax = i32(sp.height) - 1;
    for (var i = li; i < LW * LH; i += TX * TY) {
        let ry = i / LW;
        let rx = i - ry * LW;
        let gx = u32(clamp(x0 + i32(rx), 0, wmax));
        let gy = u32(clamp(y0 + i32(ry), 0, hmax));
        let c = unorm_unpack(src[gy * sp.width + gx]);
        lum[i] = dot(c.rgb, LUMA_W);
    }
    workgroupBarrier();
    let tx = lid.x;
    let ty = lid.y * RY;
    let x = wid.x * TX + tx;
    // rows ty (top), ty+1 (middle) of the window; the bottom row enters each step
    var t0 = lum[ty * LW + tx];
    var t1 = lum[ty * LW + tx + 1u];
    var t2 = lum[ty * LW + tx + 2u];
    var m0 = lum[(ty + 1u) * LW + tx];
    var m1 = lum[(ty + 1u) * LW + tx + 1u];
    var m2 = lum[(ty + 1u) * LW + tx + 2u];
    for (var o = 0u; o < RY; o++) {
        let b = (ty + o + 2u) * LW + tx;
        let b0 = lum[b];
        let b1 = lum[b + 1u];
        let b2 = lum[b + 2u];
        let h = -t0 - 2.0 * m0 - b0 + t2 + 2.0 * m2 + b2;
        let v = -b0 - 2.0 * b1 - b2 + t0 + 2.0 * t1 + t2;
        let mag = length(vec2<f32>(h, v)) * sp.edge_strength;
        let y = wid.y * TY * RY + ty + o;
        if (x < sp.width && y < sp.height) {
            dst[y * sp.width + x] = unorm_pack(vec4<f32>(mag, mag, mag, 1.0));
        }
        t0 = m0;
        t1 = m1;
        t2 = m2;
        m0 = b0;
        m1 = b1;
        m2 = b2;
    }
}
