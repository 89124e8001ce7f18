// Crosshairs at the points of a `DataKind::Points` list over a copy of the image (GPUImage's
// GPUImageCrosshairGenerator, drawn over the photo). This file: pass `copy_image`; then `draw` (draw_points.wgsl): one
// invocation per list slot; points write the same colour, so overlapping crosses need no
// ordering. CPU twin: `draw_points_cpu` in draw_points.rs.

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> dp: DrawPointsParams;

@compute @workgroup_size(256)
fn copy_image(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i < dp.width * dp.height) {
        dst[i] = src[i];
    }
}
