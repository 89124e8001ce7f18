//! Pin light blend. No GPUImage equivalent; MetalPetal's `MTIBlendMode.pinLight`.

crate::pixel_filter! {
    /// W3C general blending with `B(Cb, Cs) = Cs <= 0.5 ? min(Cb, 2 Cs) : max(Cb, 2 Cs - 1)` (Cb the input's colour, Cs the second image's),
    /// then source-over with straight alpha.
    pub struct PinLight;
    name: "pin_light",
    family: Blend,
    gpuimage: "",
    summary: "Pin light: darken below mid-grey of the second image, lighten above.",
    doc: "B(Cb, Cs) = Cs <= 0.5 ? min(Cb, 2 Cs) : max(Cb, 2 Cs - 1) (Photoshop's definition; Cb = input, Cs = the second image). Alpha as the W3C compositing \
          spec's general formula: mixed = (1 - αb) Cs + αb B, then source-over of the second image: \
          α = αs + αb (1 - αs), rgb = (αs mixed + (1 - αs) αb Cb) / α (straight alpha in and out; 0 where α = 0). \
          Where both are opaque this is B itself.",
    with: "the blend (top) image",
    params: {},
    helpers: w3c_composite_wgsl!("pin_light"),
    wgsl: "let b = select(max(c.rgb, 2.0 * t.rgb - vec3<f32>(1.0)), min(c.rgb, 2.0 * t.rgb), t.rgb <= vec3<f32>(0.5));
    return pin_light_composite(c, t, b);",
    cpu2: |_f, c, t, _| {
        let b: [f32; 3] = std::array::from_fn(|k| if t[k] <= 0.5 { c[k].min(2.0 * t[k]) } else { c[k].max(2.0 * t[k] - 1.0) });
        super::twin::composite(c, t, b)
    },
}
