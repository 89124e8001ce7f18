// CLAHE, first pass: per-tile histograms (each workgroup one chunk of one tile, in workgroup
// atomics, added to the tile's bins). Needs clahe.wgsl (ClaheParams). CPU twin: `clahe_cpu` in clahe.rs.
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> table: array<atomic<u32>>;  // 256 per tile: histograms, then LUTs
@group(0) @binding(2) var<uniform> params: ClaheParams;

// Histogram pass: pixels per workgroup (256 invocations x 16).
const CHUNK: u32 = 4096u;

// OpenCV's borderInterpolate for BORDER_REFLECT_101 (reflections repeat for short lengths).
fn reflect101(p0: i32, len: i32) -> i32 {
    if (len == 1) { return 0; }
    var p = p0;
    loop {
        if (p >= 0 && p < len) { break; }
        if (p < 0) { p = -p; } else { p = 2 * len - 2 - p; }
    }
    return p;
}

fn level(x: u32, y: u32) -> u32 {
    if (params.gray != 0u) {
        return (src[y * params.words + x / 4u] >> (8u * (x % 4u))) & 255u;
    }
    return luma601(unpack_u8(src[y * params.width + x]));
}

var<workgroup> hist: array<atomic<u32>, 256>;

// x: tile (row-major), y: chunk of CHUNK pixels of that tile.
@compute @workgroup_size(256)
fn clahe_hist(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let tx = wid.x % params.tiles_x;
    let ty = wid.x / params.tiles_x;
    let count = params.tile_w * params.tile_h;
    for (var k = 0u; k < CHUNK / 256u; k++) {
        let i = wid.y * CHUNK + k * 256u + lid;
        if (i < count) {
            let px = i32(tx * params.tile_w + i % params.tile_w);
            let py = i32(ty * params.tile_h + i / params.tile_w);
            let v = level(u32(reflect101(px, i32(params.width))), u32(reflect101(py, i32(params.height))));
            atomicAdd(&hist[v], 1u);
        }
    }
    workgroupBarrier();
    let n = atomicLoad(&hist[lid]);
    if (n != 0u) {
        atomicAdd(&table[wid.x * 256u + lid], n);
    }
}
