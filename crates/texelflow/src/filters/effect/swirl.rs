//! Swirl distortion. Matches GPUImage's `GPUImageSwirlFilter`.

crate::remap_filter! {
    /// Rotates the image around a centre, more the closer to it, within a radius.
    pub struct Swirl;
    name: "swirl",
    gpuimage: "GPUImageSwirlFilter",
    summary: "Swirls the image around a centre within a radius (normalised coordinates).",
    doc: "Inside the radius, positions turn by angle * 8 * ((radius - d) / radius)^2 around the centre, as GPUImage (d and \
          radius in normalised coordinates, so the swirl is elliptical on non-square images). Bilinear, replicate edges.",
    params: {
        center: point = [0.5, 0.5] => "centre (x, y in [0, 1], from the top left)",
        radius: float(0.0, 1.0) = 0.5 => "radius of the swirl, in fractions of the image",
        angle: float(-10.0, 10.0) = 1.0 => "strength of the twist",
    },
    wgsl: "let d = distance(p.center, uv);
    if (d >= p.radius) { return uv; }
    let k = (p.radius - d) / p.radius;
    let theta = k * k * p.angle * 8.0;
    let s = sin(theta);
    let c = cos(theta);
    let v = uv - p.center;
    return vec2<f32>(dot(v, vec2<f32>(c, -s)), dot(v, vec2<f32>(s, c))) + p.center;",
    cpu: |f, uv, _| {
        let v = [uv[0] - f.center[0], uv[1] - f.center[1]];
        let d = (v[0] * v[0] + v[1] * v[1]).sqrt();
        if d >= f.radius {
            return uv;
        }
        let k = (f.radius - d) / f.radius;
        let (s, c) = (k * k * f.angle * 8.0).sin_cos();
        [v[0] * c - v[1] * s + f.center[0], v[0] * s + v[1] * c + f.center[1]]
    },
}
