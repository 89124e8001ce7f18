//! Square pixelation. Matches GPUImage's `GPUImagePixellateFilter`.

crate::remap_filter! {
    /// Each cell of `fractional_width` of the image's width shows the colour at its centre.
    pub struct Pixellate;
    name: "pixellate",
    gpuimage: "GPUImagePixellateFilter",
    summary: "Pixelates: square cells, each the colour sampled at its centre.",
    doc: "Cells are fractional_width of the image's width wide and as many pixels tall (square in pixels), from the top \
          left; each takes the bilinear sample at its centre, as GPUImage (whose sample position is \
          uv - mod(uv, cell) + cell / 2). fractional_width is raised to one pixel, as GPUImage does.",
    params: {
        fractional_width: float(0.0, 1.0) = 0.05 => "cell width as a fraction of the image width (GPUImage's fractionalWidthOfAPixel)",
    },
    helpers: "fn pixellate_cell(uv: vec2<f32>, size: vec2<f32>, fractional_width: f32) -> vec2<f32> {
    let fw = max(fractional_width, 1.0 / size.x);
    let d = vec2<f32>(fw, fw / (size.y / size.x));
    return (tie_floor2(uv / d) + 0.5) * d;
}",
    wgsl: "return pixellate_cell(uv, size, p.fractional_width);",
    cpu: |f, uv, size| cell_centre(uv, size, f.fractional_width),
}

/// The centre of the square cell (`fractional_width` of the width wide) holding `uv`, as the
/// WGSL `pixellate_cell` computes it; shared by the cell-based effects' CPU twins.
pub(crate) fn cell_centre(uv: [f32; 2], size: [f32; 2], fractional_width: f32) -> [f32; 2] {
    let fw = fractional_width.max(1.0 / size[0]);
    let d = [fw, fw / (size[1] / size[0])];
    [
        (crate::filters::tie_floor(uv[0] / d[0]) + 0.5) * d[0],
        (crate::filters::tie_floor(uv[1] / d[1]) + 0.5) * d[1],
    ]
}
