// `count` of jpeg_huffman.wgsl: each unit's bits, scanned within the workgroup.

@group(0) @binding(5) var<uniform> hu: HuffU;

var<private> acc: u32;
var<workgroup> part: array<u32, 256>;

fn emit(code: u32, len: u32) {
    acc += len;
}

@compute @workgroup_size(256)
fn count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = wid.y * nwg.x + wid.x;
    let n = g * 256u + lid;
    let pl = hu.plans[plan_index()];
    acc = 0u;
    if (n < pl.head.x) {
        code_unit(unit(pl, n));
    }
    part[lid] = acc;
    workgroupBarrier();
    for (var d = 1u; d < 256u; d <<= 1u) {
        var t = 0u;
        if (lid >= d) { t = part[lid - d]; }
        workgroupBarrier();
        part[lid] += t;
        workgroupBarrier();
    }
    if (n < pl.head.x) {
        offs[n] = part[lid] - acc;
    }
    if (lid == 255u) {
        sums[g] = part[255u];
    }
}
