// Canny, schedule `tiles`, last pass: the pending pixels (weak components on a tile's ring,
// output byte 1 + their node index) become 255 when their node's root is strong (an id
// below tiles K: the merge hangs larger ids under smaller, strong ids are the smallest),
// else 0. One workgroup of 64 invocations per tile, 4 packed words each; only the words
// classify marked in `pending` are read (the others return after one broadcast load).
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read_write> nodes: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read> pending: array<u32>;
@group(0) @binding(3) var<uniform> params: CannyParams;

@compute @workgroup_size(64)
fn canny_tiles_finish(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let tx_n = tiles_x();
    let tile = wid.y * tx_n + wid.x;
    // the tile's words 4 li .. 4 li + 3 (one quarter of a tile row)
    var todo = (pending[tile * PENDING_WORDS + (li >> 3u)] >> ((li * 4u) & 31u)) & 15u;
    if (todo == 0u) { return; }
    let y = wid.y * 16u + (li >> 2u);
    let tiles_k = tx_n * tiles_y() * NODES_PER_TILE;
    while (todo != 0u) {
        let j = firstTrailingBit(todo);
        todo &= todo - 1u;
        let wi = wid.x * 16u + (li & 3u) * 4u + j;
        // classify marks words inside the image only
        let at = y * params.words + wi;
        let w = out[at];
        var res = w;
        for (var k = 0u; k < 4u; k++) {
            let b = byte_of(w, k);
            if (b != 0u && b != 255u) {
                let strong = find_root(tiles_k + tile * NODES_PER_TILE + b - 1u) < tiles_k;
                res = (res & ~(255u << (8u * k))) | (select(0u, 255u, strong) << (8u * k));
            }
        }
        out[at] = res;
    }
}
