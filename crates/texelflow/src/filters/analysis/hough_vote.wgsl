// Hough voting: one invocation per pixel; an edge pixel adds a vote to its ρ bin in every θ row.
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> acc: array<atomic<u32>>;
// per θ row: C, S (i32 in Q16), θ (f32 bits), cos/sin Q1.14
@group(0) @binding(2) var<storage, read> tab: array<u32>;
@group(0) @binding(3) var<uniform> p: HoughParams;

@compute @workgroup_size(16, 16)
fn hough_vote(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= p.width || gid.y >= p.height) { return; }
    var v: u32;
    if (p.format == 0u) {
        v = (src[gid.y * p.words_per_row + gid.x / 4u] >> (8u * (gid.x & 3u))) & 255u;
    } else {
        v = src[gid.y * p.width + gid.x] & 255u;
    }
    if (v <= p.level) { return; }
    // floor(x C + y S + 1/2) + k0 in wrapping u32 arithmetic: the true sum lies in [0, 2^32)
    let bias = (p.k0 << Q) + (1u << (Q - 1u));
    for (var t = 0u; t < p.n_theta; t++) {
        let k = (gid.x * tab[4u * t] + gid.y * tab[4u * t + 1u] + bias) >> Q;
        atomicAdd(&acc[t * p.n_rho + k], 1u);
    }
}
