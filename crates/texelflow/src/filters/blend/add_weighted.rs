//! Weighted sum of two images: OpenCV's `cv::addWeighted`. GPUImage has no filter of its own
//! for it; its `GPUImageUnsharpMaskFilter` shader is this sum with weights `intensity` and
//! `1 - intensity` (our `unsharp_mask` is a Gaussian followed by this blend).

crate::pixel_filter! {
    /// `out = input alpha + with beta + gamma` per channel, saturated to [0, 1]; with
    /// `keep_alpha` the output's alpha is the input's.
    pub struct AddWeighted;
    name: "add_weighted",
    family: Blend,
    gpuimage: "",
    summary: "Weighted sum of the input and a second image plus an offset (OpenCV's addWeighted).",
    doc: "out = saturate(input alpha + with beta + gamma) on R, G, B and A (straight alpha), as OpenCV's \
          addWeighted(input, alpha, with, beta, 255 gamma) on 8-bit images; keep_alpha=true keeps the input's alpha \
          instead (GPUImage's unsharp mask). Weights may be negative or above 1 (sharpening is 2 input - 1 blurred).",
    with: "the second image",
    params: {
        alpha: float(-16.0, 16.0) = 0.5 => "weight of the input (OpenCV's alpha)",
        beta: float(-16.0, 16.0) = 0.5 => "weight of the second image (OpenCV's beta)",
        gamma: float(-1.0, 1.0) = 0.0 => "added to every channel, in [0, 1] units (OpenCV's gamma / 255)",
        keep_alpha: bool = false => "output alpha = the input's alpha, not weighted",
    },
    uniform: |f| { alpha: f32 = f.alpha, beta: f32 = f.beta, gamma: f32 = f.gamma, keep_alpha: u32 = f.keep_alpha as u32 },
    wgsl: "let s = c * p.alpha + t * p.beta + vec4<f32>(p.gamma);
    return select(s, vec4<f32>(s.rgb, c.a), p.keep_alpha == 1u);",
    cpu2: |f, c, t, _| {
        let s: [f32; 4] = std::array::from_fn(|k| (c[k] * f.alpha + t[k] * f.beta + f.gamma).clamp(0.0, 1.0));
        if f.keep_alpha { [s[0], s[1], s[2], c[3]] } else { s }
    },
}
