//! A checkerboard of square cells. No GPUImage equivalent; Core Image's
//! `CICheckerboardGenerator` (two colours, a cell width in pixels) without its sharpness and centre.

crate::generator_filter! {
    /// Square cells of `size` pixels in two alternating colours.
    pub struct Checkerboard;
    name: "checkerboard",
    gpuimage: "",
    summary: "A checkerboard of size x size pixel cells in two colours, the input's size (or width x height).",
    doc: "Cells are counted from the top-left pixel: the cell of pixel (x, y) is (floor(x / size), floor(y / size)); \
          cells whose column plus row is even get `first_color` (the top-left one does), the others `second_color`. \
          Exact integer arithmetic (no anti-aliasing, unlike Core Image's sharpness).",
    params: {
        size: uint(1, 65536) = 16 => "side of a cell in pixels",
        first_color: rgba = [1.0, 1.0, 1.0, 1.0] => "colour of the top-left cell and every other one: red, green, blue, alpha in [0, 1]",
        second_color: rgba = [0.0, 0.0, 0.0, 1.0] => "colour of the remaining cells",
    },
    wgsl: "let cell = at.xy / vec2<u32>(p.size);
    return select(p.first_color, p.second_color, ((cell.x + cell.y) & 1u) == 1u);",
    cpu: |f, at| if (at.x / f.size + at.y / f.size) % 2 == 1 { f.second_color } else { f.first_color },
}
