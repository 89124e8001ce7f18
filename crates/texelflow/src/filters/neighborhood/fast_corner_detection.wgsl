// FAST-9 corners (OpenCV's cv::FAST, TYPE_9_16) as a Gray8 map holding each corner's score.
// Pass `fast_score`: a workgroup loads the luma of its 64x16 outputs plus a 3-pixel halo into
// workgroup memory; each invocation scores 4 horizontally adjacent pixels and stores them as
// one word. Pass `fast_nonmax`: keeps a score strictly above its 8 neighbours' (OpenCV's rule).
// CPU twin: `fast_cpu` in fast_corner_detection.rs.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> fp: FastParams;

// Tile: 16x16 invocations, 4 pixels each across, plus the circle's radius 3 all round.
// Schedule choice, not algorithm.
const TW: u32 = 70u;
const TH: u32 = 22u;
var<workgroup> tile: array<i32, 1540>;

fn luma_at(x: u32, y: u32) -> i32 {
    if (fp.format == 0u) {
        return i32((src[y * fp.words_per_row + x / 4u] >> (8u * (x & 3u))) & 255u);
    }
    return i32(luma601(unpack_u8(src[y * fp.width + x])));
}

// The largest over the 16 arcs of 9 contiguous circle pixels of the smallest d on the arc.
fn best_arc(d: array<i32, 16>) -> i32 {
    var m2: array<i32, 16>;
    var m4: array<i32, 16>;
    for (var k = 0u; k < 16u; k++) { m2[k] = min(d[k], d[(k + 1u) & 15u]); }
    for (var k = 0u; k < 16u; k++) { m4[k] = min(m2[k], m2[(k + 2u) & 15u]); }
    var best = -256;
    for (var k = 0u; k < 16u; k++) {
        best = max(best, min(min(m4[k], m4[(k + 4u) & 15u]), d[(k + 8u) & 15u]));
    }
    return best;
}

// The FAST score of the pixel at tile position (tx, ty): 0 where it is not a corner, else the
// largest threshold for which it still is one (at least fp.threshold).
fn score_at(tx: u32, ty: u32) -> u32 {
    let t = fp.threshold;
    let c = tile[ty * TW + tx];
    // circle offsets in OpenCV's order: (0,3), (1,3), (2,2), (3,1), (3,0), (3,-1), ... clockwise
    let p = array<i32, 16>(
        tile[(ty + 3u) * TW + tx], tile[(ty + 3u) * TW + tx + 1u], tile[(ty + 2u) * TW + tx + 2u], tile[(ty + 1u) * TW + tx + 3u],
        tile[ty * TW + tx + 3u], tile[(ty - 1u) * TW + tx + 3u], tile[(ty - 2u) * TW + tx + 2u], tile[(ty - 3u) * TW + tx + 1u],
        tile[(ty - 3u) * TW + tx], tile[(ty - 3u) * TW + tx - 1u], tile[(ty - 2u) * TW + tx - 2u], tile[(ty - 1u) * TW + tx - 3u],
        tile[ty * TW + tx - 3u], tile[(ty + 1u) * TW + tx - 3u], tile[(ty + 2u) * TW + tx - 2u], tile[(ty + 3u) * TW + tx - 1u]);
    // Every arc of 9 holds at least 2 of the 4 compass pixels: fewer than 2 brighter and fewer
    // than 2 darker rules the pixel out.
    let bright = u32(p[0] > c + t) + u32(p[4] > c + t) + u32(p[8] > c + t) + u32(p[12] > c + t);
    let dark = u32(p[0] < c - t) + u32(p[4] < c - t) + u32(p[8] < c - t) + u32(p[12] < c - t);
    if (bright < 2u && dark < 2u) { return 0u; }
    var db: array<i32, 16>;
    var dd: array<i32, 16>;
    for (var k = 0u; k < 16u; k++) {
        db[k] = p[k] - c;
        dd[k] = c - p[k];
    }
    let best = max(best_arc(db), best_arc(dd));
    return select(0u, u32(best - 1), best > t);
}

@compute @workgroup_size(16, 16)
fn fast_score(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let x0 = i32(wid.x * 64u) - 3;
    let y0 = i32(wid.y * 16u) - 3;
    let wmax = i32(fp.width) - 1;
    let hmax = i32(fp.height) - 1;
    for (var i = li; i < TW * TH; i += 256u) {
        let ry = i / TW;
        let gx = u32(clamp(x0 + i32(i - ry * TW), 0, wmax));
        let gy = u32(clamp(y0 + i32(ry), 0, hmax));
        tile[i] = luma_at(gx, gy);
    }
    workgroupBarrier();
    let word = wid.x * 16u + lid.x;
    let y = wid.y * 16u + lid.y;
    if (word >= fp.words_per_row || y >= fp.height) { return; }
    var packed = 0u;
    // OpenCV scores x in [3, width - 4], y in [3, height - 4]; the border is never a corner
    let inside_y = y >= 3u && y + 3u < fp.height;
    for (var j = 0u; j < 4u; j++) {
        let x = word * 4u + j;
        if (inside_y && x >= 3u && x + 3u < fp.width) {
            packed |= score_at(lid.x * 4u + j + 3u, lid.y + 3u) << (8u * j);
        }
    }
    dst[y * fp.words_per_row + word] = packed;
}

// Pass 2 reads pass 1's score map as `src`.
// Six scores of a row around word `w`: the previous word's last, the word's four, the next
// word's first (0 outside the image).
fn score_row(w: u32, y: i32) -> array<u32, 6> {
    if (y < 0 || y >= i32(fp.height)) { return array<u32, 6>(0u, 0u, 0u, 0u, 0u, 0u); }
    let row = u32(y) * fp.words_per_row;
    let c = src[row + w];
    var l = 0u;
    if (w > 0u) { l = src[row + w - 1u] >> 24u; }
    var r = 0u;
    if (w + 1u < fp.words_per_row) { r = src[row + w + 1u] & 255u; }
    return array<u32, 6>(l, c & 255u, (c >> 8u) & 255u, (c >> 16u) & 255u, c >> 24u, r);
}

@compute @workgroup_size(64)
fn fast_nonmax(@builtin(global_invocation_id) gid: vec3<u32>) {
    let w = gid.x;
    let y = gid.y;
    if (w >= fp.words_per_row || y >= fp.height) { return; }
    let t = score_row(w, i32(y) - 1);
    let m = score_row(w, i32(y));
    let b = score_row(w, i32(y) + 1);
    var packed = 0u;
    for (var j = 1u; j < 5u; j++) {
        let s = m[j];
        let above = max(max(t[j - 1u], t[j]), max(t[j + 1u], m[j - 1u]));
        let below = max(max(b[j - 1u], b[j]), max(b[j + 1u], m[j + 1u]));
        if (s > max(above, below)) {
            packed |= s << (8u * (j - 1u));
        }
    }
    dst[y * fp.words_per_row + w] = packed;
}
