// RGBA8: each invocation computes BH outputs of one column (R, G, B filtered, alpha kept); the
// tile is (WX + 2R) x (WY BH + 2R) pixels, alpha in w. Preamble: bilateral_tile.wgsl.
var<workgroup> tile: array<vec4<f32>, IW * IH>;

@compute @workgroup_size(WX, WY)
fn bilateral_tile(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let x0 = i32(wg.x * WX) - i32(R);
    let y0 = i32(wg.y * WY * BH) - i32(R);
    let wmax = i32(bp.width) - 1;
    let hmax = i32(bp.height) - 1;
    for (var i = lid.y * WX + lid.x; i < IW * IH; i += WX * WY) {
        let gx = clamp(x0 + i32(i % IW), 0, wmax);
        let gy = clamp(y0 + i32(i / IW), 0, hmax);
        tile[i] = bytes_f32(src[u32(gy) * bp.width + u32(gx)]);
    }
    // @generated-begin range_fill
    // @generated-end range_fill
    workgroupBarrier();
    // the block's first output is at tile (lid.x + R, lid.y BH + R)
    let base = lid.y * BH * IW + lid.x;
    let x = wg.x * WX + lid.x;
    let y = wg.y * WY * BH + lid.y * BH;
    // @generated-begin window
    // @generated-end window
}
