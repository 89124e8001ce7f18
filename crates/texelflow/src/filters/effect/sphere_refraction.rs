//! Refraction through a glass sphere. Matches GPUImage's `GPUImageSphereRefractionFilter`.

/// The sphere's surface normal at the pixel whose normalised centre is `uv`, or `None`
/// outside the sphere. Computed in pixels from the pixel's exact centre (`floor(uv * size) + 0.5`)
/// so that GPU and CPU agree on which pixels are inside; the normal does not depend on the
/// unit, so it equals GPUImage's (computed in fractions of the width).
pub(crate) fn sphere_normal(
    uv: [f32; 2],
    size: [f32; 2],
    center: [f32; 2],
    radius: f32,
) -> Option<[f32; 3]> {
    let px = [
        (uv[0] * size[0]).floor() + 0.5 - center[0] * size[0],
        (uv[1] * size[1]).floor() + 0.5 - center[1] * size[1],
    ];
    let r = radius * size[0];
    let d2 = px[0] * px[0] + px[1] * px[1];
    if !(d2 <= r * r && r > 0.0) {
        return None;
    }
    let depth = r * (1.0 - d2 / (r * r)).max(0.0).sqrt();
    let n = (d2 + depth * depth).sqrt();
    // the centre pixel of a one-pixel sphere: straight on
    if n == 0.0 {
        return Some([0.0, 0.0, 1.0]);
    }
    Some([px[0] / n, px[1] / n, depth / n])
}

/// WGSL twin of `sphere_normal`: the normal in xyz, w = 1 inside the sphere, 0 outside.
pub(crate) const SPHERE_NORMAL_WGSL: &str = "fn sphere_normal(uv: vec2<f32>, size: vec2<f32>, center: vec2<f32>, radius: f32) -> vec4<f32> {
    let px = floor(uv * size) + 0.5 - center * size;
    let r = radius * size.x;
    let d2 = dot(px, px);
    if (!(d2 <= r * r && r > 0.0)) { return vec4<f32>(0.0); }
    let depth = r * sqrt(max(1.0 - d2 / (r * r), 0.0));
    let n = sqrt(d2 + depth * depth);
    if (n == 0.0) { return vec4<f32>(0.0, 0.0, 1.0, 1.0); }
    return vec4<f32>(px / n, depth / n, 1.0);
}";

/// `refract(I, N, eta)` as GLSL and WGSL define it, for I = (0, 0, -1): the xy of the refracted ray.
pub(crate) fn refract_down(n: [f32; 3], eta: f32) -> [f32; 2] {
    let d = -n[2];
    let k = 1.0 - eta * eta * (1.0 - d * d);
    if k < 0.0 {
        return [0.0, 0.0];
    }
    let m = eta * d + k.sqrt();
    [-m * n[0], -m * n[1]]
}

crate::remap_filter! {
    /// The image seen through a glass sphere: refracted inside it, transparent outside.
    pub struct SphereRefraction;
    name: "sphere_refraction",
    gpuimage: "GPUImageSphereRefractionFilter",
    summary: "The image refracted through a glass sphere; transparent outside the sphere (normalised coordinates).",
    doc: "Inside the circle, the ray (0, 0, -1) is refracted (ratio refractive_index) at the surface of a sphere of the \
          given radius, and the image is read at (ray.xy + 1) / 2, as GPUImage: the whole image appears in the sphere, upside \
          down. Outside, transparent black (GPUImage's background). radius is a fraction of the width; the sphere is round \
          in pixels (GPUImage scales y about 0.5, which moves an off-centre sphere on a non-square image; equal at the \
          default centre). A pixel is inside when its centre is within the radius (GPUImage's step(d, radius)). Index \
          ratios above 1 (total internal reflection) are not taken. Bilinear, replicate edges.",
    params: {
        center: point = [0.5, 0.5] => "centre (x, y in [0, 1], from the top left)",
        radius: float(0.0, 1.0) = 0.25 => "radius of the sphere, in fractions of the width",
        refractive_index: float(0.0, 1.0) = 0.71 => "ratio of refractive indices (GPUImage's refractiveIndex)",
    },
    helpers: SPHERE_NORMAL_WGSL,
    wgsl: "let n = sphere_normal(uv, size, p.center, p.radius);
    if (n.w == 0.0) { return uv; }
    let r = refract(vec3<f32>(0.0, 0.0, -1.0), n.xyz, p.refractive_index);
    return (r.xy + 1.0) * 0.5;",
    cpu: |f, uv, size| {
        match sphere_normal(uv, size, f.center, f.radius) {
            None => uv,
            Some(n) => {
                let r = refract_down(n, f.refractive_index);
                [(r[0] + 1.0) * 0.5, (r[1] + 1.0) * 0.5]
            }
        }
    },
    post_wgsl: "return c * sphere_normal(uv, size, p.center, p.radius).w;",
    post: |f, c, uv, size, _sample| if sphere_normal(uv, size, f.center, f.radius).is_some() { c } else { [0.0; 4] },
}
