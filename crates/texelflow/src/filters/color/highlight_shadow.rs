//! Lifts shadows and pulls highlights. Matches GPUImage's `GPUImageHighlightShadowFilter`.

use crate::filters::shape::pixel::twin::spow;

crate::pixel_filter! {
    /// Lightens shadows and darkens highlights through curves of luminance.
    pub struct HighlightShadow;
    name: "highlight_shadow",
    gpuimage: "GPUImageHighlightShadowFilter",
    summary: "Lightens shadows (shadows up from 0) and darkens highlights (highlights down from 1).",
    doc: "GPUImage v1's curves on L = 0.3 (R + G + B), R, G, B scaled by the new luminance over L. Pure black stays black \
          (GPUImage divides 0 by 0 there).",
    params: {
        shadows: float(0.0, 1.0) = 0.0 => "0 unchanged, 1 lightens shadows most",
        highlights: float(0.0, 1.0) = 1.0 => "1 unchanged, 0 darkens highlights most",
    },
    // x^(2/g) as (x^(1/g))^2: two pows a pixel instead of four (H200 s9-b1: four took 1.48x copy)
    uniform: |f| { inv_s: f32 = 1.0 / (f.shadows + 1.0), inv_h: f32 = 1.0 / (2.0 - f.highlights) },
    wgsl: "let l = dot(c.rgb, vec3<f32>(0.3));
    let ps = spow(l, p.inv_s);
    let ph = spow(1.0 - l, p.inv_h);
    let shadow = clamp((ps - 0.76 * ps * ps) - l, 0.0, 1.0);
    let highlight = clamp((1.0 - (ph - 0.8 * ph * ph)) - l, -1.0, 0.0);
    let k = select((l + shadow + highlight) / l, 0.0, l <= 0.0);
    return vec4<f32>(c.rgb * k, c.a);",
    cpu: |f, c, _| {
        let l = 0.3 * c[0] + 0.3 * c[1] + 0.3 * c[2];
        let (gs, gh) = (f.shadows + 1.0, 2.0 - f.highlights);
        let shadow = (spow(l, 1.0 / gs) - 0.76 * spow(l, 2.0 / gs) - l).clamp(0.0, 1.0);
        let highlight = (1.0 - (spow(1.0 - l, 1.0 / gh) - 0.8 * spow(1.0 - l, 2.0 / gh)) - l).clamp(-1.0, 0.0);
        let k = if l <= 0.0 { 0.0 } else { (l + shadow + highlight) / l };
        [c[0] * k, c[1] * k, c[2] * k, c[3]]
    },
}
