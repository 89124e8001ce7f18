//! Black and white points per channel at clip percentiles (`range` data, readable with
//! `apply --data`): the levels below which `low`% and at or below which `high`% of the pixels
//! lie, for R, G, B and BT.601 luma Y. OpenCV has no single call (numpy's
//! `percentile(..., method="inverted_cdf")` on each channel is the same convention).
//!
//! A composite: `histogram` then `range_from_histogram`, both on the GPU.

use super::histogram::Histogram;
use super::range_from_histogram::RangeFromHistogram;

crate::composite_filter! {
    /// Black and white points of R, G, B and Y at clip percentiles, as range data.
    pub struct DynamicRange;
    name: "dynamic_range",
    family: Analysis,
    gpuimage: "",
    summary: "Black and white points of R, G, B and luma at clip percentiles (range data).",
    doc: "Per channel the smallest level whose cumulative count reaches low% (high%) of the pixels, and at least \
one pixel: low=0 and high=100 give the lowest and highest levels present. Percentages count in thousandths of a \
percent, exactly. Runs as `histogram` then `range_from_histogram` on the GPU.",
    params: {
        low: float(0.0, 100.0) = 0.5 => "percent of the pixels at or below the black point",
        high: float(0.0, 100.0) = 99.5 => "percent of the pixels at or below the white point",
    },
    outputs: &[crate::filters::registry::PortDef { name: "range", kind: crate::filters::registry::PortKind::Data(crate::value::DataKind::Range) }],
    lower: |f, g, inputs| {
        let hist = g.add(Histogram::new(), inputs)?;
        g.add(RangeFromHistogram::new(f.low, f.high, 0)?, &hist)
    },
}
