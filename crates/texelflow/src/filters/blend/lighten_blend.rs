//! Lighten blend. Matches GPUImage's `GPUImageLightenBlendFilter`.

crate::pixel_filter! {
    /// `max(c, t)` on all four channels.
    pub struct LightenBlend;
    name: "lighten_blend",
    family: Blend,
    gpuimage: "GPUImageLightenBlendFilter",
    summary: "Keeps the lighter of the two images per channel (alpha too).",
    with: "the second image",
    params: {},
    wgsl: "return max(c, t);",
    cpu2: |_f, c, t, _| std::array::from_fn(|k| c[k].max(t[k])),
}
