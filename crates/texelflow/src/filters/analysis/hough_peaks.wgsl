// Peaks: one invocation per accumulator bin; a bin above both thresholds that is a local
// maximum by OpenCV's HoughLines test is appended to the candidate list.
@group(0) @binding(0) var<storage, read> acc: array<u32>;
@group(0) @binding(1) var<storage, read_write> cand: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> p: HoughParams;

// A bin's votes; 0 outside the accumulator (OpenCV pads it with zeros, θ does not wrap).
fn votes_at(t: i32, r: i32) -> u32 {
    if (t < 0 || r < 0 || t >= i32(p.n_theta) || r >= i32(p.n_rho)) { return 0u; }
    return acc[u32(t) * p.n_rho + u32(r)];
}

@compute @workgroup_size(256)
fn hough_peaks(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= p.n_theta * p.n_rho) { return; }
    let v = acc[i];
    if (v <= p.threshold) { return; }
    if (!(f32(v) >= p.relative * f32(atomicLoad(&cand[2])))) { return; }
    let t = i32(i / p.n_rho);
    let r = i32(i % p.n_rho);
    // strictly above the previous ρ and θ bins, at least the next ones
    if (!(v > votes_at(t, r - 1) && v >= votes_at(t, r + 1) && v > votes_at(t - 1, r) && v >= votes_at(t + 1, r))) { return; }
    let j = atomicAdd(&cand[0], 1u);
    if (j < LINES_CAPACITY) {
        atomicStore(&cand[CAND_HEADER + 2u * j], (u32(t) << 16u) | u32(r));
        atomicStore(&cand[CAND_HEADER + 2u * j + 1u], v);
    }
}
