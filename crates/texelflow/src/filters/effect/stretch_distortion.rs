//! Stretch distortion. Matches GPUImage's `GPUImageStretchDistortionFilter`.

crate::remap_filter! {
    /// Stretches the middle of the image outwards from a centre (a funhouse mirror).
    pub struct StretchDistortion;
    name: "stretch_distortion",
    gpuimage: "GPUImageStretchDistortionFilter",
    summary: "Stretches the image outwards from a centre, like a funhouse mirror (normalised coordinates).",
    doc: "Per axis, in coordinates doubled about the centre (o = 2 (uv - center)), reads at o (0.5 + 0.5 smoothstep(0.25, 0.5, |o|)), \
          as GPUImage: the region within a quarter of the image of the centre is magnified twice, blending to no change half \
          an image away. Bilinear, replicate edges.",
    params: {
        center: point = [0.5, 0.5] => "centre (x, y in [0, 1], from the top left)",
    },
    wgsl: "let o = 2.0 * (uv - p.center);
    let a = abs(o);
    let t = clamp((a - vec2<f32>(0.25)) / 0.25, vec2<f32>(0.0), vec2<f32>(1.0));
    let s = t * t * (3.0 - 2.0 * t);
    return o * (0.5 + 0.5 * s) * 0.5 + p.center;",
    cpu: |f, uv, _| {
        let axis = |u: f32, c: f32| {
            let o = 2.0 * (u - c);
            let t = ((o.abs() - 0.25) / 0.25).clamp(0.0, 1.0);
            let s = t * t * (3.0 - 2.0 * t);
            o * (0.5 + 0.5 * s) * 0.5 + c
        };
        [axis(uv[0], f.center[0]), axis(uv[1], f.center[1])]
    },
}
