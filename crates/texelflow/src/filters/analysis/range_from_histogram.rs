//! Black and white points of a histogram: per channel, the levels at two clip percentiles
//! (`range` data). The solver node behind `dynamic_range`, `intensity_range` and `auto_levels`;
//! OpenCV has no single call (numpy's `percentile` on the pixels, with `method="inverted_cdf"`,
//! is the same convention).
//!
//! GPU: one workgroup reads the histogram buffer (no read-back); four invocations walk the
//! cumulative counts of one channel each, comparing cdf * 100000 >= milli * total in 64 bits.

use super::{percent_milli, SolveParams};
use crate::error::Error;

crate::solver_filter! {
    /// Levels at the `low` and `high` percentiles of R, G, B and/or Y from `histogram` data.
    pub struct RangeFromHistogram;
    name: "range_from_histogram",
    gpuimage: "",
    summary: "Black and white points (levels at two percentiles) per channel of histogram data (range data).",
    doc: "Input: `histogram` data. Output: `range` data, per channel the smallest level whose cumulative \
count reaches low% (and high%) of the total, and at least one pixel (so 0 and 100 give the lowest and highest \
levels present). Percentages are taken in thousandths of a percent and compared exactly in integers.",
    params: {
        low: float(0.0, 100.0) = 0.5 => "percent of the pixels at or below the black point (taken in thousandths of a percent)",
        high: float(0.0, 100.0) = 99.5 => "percent of the pixels at or below the white point (taken in thousandths of a percent)",
        channels: choice("rgby", "rgb", "y") = "rgby" => "the channels computed (the others read 0)",
    },
    check: |f| low_at_most_high(f.low, f.high),
    input: histogram(Histogram),
    output: range(Range),
    cpu: |f, h| h.range(percent_milli(f.low), percent_milli(f.high), f.mask()),
    solve: "range_from_histogram", |f| SolveParams {
        a: percent_milli(f.low),
        b: percent_milli(f.high),
        c: f.mask(),
        d: 0,
        ..Default::default()
    },
}

impl RangeFromHistogram {
    /// The bit mask of channels (bit c: r, g, b, y).
    pub fn mask(&self) -> u32 {
        [0b1111, 0b0111, 0b1000][self.channels as usize]
    }
}

/// `new`'s check across the two percentages.
fn low_at_most_high(low: f32, high: f32) -> crate::Result<()> {
    if low > high {
        return Err(Error::BadParam {
            filter: DEF.name.into(),
            param: "low".into(),
            message: format!("{low} is above high ({high}); low must be at most high"),
        });
    }
    Ok(())
}
