// Canny, union-find over the candidates' labels (Playne and Hawick's concurrent union: the
// larger root is hung under the smaller with atomicMin; a root that changed meanwhile is
// followed and the union retried). Needs `labels: array<atomic<u32>>` and `classes`.

fn class_at(x: u32, y: u32) -> u32 {
    return byte_of(classes[y * params.words + (x >> 2u)], x & 3u);
}

// With path halving: each node passed is hung under its grandparent (an ancestor, a smaller
// index, so atomicMin keeps whichever ancestor is higher when unions race). Only non-roots
// change, and they carry no mark.
fn find_root(p: u32) -> u32 {
    var x = p;
    loop {
        let n = atomicLoad(&labels[x]) & LABEL_INDEX;
        if (n == x) { break; }
        let g = atomicLoad(&labels[n]) & LABEL_INDEX;
        if (g == n) { return n; }
        atomicMin(&labels[x], g);
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
            let old = atomicMin(&labels[b], a);
            if (old == b) { return; }
            b = old;
        } else {
            let old = atomicMin(&labels[a], b);
            if (old == a) { return; }
            a = old;
        }
    }
}
