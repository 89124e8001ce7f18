//! Histogram equalisation curves: `histogram` data in, `lut` data out. OpenCV's `equalizeHist`
//! curve of Y applied to R, G and B alike (or each channel's own curve), rounded half up in
//! integers. The solver node of `histogram_equalization`.

use super::SolveParams;

crate::solver_filter! {
    /// Equalisation curves from `histogram` data.
    pub struct EqualizationLut;
    name: "equalization_lut",
    gpuimage: "GPUImageHistogramEqualizationFilter",
    summary: "Histogram equalisation curves (lut data, OpenCV's equalizeHist curve) from histogram data.",
    doc: "Input: `histogram` data. Output: `lut` data: with cdf the cumulative counts and cdf_min the count \
of the lowest level present, level v becomes round(255 (cdf(v) - cdf_min) / (total - cdf_min)), half up, exactly \
in integers (OpenCV rounds an f32 product to nearest); a channel with one level keeps it; alpha is kept.",
    params: {
        channels: choice("luma", "rgb") = "luma" => "luma: the BT.601 luma's curve applied to R, G and B alike (hues kept); rgb: each channel equalised by its own curve",
    },
    input: histogram(Histogram),
    output: lut(Lut),
    // channels 1 (rgb): each channel's own curve
    cpu: |f, h| h.equalization_lut(f.channels == 1),
    solve: "equalization_lut", |f| SolveParams {
        a: f.channels,
        ..Default::default()
    },
}
