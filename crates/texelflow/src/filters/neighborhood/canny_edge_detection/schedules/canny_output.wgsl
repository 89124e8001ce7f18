// Canny, last pass: a candidate is an edge (255) when its root is marked, i.e. when its
// component holds a strong pixel. Rewrites the class words in place; words without a
// candidate are 0 already. One invocation per packed word.
@group(0) @binding(0) var<storage, read_write> classes: array<u32>;
@group(0) @binding(1) var<storage, read> labels: array<u32>;
@group(0) @binding(2) var<uniform> params: CannyParams;

@compute @workgroup_size(256)
fn canny_output(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= params.words * params.height) { return; }
    let c = classes[i];
    if (c == 0u) { return; }
    let y = i / params.words;
    let x0 = (i - y * params.words) * 4u;
    let p0 = y * params.width + x0;
    var word = 0u;
    for (var k = 0u; k < 4u; k++) {
        if (byte_of(c, k) != CLASS_NONE) {
            let root = labels[p0 + k] & LABEL_INDEX;
            if ((labels[root] & LABEL_MARK) != 0u) { word |= 255u << (8u * k); }
        }
    }
    classes[i] = word;
}
