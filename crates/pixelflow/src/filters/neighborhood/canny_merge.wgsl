// Canny, union of every candidate with its candidate neighbours (8-connectivity). Each pixel
// unites with its west and north neighbours, with the north-west one only when neither of
// those is a candidate (else they link it), and with the north-east one only when the north
// one is not (else the north-east one's own west link does); a west neighbour in the same
// word is linked already (canny_classify). One invocation per pixel; non-candidates return
// after one load.
@group(0) @binding(0) var<storage, read> classes: array<u32>;
@group(0) @binding(1) var<storage, read_write> labels: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> params: CannyParams;

@compute @workgroup_size(256)
fn canny_merge(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    let w = params.width;
    if (i >= w * params.height) { return; }
    let y = i / w;
    let x = i - y * w;
    if (class_at(x, y) == CLASS_NONE) { return; }
    let west = x > 0u && class_at(x - 1u, y) != CLASS_NONE;
    var north = false;
    var north_west = false;
    var north_east = false;
    if (y > 0u) {
        north = class_at(x, y - 1u) != CLASS_NONE;
        north_west = x > 0u && class_at(x - 1u, y - 1u) != CLASS_NONE;
        north_east = x + 1u < w && class_at(x + 1u, y - 1u) != CLASS_NONE;
    }
    if (west && (x & 3u) == 0u) { unite(i, i - 1u); }
    if (north) { unite(i, i - w); }
    if (north_west && !west && !north) { unite(i, i - w - 1u); }
    if (north_east && !north) { unite(i, i - w + 1u); }
}
