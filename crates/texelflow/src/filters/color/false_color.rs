//! Luminance mapped between two colours. Matches GPUImage's `GPUImageFalseColorFilter`.

crate::pixel_filter! {
    /// Maps luminance onto the line from one colour (dark) to another (light).
    pub struct FalseColor;
    name: "false_color",
    gpuimage: "GPUImageFalseColorFilter",
    summary: "Maps luminance between a dark-end and a light-end colour.",
    params: {
        first_color: rgb = [0.0, 0.0, 0.5] => "colour of black (R, G, B in [0, 1])",
        second_color: rgb = [1.0, 0.0, 0.0] => "colour of white (R, G, B in [0, 1])",
    },
    wgsl: "let l = dot(c.rgb, LUMA_W);
    return vec4<f32>(mix(p.first_color, p.second_color, vec3<f32>(l)), c.a);",
    cpu: |f, c, _| {
        let l = crate::filters::shape::pixel::twin::luma(c);
        let m = |k: usize| crate::filters::shape::pixel::twin::mix(f.first_color[k], f.second_color[k], l);
        [m(0), m(1), m(2), c[3]]
    },
}
