//! Coloured dots on a square grid. Matches GPUImage's `GPUImagePolkaDotFilter`.

use super::pixellate::cell_centre;

/// GPUImage's cell helpers in WGSL: the cell centre (as `pixellate`) and the squared distance
/// from it in fractions of the width (y scaled by height / width, so dots are round in pixels).
pub(crate) const DOT_HELPERS: &str =
    "fn pixellate_cell(uv: vec2<f32>, size: vec2<f32>, fractional_width: f32) -> vec2<f32> {
    let fw = max(fractional_width, 1.0 / size.x);
    let d = vec2<f32>(fw, fw / (size.y / size.x));
    return (tie_floor2(uv / d) + 0.5) * d;
}
fn dot_distance2(uv: vec2<f32>, s: vec2<f32>, size: vec2<f32>) -> f32 {
    let v = (uv - s) * vec2<f32>(1.0, size.y / size.x);
    return v.x * v.x + v.y * v.y;
}";

/// CPU twin of `dot_distance2`.
pub(crate) fn dot_distance2(uv: [f32; 2], s: [f32; 2], size: [f32; 2]) -> f32 {
    let v = [uv[0] - s[0], (uv[1] - s[1]) * (size[1] / size[0])];
    v[0] * v[0] + v[1] * v[1]
}

crate::remap_filter! {
    /// Each cell becomes a dot of the colour at its centre, on black.
    pub struct PolkaDot;
    name: "polka_dot",
    gpuimage: "GPUImagePolkaDotFilter",
    summary: "Polka dots: each square cell a round dot of the colour at its centre, on black.",
    doc: "Cells as in pixellate; inside the cell's dot (diameter dot_scaling times the cell width, round in pixels) the \
          colour sampled at the cell centre, outside it black; alpha is the sample's everywhere, as GPUImage.",
    params: {
        fractional_width: float(0.0, 1.0) = 0.05 => "cell width as a fraction of the image width (GPUImage's fractionalWidthOfAPixel)",
        dot_scaling: float(0.0, 1.0) = 0.9 => "dot diameter as a fraction of the cell width",
    },
    helpers: DOT_HELPERS,
    wgsl: "return pixellate_cell(uv, size, p.fractional_width);",
    cpu: |f, uv, size| cell_centre(uv, size, f.fractional_width),
    post_wgsl: "let s = pixellate_cell(uv, size, p.fractional_width);
    let r = max(p.fractional_width, 1.0 / size.x) * 0.5 * p.dot_scaling;
    let inside = dot_distance2(uv, s, size) <= r * r;
    return vec4<f32>(select(vec3<f32>(0.0), c.rgb, inside), c.a);",
    post: |f, c, uv, size, _sample| {
        let s = cell_centre(uv, size, f.fractional_width);
        let r = f.fractional_width.max(1.0 / size[0]) * 0.5 * f.dot_scaling;
        if dot_distance2(uv, s, size) <= r * r { c } else { [0.0, 0.0, 0.0, c[3]] }
    },
}
