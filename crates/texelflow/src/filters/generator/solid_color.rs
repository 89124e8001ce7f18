//! An image of one colour. Matches GPUImage's `GPUImageSolidColorGenerator` (its colour, at a
//! forced size), and OpenCV's `np.full((h, w, 4), color)`.

crate::generator_filter! {
    /// One colour everywhere.
    pub struct SolidColor;
    name: "solid_color",
    gpuimage: "GPUImageSolidColorGenerator",
    summary: "An image of one colour, the input's size (or width x height); the input's pixels are ignored.",
    doc: "Every pixel is `color` (straight alpha). GPUImage's default colour, (0, 0, 0.5, 1), is dark blue, opaque.",
    params: {
        color: rgba = [0.0, 0.0, 0.5, 1.0] => "the colour: red, green, blue, alpha in [0, 1] (GPUImage's default dark blue)",
    },
    wgsl: "return p.color;",
    cpu: |f, _| f.color,
}
