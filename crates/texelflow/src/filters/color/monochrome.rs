//! Luminance tinted by a colour. Matches GPUImage's `GPUImageMonochromeFilter`.

use crate::filters::shape::pixel::twin;

crate::pixel_filter! {
    /// Luminance overlaid with a colour, mixed with the original by intensity.
    pub struct Monochrome;
    name: "monochrome",
    gpuimage: "GPUImageMonochromeFilter",
    summary: "Luminance tinted with a colour (overlay blend), mixed with the original by intensity.",
    params: {
        intensity: float(0.0, 1.0) = 1.0 => "mix between the original (0) and the tinted luminance (1)",
        color: rgb = [0.6, 0.45, 0.3] => "tint (R, G, B in [0, 1])",
    },
    // the overlay's two branches as one multiply-add each, their coefficients computed once
    uniform: |f| {
        dark: [f32; 3] = f.color.map(|k| 2.0 * k),
        light0: [f32; 3] = f.color.map(|k| 2.0 * k - 1.0),
        light1: [f32; 3] = f.color.map(|k| 2.0 - 2.0 * k),
        intensity: f32 = f.intensity,
    },
    wgsl: "let l = vec3<f32>(dot(c.rgb, LUMA_W));
    let tint = select(p.light0 + l * p.light1, l * p.dark, l < vec3<f32>(0.5));
    return vec4<f32>(mix(c.rgb, tint, vec3<f32>(p.intensity)), c.a);",
    cpu: |f, c, _| {
        let l = twin::luma(c);
        let g = |k: usize| twin::mix(c[k], twin::overlay(l, f.color[k]), f.intensity);
        [g(0), g(1), g(2), c[3]]
    },
}
