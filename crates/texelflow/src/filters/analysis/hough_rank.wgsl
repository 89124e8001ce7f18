// Rank: one invocation per candidate; it counts the candidates ranked before it (more votes,
// or as many and a smaller θ row, then ρ bin) and, when within the limit, writes itself as
// line `rank` of the `DataKind::Lines` list: sorted, the strongest `limit`, as the twin's.
@group(0) @binding(0) var<storage, read> cand: array<u32>;
@group(0) @binding(1) var<storage, read> tab: array<u32>;
@group(0) @binding(2) var<storage, read_write> list: array<u32>;
@group(0) @binding(3) var<uniform> p: HoughParams;

@compute @workgroup_size(64)
fn hough_rank(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 64u);
    let found = cand[0];
    if (i == 0u) {
        list[0] = found;
        list[1] = p.limit;
        list[2] = cand[2];
    }
    let n = min(found, LINES_CAPACITY);
    if (i >= n) { return; }
    let key = cand[CAND_HEADER + 2u * i];
    let v = cand[CAND_HEADER + 2u * i + 1u];
    var rank = 0u;
    for (var j = 0u; j < n && rank < p.limit; j++) {
        let vj = cand[CAND_HEADER + 2u * j + 1u];
        if (vj > v || (vj == v && cand[CAND_HEADER + 2u * j] < key)) {
            rank++;
        }
    }
    if (rank >= p.limit) { return; }
    let t = key >> 16u;
    let k = i32(key & 0xFFFFu) - i32(p.k0);
    let o = LINES_HEADER + LINE_WORDS * rank;
    list[o] = bitcast<u32>(f32(k) * p.rho_res);
    list[o + 1u] = tab[4u * t + 2u];
    list[o + 2u] = v;
    list[o + 3u] = tab[4u * t + 3u];
}
