// Canny, the tiles joined: canny_classify found the components within each 64 x 16 tile; here
// every candidate on a tile's top row unites with its candidate neighbours in the row above
// (north-west, north, north-east: other tiles), and every candidate in a tile's left column
// with those in the column to its left (west, south-west, north-west). Every 8-adjacent pair
// of pixels in different tiles is one of these. One invocation per border pixel (80 a tile).
@group(0) @binding(0) var<storage, read> classes: array<u32>;
@group(0) @binding(1) var<storage, read_write> labels: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> params: CannyParams;

@compute @workgroup_size(256)
fn canny_merge(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    let tiles_x = (params.words + 15u) / 16u;
    let tiles_y = (params.height + 15u) / 16u;
    if (i >= tiles_x * tiles_y * 80u) { return; }
    let tile = i / 80u;
    let b = i - tile * 80u;
    let tx = tile % tiles_x;
    let ty = tile / tiles_x;
    let w = params.width;
    let h = params.height;
    let top = b < 64u;
    var x = tx * 64u;
    var y = ty * 16u;
    if (top) {
        if (ty == 0u) { return; }
        x += b;
    } else {
        if (tx == 0u) { return; }
        y += b - 64u;
    }
    if (x >= w || y >= h) { return; }
    if (class_at(x, y) == CLASS_NONE) { return; }
    let p = y * w + x;
    if (top) {
        if (class_at(x, y - 1u) != CLASS_NONE) { unite(p, p - w); }
        if (x > 0u && class_at(x - 1u, y - 1u) != CLASS_NONE) { unite(p, p - w - 1u); }
        if (x + 1u < w && class_at(x + 1u, y - 1u) != CLASS_NONE) { unite(p, p - w + 1u); }
    } else {
        if (class_at(x - 1u, y) != CLASS_NONE) { unite(p, p - 1u); }
        if (y > 0u && class_at(x - 1u, y - 1u) != CLASS_NONE) { unite(p, p - w - 1u); }
        if (y + 1u < h && class_at(x - 1u, y + 1u) != CLASS_NONE) { unite(p, p + w - 1u); }
    }
}
