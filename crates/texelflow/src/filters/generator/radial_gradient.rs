//! A radial gradient between two colours. No GPUImage equivalent; Core Image's
//! `CIRadialGradient` with its inner radius 0, the centre in GPUImage's normalised coordinates
//! and the radius corrected for the aspect ratio as GPUImage's bulge and pinch distortions do.

crate::generator_filter! {
    /// Two colours mixed by the distance from a centre, circular on any image.
    pub struct RadialGradient;
    name: "radial_gradient",
    gpuimage: "",
    summary: "A circular gradient from first_color at `center` to second_color at `radius` and beyond, the input's size.",
    doc: "d is the distance of the pixel's centre from `center` in units of the image width (uv's y scaled by \
          height / width, as GPUImage's aspectRatio, so the gradient is a circle on any image); t = min(d / radius, 1) \
          and the colour is first_color (1 - t) + second_color t (straight alpha, no gamma). Radius 0 gives \
          second_color everywhere.",
    params: {
        center: point = [0.5, 0.5] => "centre: x, y in [0, 1] from the top left",
        radius: float(0.0, 4.0) = 0.5 => "where second_color is reached, in fractions of the image width",
        first_color: rgba = [1.0, 1.0, 1.0, 1.0] => "colour at the centre: red, green, blue, alpha in [0, 1]",
        second_color: rgba = [0.0, 0.0, 0.0, 1.0] => "colour at the radius and beyond",
    },
    wgsl: "let v = (at_uv(at) - p.center) * vec2<f32>(1.0, f32(at.size.y) / f32(at.size.x));
    var t = 1.0;
    if (p.radius > 0.0) {
        t = min(length(v) / p.radius, 1.0);
    }
    return mix(p.first_color, p.second_color, t);",
    cpu: |f, at| {
        let uv = at.uv();
        let v = [uv[0] - f.center[0], (uv[1] - f.center[1]) * (at.height as f32 / at.width as f32)];
        let t = if f.radius > 0.0 { ((v[0] * v[0] + v[1] * v[1]).sqrt() / f.radius).min(1.0) } else { 1.0 };
        std::array::from_fn(|k| crate::filters::shape::pixel::twin::mix(f.first_color[k], f.second_color[k], t))
    },
}
