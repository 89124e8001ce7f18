// Gray8 (4 pixels a word, rows padded to whole words): each invocation computes 4 x BH outputs
// (BH words of one word column). The tile is (4 WX + 2 RL) x (WY BH + 2R) pixels with RL, the
// left and right halo, R rounded up to whole words; it is stored by word phase, the pixel of tile
// column X at row * IW + (X % 4) * (IW / 4) + X / 4, so the invocations of a row read consecutive
// words for every tap. Preamble: bilateral_tile.wgsl.
const RL: u32 = 8u; // @specialize
var<workgroup> tile: array<f32, IW * IH>;

@compute @workgroup_size(WX, WY)
fn bilateral_tile_gray(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
    let x0 = i32(wg.x * WX * 4u) - i32(RL);
    let y0 = i32(wg.y * WY * BH) - i32(R);
    let wmax = i32(bp.width) - 1;
    let hmax = i32(bp.height) - 1;
    for (var i = lid.y * WX + lid.x; i < IW * IH; i += WX * WY) {
        let row = i / IW;
        let col = i % IW;
        let gx = u32(clamp(x0 + i32(col), 0, wmax));
        let gy = u32(clamp(y0 + i32(row), 0, hmax));
        let byte = (src[gy * bp.words + gx / 4u] >> (8u * (gx & 3u))) & 255u;
        tile[row * IW + (col & 3u) * (IW / 4u) + col / 4u] = f32(byte);
    }
    // @generated-begin range_fill
    // @generated-end range_fill
    workgroupBarrier();
    // the block's first output is at tile column 4 lid.x + RL, row lid.y BH + R
    let base = lid.y * BH * IW + lid.x;
    let xw = wg.x * WX + lid.x;
    let y = wg.y * WY * BH + lid.y * BH;
    // @generated-begin window
    // @generated-end window
}
