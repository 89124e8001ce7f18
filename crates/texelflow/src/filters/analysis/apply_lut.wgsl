// Per-channel tone curves from `lut` data applied to an RGBA8 image: each channel's level v
// becomes its curve's entry v. CPU twin: `Lut::apply` (value.rs). Needs grid.wgsl.

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> lut: array<u32>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(3) var<uniform> grid: GridParams;

// Schedule choice, not algorithm: mirrors `APPLY_WG` in apply_lut.rs.
const APPLY_WG: u32 = 256u;

// The curves, one word per input level holding the four channels' outputs.
var<workgroup> table: array<u32, 256>;

fn apply(px: u32) -> u32 {
    return (table[px & 255u] & 0xFFu) | (table[(px >> 8u) & 255u] & 0xFF00u) | (table[(px >> 16u) & 255u] & 0xFF0000u) | (table[px >> 24u] & 0xFF000000u);
}

@compute @workgroup_size(256)
fn apply_lut(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    table[lid] = lut[lid];
    workgroupBarrier();
    // The partial last quad is processed whole: its extra lanes land in the buffer's padding.
    let quads = (grid.count + 3u) / 4u;
    for (var q = wid.x * APPLY_WG + lid; q < quads; q += grid.stride) {
        let a = src[q];
        dst[q] = vec4<u32>(apply(a.x), apply(a.y), apply(a.z), apply(a.w));
    }
}
