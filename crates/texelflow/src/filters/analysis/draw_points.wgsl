// Crosshairs at the points of a `DataKind::Points` list over a copy of the image (GPUImage's
// GPUImageCrosshairGenerator, drawn over the photo). Pass `copy_image` (draw_points_copy.wgsl), then `draw`: one
// invocation per list slot; points write the same colour, so overlapping crosses need no
// ordering. CPU twin: `draw_points_cpu` in draw_points.rs.

@group(0) @binding(0) var<storage, read> list: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> dp: DrawPointsParams;

// mirrors POINTS_HEADER_WORDS in value.rs
const HEADER: u32 = 4u;

fn put(x: i32, y: i32) {
    if (x >= 0 && y >= 0 && x < i32(dp.width) && y < i32(dp.height)) {
        dst[u32(y) * dp.width + u32(x)] = dp.color;
    }
}

@compute @workgroup_size(64)
fn draw(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 64u);
    let n = min(min(list[0], list[1]), dp.slots);
    if (i >= n) { return; }
    let key = list[HEADER + 2u * i];
    let x = i32(key & 0xFFFFu);
    let y = i32(key >> 16u);
    let a = i32(dp.arm);
    for (var k = -a; k <= a; k++) {
        put(x + k, y);
        put(x, y + k);
    }
}
