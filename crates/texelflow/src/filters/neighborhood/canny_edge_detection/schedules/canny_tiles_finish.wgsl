// Canny, schedule `tiles`, last pass: the pending pixels (weak components on a tile's ring,
// output byte 1 + their weak node's index) become 255 when their node's root is strong (an
// id below tiles K: the merge hangs larger ids under smaller, strong ids are the smallest),
// else 0. One workgroup of 64 invocations per tile: first the tile's weak nodes are resolved,
// one find each (a handful a tile, against one per pending pixel), into a bit mask in
// workgroup memory; then each invocation rewrites those of its 4 packed words that classify
// marked in `pending`. The forest is final here, so the finds are plain loads (cached).
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@group(0) @binding(1) var<storage, read> nodes: array<u32>;
@group(0) @binding(2) var<storage, read> pending: array<u32>;
@group(0) @binding(3) var<uniform> params: CannyParams;

// Bit j: weak node j of the tile joins a strong one.
var<workgroup> weak_edge: array<atomic<u32>, 3>;

fn root_of(p: u32) -> u32 {
    var x = p;
    loop {
        let n = nodes[x];
        if (n == x) { break; }
        x = n;
    }
    return x;
}

@compute @workgroup_size(64)
fn canny_tiles_finish(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let tx_n = tiles_x();
    let tile = wid.y * tx_n + wid.x;
    let count = pending[tile * PENDING_STRIDE + PENDING_WORDS];
    // no weak node, no pending pixel (the same for the whole workgroup)
    if (count == 0u) { return; }
    if (li < 3u) { atomicStore(&weak_edge[li], 0u); }
    workgroupBarrier();
    let tiles_k = tx_n * tiles_y() * NODES_PER_TILE;
    for (var j = li; j < count; j += 64u) {
        if (root_of(tiles_k + tile * NODES_PER_TILE + j) < tiles_k) {
            atomicOr(&weak_edge[j >> 5u], 1u << (j & 31u));
        }
    }
    workgroupBarrier();
    // the tile's words 4 li .. 4 li + 3 (one quarter of a tile row)
    var todo = (pending[tile * PENDING_STRIDE + (li >> 3u)] >> ((li * 4u) & 31u)) & 15u;
    let y = wid.y * 16u + (li >> 2u);
    while (todo != 0u) {
        let j = firstTrailingBit(todo);
        todo &= todo - 1u;
        // classify marks words inside the image only
        let at = y * params.words + wid.x * 16u + (li & 3u) * 4u + j;
        let w = out[at];
        var res = w;
        for (var k = 0u; k < 4u; k++) {
            let b = byte_of(w, k);
            if (b != 0u && b != 255u) {
                let n = b - 1u;
                let edge = ((atomicLoad(&weak_edge[n >> 5u]) >> (n & 31u)) & 1u) != 0u;
                res = (res & ~(255u << (8u * k))) | (select(0u, 255u, edge) << (8u * k));
            }
        }
        out[at] = res;
    }
}
