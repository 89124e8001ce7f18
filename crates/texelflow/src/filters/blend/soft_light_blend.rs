//! Soft light blend. Matches GPUImage's `GPUImageSoftLightBlendFilter`.

crate::pixel_filter! {
    /// With `d = c.a` (1 where `c.a = 0`): `c (t.a c / d + 2 t (1 - c / d)) + t (1 - c.a) + c (1 - t.a)`
    /// on all four channels.
    pub struct SoftLightBlend;
    name: "soft_light_blend",
    family: Blend,
    gpuimage: "GPUImageSoftLightBlendFilter",
    summary: "Soft light: a gentle overlay driven by the second image.",
    doc: "GPUImage's formula (Pegtop-like, not Photoshop's), applied to alpha as well.",
    with: "the light image",
    params: {},
    wgsl: "let d = c.a + select(0.0, 1.0, c.a <= 0.0);
    return c * (t.a * (c / d) + 2.0 * t * (vec4<f32>(1.0) - c / d)) + t * (1.0 - c.a) + c * (1.0 - t.a);",
    cpu2: |_f, c, t, _| {
        let d = if c[3] <= 0.0 { 1.0 } else { c[3] };
        std::array::from_fn(|k| {
            let u = c[k] / d;
            c[k] * (t[3] * u + 2.0 * t[k] * (1.0 - u)) + t[k] * (1.0 - c[3]) + c[k] * (1.0 - t[3])
        })
    },
}
