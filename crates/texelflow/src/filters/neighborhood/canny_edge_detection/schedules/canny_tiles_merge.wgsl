// Canny, schedule `tiles`: the tiles' ring components joined. Every node pixel on a tile's top
// row unites with the nodes of its neighbours in the row above (north-west, north,
// north-east: the bottom rows of the tiles above), every one in its left column with those
// in the column to its left (west, south-west, north-west within the tile row: the right
// column of the tile to the left; the corners' diagonals are the top rows'). Every
// 8-adjacent pair of candidates in different tiles is one of these. One invocation per
// top-row and left-column pixel (80 a tile); it reads border bytes only.
@group(0) @binding(0) var<storage, read> border: array<u32>;
@group(0) @binding(1) var<storage, read_write> nodes: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> params: CannyParams;

fn border_byte(tile: u32, e: u32) -> u32 {
    return byte_of(border[tile * BORDER_WORDS + (e >> 2u)], e & 3u);
}

// The node id of border byte b of `tile`: strong nodes below every weak one.
fn node_id(tile: u32, b: u32, tiles_k: u32) -> u32 {
    return select(0u, tiles_k, (b & 0x80u) != 0u) + tile * NODES_PER_TILE + (b & 0x7fu);
}

fn join(p: u32, tile: u32, e: u32, tiles_k: u32) {
    let b = border_byte(tile, e);
    if (b != NO_NODE) { unite(p, node_id(tile, b, tiles_k)); }
}

@compute @workgroup_size(256)
fn canny_tiles_merge(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    let tx_n = tiles_x();
    let tiles = tx_n * tiles_y();
    if (i >= tiles * 80u) { return; }
    let tile = i / 80u;
    let e = i - tile * 80u;
    let tx = tile % tx_n;
    let tiles_k = tiles * NODES_PER_TILE;
    if (e < 64u) {
        // top row, column e: the bottom row (entries 64..127) of the tiles above
        if (tile < tx_n) { return; }
        let b = border_byte(tile, e);
        if (b == NO_NODE) { return; }
        let p = node_id(tile, b, tiles_k);
        let up = tile - tx_n;
        join(p, up, 64u + e, tiles_k);
        if (e > 0u) {
            join(p, up, 63u + e, tiles_k);
        } else if (tx > 0u) {
            join(p, up - 1u, 127u, tiles_k);
        }
        if (e < 63u) {
            join(p, up, 65u + e, tiles_k);
        } else if (tx + 1u < tx_n) {
            join(p, up + 1u, 64u, tiles_k);
        }
    } else {
        // left column, row r: the right column (entries 144..159) of the tile to the left
        if (tx == 0u) { return; }
        let r = e - 64u;
        let b = border_byte(tile, 128u + r);
        if (b == NO_NODE) { return; }
        let p = node_id(tile, b, tiles_k);
        let left = tile - 1u;
        join(p, left, 144u + r, tiles_k);
        if (r > 0u) { join(p, left, 143u + r, tiles_k); }
        if (r < 15u) { join(p, left, 145u + r, tiles_k); }
    }
}
