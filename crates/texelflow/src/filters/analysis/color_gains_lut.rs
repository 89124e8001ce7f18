//! White balance curves from a reference colour: `color` data in (the dominant colour's pixel
//! sums), `lut` data out, R, G and B scaled by gains that make that colour neutral (alpha
//! kept). The solver node of `auto_white_balance(method=dominant)`, the white balance from the
//! dominant colour of the RGBY-histogram article (seed 002).

crate::solver_filter! {
    /// Gain curves from `color` data.
    pub struct ColorGainsLut;
    name: "color_gains_lut",
    gpuimage: "",
    summary: "White balance curves (lut data) from color data: gains making the dominant colour neutral.",
    doc: "Input: `color` data (from dominant_color). Output: `lut` data: with s_c the sum of channel c over the \
dominant cell's pixels, level v of channel c becomes round(v (s_r + s_g + s_b) / (3 s_c)) (half up, at most 255), exactly \
in 64-bit integers; a channel with s_c = 0 is left as it is; alpha is kept. A neutral dominant colour gives the identity.",
    params: {},
    input: color(Color),
    output: lut(Lut),
    cpu: |_f, c| crate::value::histogram::gains_lut(c.sum),
    solve: "color_gains_lut",
}
