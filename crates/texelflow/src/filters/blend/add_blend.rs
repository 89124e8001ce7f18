//! Add blend. Matches GPUImage's `GPUImageAddBlendFilter` (its alpha-aware sum).

crate::pixel_filter! {
    /// Per channel: `t + c`, or where `t c.a + c t.a >= t.a c.a` the saturated
    /// `t.a c.a + t (1 - c.a) + c (1 - t.a)`; alpha `t.a + c.a - t.a c.a`.
    pub struct AddBlend;
    name: "add_blend",
    family: Blend,
    gpuimage: "GPUImageAddBlendFilter",
    summary: "Adds the two images (GPUImage's alpha-aware sum).",
    with: "the second image",
    params: {},
    wgsl: "let ab = t.a * c.a;
    let sat = vec3<f32>(ab) + t.rgb * (1.0 - c.a) + c.rgb * (1.0 - t.a);
    let rgb = select(t.rgb + c.rgb, sat, t.rgb * c.a + c.rgb * t.a >= vec3<f32>(ab));
    return vec4<f32>(rgb, t.a + c.a - ab);",
    cpu2: |_f, c, t, _| {
        let ab = t[3] * c[3];
        let ch = |k: usize| if t[k] * c[3] + c[k] * t[3] >= ab { ab + t[k] * (1.0 - c[3]) + c[k] * (1.0 - t[3]) } else { t[k] + c[k] };
        [ch(0), ch(1), ch(2), t[3] + c[3] - ab]
    },
}
