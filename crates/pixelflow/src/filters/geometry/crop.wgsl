// Copies a rectangle of an RGBA8 image. CPU twin: `Crop::run_cpu` in crop.rs.
struct CropParams {
    out_width: u32,
    out_height: u32,
    x0: u32,
    y0: u32,
    in_width: u32,
    count: u32,  // out_width * out_height
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> params: CropParams;

// Schedule choice, not algorithm: mirrors `CROP_WG` in crop.rs.
const CROP_WG: u32 = 256u;

@compute @workgroup_size(256)
fn crop(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, CROP_WG);
    if (i >= params.count) { return; }
    let y = i / params.out_width;
    let x = i - y * params.out_width;
    dst[i] = src[(y + params.y0) * params.in_width + x + params.x0];
}
