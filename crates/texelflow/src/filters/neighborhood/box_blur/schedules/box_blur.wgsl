// Box blur: the mean over a (2r+1) x (2r+1) window, replicate-edge borders, exact integer
// arithmetic: output = round_half_up(sum / (2r+1)^2). Bit-identical to the CPU twin
// (`box_cpu` in box_blur.rs). Work per pixel does not depend on the radius.
//
// One workgroup owns a strip of NCOL input columns (the TW = NCOL - 2r output columns plus
// r halo columns on each side) and `strip_h` output rows, which it walks top to bottom:
// - vertical: each invocation keeps the running sum of its column over rows y-r..y+r in
//   registers (two u32 holding 16-bit lanes: R|B and G|A; sums are at most 129*255 < 2^16),
//   adding the row entering the window and subtracting the row leaving it;
// - horizontal: per row, an exclusive prefix sum over the NCOL column sums in workgroup
//   memory (runs of 4 per invocation, groups of 8 runs, then the 8 group totals), and
//   output x = prefix[x+2r] - prefix[x-1].
// CH rows are processed per round of barriers.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> bp: BoxBlurParams;

// Columns per workgroup = invocations per workgroup. The scan layout (64 runs of 4 per row,
// 8 groups of 8 runs) assumes 256.
const NCOL: u32 = 256u;
const RUNS: u32 = 64u;
// Rows per round of barriers: 1, 2 or 4 (CH * RUNS <= NCOL). Specialised to what the
// device's workgroup memory allows (CH * 7296 bytes).
const CH: u32 = 4u; // @specialize

var<workgroup> vb: array<vec2<u32>, CH * NCOL>;   // column sums, packed
var<workgroup> pb: array<vec4<u32>, CH * NCOL>;   // inclusive prefix over columns
var<workgroup> tb: array<vec4<u32>, CH * RUNS>;   // run totals, scanned within groups of 8
var<workgroup> gb: array<vec4<u32>, CH * 8u>;     // group totals, then exclusive offsets

// A pixel's bytes split into two words of 16-bit lanes: (R | B << 16, G | A << 16).
fn load_split(y: u32, x: u32) -> vec2<u32> {
    let p = src[y * bp.width + x];
    return vec2<u32>(p & 0x00FF00FFu, (p >> 8u) & 0x00FF00FFu);
}

fn unpack_pair(v: vec2<u32>) -> vec4<u32> {
    return vec4<u32>(v.x & 0xFFFFu, v.y & 0xFFFFu, v.x >> 16u, v.y >> 16u);
}

// round(s / n) half up = floor((2s + n) / 2n), exactly: a float estimate (off by at most
// one, since 2s + n < 2^24) corrected with integer compares.
fn div_round(s: vec4<u32>) -> u32 {
    let d = bp.two_n;
    let a = 2u * s + vec4<u32>(d / 2u);
    var q = vec4<u32>(vec4<f32>(a) * bp.inv_two_n);
    q = select(q, q + 1u, (q + 1u) * d <= a);
    q = select(q, q - 1u, q * d > a);
    q = min(q, vec4<u32>(255u));
    return q.x | (q.y << 8u) | (q.z << 16u) | (q.w << 24u);
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let r = bp.radius;
    let wmax = i32(bp.width) - 1;
    let hmax = i32(bp.height) - 1;
    let out_x0 = wid.x * bp.tile_w;
    let col = u32(clamp(i32(out_x0) - i32(r) + i32(t), 0, wmax));
    let y_start = wid.y * bp.strip_h;
    let y_end = min(y_start + bp.strip_h, bp.height);

    // column sum over the window of row y_start - 1: rows y_start-1-r ..= y_start-1+r
    var v = vec2<u32>(0u);
    for (var j = 0u; j <= 2u * r; j++) {
        let yy = u32(clamp(i32(y_start) - 1 - i32(r) + i32(j), 0, hmax));
        v += load_split(yy, col);
    }

    // this invocation's scan task: row `ti` of the round, run `q` (columns 4q..4q+3)
    let ti = t / RUNS;
    let q = t % RUNS;
    let has_task = ti < CH;
    for (var y0 = y_start; y0 < y_end; y0 += CH) {
        // 1. slide the column windows down one row at a time
        for (var i = 0u; i < CH; i++) {
            let y = i32(y0 + i);
            let enter = u32(min(y + i32(r), hmax));
            let leave = u32(max(y - i32(r) - 1, 0));
            v = v + load_split(enter, col) - load_split(leave, col);
            vb[i * NCOL + t] = v;
        }
        workgroupBarrier();
        // 2. inclusive prefix within each run of 4 columns
        var l0 = vec4<u32>(0u);
        var l1 = vec4<u32>(0u);
        var l2 = vec4<u32>(0u);
        var l3 = vec4<u32>(0u);
        let base = ti * NCOL + 4u * q;
        if (has_task) {
            l0 = unpack_pair(vb[base]);
            l1 = l0 + unpack_pair(vb[base + 1u]);
            l2 = l1 + unpack_pair(vb[base + 2u]);
            l3 = l2 + unpack_pair(vb[base + 3u]);
            tb[ti * RUNS + q] = l3;
        }
        workgroupBarrier();
        // 3. inclusive scan of run totals within each group of 8 runs
        if (t < CH * 8u) {
            let b = (t / 8u) * RUNS + (t % 8u) * 8u;
            var s = tb[b];
            for (var k = 1u; k < 8u; k++) {
                s += tb[b + k];
                tb[b + k] = s;
            }
            gb[t] = s;
        }
        workgroupBarrier();
        // 4. exclusive scan of the 8 group totals of each row
        if (t < CH) {
            var s = vec4<u32>(0u);
            for (var k = 0u; k < 8u; k++) {
                let g = gb[t * 8u + k];
                gb[t * 8u + k] = s;
                s += g;
            }
        }
        workgroupBarrier();
        // 5. full inclusive prefix of this run's columns
        var p0 = vec4<u32>(0u);
        var p1 = vec4<u32>(0u);
        var p2 = vec4<u32>(0u);
        var p3 = vec4<u32>(0u);
        if (has_task) {
            var off = gb[ti * 8u + q / 8u];
            if (q % 8u != 0u) {
                off += tb[ti * RUNS + q - 1u];
            }
            p0 = off + l0;
            p1 = off + l1;
            p2 = off + l2;
            p3 = off + l3;
            pb[base] = p0;
            pb[base + 1u] = p1;
            pb[base + 2u] = p2;
            pb[base + 3u] = p3;
        }
        workgroupBarrier();
        // 6. window sums: column c = 4q+k ends the window of output column c - 2r
        if (has_task) {
            let y = y0 + ti;
            if (y < y_end) {
                emit(p0, base, 4u * q, r, out_x0, y);
                emit(p1, base + 1u, 4u * q + 1u, r, out_x0, y);
                emit(p2, base + 2u, 4u * q + 2u, r, out_x0, y);
                emit(p3, base + 3u, 4u * q + 3u, r, out_x0, y);
            }
        }
        // The next round's first writes (vb, then tb/gb/pb) come after barriers that
        // follow every read of these arrays in this round.
    }
}

// Output for strip column c (prefix p at workgroup-memory index i), if it ends a window.
fn emit(p: vec4<u32>, i: u32, c: u32, r: u32, out_x0: u32, y: u32) {
    if (c < 2u * r) {
        return;
    }
    let u = c - 2u * r;
    let x = out_x0 + u;
    if (x >= bp.width) {
        return;
    }
    var s = p;
    if (u > 0u) {
        s -= pb[i - 2u * r - 1u];
    }
    dst[y * bp.width + x] = div_round(s);
}
