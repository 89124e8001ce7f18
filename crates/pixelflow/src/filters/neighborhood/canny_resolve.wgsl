// Canny, after the merge: the final root of every tile root whose component holds a strong
// pixel (canny_classify's list) is marked (top bit). The forest no longer changes, so the
// roots found are final; a root's label is only or-ed, so no mark is lost. One invocation
// per list entry (the dispatch covers the largest possible list; the rest return at once).
@group(0) @binding(0) var<storage, read> strong_count: array<u32>;
@group(0) @binding(1) var<storage, read> strong_roots: array<u32>;
@group(0) @binding(2) var<storage, read_write> labels: array<atomic<u32>>;
@group(0) @binding(3) var<uniform> params: CannyParams;

@compute @workgroup_size(256)
fn canny_resolve(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= strong_count[0] || i >= params.width * params.height) { return; }
    atomicOr(&labels[find_root(strong_roots[i])], LABEL_MARK);
}
