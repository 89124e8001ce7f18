// Canny, schedule `tiles`, first pass: one workgroup per 64 x 16 pixel tile (16 x 16
// invocations, one packed word of 4 pixels each) does everything the tile can decide alone.
//  1. The grey tile with a 2-pixel halo (20 rows x 18 words, edges replicated) into
//     workgroup memory; each pixel's Sobel magnitude computed once into `tile_mag` (66 x 18:
//     the tile and a 1-pixel ring, 0 outside the image as OpenCV's suppression takes it), the
//     gradients of the invocation's own 4 pixels kept in registers. The halo rows by words
//     (32 invocations, 4 magnitudes each), the halo columns one by one (36 invocations).
//  2. Non-maximum suppression and thresholds from `tile_mag` (two loads a pixel, chosen by
//     the sector; same integers as canny_classify.wgsl and the twin).
//  3. Components of the candidates within the tile: each row's candidates as a 64-bit mask,
//     horizontal runs labelled with their first pixel from the mask (no unions), then one
//     union per pair of 8-adjacent runs of consecutive rows (Playne and Hawick's concurrent
//     union in workgroup memory), each invocation's unions made in one loop.
//  4. Each run's first pixel finds its root and tells it whether the run holds a strong pixel
//     and whether it touches a tile border that has a neighbouring tile ("ring"), from the
//     row masks. Strong components are edges (255)
//     whatever lies outside; weak ones off the ring are not (0). Only weak components on the
//     ring are left open ("pending": their output byte is 1 + their node index for now).
//  5. Every ring component gets a node of the global union-find, numbered within the tile
//     (a ring of 156 pixels holds at most 78 pairwise non-adjacent pixels, so at most 78
//     components touch it; K = 80 slots a tile). Node ids put every strong node below every
//     weak one (strong: tile K + i, weak: tiles K + tile K + i): unions hang the larger root
//     under the smaller, so after canny_tiles_merge a component's root is strong exactly
//     when one of its nodes is, with no marking pass. The node of each pixel of the tile's
//     outer rows and columns goes to `border` (one byte: index | 0x80 when weak, 0xff none)
//     for the merge; `pending` marks the words with a pending pixel (a bit a word, 8 words a
//     tile), so the last pass reads only those, and holds the tile's number of weak nodes.
@group(0) @binding(0) var<storage, read> gray: array<u32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@group(0) @binding(2) var<storage, read_write> nodes: array<u32>;
@group(0) @binding(3) var<storage, read_write> border: array<u32>;
@group(0) @binding(4) var<storage, read_write> pending: array<u32>;
@group(0) @binding(5) var<uniform> params: CannyParams;

// Grey tile: 20 rows (tile rows -2..17) x 18 words (word j holds tile columns 4 j - 4 .. 4 j - 1).
const GW: u32 = 18u;
const GROWS: u32 = 20u;
// Magnitude tile: 18 rows (tile rows -1..16) of columns -1..64, as u = column + 4 (3..68)
// stored at plane u & 3, slot u >> 2 (mag_index): the invocations of a warp storing or
// loading their k-th pixel hit 32 different banks (16 consecutive slots, the second tile row
// of the warp 80 words on: 16 banks over), where a plain row of 66 made 4-way conflicts.
const MPLANE: u32 = 20u;
const MROW: u32 = 80u;
const TILE_W: u32 = 64u;

// Grey words, then (after the magnitudes) the class words of the tile (16 x 16).
var<workgroup> tile_words: array<u32, 360>;
var<workgroup> tile_mag: array<i32, 1440>;
var<workgroup> tile_label: array<atomic<u32>, 1024>;
// Per root: bit 0 strong, bit 1 ring, bits 8.. node index.
var<workgroup> tile_flags: array<atomic<u32>, 1024>;
// Candidates and strong pixels of each tile row, columns 0..31 and 32..63.
var<workgroup> row_mask: array<atomic<u32>, 32>;
var<workgroup> row_strong: array<atomic<u32>, 32>;
// Nodes numbered so far: strong, weak (each numbering from 0: the ids differ by the half).
var<workgroup> node_count: array<atomic<u32>, 2>;
var<workgroup> pending_words: array<atomic<u32>, 8>;

const FLAG_STRONG: u32 = 1u;
const FLAG_RING: u32 = 2u;

// The packed word of grey image row `row` (clamped) holding columns 4 gw .. 4 gw + 3, each
// column clamped into the image (replicated edges); gw may be -1 or past the row.
fn gray_word(row: i32, gw: i32) -> u32 {
    let base = u32(clamp(row, 0, i32(params.height) - 1)) * params.words;
    let x0 = gw * 4;
    if (gw >= 0 && x0 + 3 < i32(params.width)) {
        return gray[base + u32(gw)];
    }
    var v = 0u;
    for (var b = 0u; b < 4u; b++) {
        let cx = u32(clamp(x0 + i32(b), 0, i32(params.width) - 1));
        v |= byte_of(gray[base + (cx >> 2u)], cx & 3u) << (8u * b);
    }
    return v;
}

// Grey at tile column c (-2..65), tile row r (-2..17).
fn tile_gray(c: i32, r: i32) -> i32 {
    let col = u32(c + 4);
    return i32(byte_of(tile_words[u32(r + 2) * GW + (col >> 2u)], col & 3u));
}

fn px(v: vec3<u32>, b: u32) -> i32 {
    return i32(byte_of(v[b >> 2u], b & 3u));
}

// Sobel (gx, gy) at byte b of the 12-byte rows above (a), at (m) and below (c); OpenCV's signs.
fn grad(a: vec3<u32>, m: vec3<u32>, c: vec3<u32>, b: u32) -> vec2<i32> {
    let gx = (px(a, b + 1u) + 2 * px(m, b + 1u) + px(c, b + 1u)) - (px(a, b - 1u) + 2 * px(m, b - 1u) + px(c, b - 1u));
    let gy = (px(c, b - 1u) + 2 * px(c, b) + px(c, b + 1u)) - (px(a, b - 1u) + 2 * px(a, b) + px(a, b + 1u));
    return vec2<i32>(gx, gy);
}

fn magnitude(g: vec2<i32>) -> i32 {
    if (params.l2 != 0u) {
        return g.x * g.x + g.y * g.y;
    }
    return abs(g.x) + abs(g.y);
}

// Magnitude of the halo pixel at tile column c, row r (from the grey tile), 0 outside the image.
fn halo_magnitude(c: i32, r: i32, x: i32, y: i32) -> i32 {
    if (x < 0 || y < 0 || x >= i32(params.width) || y >= i32(params.height)) {
        return 0;
    }
    let gx = (tile_gray(c + 1, r - 1) + 2 * tile_gray(c + 1, r) + tile_gray(c + 1, r + 1))
        - (tile_gray(c - 1, r - 1) + 2 * tile_gray(c - 1, r) + tile_gray(c - 1, r + 1));
    let gy = (tile_gray(c - 1, r + 1) + 2 * tile_gray(c, r + 1) + tile_gray(c + 1, r + 1))
        - (tile_gray(c - 1, r - 1) + 2 * tile_gray(c, r - 1) + tile_gray(c + 1, r - 1));
    return magnitude(vec2<i32>(gx, gy));
}

// tan(22.5°) in 15-bit fixed point, OpenCV's TG22.
const TG22: i32 = 13573;

// Index in tile_mag of magnitude row r (tile row + 1), column u (tile column + 4).
fn mag_index(r: u32, u: u32) -> u32 {
    return r * MROW + (u & 3u) * MPLANE + (u >> 2u);
}

// Class of a pixel with magnitude c at magnitude row r, column u, gradient g: OpenCV's test,
// strict towards the left, the top and both diagonal neighbours, not strict towards the right
// and the bottom; thresholds strict (canny_classify.wgsl's class_of).
fn class_at(r: u32, u: u32, c: i32, g: vec2<i32>) -> u32 {
    if (c <= params.low) { return CLASS_NONE; }
    let ax = abs(g.x);
    let ay = abs(g.y) << 15u;
    let tg22x = ax * TG22;
    // the two neighbours along the gradient, (r - dr, u - du) compared strictly, (r + dr,
    // u + du) strictly unless `loose`
    var dr = 0u;
    var du = 1u;
    var loose = true;
    if (ay < tg22x) {
    } else if (ay > tg22x + (ax << 16u)) {
        dr = 1u;
        du = 0u;
    } else if ((g.x ^ g.y) < 0) {
        // towards the upper right / lower left
        dr = 1u;
        du = 0xffffffffu;
        loose = false;
    } else {
        dr = 1u;
        loose = false;
    }
    let m2 = tile_mag[mag_index(r + dr, u + du)];
    let peak = c > tile_mag[mag_index(r - dr, u - du)] && (c > m2 || (loose && c == m2));
    if (!peak) { return CLASS_NONE; }
    return select(CLASS_WEAK, CLASS_STRONG, c > params.high);
}


// Bit c (0..63) of a row mask.
fn mask_bit(lo: u32, hi: u32, c: u32) -> bool {
    if (c < 32u) { return ((lo >> c) & 1u) != 0u; }
    return ((hi >> (c - 32u)) & 1u) != 0u;
}

// First column of the run of set bits that ends at column c (bit c set): one past the
// highest clear bit below c, 0 when there is none.
fn run_start(lo: u32, hi: u32, c: u32) -> u32 {
    if (c >= 32u) {
        let z = ~hi & ((1u << (c - 32u)) - 1u);
        if (z != 0u) { return 33u + firstLeadingBit(z); }
        if (lo != 0xffffffffu) { return 1u + firstLeadingBit(~lo); }
        return 0u;
    }
    let z = ~lo & ((1u << c) - 1u);
    if (z != 0u) { return 1u + firstLeadingBit(z); }
    return 0u;
}

// First set bit at or after column s (0..63) of a row mask, 64 when there is none.
fn first_set_from(lo: u32, hi: u32, s: u32) -> u32 {
    if (s < 32u) {
        let t = lo >> s;
        if (t != 0u) { return s + countTrailingZeros(t); }
        if (hi != 0u) { return 32u + countTrailingZeros(hi); }
        return 64u;
    }
    let t = hi >> (s - 32u);
    if (t != 0u) { return s + countTrailingZeros(t); }
    return 64u;
}

fn set_flag(r: u32, f: u32) {
    // a plain load first: on noise most pixels of a big component would hit the same root
    if ((atomicLoad(&tile_flags[r]) & f) == 0u) { atomicOr(&tile_flags[r], f); }
}

@compute @workgroup_size(16, 16)
fn canny_tiles_classify(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let tx_n = tiles_x();
    let ty_n = tiles_y();
    let tile = wid.y * tx_n + wid.x;
    let lx = lid.x;
    let ly = lid.y;
    let wi = wid.x * 16u + lx;
    let y = wid.y * 16u + ly;
    let tx0 = i32(wid.x * TILE_W);
    let ty0 = i32(wid.y * 16u);
    // 1. the grey tile; the workgroup's other arrays cleared
    for (var i = li; i < GROWS * GW; i += 256u) {
        let r = i / GW;
        tile_words[i] = gray_word(ty0 - 2 + i32(r), i32(wid.x * 16u) - 1 + i32(i - r * GW));
    }
    for (var k = 0u; k < 4u; k++) { // @unroll
        atomicStore(&tile_flags[li * 4u + k], 0u);
        // every pixel its own root; only runs' first pixels take part in the unions
        atomicStore(&tile_label[li * 4u + k], li * 4u + k);
    }
    if (li < 8u) { atomicStore(&pending_words[li], 0u); }
    if (li < 32u) {
        atomicStore(&row_mask[li], 0u);
        atomicStore(&row_strong[li], 0u);
    }
    if (li == 0u) {
        atomicStore(&node_count[0], 0u);
        atomicStore(&node_count[1], 0u);
    }
    workgroupBarrier();
    // own 4 pixels: gradients kept, magnitudes stored; then the halo: rows -1 and 16 by the
    // first 32 invocations (a word each), columns -1 and 64 by the next 36 (a pixel each)
    let x0 = wi * 4u;
    let ra = vec3<u32>(tile_words[(ly + 1u) * GW + lx], tile_words[(ly + 1u) * GW + lx + 1u], tile_words[(ly + 1u) * GW + lx + 2u]);
    let rm = vec3<u32>(tile_words[(ly + 2u) * GW + lx], tile_words[(ly + 2u) * GW + lx + 1u], tile_words[(ly + 2u) * GW + lx + 2u]);
    let rc = vec3<u32>(tile_words[(ly + 3u) * GW + lx], tile_words[(ly + 3u) * GW + lx + 1u], tile_words[(ly + 3u) * GW + lx + 2u]);
    var g: array<vec2<i32>, 4>;
    var mag: array<i32, 4>;
    for (var k = 0u; k < 4u; k++) { // @unroll
        g[k] = grad(ra, rm, rc, 4u + k);
        let inside = x0 + k < params.width && y < params.height;
        mag[k] = select(0, magnitude(g[k]), inside);
        tile_mag[mag_index(ly + 1u, lx * 4u + 4u + k)] = mag[k];
    }
    if (li < 32u) {
        // halo rows -1 (first 16) and 16, columns 4 w .. 4 w + 3 of word w
        let top = li < 16u;
        let hw = li & 15u;
        let gr = select(17u, 0u, top);
        let ha = vec3<u32>(tile_words[gr * GW + hw], tile_words[gr * GW + hw + 1u], tile_words[gr * GW + hw + 2u]);
        let hm = vec3<u32>(tile_words[(gr + 1u) * GW + hw], tile_words[(gr + 1u) * GW + hw + 1u], tile_words[(gr + 1u) * GW + hw + 2u]);
        let hc = vec3<u32>(tile_words[(gr + 2u) * GW + hw], tile_words[(gr + 2u) * GW + hw + 1u], tile_words[(gr + 2u) * GW + hw + 2u]);
        let hy = ty0 + select(16, -1, top);
        let mr = select(17u, 0u, top);
        let hx0 = wid.x * TILE_W + hw * 4u;
        for (var k = 0u; k < 4u; k++) { // @unroll
            let inside = hy >= 0 && hy < i32(params.height) && hx0 + k < params.width;
            tile_mag[mag_index(mr, hw * 4u + 4u + k)] = select(0, magnitude(grad(ha, hm, hc, 4u + k)), inside);
        }
    } else if (li < 68u) {
        // halo columns -1 (first 18) and 64, rows -1..16
        let j = li - 32u;
        let left = j < 18u;
        let r = i32(select(j - 18u, j, left)) - 1;
        let c = select(64, -1, left);
        tile_mag[mag_index(u32(r + 1), u32(c + 4))] = halo_magnitude(c, r, tx0 + c, ty0 + r);
    }
    workgroupBarrier();
    // 2. suppression and thresholds; the grey words are dead, the class words take their place
    var cls = vec4<u32>(CLASS_NONE);
    var word = 0u;
    var nib = 0u;
    var snib = 0u;
    for (var k = 0u; k < 4u; k++) { // @unroll
        if (x0 + k < params.width && y < params.height) {
            cls[k] = class_at(ly + 1u, lx * 4u + 4u + k, mag[k], g[k]);
        }
        word |= cls[k] << (8u * k);
        nib |= select(0u, 1u << k, cls[k] != CLASS_NONE);
        snib |= select(0u, 1u << k, cls[k] == CLASS_STRONG);
    }
    tile_words[ly * 16u + lx] = word;
    let mask_at = ly * 2u + (lx >> 3u);
    let shift = 4u * (lx & 7u);
    if (nib != 0u) { atomicOr(&row_mask[mask_at], nib << shift); }
    if (snib != 0u) { atomicOr(&row_strong[mask_at], snib << shift); }
    workgroupBarrier();
    // 3. runs: a run stands for its first pixel (found from the row mask), the node of the
    // unions: horizontal neighbours need no union, and every label ever a parent is a run's
    // first pixel
    let lo = atomicLoad(&row_mask[ly * 2u]);
    let hi = atomicLoad(&row_mask[ly * 2u + 1u]);
    let row = ly * TILE_W;
    var start = vec4<u32>(0u);
    for (var k = 0u; k < 4u; k++) { // @unroll
        let c = lx * 4u + k;
        start[k] = select(c, run_start(lo, hi, c), cls[k] != CLASS_NONE);
    }
    // runs of consecutive rows joined, once for each pair that touches (8-connected): a run
    // [s, e] touches the runs above that meet columns s-1 .. e+1; each such run is united
    // at the first of its columns in that range, by the pixel of this run below-left of it
    // (its column - 1), or by the run's first pixel for columns s-1 and s
    // The invocation's unions (at most 8: two per pixel) are listed first and made in one loop
    // with a single call site, so a warp runs as many unions as its busiest invocation has
    // (~2-4 on noise) rather than every one of the 8 call sites some invocation needs.
    if (ly > 0u) {
        let alo = atomicLoad(&row_mask[ly * 2u - 2u]);
        let ahi = atomicLoad(&row_mask[ly * 2u - 1u]);
        let above = row - TILE_W;
        // q of each union, 8 bits each: pixel k's first in `qa` byte k, its second in `qb`
        var qa = 0u;
        var qb = 0u;
        var todo = 0u;
        for (var k = 0u; k < 4u; k++) { // @unroll
            if (cls[k] != CLASS_NONE) {
                let c = lx * 4u + k;
                let s = start[k];
                if (c == s) {
                    let left = s > 0u && mask_bit(alo, ahi, s - 1u);
                    if (left || mask_bit(alo, ahi, s)) {
                        qa |= select(s, s - 1u, left) << (8u * k);
                        todo |= 1u << (2u * k);
                    }
                }
                if (c + 1u < TILE_W && mask_bit(alo, ahi, c + 1u) && !mask_bit(alo, ahi, c)) {
                    qb |= (c + 1u) << (8u * k);
                    todo |= 2u << (2u * k);
                }
            }
        }
        while (todo != 0u) {
            let i = firstTrailingBit(todo);
            todo &= todo - 1u;
            let k = i >> 1u;
            let q = byte_of(select(qa, qb, (i & 1u) != 0u), k);
            tile_unite(row + start[k], above + run_start(alo, ahi, q));
        }
    }
    workgroupBarrier();
    // 4. each run's first pixel finds the root (stored as its label: a root is every
    // ancestor's minimum, so racing path halvings keep it) and gives it the run's flags
    // (from the row masks: a strong pixel in the run, a pixel on the ring); the other pixels
    // take the root from their run's first pixel afterwards
    let ring_row = (wid.y > 0u && ly == 0u) || (wid.y + 1u < ty_n && ly == 15u);
    let slo = atomicLoad(&row_strong[ly * 2u]);
    let shi = atomicLoad(&row_strong[ly * 2u + 1u]);
    // (one loop over the invocation's run starts, one call site, as the unions)
    var starts = 0u;
    for (var k = 0u; k < 4u; k++) { // @unroll
        starts |= select(0u, 1u << k, cls[k] != CLASS_NONE && start[k] == lx * 4u + k);
    }
    while (starts != 0u) {
        let k = firstTrailingBit(starts);
        starts &= starts - 1u;
        let c = lx * 4u + k;
        let p = row + c;
        let r = tile_find(p);
        atomicStore(&tile_label[p], r);
        let end = first_set_from(~lo, ~hi, c);
        if (first_set_from(slo, shi, c) < end) { set_flag(r, FLAG_STRONG); }
        if (ring_row || (c == 0u && wid.x > 0u) || (end == TILE_W && wid.x + 1u < tx_n)) {
            set_flag(r, FLAG_RING);
        }
    }
    workgroupBarrier();
    var root = vec4<u32>(0u);
    for (var k = 0u; k < 4u; k++) { // @unroll
        root[k] = atomicLoad(&tile_label[row + start[k]]);
    }
    // 5. a node for every ring component, by its root's invocation
    let tiles_k = tx_n * ty_n * NODES_PER_TILE;
    for (var k = 0u; k < 4u; k++) { // @unroll
        let p = row + lx * 4u + k;
        if (cls[k] != CLASS_NONE && root[k] == p) {
            let f = atomicLoad(&tile_flags[p]);
            if ((f & FLAG_RING) != 0u) {
                let weak = (f & FLAG_STRONG) == 0u;
                let i = atomicAdd(&node_count[u32(weak)], 1u);
                atomicOr(&tile_flags[p], i << 8u);
                let id = select(0u, tiles_k, weak) + tile * NODES_PER_TILE + i;
                nodes[id] = id;
            }
        }
    }
    workgroupBarrier();
    // the output bytes: 255 strong component, 0 weak off the ring, 1 + node index pending
    var res = 0u;
    var has_pending = false;
    for (var k = 0u; k < 4u; k++) { // @unroll
        if (cls[k] != CLASS_NONE) {
            let f = atomicLoad(&tile_flags[root[k]]);
            var b = 0u;
            if ((f & FLAG_STRONG) != 0u) {
                b = 255u;
            } else if ((f & FLAG_RING) != 0u) {
                b = (f >> 8u) + 1u;
                has_pending = true;
            }
            res |= b << (8u * k);
        }
    }
    if (wi < params.words && y < params.height) {
        out[y * params.words + wi] = res;
    }
    if (has_pending) { atomicOr(&pending_words[li >> 5u], 1u << (li & 31u)); }
    // the border bytes: top row (entries 0..63), bottom row (64..127), left column
    // (128..143), right column (144..159), 4 a word
    if (li < BORDER_WORDS) {
        var bw = 0u;
        for (var k = 0u; k < 4u; k++) { // @unroll
            let e = li * 4u + k;
            var c = e;
            var r = 0u;
            if (e >= 144u) {
                c = 63u;
                r = e - 144u;
            } else if (e >= 128u) {
                c = 0u;
                r = e - 128u;
            } else if (e >= 64u) {
                c = e - 64u;
                r = 15u;
            }
            var b = 0xffu;
            if (byte_of(tile_words[r * 16u + (c >> 2u)], c & 3u) != CLASS_NONE) {
                let s = run_start(atomicLoad(&row_mask[r * 2u]), atomicLoad(&row_mask[r * 2u + 1u]), c);
                let f = atomicLoad(&tile_flags[atomicLoad(&tile_label[r * TILE_W + s])]);
                if ((f & FLAG_RING) != 0u) {
                    b = (f >> 8u) | select(0x80u, 0u, (f & FLAG_STRONG) != 0u);
                }
            }
            bw |= b << (8u * k);
        }
        border[tile * BORDER_WORDS + li] = bw;
    }
    workgroupBarrier();
    if (li < PENDING_WORDS) {
        pending[tile * PENDING_STRIDE + li] = atomicLoad(&pending_words[li]);
    }
    if (li == PENDING_WORDS) {
        pending[tile * PENDING_STRIDE + li] = atomicLoad(&node_count[1]);
    }
}
