//! Overlay blend. Matches GPUImage's `GPUImageOverlayBlendFilter`.

crate::pixel_filter! {
    /// Per channel: where `2 c < c.a`, `2 t c + t (1 - c.a) + c (1 - t.a)`, else
    /// `t.a c.a - 2 (c.a - c)(t.a - t) + t (1 - c.a) + c (1 - t.a)`; alpha 1.
    pub struct OverlayBlend;
    name: "overlay_blend",
    family: Blend,
    gpuimage: "GPUImageOverlayBlendFilter",
    summary: "Overlay: multiplies the dark parts of the input and screens the light parts.",
    doc: "The input decides (multiply where it is below half its alpha, screen above); the output is opaque, as GPUImage's.",
    with: "the overlay image",
    params: {},
    wgsl: "let rest = t.rgb * (1.0 - c.a) + c.rgb * (1.0 - t.a);
    let dark = 2.0 * t.rgb * c.rgb;
    let light = vec3<f32>(t.a * c.a) - 2.0 * (vec3<f32>(c.a) - c.rgb) * (vec3<f32>(t.a) - t.rgb);
    return vec4<f32>(select(light, dark, 2.0 * c.rgb < vec3<f32>(c.a)) + rest, 1.0);",
    cpu2: |_f, c, t, _| {
        let ch = |k: usize| {
            let rest = t[k] * (1.0 - c[3]) + c[k] * (1.0 - t[3]);
            if 2.0 * c[k] < c[3] {
                2.0 * t[k] * c[k] + rest
            } else {
                t[3] * c[3] - 2.0 * (c[3] - c[k]) * (t[3] - t[k]) + rest
            }
        };
        [ch(0), ch(1), ch(2), 1.0]
    },
}
