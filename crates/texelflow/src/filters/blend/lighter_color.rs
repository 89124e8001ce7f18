//! Lighter colour blend. No GPUImage equivalent; MetalPetal's `MTIBlendMode.lighterColor`.

crate::pixel_filter! {
    /// W3C general blending with `B(Cb, Cs) = Lum(Cs) > Lum(Cb) ? Cs : Cb, Lum = 0.3 R + 0.59 G + 0.11 B computed exactly on the 8-bit samples (30 R + 59 G + 11 B), ties keep the input` (Cb the input's colour, Cs the second image's),
    /// then source-over with straight alpha.
    pub struct LighterColor;
    name: "lighter_color",
    family: Blend,
    gpuimage: "",
    summary: "Lighter colour: whichever whole colour (of input and second image) has the higher luminance.",
    doc: "B(Cb, Cs) = Lum(Cs) > Lum(Cb) ? Cs : Cb, Lum = 0.3 R + 0.59 G + 0.11 B computed exactly on the 8-bit samples (30 R + 59 G + 11 B), ties keep the input (Photoshop's definition; Cb = input, Cs = the second image). Alpha as the W3C compositing \
          spec's general formula: mixed = (1 - αb) Cs + αb B, then source-over of the second image: \
          α = αs + αb (1 - αs), rgb = (αs mixed + (1 - αs) αb Cb) / α (straight alpha in and out; 0 where α = 0). \
          Where both are opaque this is B itself.",
    with: "the blend (top) image",
    params: {},
    helpers: w3c_composite_wgsl!("lighter_color"),
    wgsl: "let units = vec3<f32>(30.0, 59.0, 11.0);
    let b = select(c.rgb, t.rgb, dot(round(t.rgb * 255.0), units) > dot(round(c.rgb * 255.0), units));
    return lighter_color_composite(c, t, b);",
    cpu2: |_f, c, t, _| {
        let b = if super::twin::lum_units(t) > super::twin::lum_units(c) { [t[0], t[1], t[2]] } else { [c[0], c[1], c[2]] };
        super::twin::composite(c, t, b)
    },
}
