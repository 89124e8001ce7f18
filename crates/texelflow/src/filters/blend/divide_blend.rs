//! Divide blend. Matches GPUImage's `GPUImageDivideBlendFilter`.

crate::pixel_filter! {
    /// Per channel: where `t.a == 0` or `c / t > c.a / t.a`, the saturated
    /// `t.a c.a + t (1 - c.a) + c (1 - t.a)`, else `c t.a² / t + t (1 - c.a) + c (1 - t.a)`;
    /// alpha `t.a + c.a - t.a c.a`.
    pub struct DivideBlend;
    name: "divide_blend",
    family: Blend,
    gpuimage: "GPUImageDivideBlendFilter",
    summary: "Divides the input by the second image (GPUImage's alpha-aware divide).",
    doc: "GPUImage's formula, its divisions made safe: `c / t > c.a / t.a` is tested as `c t.a > c.a t` (the same \
          where t > 0, and true where t = 0 and c > 0, the limit of the quotient), and 0 / 0 counts as 0. Both sides \
          are continuous at the branch, so GPU and CPU agree within one level.",
    with: "the divisor image",
    params: {},
    wgsl: "let ab = t.a * c.a;
    let rest = t.rgb * (1.0 - c.a) + c.rgb * (1.0 - t.a);
    let quotient = select(vec3<f32>(0.0), c.rgb * t.a * t.a / t.rgb, t.rgb > vec3<f32>(0.0));
    let over = (vec3<f32>(t.a) == vec3<f32>(0.0)) | (c.rgb * t.a > c.a * t.rgb);
    return vec4<f32>(select(quotient, vec3<f32>(ab), over) + rest, t.a + c.a - ab);",
    cpu2: |_f, c, t, _| {
        let (ab, ta) = (t[3] * c[3], t[3]);
        let ch = |k: usize| {
            let rest = t[k] * (1.0 - c[3]) + c[k] * (1.0 - ta);
            if ta == 0.0 || c[k] * ta > c[3] * t[k] {
                ab + rest
            } else if t[k] > 0.0 {
                c[k] * ta * ta / t[k] + rest
            } else {
                rest
            }
        };
        [ch(0), ch(1), ch(2), ta + c[3] - ab]
    },
}
