//! Grey-world white balance curves: `histogram` data in, `lut` data out, R, G and B scaled by
//! gains that make the image's mean colour neutral (alpha kept). The solver node of
//! `auto_white_balance(method=grey_world)` (OpenCV's `xphoto::GrayworldWB` without its
//! saturation threshold).

crate::solver_filter! {
    /// Grey-world gain curves from `histogram` data.
    pub struct GreyWorldLut;
    name: "grey_world_lut",
    gpuimage: "",
    summary: "Grey-world white balance curves (lut data) from histogram data: gains making the mean colour neutral.",
    doc: "Input: `histogram` data. Output: `lut` data: with S_c the sum of channel c's levels, level v of \
channel c becomes round(v (S_r + S_g + S_b) / (3 S_c)) (half up, at most 255), exactly in 64-bit integers; \
a channel with S_c = 0 is left as it is; alpha is kept. A grey image gets the identity.",
    params: {},
    input: histogram(Histogram),
    output: lut(Lut),
    cpu: |_f, h| h.grey_world_lut(),
    solve: "grey_world_lut",
}
