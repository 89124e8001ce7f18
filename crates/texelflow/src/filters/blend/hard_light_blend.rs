//! Hard light blend. Matches GPUImage's `GPUImageHardLightBlendFilter`.

crate::pixel_filter! {
    /// Overlay with the roles swapped: the second image decides. Per channel: where
    /// `2 t < t.a`, `2 t c + t (1 - c.a) + c (1 - t.a)`, else
    /// `t.a c.a - 2 (c.a - c)(t.a - t) + t (1 - c.a) + c (1 - t.a)`; alpha 1.
    pub struct HardLightBlend;
    name: "hard_light_blend",
    family: Blend,
    gpuimage: "GPUImageHardLightBlendFilter",
    summary: "Hard light: multiplies or screens by the second image, which decides.",
    doc: "The output is opaque, as GPUImage's.",
    with: "the light image",
    params: {},
    wgsl: "let rest = t.rgb * (1.0 - c.a) + c.rgb * (1.0 - t.a);
    let dark = 2.0 * t.rgb * c.rgb;
    let light = vec3<f32>(t.a * c.a) - 2.0 * (vec3<f32>(c.a) - c.rgb) * (vec3<f32>(t.a) - t.rgb);
    return vec4<f32>(select(light, dark, 2.0 * t.rgb < vec3<f32>(t.a)) + rest, 1.0);",
    cpu2: |_f, c, t, _| {
        let ch = |k: usize| {
            let rest = t[k] * (1.0 - c[3]) + c[k] * (1.0 - t[3]);
            let product = if 2.0 * t[k] < t[3] { 2.0 * t[k] * c[k] } else { t[3] * c[3] - 2.0 * (c[3] - c[k]) * (t[3] - t[k]) };
            product + rest
        };
        [ch(0), ch(1), ch(2), 1.0]
    },
}
