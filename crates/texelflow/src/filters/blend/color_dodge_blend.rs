//! Colour dodge blend. Matches GPUImage's `GPUImageColorDodgeBlendFilter`.

crate::pixel_filter! {
    /// Per channel: where `t c.a + c t.a >= t.a c.a`, the saturated
    /// `t.a c.a + t (1 - c.a) + c (1 - t.a)`; else `c t.a / (1 - u) + t (1 - c.a) + c (1 - t.a)`
    /// with `u = clamp(t / max(t.a, 0.01), 0, 0.99)` (0 where t.a = 0); alpha 1.
    pub struct ColorDodgeBlend;
    name: "color_dodge_blend",
    family: Blend,
    gpuimage: "GPUImageColorDodgeBlendFilter",
    summary: "Colour dodge: brightens the input by dividing it by the second image's inverse.",
    doc: "GPUImage's formula; its divisor is at least 0.01, so it is finite everywhere. The output is opaque.",
    with: "the dodging image",
    params: {},
    wgsl: "let ab = t.a * c.a;
    let rest = t.rgb * (1.0 - c.a) + c.rgb * (1.0 - t.a);
    let u = select(vec3<f32>(0.0), clamp(t.rgb * (1.0 / clamp(t.a, 0.01, 1.0)), vec3<f32>(0.0), vec3<f32>(0.99)), t.a >= 0.0);
    let dodged = c.rgb * t.a / (1.0 - u) + rest;
    return vec4<f32>(select(vec3<f32>(ab) + rest, dodged, t.rgb * c.a + c.rgb * t.a <= vec3<f32>(ab)), 1.0);",
    cpu2: |_f, c, t, _| {
        let ab = t[3] * c[3];
        let ch = |k: usize| {
            let rest = t[k] * (1.0 - c[3]) + c[k] * (1.0 - t[3]);
            if t[k] * c[3] + c[k] * t[3] <= ab {
                let u = if t[3] >= 0.0 { (t[k] * (1.0 / t[3].clamp(0.01, 1.0))).clamp(0.0, 0.99) } else { 0.0 };
                c[k] * t[3] / (1.0 - u) + rest
            } else {
                ab + rest
            }
        };
        [ch(0), ch(1), ch(2), 1.0]
    },
}
