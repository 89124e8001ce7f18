// The prefix sum of the blocks each subsequence starts (the JPEG entropy decode, issue 30):
// `scan_local` within workgroups of 256, `scan_groups` (one invocation) over the workgroups.

// per subsequence its end state (jpeg_huffdec.wgsl), the blocks started at bit 15
@group(0) @binding(0) var<storage, read> st: array<u32>;
// per subsequence the blocks started before it within its workgroup, then per workgroup those
// of the workgroups before it
@group(0) @binding(1) var<storage, read_write> scan: array<u32>;
@group(0) @binding(2) var<uniform> hu: HdU;

var<workgroup> part: array<u32, 256>;

@compute @workgroup_size(256)
fn scan_local(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = wid.y * nwg.x + wid.x;
    let j = g * 256u + lid;
    let subs = hu.a.x;
    var c = 0u;
    if (j < subs) {
        c = st[j] >> 15u;
    }
    part[lid] = c;
    workgroupBarrier();
    for (var d = 1u; d < 256u; d <<= 1u) {
        var t = 0u;
        if (lid >= d) {
            t = part[lid - d];
        }
        workgroupBarrier();
        part[lid] += t;
        workgroupBarrier();
    }
    if (j < subs) {
        scan[j] = part[lid] - c;
    }
    if (lid == 255u && g * 256u < subs) {
        scan[subs + g] = part[255u];
    }
}

@compute @workgroup_size(1)
fn scan_groups() {
    let subs = hu.a.x;
    let groups = (subs + 255u) / 256u;
    var acc = 0u;
    for (var g = 0u; g < groups; g += 1u) {
        let v = scan[subs + g];
        scan[subs + g] = acc;
        acc += v;
    }
    // (binds `st` as `scan_local` does)
    if (subs == NONE) {
        scan[0] = st[0];
    }
}
