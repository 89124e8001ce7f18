//! Hard mix blend. No GPUImage equivalent; MetalPetal's `MTIBlendMode.hardMix`.

crate::pixel_filter! {
    /// W3C general blending with `B(Cb, Cs) = Cb + Cs >= 1 ? 1 : 0, decided on the 8-bit samples (b + s >= 255) so both sides agree exactly` (Cb the input's colour, Cs the second image's),
    /// then source-over with straight alpha.
    pub struct HardMix;
    name: "hard_mix",
    family: Blend,
    gpuimage: "",
    summary: "Hard mix: each channel 1 where the two images' samples sum to at least 1, else 0.",
    doc: "B(Cb, Cs) = Cb + Cs >= 1 ? 1 : 0, decided on the 8-bit samples (b + s >= 255) so both sides agree exactly (Photoshop's definition; Cb = input, Cs = the second image). Alpha as the W3C compositing \
          spec's general formula: mixed = (1 - αb) Cs + αb B, then source-over of the second image: \
          α = αs + αb (1 - αs), rgb = (αs mixed + (1 - αs) αb Cb) / α (straight alpha in and out; 0 where α = 0). \
          Where both are opaque this is B itself.",
    with: "the blend (top) image",
    params: {},
    helpers: w3c_composite_wgsl!("hard_mix"),
    wgsl: "let b = select(vec3<f32>(0.0), vec3<f32>(1.0), round(c.rgb * 255.0) + round(t.rgb * 255.0) >= vec3<f32>(255.0));
    return hard_mix_composite(c, t, b);",
    cpu2: |_f, c, t, _| {
        let b: [f32; 3] = std::array::from_fn(|k| if (c[k] * 255.0).round() + (t[k] * 255.0).round() >= 255.0 { 1.0 } else { 0.0 });
        super::twin::composite(c, t, b)
    },
}
