// CLAHE, last pass: each pixel's level through the LUTs of its four nearest tiles, blended
// bilinearly. Needs clahe.wgsl (ClaheParams, blend_axis). CPU twin: `clahe_cpu` in clahe.rs.
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read> lut: array<u32>;  // 256 per tile, row-major tiles
@group(0) @binding(2) var<storage, read_write> dst: array<u32>;
@group(0) @binding(3) var<uniform> params: ClaheParams;

fn equalised(bx: Blend, by: Blend, v: u32) -> u32 {
    let r1 = by.i1 * params.tiles_x;
    let r2 = by.i2 * params.tiles_x;
    let a = f32(lut[(r1 + bx.i1) * 256u + v]);
    let b = f32(lut[(r1 + bx.i2) * 256u + v]);
    let c = f32(lut[(r2 + bx.i1) * 256u + v]);
    let d = f32(lut[(r2 + bx.i2) * 256u + v]);
    let xa1 = 1.0 - bx.a;
    let ya1 = 1.0 - by.a;
    let res = (a * xa1 + b * bx.a) * ya1 + (c * xa1 + d * bx.a) * by.a;
    return u32(clamp(round(res), 0.0, 255.0));
}

// RGBA8: one invocation per pixel; R, G, B move by the change of luma (Y' - Y), as replacing
// Y in YCbCr and converting back does; alpha kept. Gray8: one invocation per word of 4 pixels.
@compute @workgroup_size(16, 16)
fn clahe_apply(@builtin(global_invocation_id) gid: vec3<u32>) {
    let y = gid.y;
    if (y >= params.height) { return; }
    let by = blend_axis(y, params.inv_th, params.tiles_y);
    if (params.gray != 0u) {
        if (gid.x >= params.words) { return; }
        let word = src[y * params.words + gid.x];
        var out = 0u;
        for (var k = 0u; k < 4u; k++) {
            let x = gid.x * 4u + k;
            if (x < params.width) {
                let e = equalised(blend_axis(x, params.inv_tw, params.tiles_x), by, (word >> (8u * k)) & 255u);
                out |= e << (8u * k);
            }
        }
        dst[y * params.words + gid.x] = out;
        return;
    }
    let x = gid.x;
    if (x >= params.width) { return; }
    let c = unpack_u8(src[y * params.width + x]);
    let l = luma601(c);
    let d = i32(equalised(blend_axis(x, params.inv_tw, params.tiles_x), by, l)) - i32(l);
    let rgb = vec3<u32>(clamp(vec3<i32>(c.xyz) + vec3<i32>(d), vec3<i32>(0), vec3<i32>(255)));
    dst[y * params.width + x] = pack_u8(vec4<u32>(rgb, c.w));
}
