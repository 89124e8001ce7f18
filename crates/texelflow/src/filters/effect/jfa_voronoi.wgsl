// Jump-flooding Voronoi (GPUImage's GPUImageJFAVoronoiFilter), two entry points on the same
// bindings: `jfa_seed` marks the input's seed pixels, `jfa_step` is one jump-flood pass (the
// last one writes GPUImage's colour encoding). Seeds are `x | y << 16` in a u32, NONE for
// none. CPU twin: `jfa_passes` in jfa_voronoi.rs, the same passes and comparisons.

const NONE: u32 = 0xffffffffu;

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: JfaParams;

@compute @workgroup_size(16, 16)
fn jfa_seed(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= params.width || g.y >= params.height) { return; }
    let i = g.y * params.width + g.x;
    let p = src[i];
    // a seed: not transparent and not black
    dst[i] = select(NONE, g.x | (g.y << 16u), (p >> 24u) != 0u && (p & 0xffffffu) != 0u);
}

// Squared distance in pixels from (x, y) to seed s (exact in u32 for the sizes taken).
fn seed_dist(s: u32, x: u32, y: u32) -> u32 {
    let dx = i32(s & 0xffffu) - i32(x);
    let dy = i32(s >> 16u) - i32(y);
    return u32(dx * dx + dy * dy);
}

@compute @workgroup_size(16, 16)
fn jfa_step(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x >= params.width || g.y >= params.height) { return; }
    let i = g.y * params.width + g.x;
    var best = src[i];
    var best_d = select(seed_dist(best, g.x, g.y), NONE, best == NONE);
    let k = i32(params.step);
    for (var dy = -1; dy <= 1; dy++) {
        for (var dx = -1; dx <= 1; dx++) {
            let nx = i32(g.x) + dx * k;
            let ny = i32(g.y) + dy * k;
            if ((dx == 0 && dy == 0) || nx < 0 || ny < 0 || nx >= i32(params.width) || ny >= i32(params.height)) { continue; }
            let s = src[u32(ny) * params.width + u32(nx)];
            if (s == NONE) { continue; }
            let d = seed_dist(s, g.x, g.y);
            // strictly nearer: ties keep the first found, as the twin
            if (d < best_d) {
                best = s;
                best_d = d;
            }
        }
    }
    if (params.last == 0u) {
        dst[i] = best;
    } else if (best == NONE) {
        dst[i] = 0u;
    } else {
        // GPUImage's encoding: R, G the low bytes of x, y; B = x / 256 + 8 (y / 256); A opaque
        let x = best & 0xffffu;
        let y = best >> 16u;
        dst[i] = (x & 255u) | ((y & 255u) << 8u) | (((x >> 8u) + 8u * (y >> 8u)) << 16u) | (255u << 24u);
    }
}
