// Per-channel median of RGBA8 over a (2r + 1)² window, r = 3..16, by radix selection: the answer
// is found bit by bit from the top, each bit by counting the window's samples below a candidate
// (eight passes over a workgroup tile). Exact. CPU twin: `Median::run_cpu` (sorts).

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: MedianParams;

const OUT: u32 = 16u;       // outputs per tile side (Median's TILE_OUT)
const MAX_R: u32 = 16u;     // largest radius (Median's MAX_RADIUS)
const SIDE: u32 = 48u;      // OUT + 2 MAX_R
var<workgroup> tile: array<u32, 2304>;  // SIDE², packed RGBA8

fn bytes(v: u32) -> vec4<u32> {
    return (vec4<u32>(v) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(255u);
}

@compute @workgroup_size(16, 16)
fn median_radix(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) l: vec3<u32>) {
    let r = params.radius;
    let span = OUT + 2u * r;
    let ox = i32(wg.x * OUT) - i32(r);
    let oy = i32(wg.y * OUT) - i32(r);
    for (var i = l.y * OUT + l.x; i < span * span; i += OUT * OUT) {
        let tx = i % span;
        let ty = i / span;
        let sx = u32(clamp(ox + i32(tx), 0, i32(params.width) - 1));
        let sy = u32(clamp(oy + i32(ty), 0, i32(params.height) - 1));
        tile[ty * SIDE + tx] = src[sy * params.width + sx];
    }
    workgroupBarrier();
    let x = wg.x * OUT + l.x;
    let y = wg.y * OUT + l.y;
    if (x >= params.width || y >= params.height) { return; }
    let side = 2u * r + 1u;
    var lo = vec4<u32>(0u);
    for (var b = 7i; b >= 0i; b--) {
        let t = lo + vec4<u32>(1u << u32(b));
        var below = vec4<u32>(0u);
        for (var dy = 0u; dy < side; dy++) {
            let row = (l.y + dy) * SIDE + l.x;
            for (var dx = 0u; dx < side; dx++) {
                below += select(vec4<u32>(0u), vec4<u32>(1u), bytes(tile[row + dx]) < t);
            }
        }
        lo = select(lo, t, below <= vec4<u32>(params.half));
    }
    dst[y * params.width + x] = lo.x | (lo.y << 8u) | (lo.z << 16u) | (lo.w << 24u);
}
