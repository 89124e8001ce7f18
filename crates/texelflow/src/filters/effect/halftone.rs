//! Black-and-white newsprint halftone. Matches GPUImage's `GPUImageHalftoneFilter`.

use super::pixellate::cell_centre;
use super::polka_dot::{dot_distance2, DOT_HELPERS};
use crate::filters::shape::pixel::twin::luma;

crate::remap_filter! {
    /// Each cell becomes a black dot on white, larger the darker the cell's centre.
    pub struct Halftone;
    name: "halftone",
    gpuimage: "GPUImageHalftoneFilter",
    summary: "Newsprint halftone: black dots on white, each dot's size from the luminance at its cell's centre.",
    doc: "Cells as in pixellate (default 0.01 of the width, GPUImage's); a pixel is black when it lies within \
          (1 - luminance) times half the cell width of the cell centre (round in pixels), luminance of the bilinear \
          sample at the centre with GPUImage's weights. Opaque output, as GPUImage.",
    params: {
        fractional_width: float(0.0, 1.0) = 0.01 => "cell width as a fraction of the image width (GPUImage's fractionalWidthOfAPixel)",
    },
    helpers: DOT_HELPERS,
    wgsl: "return pixellate_cell(uv, size, p.fractional_width);",
    cpu: |f, uv, size| cell_centre(uv, size, f.fractional_width),
    post_wgsl: "let s = pixellate_cell(uv, size, p.fractional_width);
    let r = max(p.fractional_width, 1.0 / size.x) * 0.5 * (1.0 - dot(c.rgb, LUMA_W));
    let v = select(1.0, 0.0, dot_distance2(uv, s, size) <= r * r);
    return vec4<f32>(v, v, v, 1.0);",
    post: |f, c, uv, size, _sample| {
        let s = cell_centre(uv, size, f.fractional_width);
        let r = f.fractional_width.max(1.0 / size[0]) * 0.5 * (1.0 - luma(c));
        let v = if dot_distance2(uv, s, size) <= r * r { 0.0 } else { 1.0 };
        [v, v, v, 1.0]
    },
}
