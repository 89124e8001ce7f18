//! Black-and-white crosshatch shading. Matches GPUImage's `GPUImageCrosshatchFilter`.

/// The luminance bounds below which each of the four line sets is drawn (GPUImage's).
const LEVELS: [f64; 4] = [1.0, 0.75, 0.5, 0.3];

/// A luminance bound on the integer scale `2125 R + 7154 G + 721 B` (8-bit samples), so the
/// comparison is exact on both sides: for an integer `l`, `l < ceil(t)` exactly when `l < t`.
fn bound(level: f64) -> f32 {
    (level * 255.0 * 10000.0).ceil() as f32
}

crate::pixel_filter! {
    /// White, with diagonal black lines in four sets, more sets the darker the pixel.
    pub struct Crosshatch;
    name: "crosshatch",
    family: Effect,
    gpuimage: "GPUImageCrosshatchFilter",
    summary: "Crosshatch shading: black diagonal lines on white, denser where the image is darker.",
    doc: "As GPUImage: with u = x + y and v = x - y (normalised coordinates, so the lines run at 45 degrees on square \
          images only), a pixel is black when its luminance is below 1 and u mod spacing <= line_width, or below 0.75 and \
          v mod spacing <= line_width, or below 0.5 and (u - spacing/2) mod spacing <= line_width, or below 0.3 and \
          (v - spacing/2) mod spacing <= line_width; white otherwise; opaque. The remainders are taken as fractions of \
          the spacing and luminance comparisons on the 8-bit scale, exactly; GPUImage's raising of the spacing to one \
          pixel is not done.",
    params: {
        cross_hatch_spacing: float(0.0001, 1.0) = 0.03 => "distance between lines, in fractions of the image (GPUImage's crossHatchSpacing)",
        line_width: float(0.0, 1.0) = 0.003 => "line width, in fractions of the image (GPUImage's lineWidth)",
    },
    uniform: |f| {
        inv_spacing: f32 = 1.0 / f.cross_hatch_spacing,
        width_fraction: f32 = f.line_width / f.cross_hatch_spacing,
        bounds: [f32; 4] = LEVELS.map(bound),
    },
    position: true,
    wgsl: "let l = dot(round(c.rgb * 255.0), vec3<f32>(2125.0, 7154.0, 721.0));
    let uv = at_uv(at);
    let u = (uv.x + uv.y) * p.inv_spacing;
    let v = (uv.x - uv.y) * p.inv_spacing;
    let hit = (l < p.bounds.x && u - tie_floor(u) <= p.width_fraction)
        || (l < p.bounds.y && v - tie_floor(v) <= p.width_fraction)
        || (l < p.bounds.z && (u - 0.5) - tie_floor(u - 0.5) <= p.width_fraction)
        || (l < p.bounds.w && (v - 0.5) - tie_floor(v - 0.5) <= p.width_fraction);
    let k = select(1.0, 0.0, hit);
    return vec4<f32>(k, k, k, 1.0);",
    cpu: |f, c, at| {
        let q = |v: f32| (v * 255.0).round();
        let l = q(c[0]) * 2125.0 + q(c[1]) * 7154.0 + q(c[2]) * 721.0;
        let b = LEVELS.map(bound);
        let inv = 1.0 / f.cross_hatch_spacing;
        let wf = f.line_width / f.cross_hatch_spacing;
        let uv = at.uv();
        let (u, v) = ((uv[0] + uv[1]) * inv, (uv[0] - uv[1]) * inv);
        let fract = |x: f32| x - crate::filters::tie_floor(x);
        let hit = (l < b[0] && fract(u) <= wf) || (l < b[1] && fract(v) <= wf) || (l < b[2] && fract(u - 0.5) <= wf) || (l < b[3] && fract(v - 0.5) <= wf);
        let k = if hit { 0.0 } else { 1.0 };
        [k, k, k, 1.0]
    },
}
