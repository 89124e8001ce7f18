//! Pixelation inside a circle. Matches GPUImage's `GPUImagePixellatePositionFilter`.

use super::pixellate::cell_centre;

crate::remap_filter! {
    /// Square pixelation (as `pixellate`) inside a circle; the image unchanged outside it.
    pub struct PixellatePosition;
    name: "pixellate_position",
    gpuimage: "GPUImagePixellatePositionFilter",
    summary: "Pixelates inside a circle (centre, radius), leaving the rest of the image as it is.",
    doc: "Inside the circle cells are as in pixellate. The circle is round in pixels: distances are in fractions of the \
          width, y scaled by height / width about the middle, as GPUImage. GPUImage's default radius is 0.25 (its header \
          says 1.0; its code sets 0.25).",
    params: {
        fractional_width: float(0.0, 1.0) = 0.05 => "cell width as a fraction of the image width (GPUImage's fractionalWidthOfAPixel)",
        center: point = [0.5, 0.5] => "centre of the circle (x, y in [0, 1], from the top left)",
        radius: float(0.0, 2.0) = 0.25 => "radius of the circle, in fractions of the image width",
    },
    helpers: "fn pixellate_cell(uv: vec2<f32>, size: vec2<f32>, fractional_width: f32) -> vec2<f32> {
    let fw = max(fractional_width, 1.0 / size.x);
    let d = vec2<f32>(fw, fw / (size.y / size.x));
    return (tie_floor2(uv / d) + 0.5) * d;
}",
    wgsl: "let aspect = size.y / size.x;
    let v = vec2<f32>(uv.x, uv.y * aspect + 0.5 - 0.5 * aspect) - p.center;
    // the circle widened by 2^-12 of r^2 on both sides: pixel centres exactly on it (common on
    // odd sizes) fell on different sides on the H200 and here
    if (v.x * v.x + v.y * v.y >= p.radius * p.radius * 1.0002441) { return uv; }
    return pixellate_cell(uv, size, p.fractional_width);",
    cpu: |f, uv, size| {
        let aspect = size[1] / size[0];
        let v = [uv[0] - f.center[0], uv[1] * aspect + 0.5 - 0.5 * aspect - f.center[1]];
        if v[0] * v[0] + v[1] * v[1] >= f.radius * f.radius * 1.000_244_1 {
            return uv;
        }
        cell_centre(uv, size, f.fractional_width)
    },
}
