//! Adds or removes haze, graded down the image. Matches GPUImage's `GPUImageHazeFilter`.

crate::pixel_filter! {
    /// Removes (positive distance) or adds (negative) a white haze that varies down the image.
    pub struct Haze;
    name: "haze",
    gpuimage: "GPUImageHazeFilter",
    summary: "Removes or adds white haze, graded from top to bottom.",
    doc: "d = y * slope + distance (y from 0 at the top to 1 at the bottom); rgb = (rgb - d) / (1 - d). Unlike GPUImage, \
          alpha is kept (GPUImage applies the formula to alpha too, which only matters for translucent pixels).",
    params: {
        distance: float(-0.3, 0.3) = 0.2 => "strength of the haze removed (negative adds haze)",
        slope: float(-0.3, 0.3) = 0.0 => "change of the strength from top to bottom",
    },
    position: true,
    wgsl: "let d = at_uv(at).y * p.slope + p.distance;
    return vec4<f32>((c.rgb - vec3<f32>(d)) / (1.0 - d), c.a);",
    cpu: |f, c, at| {
        let d = at.uv()[1] * f.slope + f.distance;
        let g = |v: f32| (v - d) / (1.0 - d);
        [g(c[0]), g(c[1]), g(c[2]), c[3]]
    },
}
