//! Tints shadows and highlights. Matches GPUImage's `GPUImageHighlightShadowTintFilter`.

use crate::filters::shape::pixel::twin::{luma, mix};

crate::pixel_filter! {
    /// Raises dark pixels towards a shadow colour and lowers bright ones towards a highlight colour.
    pub struct HighlightShadowTint;
    name: "highlight_shadow_tint",
    gpuimage: "GPUImageHighlightShadowTintFilter",
    summary: "Tints shadows and highlights with two colours, each by its own intensity.",
    params: {
        shadow_tint_color: rgb = [1.0, 0.0, 0.0] => "colour mixed into shadows (R, G, B in [0, 1])",
        shadow_tint_intensity: float(0.0, 1.0) = 0.0 => "strength of the shadow tint",
        highlight_tint_color: rgb = [0.0, 0.0, 1.0] => "colour mixed into highlights (R, G, B in [0, 1])",
        highlight_tint_intensity: float(0.0, 1.0) = 0.0 => "strength of the highlight tint",
    },
    wgsl: "let l = dot(c.rgb, LUMA_W);
    let shadow = mix(c.rgb, max(c.rgb, mix(p.shadow_tint_color, c.rgb, vec3<f32>(l))), vec3<f32>(p.shadow_tint_intensity));
    let highlight = mix(c.rgb, min(shadow, mix(shadow, p.highlight_tint_color, vec3<f32>(l))), vec3<f32>(p.highlight_tint_intensity));
    return vec4<f32>(mix(shadow, highlight, vec3<f32>(l)), c.a);",
    cpu: |f, c, _| {
        let l = luma(c);
        let g = |k: usize| {
            let shadow = mix(c[k], c[k].max(mix(f.shadow_tint_color[k], c[k], l)), f.shadow_tint_intensity);
            let highlight = mix(c[k], shadow.min(mix(shadow, f.highlight_tint_color[k], l)), f.highlight_tint_intensity);
            mix(shadow, highlight, l)
        };
        [g(0), g(1), g(2), c[3]]
    },
}
