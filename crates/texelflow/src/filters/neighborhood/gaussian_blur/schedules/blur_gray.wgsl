// The Gray8 schedules of gaussian_blur (`gauss_gray`) and box_blur (`box_gray`): one kernel,
// a workgroup per tile of 4 WC columns by TH rows. The row pass reads the input's bytes
// (TH + 2R rows, clamped) from global memory, four consecutive outputs per invocation, into
// workgroup memory; the column pass sums 2R + 1 of those rows and stores one packed word of
// four pixels per invocation. One byte read and one written per pixel from DRAM (the row
// halo is re-read through the caches). CPU twins: `gaussian_gray_cpu`, `box_gray_cpu` in
// blur_gray.rs.

const R: u32 = 2u; // @specialize
const WC: u32 = 16u; // @specialize
const TH: u32 = 32u; // @specialize
const WG: u32 = 128u;
const ROWS: u32 = TH + 2u * R;

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> bp: BlurGrayParams;

// The row pass's results: f32 bits (gauss_gray) or integer sums (box_gray).
var<workgroup> rows_w: array<vec4<u32>, ROWS * WC>;

// Sample at column x (clamped: replicated borders) of the row starting at word `row`.
fn sample(row: u32, x: i32) -> u32 {
    let cx = u32(clamp(x, 0, i32(bp.width) - 1));
    return (src[row + cx / 4u] >> (8u * (cx % 4u))) & 255u;
}

fn weight(k: u32) -> f32 {
    return bp.w[k / 4u][k % 4u];
}

@compute @workgroup_size(128)
fn gauss_gray(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let x0 = wid.x * WC * 4u;
    let y0 = i32(wid.y * TH) - i32(R);
    // rows: output j of the four takes samples t = j..j+2R, weight t - j, in tap order
    for (var i = li; i < ROWS * WC; i += WG) {
        let r = i / WC;
        let c = i - r * WC;
        let row = u32(clamp(y0 + i32(r), 0, i32(bp.height) - 1)) * bp.words;
        let first = i32(x0 + 4u * c) - i32(R);
        var a = vec4<f32>(0.0);
        for (var t = 0u; t < 2u * R + 4u; t++) {
            let s = f32(sample(row, first + i32(t)));
            if (t <= 2u * R) { a.x += weight(t) * s; }
            if (t >= 1u && t <= 2u * R + 1u) { a.y += weight(t - 1u) * s; }
            if (t >= 2u && t <= 2u * R + 2u) { a.z += weight(t - 2u) * s; }
            if (t >= 3u) { a.w += weight(t - 3u) * s; }
        }
        rows_w[i] = bitcast<vec4<u32>>(a);
    }
    workgroupBarrier();
    for (var i = li; i < TH * WC; i += WG) {
        let r = i / WC;
        let c = i - r * WC;
        let y = wid.y * TH + r;
        let xw = wid.x * WC + c;
        if (y >= bp.height || xw >= bp.words) { continue; }
        var a = vec4<f32>(0.0);
        for (var k = 0u; k <= 2u * R; k++) {
            a += weight(k) * bitcast<vec4<f32>>(rows_w[(r + k) * WC + c]);
        }
        // rounded half up like pack4x8unorm; bytes past the row's end are 0
        let q = vec4<u32>(clamp(a, vec4<f32>(0.0), vec4<f32>(255.0)) + 0.5);
        let x = 4u * xw;
        let keep = vec4<u32>(vec4<bool>(x < bp.width, x + 1u < bp.width, x + 2u < bp.width, x + 3u < bp.width));
        let v = q * keep;
        dst[y * bp.words + xw] = v.x | (v.y << 8u) | (v.z << 16u) | (v.w << 24u);
    }
}

@compute @workgroup_size(128)
fn box_gray(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let x0 = wid.x * WC * 4u;
    let y0 = i32(wid.y * TH) - i32(R);
    // rows: exact integer window sums, the first by a loop, the next three sliding
    for (var i = li; i < ROWS * WC; i += WG) {
        let r = i / WC;
        let c = i - r * WC;
        let row = u32(clamp(y0 + i32(r), 0, i32(bp.height) - 1)) * bp.words;
        let first = i32(x0 + 4u * c) - i32(R);
        var s0 = 0u;
        for (var t = 0u; t <= 2u * R; t++) {
            s0 += sample(row, first + i32(t));
        }
        let s1 = s0 + sample(row, first + i32(2u * R + 1u)) - sample(row, first);
        let s2 = s1 + sample(row, first + i32(2u * R + 2u)) - sample(row, first + 1);
        let s3 = s2 + sample(row, first + i32(2u * R + 3u)) - sample(row, first + 2);
        rows_w[i] = vec4<u32>(s0, s1, s2, s3);
    }
    workgroupBarrier();
    let n = (2u * R + 1u) * (2u * R + 1u);
    for (var i = li; i < TH * WC; i += WG) {
        let r = i / WC;
        let c = i - r * WC;
        let y = wid.y * TH + r;
        let xw = wid.x * WC + c;
        if (y >= bp.height || xw >= bp.words) { continue; }
        var a = vec4<u32>(0u);
        for (var k = 0u; k <= 2u * R; k++) {
            a += rows_w[(r + k) * WC + c];
        }
        // round half up: (2 sum + n) / 2n, below 2^32 (2 * 129^2 * 255 + 129^2)
        let q = min((2u * a + vec4<u32>(n)) / (2u * n), vec4<u32>(255u));
        let x = 4u * xw;
        let keep = vec4<u32>(vec4<bool>(x < bp.width, x + 1u < bp.width, x + 2u < bp.width, x + 3u < bp.width));
        let v = q * keep;
        dst[y * bp.words + xw] = v.x | (v.y << 8u) | (v.z << 16u) | (v.w << 24u);
    }
}
