// Canny, after the merge: every candidate's label becomes its root, and each strong pixel
// marks its root (top bit). The forest no longer changes, so the roots found are final;
// a root's own label is never stored here, only or-ed, so no mark is lost. One invocation
// per pixel.
@group(0) @binding(0) var<storage, read> classes: array<u32>;
@group(0) @binding(1) var<storage, read_write> labels: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> params: CannyParams;

@compute @workgroup_size(256)
fn canny_resolve(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    let w = params.width;
    if (i >= w * params.height) { return; }
    let y = i / w;
    let c = class_at(i - y * w, y);
    if (c == CLASS_NONE) { return; }
    let r = find_root(i);
    if (r != i) { atomicStore(&labels[i], r); }
    if (c == CLASS_STRONG) { atomicOr(&labels[r], LABEL_MARK); }
}
