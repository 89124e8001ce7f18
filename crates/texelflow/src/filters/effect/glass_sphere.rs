//! A lit glass sphere. Matches GPUImage's `GPUImageGlassSphereFilter`.

use super::sphere_refraction::{refract_down, sphere_normal, SPHERE_NORMAL_WGSL};

/// GPUImage's lights: the grazing-angle (ambient) direction and the specular light's position.
const AMBIENT: [f32; 3] = [0.0, 0.0, 1.0];
const LIGHT: [f32; 3] = [-0.5, 0.5, 1.0];

/// The sphere's colour from the refracted sample and the normal: grazing-angle glow plus a specular highlight.
fn lit(c: [f32; 4], n: [f32; 3]) -> [f32; 4] {
    let dot = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let glow = 2.5 * (1.0 - dot(AMBIENT, n).clamp(0.0, 1.0).powf(0.25));
    let len = dot(LIGHT, LIGHT).sqrt();
    let spec =
        0.8 * (dot([LIGHT[0] / len, LIGHT[1] / len, LIGHT[2] / len], n).clamp(0.0, 1.0)).powf(15.0);
    [
        c[0] + glow + spec,
        c[1] + glow + spec,
        c[2] + glow + spec,
        1.0,
    ]
}

crate::remap_filter! {
    /// The image seen through a lit glass sphere (not inverted), with a bright rim and a highlight.
    pub struct GlassSphere;
    name: "glass_sphere",
    gpuimage: "GPUImageGlassSphereFilter",
    summary: "A lit glass sphere: the image refracted upright, a glowing rim and a highlight; transparent outside.",
    doc: "As sphere_refraction, but the refracted ray is doubled and its xy negated (the image upright and magnified), then \
          lit as GPUImage: a grazing-angle glow 2.5 (1 - max(N.z, 0)^0.25) and a specular highlight \
          0.8 max(N.L, 0)^15 from a light at (-0.5, 0.5, 1) are added to R, G and B; opaque inside, transparent black outside.",
    params: {
        center: point = [0.5, 0.5] => "centre (x, y in [0, 1], from the top left)",
        radius: float(0.0, 1.0) = 0.25 => "radius of the sphere, in fractions of the width",
        refractive_index: float(0.0, 1.0) = 0.71 => "ratio of refractive indices (GPUImage's refractiveIndex)",
    },
    helpers: SPHERE_NORMAL_WGSL,
    wgsl: "let n = sphere_normal(uv, size, p.center, p.radius);
    if (n.w == 0.0) { return uv; }
    let r = -2.0 * refract(vec3<f32>(0.0, 0.0, -1.0), n.xyz, p.refractive_index);
    return (r.xy + 1.0) * 0.5;",
    cpu: |f, uv, size| {
        match sphere_normal(uv, size, f.center, f.radius) {
            None => uv,
            Some(n) => {
                let r = refract_down(n, f.refractive_index);
                [(1.0 - 2.0 * r[0]) * 0.5, (1.0 - 2.0 * r[1]) * 0.5]
            }
        }
    },
    post_wgsl: "let n = sphere_normal(uv, size, p.center, p.radius);
    let glow = 2.5 * (1.0 - pow(clamp(n.z, 0.0, 1.0), 0.25));
    let spec = 0.8 * pow(clamp(dot(normalize(vec3<f32>(-0.5, 0.5, 1.0)), n.xyz), 0.0, 1.0), 15.0);
    return vec4<f32>(c.rgb + vec3<f32>(glow + spec), 1.0) * n.w;",
    post: |f, c, uv, size, _sample| match sphere_normal(uv, size, f.center, f.radius) {
        Some(n) => lit(c, n),
        None => [0.0; 4],
    },
}
