// The general resize's per-axis taps (every method but bilinear's own kernels), shared by
// resize_general.wgsl, its `general_tile` schedule and `resize_general_rows.wgsl`; the module
// that includes it declares `src` and `params`. CPU twin: `axis_taps`, `area_taps` in resize/mod.rs.

// The method as a compile-time constant (the uniform's `method`, specialised per kernel), so the
// taps' loops have constant trip counts: unrolled, the weight arrays stay in registers.
const METHOD: u32 = 1u; // @specialize
// 1: a part of a larger resize (the window fields apply); 0: the whole, with none of their arithmetic.
const WINDOW: u32 = 0u; // @specialize
const PI: f32 = 3.14159265358979;
// sin and cos of pi * (k - 2) / 3 for the lanczos3 taps k = 0..5 (angle addition: 3 transcendental calls per axis).
const LSIN = array<f32, 6>(-0.866025403784439, -0.866025403784439, 0.0, 0.866025403784439, 0.866025403784439, 0.0);
const LCOS = array<f32, 6>(-0.5, 0.5, 1.0, 0.5, -0.5, -1.0);

struct Taps {
    first: i32,
    count: i32,
    w: array<f32, 6>,
}

// The taps of output coordinate d along an axis of n input pixels (all methods but area shrinking).
fn axis_taps(d: u32, n: u32, out: u32, scale: f32, corner: f32, inv: f32) -> Taps {
    var t: Taps;
    let m = METHOD;
    let df = f32(d);
    if (m == 0u) {
        t.count = 1;
        t.w[0] = 1.0;
        if (params.align == 1u) {
            t.first = i32(min(u32(df * corner + 0.5), n - 1u));
        } else {
            // OpenCV INTER_NEAREST: floor(d * in / out), in exact integers
            t.first = i32(min(d * n / out, n - 1u));
        }
        return t;
    }
    if (m == 5u) {
        // OpenCV's INTER_AREA when enlarging: floor(d * scale), weight from the cell overlap
        var sx = i32(floor(df * scale));
        var fx = (df + 1.0) - f32(sx + 1) * inv;
        fx = select(fx - floor(fx), 0.0, fx <= 0.0);
        if (sx < 0) { fx = 0.0; sx = 0; }
        if (sx >= i32(n) - 1) { fx = 0.0; sx = i32(n) - 1; }
        t.first = sx;
        t.count = 2;
        t.w[0] = 1.0 - fx;
        t.w[1] = fx;
        return t;
    }
    var pos = select((df + 0.5) * scale - 0.5, df * corner, params.align == 1u);
    if (m == 1u) {
        pos = clamp(pos, 0.0, f32(n - 1u));
        let f = floor(pos);
        let x = pos - f;
        t.first = i32(f);
        t.count = 2;
        t.w[0] = 1.0 - x;
        t.w[1] = x;
        return t;
    }
    let f = floor(pos);
    let x = pos - f;
    if (m == 2u) {
        // OpenCV's interpolateCubic, A = -0.75
        let a = -0.75;
        t.first = i32(f) - 1;
        t.count = 4;
        t.w[0] = ((a * (x + 1.0) - 5.0 * a) * (x + 1.0) + 8.0 * a) * (x + 1.0) - 4.0 * a;
        t.w[1] = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
        t.w[2] = ((a + 2.0) * (1.0 - x) - (a + 3.0)) * (1.0 - x) * (1.0 - x) + 1.0;
        t.w[3] = 1.0 - t.w[0] - t.w[1] - t.w[2];
        return t;
    }
    // lanczos3: L(u) = 3 sin(pi u) sin(pi u / 3) / (pi u)^2 at u = k - 2 - x, normalised to sum 1
    t.first = i32(f) - 2;
    t.count = 6;
    let s1 = sin(PI * x);
    let s3 = sin(PI * x / 3.0);
    let c3 = cos(PI * x / 3.0);
    var sum = 0.0;
    for (var k = 0; k < 6; k++) {
        let u = f32(k - 2) - x;
        var w = 1.0;
        if (u != 0.0) {
            // sin(pi u) = -(-1)^k sin(pi x); sin(pi u / 3) by angle addition
            let sa = select(s1, -s1, (k & 1) == 0);
            let sb = LSIN[k] * c3 - LCOS[k] * s3;
            w = 3.0 * sa * sb / (PI * PI * u * u);
        }
        t.w[k] = w;
        sum += w;
    }
    for (var k = 0; k < 6; k++) {
        t.w[k] = t.w[k] / sum;
    }
    return t;
}

// OpenCV's computeResizeAreaTab for output coordinate d: the first source pixel, the count, and
// the cell's start, end and width (the weights follow from them in `area_weight`).
struct Area {
    first: i32,
    count: i32,
    f1: f32,
    f2: f32,
    cell: f32,
    s1: i32,
    s2: i32,
}

fn area_taps(d: u32, n: u32, scale: f32) -> Area {
    var a: Area;
    a.f1 = f32(d) * scale;
    a.f2 = a.f1 + scale;
    a.cell = min(scale, f32(n) - a.f1);
    a.s2 = min(i32(floor(a.f2)), i32(n) - 1);
    a.s1 = min(i32(ceil(a.f1)), a.s2);
    a.first = select(a.s1, a.s1 - 1, f32(a.s1) - a.f1 > 1e-3);
    let last = select(a.s2 - 1, a.s2, a.f2 - f32(a.s2) > 1e-3);
    a.count = last - a.first + 1;
    return a;
}

fn area_weight(a: Area, i: i32) -> f32 {
    if (i < a.s1) { return (f32(a.s1) - a.f1) / a.cell; }
    if (i < a.s2) { return 1.0 / a.cell; }
    return min(min(a.f2 - f32(a.s2), 1.0), a.cell) / a.cell;
}

// The taps per axis of METHOD (all but area shrinking): a constant after specialisation.
fn taps_count() -> i32 {
    switch METHOD {
        case 0u: { return 1; }
        case 2u: { return 4; }
        case 3u: { return 6; }
        default: { return 2; }
    }
}

fn texel(x: i32, y: i32) -> vec4<f32> {
    let cx = u32(clamp(x, 0, i32(params.in_width) - 1));
    let cy = u32(clamp(y, 0, i32(params.in_height) - 1));
    if (WINDOW == 1u) {
        return vec4<f32>(unpack_u8(src[(cy - params.in_y0) * params.stride + (cx - params.in_x0)]));
    }
    return vec4<f32>(unpack_u8(src[cy * params.in_width + cx]));
}

