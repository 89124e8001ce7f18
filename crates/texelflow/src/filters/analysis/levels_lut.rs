//! Levels curves from black and white points: `range` data in, `lut` data out, each of R, G, B
//! stretched so its black point maps to 0 and its white point to 255 (alpha kept), per channel
//! or linked. The solver node of `auto_levels`; the curve is GPUImage's `GPUImageLevelsFilter`
//! with min and max from the data and gamma 1, rounded exactly in integers.

use super::SolveParams;

crate::solver_filter! {
    /// Stretch curves from `range` data.
    pub struct LevelsLut;
    name: "levels_lut",
    gpuimage: "GPUImageLevelsFilter",
    summary: "Stretch curves (lut data) mapping range data's black/white points of R, G, B to 0 and 255.",
    doc: "Input: `range` data (R, G, B points). Output: `lut` data: level v of a channel with black point lo \
and white point hi becomes 0 at or below lo, 255 at or above hi, round(255 (v - lo) / (hi - lo)) (half up) \
between; a channel with hi <= lo is left as it is; alpha is kept. linked=true uses the lowest lo and highest hi \
of the three for all of them.",
    params: {
        linked: bool = false => "one stretch for R, G, B from the lowest black point to the highest white point (keeps the colour balance)",
    },
    input: range(Range),
    output: lut(Lut),
    cpu: |f, r| crate::value::histogram::levels_lut(r, f.linked),
    solve: "levels_lut", |f| SolveParams {
        a: f.linked as u32,
        ..Default::default()
    },
}
