// Kuwahara filter of RGBA8 (GPUImage's GPUImageKuwaharaFilter): the mean of whichever of the
// four (R + 1)² quadrants around the pixel has the smallest variance (summed over R, G, B),
// in exact integers. A workgroup loads a tile of 16 x 16 outputs plus a border of R, then each
// invocation reads its (2R + 1)² window once, row by row, as a left and a right segment that
// share the centre column. The radius, the tile's side and its array are generated constants
// (`R`, `SIDE`, `tile`; Kuwahara::record_gpu), so the loops have constant bounds.
// CPU twin: `Kuwahara::run_cpu`.
// KuwaharaParams: kuwahara.rs (PARAMS_WGSL).

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: KuwaharaParams;

const OUT: u32 = 16u;  // outputs per tile side (Kuwahara's TILE_OUT)

fn rgb_u8(p: u32) -> vec3<u32> {
    return vec3<u32>(p & 255u, (p >> 8u) & 255u, (p >> 16u) & 255u);
}

// n² times the variance, summed over R, G, B: n q - s² per channel is exact in wrapping u32
// arithmetic because the true value, at most n² 255² / 4 per channel, fits (and their sum too,
// up to R = 16).
fn spread(s: vec3<u32>, q: vec3<u32>) -> u32 {
    let v = params.n * q - s * s;
    return v.x + v.y + v.z;
}

@compute @workgroup_size(16, 16)
fn kuwahara(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
    let ox = i32(wg.x * OUT) - i32(R);
    let oy = i32(wg.y * OUT) - i32(R);
    for (var i = l.y * OUT + l.x; i < SIDE * SIDE; i += OUT * OUT) {
        let tx = i % SIDE;
        let ty = i / SIDE;
        let sx = u32(clamp(ox + i32(tx), 0, i32(params.width) - 1));
        let sy = u32(clamp(oy + i32(ty), 0, i32(params.height) - 1));
        tile[i] = src[sy * params.width + sx];
    }
    workgroupBarrier();
    let x = wg.x * OUT + l.x;
    let y = wg.y * OUT + l.y;
    if (x >= params.width || y >= params.height) { return; }
    // sums (s) and sums of squares (q) of the quadrants: top-left, top-right, bottom-right, bottom-left
    var s0 = vec3<u32>(0u); var q0 = vec3<u32>(0u);
    var s1 = vec3<u32>(0u); var q1 = vec3<u32>(0u);
    var s2 = vec3<u32>(0u); var q2 = vec3<u32>(0u);
    var s3 = vec3<u32>(0u); var q3 = vec3<u32>(0u);
    for (var dy = 0u; dy <= 2u * R; dy++) {
        let row = (l.y + dy) * SIDE + l.x;
        let c = rgb_u8(tile[row + R]);
        var ls = c; var lq = c * c;
        var rs = c; var rq = c * c;
        for (var dx = 0u; dx < R; dx++) {
            let a = rgb_u8(tile[row + dx]);
            ls += a; lq += a * a;
            let b = rgb_u8(tile[row + R + 1u + dx]);
            rs += b; rq += b * b;
        }
        if (dy <= R) { s0 += ls; q0 += lq; s1 += rs; q1 += rq; }
        if (dy >= R) { s3 += ls; q3 += lq; s2 += rs; q2 += rq; }
    }
    let v = array<u32, 4>(spread(s0, q0), spread(s1, q1), spread(s2, q2), spread(s3, q3));
    let sums = array<vec3<u32>, 4>(s0, s1, s2, s3);
    var best = params.order & 3u;
    for (var k = 1u; k < 4u; k++) {
        let q = (params.order >> (8u * k)) & 3u;
        if (v[q] < v[best]) { best = q; }
    }
    // the mean rounded to the nearest level (as GPUImage's framebuffer stores it), opaque as GPUImage writes it
    let m = (2u * sums[best] + vec3<u32>(params.n)) / (2u * params.n);
    dst[y * params.width + x] = m.x | (m.y << 8u) | (m.z << 16u) | (255u << 24u);
}
