// Corner map to point list: every pixel whose value is above the threshold is appended to a
// `DataKind::Points` buffer (see value.rs for the layout) with an atomic counter (one per workgroup). CPU twin:
// `corner_points_cpu` in corner_points.rs.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> list: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> cp: CornerPointsParams;

// mirrors POINTS_HEADER_WORDS in value.rs
const HEADER: u32 = 4u;

fn map_value(x: u32, y: u32) -> f32 {
    switch cp.format {
        case 0u: {
            return f32((src[y * cp.words_per_row + x / 4u] >> (8u * (x & 3u))) & 255u);
        }
        case 1u: {
            return f32(src[y * cp.width + x] & 255u);
        }
        default: {
            return bitcast<f32>(src[y * cp.width + x]);
        }
    }
}

// Appends are counted in workgroup memory first and the group's run of slots taken with one
// global atomic: one global atomic per pixel serialised on the counter (FAST on 4K noise:
// 0.19 ms, H100, s11b).
var<workgroup> group_count: atomic<u32>;
var<workgroup> group_base: u32;

@compute @workgroup_size(16, 16)
fn corner_points(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    if (gid.x == 0u && gid.y == 0u) {
        atomicStore(&list[1], cp.limit);
    }
    var v = 0.0;
    var hit = false;
    if (gid.x < cp.width && gid.y < cp.height) {
        v = map_value(gid.x, gid.y);
        hit = v > cp.threshold;
    }
    var slot = 0u;
    if (hit) { slot = atomicAdd(&group_count, 1u); }
    workgroupBarrier();
    if (li == 0u) {
        let n = atomicLoad(&group_count);
        group_base = select(0u, atomicAdd(&list[0], n), n > 0u);
    }
    let base = workgroupUniformLoad(&group_base);
    let i = base + slot;
    if (hit && i < cp.limit) {
        atomicStore(&list[HEADER + 2u * i], (gid.y << 16u) | gid.x);
        atomicStore(&list[HEADER + 2u * i + 1u], bitcast<u32>(v));
    }
}
