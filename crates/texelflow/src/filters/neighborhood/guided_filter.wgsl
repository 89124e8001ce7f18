// Guided filter (guided_filter.rs): the uniform shared by its kernels. CPU twin: `GuidedFilter::run_cpu`.

struct GuidedParams {
    width: u32,
    height: u32,
    // the subsampled grid: ceil(width / scale) x ceil(height / scale)
    low_width: u32,
    low_height: u32,
    scale: u32,
    // box radius on the subsampled grid
    radius: u32,
    eps: f32,
    // 1 / scale², 1 / (2 radius + 1)², 1 / scale
    inv_block: f32,
    inv_window: f32,
    inv_scale: f32,
    _pad0: u32,
    _pad1: u32,
}

// Luminance of an RGBA8 word with GPUImage's weights, the bytes scaled by a multiplication
// (correctly rounded, as the twin's) rather than unpack4x8unorm.
fn guide_of(word: u32) -> vec2<f32> {
    let b = vec4<f32>(f32(word & 0xffu), f32((word >> 8u) & 0xffu), f32((word >> 16u) & 0xffu), f32(word >> 24u)) * (1.0 / 255.0);
    return vec2<f32>(b.x * 0.2125 + b.y * 0.7154 + b.z * 0.0721, b.w);
}
