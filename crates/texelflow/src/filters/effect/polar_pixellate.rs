//! Pixelation in polar coordinates. Matches GPUImage's `GPUImagePolarPixellateFilter`.

crate::remap_filter! {
    /// Cells of constant radius and angle steps around a centre, each the colour at one corner.
    pub struct PolarPixellate;
    name: "polar_pixellate",
    gpuimage: "GPUImagePolarPixellateFilter",
    summary: "Pixelates in polar coordinates around a centre: rings and sectors.",
    doc: "As GPUImage: with q = 2 uv - 1 relative to the centre, the radius r = |q| is rounded down to a multiple of \
          pixel_size.x and 0.03 added, the angle atan2(q.y, q.x) (pi on the axis left of the centre, 0 at the centre) rounded down to a multiple of pixel_size.y (radians), \
          and the input read (bilinear) there. Coordinates are normalised per axis, so rings are elliptical on \
          non-square images, as GPUImage's.",
    params: {
        center: point = [0.5, 0.5] => "centre (x, y in [0, 1], from the top left)",
        pixel_size: vec2(0.001, 2.0) = [0.05, 0.05] => "ring width (normalised, of the [-1, 1] square) and sector angle (radians)",
    },
    wgsl: "let c = 2.0 * p.center - 1.0;
    let q = 2.0 * uv - 1.0 - c;
    let r = tie_floor(length(q) / p.pixel_size.x) * p.pixel_size.x + 0.03;
    // on the horizontal axis atan2 is pinned (0 or pi), where GPUs' atan2 may return -pi; 'on' within
    // 1e-6, since the GPU's uv (a division) may miss the axis by an ulp where the twin's is exact
    let a = select(atan2(q.y, q.x), select(0.0, 3.1415927, q.x < 0.0), abs(q.y) <= 1e-6);
    let phi = tie_floor(a / p.pixel_size.y) * p.pixel_size.y;
    return (vec2<f32>(r * cos(phi), r * sin(phi)) + c) / 2.0 + 0.5;",
    cpu: |f, uv, _| {
        let c = [2.0 * f.center[0] - 1.0, 2.0 * f.center[1] - 1.0];
        let q = [2.0 * uv[0] - 1.0 - c[0], 2.0 * uv[1] - 1.0 - c[1]];
        let r = crate::filters::tie_floor((q[0] * q[0] + q[1] * q[1]).sqrt() / f.pixel_size[0]) * f.pixel_size[0] + 0.03;
        let a = if q[1].abs() <= 1e-6 { if q[0] < 0.0 { std::f32::consts::PI } else { 0.0 } } else { q[1].atan2(q[0]) };
        let phi = crate::filters::tie_floor(a / f.pixel_size[1]) * f.pixel_size[1];
        [(r * phi.cos() + c[0]) / 2.0 + 0.5, (r * phi.sin() + c[1]) / 2.0 + 0.5]
    },
}
