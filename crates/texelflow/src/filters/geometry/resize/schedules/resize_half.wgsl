// Schedule `half`: an exact halving (input 2x the output on both sides, output width a multiple
// of 4, whole images). Bilinear there samples at tx = ty = 0.5 and area averages 2x2 cells with
// weights 0.5 x 0.5: both are the 2x2 mean rounded half up, (a + b + c + d + 2) >> 2 per channel,
// exactly (the twins' f32 sums of quarters are exact), so both take this kernel. Two channels
// per 16-bit lane; 16-byte loads and stores, 4 output pixels per invocation.

@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> params: ResizeParams;

fn mean4(a: u32, b: u32, c: u32, d: u32) -> u32 {
    let m = 0x00ff00ffu;
    let lo = (a & m) + (b & m) + (c & m) + (d & m) + 0x00020002u;
    let hi = ((a >> 8u) & m) + ((b >> 8u) & m) + ((c >> 8u) & m) + ((d >> 8u) & m) + 0x00020002u;
    return ((lo >> 2u) & m) | (((hi >> 2u) & m) << 8u);
}

@compute @workgroup_size(256)
fn resize_half(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = linear_id(wid, nwg, lid, 256u);
    let quads = params.out_width / 4u;
    if (g >= quads * params.out_height) { return; }
    let oy = g / quads;
    let q = g - oy * quads;
    // 16-byte units per source row; the invocation's 8 source pixels of rows 2 oy and 2 oy + 1
    let row = params.in_width / 4u;
    let t = 2u * oy * row + 2u * q;
    let a0 = src[t];
    let a1 = src[t + 1u];
    let b0 = src[t + row];
    let b1 = src[t + row + 1u];
    dst[g] = vec4<u32>(
        mean4(a0.x, a0.y, b0.x, b0.y),
        mean4(a0.z, a0.w, b0.z, b0.w),
        mean4(a1.x, a1.y, b1.x, b1.y),
        mean4(a1.z, a1.w, b1.z, b1.w),
    );
}
