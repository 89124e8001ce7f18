//! Vivid light blend. No GPUImage equivalent; MetalPetal's `MTIBlendMode.vividLight`.

crate::pixel_filter! {
    /// W3C general blending with `B(Cb, Cs) = Cs <= 0.5 ? burn(Cb, 2 Cs) : dodge(Cb, 2 Cs - 1), burn(b, s) = 1 - (1 - b) / s, dodge(b, s) = b / (1 - s), clamped to [0, 1], with 1 - (1 - 1) / 0 = 1 and 0 / 0 = 0` (Cb the input's colour, Cs the second image's),
    /// then source-over with straight alpha.
    pub struct VividLight;
    name: "vivid_light",
    family: Blend,
    gpuimage: "",
    summary: "Vivid light: colour burn below mid-grey of the second image, colour dodge above.",
    doc: "B(Cb, Cs) = Cs <= 0.5 ? burn(Cb, 2 Cs) : dodge(Cb, 2 Cs - 1), burn(b, s) = 1 - (1 - b) / s, dodge(b, s) = b / (1 - s), clamped to [0, 1], with 1 - (1 - 1) / 0 = 1 and 0 / 0 = 0 (Photoshop's definition; Cb = input, Cs = the second image). Alpha as the W3C compositing \
          spec's general formula: mixed = (1 - αb) Cs + αb B, then source-over of the second image: \
          α = αs + αb (1 - αs), rgb = (αs mixed + (1 - αs) αb Cb) / α (straight alpha in and out; 0 where α = 0). \
          Where both are opaque this is B itself.",
    with: "the blend (top) image",
    params: {},
    helpers: w3c_composite_wgsl!("vivid_light"),
    wgsl: "let cb = c.rgb;
    let cs = t.rgb;
    // one quotient per channel: burn's (1 - cb) / 2cs or dodge's cb / (2 - 2cs); the divisor kept away from 0
    // gives burn 1 at cb = 1 and 0 at cs = 0, dodge 0 at cb = 0 and 1 at cs = 1, after the clamp
    let burn = cs <= vec3<f32>(0.5);
    let q = select(cb, 1.0 - cb, burn) / max(select(2.0 - 2.0 * cs, 2.0 * cs, burn), vec3<f32>(1e-30));
    let b = clamp(select(q, 1.0 - q, burn), vec3<f32>(0.0), vec3<f32>(1.0));
    return vivid_light_composite(c, t, b);",
    cpu2: |_f, c, t, _| {
        let b: [f32; 3] = std::array::from_fn(|k| {
            let (cb, cs) = (c[k], t[k]);
            if cs <= 0.5 {
                if cb >= 1.0 { 1.0 } else if cs <= 0.0 { 0.0 } else { (1.0 - (1.0 - cb) / (2.0 * cs)).clamp(0.0, 1.0) }
            } else if cb <= 0.0 { 0.0 } else if cs >= 1.0 { 1.0 } else { (cb / (2.0 * (1.0 - cs))).clamp(0.0, 1.0) }
        });
        super::twin::composite(c, t, b)
    },
}
