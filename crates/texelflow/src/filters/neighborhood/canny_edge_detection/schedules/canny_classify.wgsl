// Canny, first full pass: 3x3 Sobel of the grey image (edge pixels replicated), gradient
// magnitude, OpenCV's non-maximum suppression along the gradient direction and the double
// threshold, then connected components of the candidates within the workgroup's tile (64 x 16
// pixels) by union-find in workgroup memory. Writes each pixel's class (packed 4 per word,
// into the output image's buffer) and, for candidates, the union-find label: the global index
// of its component's root within the tile (canny_merge then joins the tiles along their
// borders). One invocation per packed word (4 pixels); it reads grey rows y-2..y+2 around its
// columns (five times three words) and computes the magnitudes of the 3 x 6 pixels the
// suppression compares.
@group(0) @binding(0) var<storage, read> gray: array<u32>;
@group(0) @binding(1) var<storage, read_write> classes: array<u32>;
@group(0) @binding(2) var<storage, read_write> labels: array<u32>;
@group(0) @binding(3) var<uniform> params: CannyParams;

// Row y (clamped) as the 12 bytes of the words wi-1, wi, wi+1: byte b is column 4 wi - 4 + b.
// Bytes 2..9 (columns x0-2 .. x0+5, x0 = 4 wi) are the ones read; near the left and right
// edges each is taken from its clamped column instead.
fn row_words(y: i32, wi: u32) -> vec3<u32> {
    let base = u32(clamp(y, 0, i32(params.height) - 1)) * params.words;
    let x0 = wi * 4u;
    if (wi >= 1u && x0 + 5u < params.width) {
        return vec3<u32>(gray[base + wi - 1u], gray[base + wi], gray[base + wi + 1u]);
    }
    var v = vec3<u32>(0u);
    for (var b = 2u; b < 10u; b++) {
        let cx = u32(clamp(i32(x0 + b) - 4, 0, i32(params.width) - 1));
        v[b >> 2u] |= byte_of(gray[base + (cx >> 2u)], cx & 3u) << (8u * (b & 3u));
    }
    return v;
}

fn px(v: vec3<u32>, b: u32) -> i32 {
    return i32(byte_of(v[b >> 2u], b & 3u));
}

// Sobel (gx, gy) at byte column b of the rows above (a), at (m) and below (c); OpenCV's signs.
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

// Magnitudes of columns x0-1 .. x0+4 of one row: lo = x0-1, x0, x0+1; hi = x0+2, x0+3, x0+4.
// Outside the image a magnitude is 0, as OpenCV's suppression takes it.
struct MagRow {
    lo: vec3<i32>,
    hi: vec3<i32>,
}

fn mag_row(a: vec3<u32>, m: vec3<u32>, c: vec3<u32>, inside: bool, x0: u32) -> MagRow {
    var r = MagRow(vec3<i32>(0), vec3<i32>(0));
    if (!inside) { return r; }
    r.lo = vec3<i32>(magnitude(grad(a, m, c, 3u)), magnitude(grad(a, m, c, 4u)), magnitude(grad(a, m, c, 5u)));
    r.hi = vec3<i32>(magnitude(grad(a, m, c, 6u)), magnitude(grad(a, m, c, 7u)), magnitude(grad(a, m, c, 8u)));
    let w = params.width;
    if (x0 == 0u) { r.lo.x = 0; }
    if (x0 + 1u >= w) { r.lo.z = 0; }
    if (x0 + 2u >= w) { r.hi.x = 0; }
    if (x0 + 3u >= w) { r.hi.y = 0; }
    if (x0 + 4u >= w) { r.hi.z = 0; }
    return r;
}

// Column j (0..5, column x0-1+j) of a row of magnitudes.
fn at(r: MagRow, j: u32) -> i32 {
    if (j < 3u) { return r.lo[j]; }
    return r.hi[j - 3u];
}

// tan(22.5°) in 15-bit fixed point, OpenCV's TG22.
const TG22: i32 = 13573;

// The class of the pixel at column j = k + 1 of the magnitude rows t (above), m, b (below),
// gradient g: OpenCV's test, strict towards the left, the top and both diagonal
// neighbours, not strict towards the right and the bottom; thresholds strict.
fn class_of(t: MagRow, m: MagRow, b: MagRow, g: vec2<i32>, k: u32) -> u32 {
    let c = at(m, k + 1u);
    if (c <= params.low) { return CLASS_NONE; }
    let ax = abs(g.x);
    let ay = abs(g.y) << 15u;
    let tg22x = ax * TG22;
    var peak = false;
    if (ay < tg22x) {
        peak = c > at(m, k) && c >= at(m, k + 2u);
    } else if (ay > tg22x + (ax << 16u)) {
        peak = c > at(t, k + 1u) && c >= at(b, k + 1u);
    } else if ((g.x ^ g.y) < 0) {
        peak = c > at(t, k + 2u) && c > at(b, k);
    } else {
        peak = c > at(t, k) && c > at(b, k + 2u);
    }
    if (!peak) { return CLASS_NONE; }
    return select(CLASS_WEAK, CLASS_STRONG, c > params.high);
}

// The tile: 16 words (64 pixels) by 16 rows, one invocation per word.
const TILE_W: u32 = 64u;
var<workgroup> tile_class: array<u32, 1024>;
var<workgroup> tile_label: array<atomic<u32>, 1024>;


@compute @workgroup_size(16, 16)
fn canny_classify(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let wi = wid.x * 16u + lid.x;
    let y = wid.y * 16u + lid.y;
    let base = lid.y * TILE_W + lid.x * 4u;
    var cls = vec4<u32>(CLASS_NONE);
    if (wi < params.words && y < params.height) {
        let x0 = wi * 4u;
        let yi = i32(y);
        let r0 = row_words(yi - 2, wi);
        let r1 = row_words(yi - 1, wi);
        let r2 = row_words(yi, wi);
        let r3 = row_words(yi + 1, wi);
        let r4 = row_words(yi + 2, wi);
        let top = mag_row(r0, r1, r2, y >= 1u, x0);
        let mid = mag_row(r1, r2, r3, true, x0);
        let bot = mag_row(r2, r3, r4, y + 1u < params.height, x0);
        var word = 0u;
        for (var k = 0u; k < 4u; k++) { // @unroll
            if (x0 + k < params.width) {
                cls[k] = class_of(top, mid, bot, grad(r1, r2, r3, 4u + k), k);
                word |= cls[k] << (8u * k);
            }
        }
        classes[y * params.words + wi] = word;
    }
    // a run of candidates within the word starts joined (its first pixel is its label)
    var run = 0u;
    var prev = CLASS_NONE;
    for (var k = 0u; k < 4u; k++) { // @unroll
        tile_class[base + k] = cls[k];
        if (cls[k] != CLASS_NONE && prev == CLASS_NONE) { run = base + k; }
        atomicStore(&tile_label[base + k], select(base + k, run, cls[k] != CLASS_NONE));
        prev = cls[k];
    }
    workgroupBarrier();
    // 8-connectivity within the tile: west (from another word), north, north-west unless west
    // or north link it already, north-east unless north does (as canny_merge reasons)
    for (var k = 0u; k < 4u; k++) { // @unroll
        if (cls[k] != CLASS_NONE) {
            let p = base + k;
            let lx = lid.x * 4u + k;
            let west = lx > 0u && tile_class[p - 1u] != CLASS_NONE;
            var north = false;
            var north_west = false;
            var north_east = false;
            if (lid.y > 0u) {
                north = tile_class[p - TILE_W] != CLASS_NONE;
                north_west = lx > 0u && tile_class[p - TILE_W - 1u] != CLASS_NONE;
                north_east = lx + 1u < TILE_W && tile_class[p - TILE_W + 1u] != CLASS_NONE;
            }
            if (west && k == 0u) { tile_unite(p, p - 1u); }
            if (north) { tile_unite(p, p - TILE_W); }
            if (north_west && !west && !north) { tile_unite(p, p - TILE_W - 1u); }
            if (north_east && !north) { tile_unite(p, p - TILE_W + 1u); }
        }
    }
    workgroupBarrier();
    // the label: the global index of the component's root in the tile (the root's own index)
    let x0 = wi * 4u;
    for (var k = 0u; k < 4u; k++) { // @unroll
        if (cls[k] != CLASS_NONE) {
            let r = tile_find(base + k);
            let root = (wid.y * 16u + r / TILE_W) * params.width + wid.x * TILE_W + r % TILE_W;
            labels[y * params.width + x0 + k] = root;
        }
    }
}
