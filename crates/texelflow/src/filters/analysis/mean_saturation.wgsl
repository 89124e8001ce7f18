// Mean HSV saturation of an RGBA8 image in the `DataKind::Mean` layout: per pixel
// S = (max - min) / max of the 8-bit R, G, B (0 when max = 0) as round(S * 65536), computed
// exactly with integer division. CPU twin: `saturation_fixed` in mean_saturation.rs.
// Needs grid.wgsl and one of subgroup_on.wgsl / subgroup_off.wgsl.

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> mean: array<atomic<u32>>;
@group(0) @binding(2) var<uniform> grid: GridParams;

// Schedule choice, not algorithm: mirrors `MEAN_WG` in mean_saturation.rs.
const MEAN_WG: u32 = 256u;

var<workgroup> part: atomic<u32>;
// This invocation's running sum.
var<private> s: u32;

// round(65536 * (max - min) / max): (max - min) * 65536 + max / 2 < 2^24, so u32 is exact.
fn saturation_fixed(p: u32) -> u32 {
    let c = unpack_u8(p);
    let hi = max(max(c.x, c.y), c.z);
    let lo = min(min(c.x, c.y), c.z);
    return select(0u, ((hi - lo) * 65536u + hi / 2u) / max(hi, 1u), hi > 0u);
}

fn add_pixel(p: u32) {
    s += saturation_fixed(p);
}

// `visit_pixels` is generated (LoopShape in analysis/mod.rs): the grid-stride loop and the tail.
@compute @workgroup_size(256)
fn mean_saturation(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let gid = wid.x * MEAN_WG + lid;
    s = 0u;
    visit_pixels(gid);
    if (gid == 0u) {
        atomicStore(&mean[2], grid.count);
    }
    let t = sg_add1(s);
    if (sg_leader(lid) && t != 0u) {
        atomicAdd(&part, t);
    }
    workgroupBarrier();
    if (lid == 0u) {
        // 64-bit sum as lo/hi words: carry when the low word wraps.
        let v = atomicLoad(&part);
        if (v != 0u) {
            let old = atomicAdd(&mean[0], v);
            if (old + v < old) {
                atomicAdd(&mean[1], 1u);
            }
        }
    }
}
