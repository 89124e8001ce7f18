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

// Schedule choice, not algorithm: a 64x4 tile of output pixels (mirrors `CROP_WG` in
// crop.rs); a 2-D grid needs no per-pixel division to find the row.
@compute @workgroup_size(64, 4)
fn crop(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (gid.x >= params.out_width || gid.y >= params.out_height) { return; }
    dst[gid.y * params.out_width + gid.x] = src[(gid.y + params.y0) * params.in_width + gid.x + params.x0];
}
