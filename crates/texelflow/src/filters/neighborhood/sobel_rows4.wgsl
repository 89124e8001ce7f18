// Sobel edge detection, schedule `rows4`: same math and uniform as sobel_edge_detection.wgsl,
// different shape. For images whose width is a
// multiple of 4 (rows then start on 16-byte boundaries).
//
// A workgroup of SW invocations owns a strip of 4*SW columns and walks down RY output rows.
// Per input row each invocation makes one 16-byte load (4 pixels), converts them to
// luminance, and swaps its edge luminances with its neighbours through workgroup memory;
// the 3-row window (6 luminances per row: 4 own + 1 either side) stays in registers, and the
// 4 outputs leave as one 16-byte store. Per output pixel, about: 1/4 load, 6 unpack+luma
// ops, 16 for h and v, 4 for length and scale, 2 to pack: ~30 instructions, where the tiled
// kernel spent ~45 plus 4-byte loads and stores (measured 1.67x copy on the H200, run 8).
// The 2 halo rows cost 2/RY extra row reads, which hit L2.

@group(0) @binding(0) var<storage, read> src4: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst4: array<vec4<u32>>;
// Scalar view of the same input, for the strip's two outer halo pixels.
@group(0) @binding(2) var<storage, read> src1: array<u32>;
@group(0) @binding(3) var<uniform> sp: SobelEdgeDetectionParams;

const SW: u32 = 64u; // @specialize invocations per workgroup (4 pixels each)
const RY: u32 = 16u; // @specialize output rows per workgroup

// Edge luminances of each invocation's quad, double-buffered by row parity so a row's values
// are never overwritten while a neighbour may still read them.
var<workgroup> edge_first: array<f32, 2u * SW>;
var<workgroup> edge_last: array<f32, 2u * SW>;

fn lum_of(p: u32) -> f32 {
    return dot(unorm_unpack(p).rgb, LUMA_W);
}

struct Row {
    l: f32, // x - 1
    a: f32, // x
    b: f32, // x + 1
    c: f32, // x + 2
    d: f32, // x + 3
    r: f32, // x + 4
}

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let w4 = sp.width / 4u;
    let quad = wid.x * SW + lid;
    // Invocations past the right edge still load (a clamped quad) and take part in the
    // barriers; they store nothing.
    let qx = min(quad, w4 - 1u);
    let first_row = i32(wid.y * RY) - 1;
    let hmax = i32(sp.height) - 1;
    // strip's outer halo columns, replicate-clamped
    let strip_left = u32(max(i32(wid.x * SW * 4u) - 1, 0));
    let strip_right = min((wid.x + 1u) * SW * 4u, sp.width - 1u);
    var t: Row;
    var m: Row;
    var b: Row;
    var next = src4[u32(clamp(first_row, 0, hmax)) * w4 + qx];
    for (var r = 0u; r < RY + 2u; r++) {
        let y = u32(clamp(first_row + i32(r), 0, hmax));
        let q = next;
        if (r + 1u < RY + 2u) {
            // the next row's load is in flight while this row is worked on
            next = src4[u32(clamp(first_row + i32(r) + 1, 0, hmax)) * w4 + qx];
        }
        var row: Row;
        row.a = lum_of(q.x);
        row.b = lum_of(q.y);
        row.c = lum_of(q.z);
        row.d = lum_of(q.w);
        let slot = (r & 1u) * SW;
        edge_first[slot + lid] = row.a;
        edge_last[slot + lid] = row.d;
        workgroupBarrier();
        if (lid == 0u) {
            row.l = select(lum_of(src1[y * sp.width + strip_left]), row.a, quad == 0u);
        } else {
            row.l = edge_last[slot + lid - 1u];
        }
        if (qx + 1u >= w4) {
            row.r = row.d;
        } else if (lid == SW - 1u) {
            row.r = lum_of(src1[y * sp.width + strip_right]);
        } else {
            row.r = edge_first[slot + lid + 1u];
        }
        t = m;
        m = b;
        b = row;
        let oy = wid.y * RY + r;
        if (r >= 2u && oy - 2u < sp.height && quad < w4) {
            let o = vec4<u32>(
                sobel_px(t.l, t.a, t.b, m.l, m.b, b.l, b.a, b.b),
                sobel_px(t.a, t.b, t.c, m.a, m.c, b.a, b.b, b.c),
                sobel_px(t.b, t.c, t.d, m.b, m.d, b.b, b.c, b.d),
                sobel_px(t.c, t.d, t.r, m.c, m.r, b.c, b.d, b.r),
            );
            dst4[(oy - 2u) * w4 + quad] = o;
        }
    }
}

// The twin's expression, term for term (same rounding order as `sobel_cpu`).
fn sobel_px(t0: f32, t1: f32, t2: f32, m0: f32, m2: f32, b0: f32, b1: f32, b2: f32) -> u32 {
    let h = -t0 - 2.0 * m0 - b0 + t2 + 2.0 * m2 + b2;
    let v = -b0 - 2.0 * b1 - b2 + t0 + 2.0 * t1 + t2;
    let mag = length(vec2<f32>(h, v)) * sp.edge_strength;
    return unorm_pack(vec4<f32>(mag, mag, mag, 1.0));
}
