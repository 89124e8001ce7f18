//! Dissolve: a linear mix of the two images. Matches GPUImage's `GPUImageDissolveBlendFilter`.

crate::pixel_filter! {
    /// `mix(c, t, mix)` on all four channels.
    pub struct DissolveBlend;
    name: "dissolve_blend",
    family: Blend,
    gpuimage: "GPUImageDissolveBlendFilter",
    summary: "Mixes the two images linearly (alpha too).",
    with: "the second image",
    params: { mix: float(0.0, 1.0) = 0.5 => "weight of the second image (GPUImage's mixturePercent)" },
    wgsl: "return mix(c, t, p.mix);",
    cpu2: |f, c, t, _| std::array::from_fn(|k| crate::filters::shape::pixel::twin::mix(c[k], t[k], f.mix)),
}
