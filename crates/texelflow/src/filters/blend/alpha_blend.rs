//! Alpha blend: the second image over the first, weighted by its alpha and `mix`. Matches
//! GPUImage's `GPUImageAlphaBlendFilter`.

crate::pixel_filter! {
    /// `rgb = mix(base.rgb, top.rgb, top.a * mix)`, alpha from the base.
    pub struct AlphaBlend;
    name: "alpha_blend",
    family: Blend,
    gpuimage: "GPUImageAlphaBlendFilter",
    summary: "Blends a second image over the first by its alpha times mix.",
    doc: "A second image of another size needs `fit=` (see `texelflow help`).",
    with: "the image laid over the input",
    params: { mix: float(0.0, 1.0) = 0.5 => "weight of the top image (times its alpha)" },
    wgsl: "let k = t.a * p.mix;
    return vec4<f32>(c.rgb * (1.0 - k) + t.rgb * k, c.a);",
    cpu2: |f, c, t, _| {
        let k = t[3] * f.mix;
        [c[0] * (1.0 - k) + t[0] * k, c[1] * (1.0 - k) + t[1] * k, c[2] * (1.0 - k) + t[2] * k, c[3]]
    },
}
