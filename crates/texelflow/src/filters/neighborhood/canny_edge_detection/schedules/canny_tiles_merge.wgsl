// Canny, schedule `tiles`: the tiles' ring components joined. A tile's top row unites with the
// row above it (the bottom rows of the tiles above: north-west, north, north-east), its left
// column with the column to its left (the right column of the tile to the left; the
// corners' diagonals are the top rows'). Every 8-adjacent pair of candidates in different
// tiles is one of these. As in the tile (canny_tiles_classify.wgsl), once per pair of runs
// that touch rather than once per adjacent pixel pair: a run of the top row [s, e] (cut at
// the tile's ends) touches the candidates of the row above in columns s-1 .. e+1; each run
// of them is united at its first column in that range, by the run's first pixel for
// columns s-1 and s, else by the pixel below-left of it. Same for the left column's
// vertical runs. One invocation per top-row and left-column pixel (80 a tile); it reads
// border bytes only.
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
        // top row, column e; above(c) is column c (-1..64) of the row above
        if (tile < tx_n) { return; }
        let b = border_byte(tile, e);
        if (b == NO_NODE) { return; }
        let p = node_id(tile, b, tiles_k);
        let up = tile - tx_n;
        let a_e = border_byte(up, 64u + e);
        var a_next = NO_NODE;
        if (e < 63u) {
            a_next = border_byte(up, 65u + e);
        } else if (tx + 1u < tx_n) {
            a_next = border_byte(up + 1u, 64u);
        }
        if (e == 0u || border_byte(tile, e - 1u) == NO_NODE) {
            // the run's first pixel: the runs above at columns e-1 and e
            var a_prev = NO_NODE;
            var prev_tile = up;
            if (e > 0u) {
                a_prev = border_byte(up, 63u + e);
            } else if (tx > 0u) {
                prev_tile = up - 1u;
                a_prev = border_byte(prev_tile, 127u);
            }
            if (a_prev != NO_NODE) {
                unite(p, node_id(prev_tile, a_prev, tiles_k));
            } else if (a_e != NO_NODE) {
                unite(p, node_id(up, a_e, tiles_k));
            }
        }
        if (a_next != NO_NODE && a_e == NO_NODE) {
            unite(p, node_id(select(up, up + 1u, e == 63u), a_next, tiles_k));
        }
    } else {
        // left column, row r; beside(r) is row r (0..15) of the column to the left
        if (tx == 0u) { return; }
        let r = e - 64u;
        let b = border_byte(tile, 128u + r);
        if (b == NO_NODE) { return; }
        let p = node_id(tile, b, tiles_k);
        let left = tile - 1u;
        let l_r = border_byte(left, 144u + r);
        if (r == 0u || border_byte(tile, 127u + r) == NO_NODE) {
            var l_prev = NO_NODE;
            if (r > 0u) { l_prev = border_byte(left, 143u + r); }
            if (l_prev != NO_NODE) {
                unite(p, node_id(left, l_prev, tiles_k));
            } else if (l_r != NO_NODE) {
                unite(p, node_id(left, l_r, tiles_k));
            }
        }
        if (r < 15u && l_r == NO_NODE) {
            let l_next = border_byte(left, 145u + r);
            if (l_next != NO_NODE) { unite(p, node_id(left, l_next, tiles_k)); }
        }
    }
}
