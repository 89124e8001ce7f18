//! Rounded corners. Matches MetalPetal's `MTIRoundCornerFilter` (circular corners).

crate::pixel_filter! {
    /// Makes the image's corners transparent outside quarter circles of a radius in pixels.
    pub struct RoundCorner;
    name: "round_corner",
    family: Effect,
    gpuimage: "",
    summary: "Rounds the image's corners: outside quarter circles of a radius (pixels) alpha goes to 0, anti-aliased.",
    doc: "For each pixel centre the distance d to the nearest point of the rectangle inset by the radius (the radius is \
          at most half the shorter side); alpha is multiplied by clamp(radius - d + 0.5, 0, 1), a one-pixel ramp across \
          the arc, and kept where d is 0. MetalPetal's circular corners (one radius for the four corners here) scale \
          the ramp by the arc's slope in x plus y, slightly wider on the diagonal.",
    params: { radius: float(0.0, 65536.0) = 16.0 => "corner radius in pixels" },
    position: true,
    wgsl: "let size = vec2<f32>(at.size);
    let r = min(p.radius, 0.5 * min(size.x, size.y));
    let q = vec2<f32>(at.xy) + 0.5;
    let e = q - min(max(q, vec2<f32>(r)), size - r);
    let d = sqrt(e.x * e.x + e.y * e.y);
    let k = select(1.0, clamp(r - d + 0.5, 0.0, 1.0), d > 0.0);
    return vec4<f32>(c.rgb, c.a * k);",
    cpu: |f, c, at| {
        let size = [at.width as f32, at.height as f32];
        let r = f.radius.min(0.5 * size[0].min(size[1]));
        let q = [at.x as f32 + 0.5, at.y as f32 + 0.5];
        let e = [q[0] - q[0].max(r).min(size[0] - r), q[1] - q[1].max(r).min(size[1] - r)];
        let d = (e[0] * e[0] + e[1] * e[1]).sqrt();
        let k = if d > 0.0 { (r - d + 0.5).clamp(0.0, 1.0) } else { 1.0 };
        [c[0], c[1], c[2], c[3] * k]
    },
}
