//! Bulge distortion. Matches GPUImage's `GPUImageBulgeDistortionFilter`.

crate::remap_filter! {
    /// Magnifies (scale > 0) or shrinks (scale < 0) the image inside a circle around a centre.
    pub struct BulgeDistortion;
    name: "bulge_distortion",
    gpuimage: "GPUImageBulgeDistortionFilter",
    summary: "Bulges the image outwards (or pinches it inwards) inside a circle (normalised coordinates).",
    doc: "Inside the circle, the offset from the centre is multiplied by (1 - scale * (radius - d) / radius)^2, as GPUImage: \
          d and radius are in fractions of the width (y scaled by height / width about the centre, so the circle is round \
          in pixels). The map is continuous at the edge of the circle. Bilinear, replicate edges.",
    params: {
        center: point = [0.5, 0.5] => "centre (x, y in [0, 1], from the top left)",
        radius: float(0.0, 1.0) = 0.25 => "radius of the circle, in fractions of the width",
        scale: float(-1.0, 1.0) = 0.5 => "strength: positive bulges outwards, negative inwards",
    },
    wgsl: "let v = uv - p.center;
    let d = length(vec2<f32>(v.x, v.y * size.y / size.x));
    if (d >= p.radius) { return uv; }
    let k = 1.0 - (p.radius - d) / p.radius * p.scale;
    return v * (k * k) + p.center;",
    cpu: |f, uv, size| {
        let v = [uv[0] - f.center[0], uv[1] - f.center[1]];
        let (dx, dy) = (v[0], v[1] * size[1] / size[0]);
        let d = (dx * dx + dy * dy).sqrt();
        if d >= f.radius {
            return uv;
        }
        let k = 1.0 - (f.radius - d) / f.radius * f.scale;
        [v[0] * k * k + f.center[0], v[1] * k * k + f.center[1]]
    },
}
