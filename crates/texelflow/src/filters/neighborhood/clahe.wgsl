// CLAHE (OpenCV's createCLAHE(...).apply) on the luma of RGBA8 or on Gray8, three passes in
// one submission: per-tile 256-bin histograms (workgroup atomics; the tiles cover the image
// padded by reflection as OpenCV pads it), one workgroup per tile clipping its histogram and
// scanning it into a LUT (clahe_hist.wgsl, clahe_lut.wgsl), then a per-pixel bilinear blend of the four
// nearest tiles' LUTs (clahe_apply.wgsl). This part: the blend weights (the parameters,
// `ClaheParams`, are declared in clahe.rs).
// CPU twin: `clahe_cpu` in clahe.rs (OpenCV's loops, written out sequentially).

// OpenCV's interpolation: tile coordinates (x / tile_w - 0.5), floor, weights, clamped indices.
struct Blend {
    i1: u32,
    i2: u32,
    a: f32,
}

fn blend_axis(p: u32, inv: f32, tiles: u32) -> Blend {
    let t = f32(p) * inv - 0.5;
    let t1 = i32(floor(t));
    var b: Blend;
    b.a = t - f32(t1);
    b.i1 = u32(max(t1, 0));
    b.i2 = u32(min(t1 + 1, i32(tiles) - 1));
    return b;
}

