// Canny, schedule `tiles`: the union-find over the tiles' nodes (`nodes: array<atomic<u32>>`),
// canny_find.wgsl's find with path halving and Playne and Hawick's concurrent union (the
// larger root hung under the smaller with atomicMin), so a root is the smallest id of its tree.

fn find_root(p: u32) -> u32 {
    var x = p;
    loop {
        let n = atomicLoad(&nodes[x]);
        if (n == x) { break; }
        let g = atomicLoad(&nodes[n]);
        if (g == n) { return n; }
        atomicMin(&nodes[x], g);
        x = g;
    }
    return x;
}

fn unite(p: u32, q: u32) {
    var a = p;
    var b = q;
    loop {
        a = find_root(a);
        b = find_root(b);
        if (a == b) { return; }
        if (a < b) {
            let old = atomicMin(&nodes[b], a);
            if (old == b) { return; }
            b = old;
        } else {
            let old = atomicMin(&nodes[a], b);
            if (old == a) { return; }
            a = old;
        }
    }
}
