// Guided filter (guided_filter.rs): the helpers shared by its kernels (their uniform,
// `GuidedParams`, is declared in guided_filter.rs). CPU twin: `GuidedFilter::run_cpu`.

// Luminance of an RGBA8 word with GPUImage's weights, the bytes scaled by a multiplication
// (correctly rounded, as the twin's) rather than unpack4x8unorm.
fn guide_of(word: u32) -> vec2<f32> {
    let b = vec4<f32>(f32(word & 0xffu), f32((word >> 8u) & 0xffu), f32((word >> 16u) & 0xffu), f32(word >> 24u)) * (1.0 / 255.0);
    return vec2<f32>(b.x * 0.2125 + b.y * 0.7154 + b.z * 0.0721, b.w);
}
