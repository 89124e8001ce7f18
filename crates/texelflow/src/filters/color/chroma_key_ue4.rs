//! The UE4 chroma-key material (seed 000's keyer, as aoce ports it): chroma distance after a
//! luma mask, an alpha curve, despill and ambient light. The same job as GPUImage's
//! `GPUImageChromaKeyFilter`, by Epic's published method.

use crate::filters::shape::pixel::twin::{mix, spow};

crate::pixel_filter! {
    /// Keys a colour to transparency (UE4's matting material), with despill and ambient light.
    pub struct ChromaKeyUe4;
    name: "chroma_key_ue4",
    gpuimage: "GPUImageChromaKeyFilter",
    summary: "Chroma key by UE4's matting material: soft alpha, despill of the key colour, ambient light.",
    doc: "Both colours are reduced to chroma (each mixed towards its channel sum by exp(-2 pi sum / luma_mask), then divided by \
          twice the sum; black stays black). With k = max((distance - alpha_cutoff) * alpha_scale, 0): alpha = k^alpha_exponent \
          (clamped, times the input's alpha), despill = 1 - k^despill_exponent; rgb -= rgb * color * despill * despill_scale, \
          rgb += rgb * (0.3, 0.59, 0.11) * ambient_color * ambient_scale * despill. Defaults as aoce's.",
    params: {
        color: rgb = [0.0, 1.0, 0.0] => "key colour (R, G, B in [0, 1])",
        luma_mask: float(0.01, 10.0) = 1.0 => "how dark a colour must be to count as grey rather than chroma",
        alpha_cutoff: float(0.0, 1.0) = 0.2 => "chroma distance below which a pixel is fully transparent",
        alpha_scale: float(0.0, 20.0) = 10.0 => "how fast alpha rises past the cutoff",
        alpha_exponent: float(0.0, 1.0) = 0.1 => "shape of the alpha curve",
        despill_scale: float(0.0, 1.0) = 0.0 => "how much of the key colour is removed from kept pixels",
        despill_exponent: float(0.0, 1.0) = 0.1 => "shape of the despill curve",
        ambient_scale: float(0.0, 1.0) = 0.0 => "how much ambient light replaces the removed spill",
        ambient_color: rgb = [1.0, 1.0, 1.0] => "ambient light colour",
    },
    uniform: |f| {
        key: [f32; 3] = chroma(f.color, f.luma_mask),
        color: [f32; 3] = f.color,
        ambient: [f32; 3] = [0.3 * f.ambient_color[0], 0.59 * f.ambient_color[1], 0.11 * f.ambient_color[2]],
        luma_mask: f32 = f.luma_mask,
        alpha_cutoff: f32 = f.alpha_cutoff,
        alpha_scale: f32 = f.alpha_scale,
        alpha_exponent: f32 = f.alpha_exponent,
        despill_scale: f32 = f.despill_scale,
        despill_exponent: f32 = f.despill_exponent,
        ambient_scale: f32 = f.ambient_scale,
    },
    helpers: "fn ue4_chroma(c: vec3<f32>, luma_mask: f32) -> vec3<f32> {
    let luma = c.r + c.g + c.b;
    let m = mix(c, vec3<f32>(luma), vec3<f32>(exp(-luma * 6.2831853 / luma_mask)));
    let s = 2.0 * (m.r + m.g + m.b);
    return select(vec3<f32>(0.0), m / s, s > 0.0);
}",
    wgsl: "let k = max((distance(p.key, ue4_chroma(c.rgb, p.luma_mask)) - p.alpha_cutoff) * p.alpha_scale, 0.0);
    let alpha = clamp(spow(k, p.alpha_exponent), 0.0, 1.0);
    let despill = 1.0 - clamp(spow(k, p.despill_exponent), 0.0, 1.0);
    let rgb = c.rgb - c.rgb * p.color * (despill * p.despill_scale) + c.rgb * p.ambient * (p.ambient_scale * despill);
    return vec4<f32>(rgb, c.a * alpha);",
    cpu: |f, c, _| {
        let key = chroma(f.color, f.luma_mask);
        let px = chroma([c[0], c[1], c[2]], f.luma_mask);
        let d = ((key[0] - px[0]).powi(2) + (key[1] - px[1]).powi(2) + (key[2] - px[2]).powi(2)).sqrt();
        let k = ((d - f.alpha_cutoff) * f.alpha_scale).max(0.0);
        let alpha = spow(k, f.alpha_exponent).clamp(0.0, 1.0);
        let despill = 1.0 - spow(k, f.despill_exponent).clamp(0.0, 1.0);
        let lum = [0.3, 0.59, 0.11];
        let g = |i: usize| c[i] - c[i] * f.color[i] * despill * f.despill_scale + c[i] * lum[i] * f.ambient_color[i] * f.ambient_scale * despill;
        [g(0), g(1), g(2), c[3] * alpha]
    },
}

/// A colour's chroma as UE4's material takes it (black has none).
fn chroma(c: [f32; 3], luma_mask: f32) -> [f32; 3] {
    let luma = c[0] + c[1] + c[2];
    let m = (-luma * std::f32::consts::TAU / luma_mask).exp();
    let v = c.map(|x| mix(x, luma, m));
    let s = 2.0 * (v[0] + v[1] + v[2]);
    if s > 0.0 {
        v.map(|x| x / s)
    } else {
        [0.0; 3]
    }
}
