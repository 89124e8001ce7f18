// Canny, the union-find of a tile in workgroup memory, shared by canny_classify.wgsl and
// canny_tiles_classify.wgsl; the kernel that includes it declares
// `tile_label: array<atomic<u32>, N>`.

// With path halving, as canny_find.wgsl's find_root.
fn tile_find(p: u32) -> u32 {
    var x = p;
    loop {
        let n = atomicLoad(&tile_label[x]);
        if (n == x) { break; }
        let g = atomicLoad(&tile_label[n]);
        if (g == n) { return n; }
        atomicMin(&tile_label[x], g);
        x = g;
    }
    return x;
}

// canny_find.wgsl's concurrent union, on the tile's labels.
fn tile_unite(p: u32, q: u32) {
    var a = p;
    var b = q;
    loop {
        a = tile_find(a);
        b = tile_find(b);
        if (a == b) { return; }
        if (a < b) {
            let old = atomicMin(&tile_label[b], a);
            if (old == b) { return; }
            b = old;
        } else {
            let old = atomicMin(&tile_label[a], b);
            if (old == a) { return; }
            a = old;
        }
    }
}
