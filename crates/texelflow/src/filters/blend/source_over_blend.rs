//! Source-over blend. Matches GPUImage's `GPUImageSourceOverBlendFilter`.

crate::pixel_filter! {
    /// `mix(c, t, t.a)` on all four channels.
    pub struct SourceOverBlend;
    name: "source_over_blend",
    family: Blend,
    gpuimage: "GPUImageSourceOverBlendFilter",
    summary: "The second image over the input, by its alpha (GPUImage's mix, alpha mixed too).",
    doc: "GPUImage's `mix(base, overlay, overlay.a)`, which mixes alpha as well; for true Porter-Duff \
          source-over see normal_blend or porter_duff(op=over).",
    with: "the image laid over the input",
    params: {},
    wgsl: "return mix(c, t, t.a);",
    cpu2: |_f, c, t, _| std::array::from_fn(|k| crate::filters::shape::pixel::twin::mix(c[k], t[k], t[3])),
}
