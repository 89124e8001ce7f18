//! Black and white points of BT.601 luma at clip percentiles (`range` data holding Y only):
//! `dynamic_range` on the intensity. OpenCV has no single call.
//!
//! A composite: `histogram` then `range_from_histogram(channels=y)`, both on the GPU.

use super::histogram::Histogram;
use super::range_from_histogram::RangeFromHistogram;

crate::composite_filter! {
    /// Black and white points of luma at clip percentiles, as range data.
    pub struct IntensityRange;
    name: "intensity_range",
    family: Analysis,
    gpuimage: "",
    summary: "Black and white points of BT.601 luma at clip percentiles (range data, y only).",
    doc: "As `dynamic_range`, on Y = round(0.299R + 0.587G + 0.114B) alone.",
    params: {
        low: float(0.0, 100.0) = 0.5 => "percent of the pixels at or below the black point",
        high: float(0.0, 100.0) = 99.5 => "percent of the pixels at or below the white point",
    },
    outputs: &[crate::filters::registry::PortDef { name: "range", kind: crate::filters::registry::PortKind::Data(crate::value::DataKind::Range) }],
    lower: |f, g, inputs| {
        let hist = g.add(Histogram::new(), inputs)?;
        g.add(RangeFromHistogram::new(f.low, f.high, 2)?, &hist)
    },
}
