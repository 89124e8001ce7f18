//! A linear gradient between two colours. No GPUImage equivalent; Core Image's
//! `CILinearGradient` (two points, two colours), with the points in GPUImage's normalised coordinates.

crate::generator_filter! {
    /// Two colours mixed along the line from `start` to `end`.
    pub struct LinearGradient;
    name: "linear_gradient",
    gpuimage: "",
    summary: "A linear gradient from first_color at `start` to second_color at `end` (normalised points), the input's size.",
    doc: "Each pixel's centre uv (x, y in [0, 1] from the top left) is projected on the line from `start` to `end`: \
          t = clamp(dot(uv - start, end - start) / |end - start|^2, 0, 1) and the colour is first_color (1 - t) + \
          second_color t (straight alpha, no gamma). Points are normalised, so on a non-square image a diagonal from \
          (0, 0) to (1, 1) runs corner to corner. Equal points give first_color everywhere.",
    params: {
        start: point = [0.0, 0.5] => "where first_color is pure: x, y in [0, 1] from the top left",
        end: point = [1.0, 0.5] => "where second_color is pure",
        first_color: rgba = [0.0, 0.0, 0.0, 1.0] => "colour at start: red, green, blue, alpha in [0, 1]",
        second_color: rgba = [1.0, 1.0, 1.0, 1.0] => "colour at end",
    },
    wgsl: "let d = p.end - p.start;
    let len2 = dot(d, d);
    var t = 0.0;
    if (len2 > 0.0) {
        t = clamp(dot(at_uv(at) - p.start, d) / len2, 0.0, 1.0);
    }
    return mix(p.first_color, p.second_color, t);",
    cpu: |f, at| {
        let uv = at.uv();
        let d = [f.end[0] - f.start[0], f.end[1] - f.start[1]];
        let len2 = d[0] * d[0] + d[1] * d[1];
        let t = if len2 > 0.0 { (((uv[0] - f.start[0]) * d[0] + (uv[1] - f.start[1]) * d[1]) / len2).clamp(0.0, 1.0) } else { 0.0 };
        std::array::from_fn(|k| crate::filters::shape::pixel::twin::mix(f.first_color[k], f.second_color[k], t))
    },
}
