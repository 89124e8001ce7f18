//! Black and white points of a histogram: per channel, the levels at two clip percentiles
//! (`range` data). The solver node behind `dynamic_range`, `intensity_range` and `auto_levels`;
//! OpenCV has no single call (numpy's `percentile` on the pixels, with `method="inverted_cdf"`,
//! is the same convention).
//!
//! GPU: one workgroup reads the histogram buffer (no read-back); four invocations walk the
//! cumulative counts of one channel each, comparing cdf * 100000 >= milli * total in 64 bits.

use super::{input_histogram, percent_milli, record_solver, SolveParams, SOLVE_UNIFORM};
use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_data, Family, Filter, FilterDef, PortDef, PortKind, EXACT_ENOUGH,
};
use crate::graph::params::{check_float, ParamDef};
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Data, DataKind, Value, ValueDesc};

/// Which channels a range holds.
pub const CHANNELS: &[&str] = &["rgby", "rgb", "y"];

/// Levels at the `low` and `high` percentiles of R, G, B and/or Y from `histogram` data.
#[derive(Clone, Debug)]
pub struct RangeFromHistogram {
    /// Percent of the pixels at or below the black point.
    pub low: f32,
    /// Percent of the pixels below or at the white point.
    pub high: f32,
    /// Index into `CHANNELS`.
    pub channels: u32,
}

impl RangeFromHistogram {
    /// Fails on percentages outside [0, 100] and on `low` above `high`.
    pub fn new(low: f32, high: f32, channels: u32) -> Result<Self> {
        let (low, high) = (
            check_float(&DEF, "low", low)?,
            check_float(&DEF, "high", high)?,
        );
        if low > high {
            return Err(Error::BadParam {
                filter: DEF.name.into(),
                param: "low".into(),
                message: format!("{low} is above high ({high}); low must be at most high"),
            });
        }
        if channels as usize >= CHANNELS.len() {
            return Err(Error::BadParam {
                filter: DEF.name.into(),
                param: "channels".into(),
                message: format!("must be one of {}", CHANNELS.join(", ")),
            });
        }
        Ok(Self {
            low,
            high,
            channels,
        })
    }
    /// The bit mask of channels (bit c: r, g, b, y).
    pub fn mask(&self) -> u32 {
        [0b1111, 0b0111, 0b1000][self.channels as usize]
    }
}

/// The `low` parameter.
pub const LOW: ParamDef = ParamDef::float(
    "low",
    0.5,
    0.0,
    100.0,
    "percent of the pixels at or below the black point (taken in thousandths of a percent)",
);
/// The `high` parameter.
pub const HIGH: ParamDef = ParamDef::float(
    "high",
    99.5,
    0.0,
    100.0,
    "percent of the pixels at or below the white point (taken in thousandths of a percent)",
);

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "range_from_histogram",
    family: Family::Analysis,
    summary: "Black and white points (levels at two percentiles) per channel of histogram data (range data).",
    doc: "Input: `histogram` data. Output: `range` data, per channel the smallest level whose cumulative \
count reaches low% (and high%) of the total, and at least one pixel (so 0 and 100 give the lowest and highest \
levels present). Percentages are taken in thousandths of a percent and compared exactly in integers.",
    gpuimage: "",
    params: &[LOW, HIGH, ParamDef::choice("channels", "rgby", CHANNELS, "the channels computed (the others read 0)")],
    inputs: &[PortDef { name: "histogram", kind: PortKind::Data(DataKind::Histogram) }],
    outputs: &[PortDef { name: "range", kind: PortKind::Data(DataKind::Range) }],
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(RangeFromHistogram::new(a.f32("low")?, a.f32("high")?, crate::graph::params::choice_index(&DEF, "channels", a.choice("channels")?)?)?)),
    uniforms: &[SOLVE_UNIFORM],
    test_inputs: None,
    schedules: &[],
};

impl Filter for RangeFromHistogram {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::WholeImage
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        expect_data(&DEF, inputs, 0, DataKind::Histogram)?;
        Ok(vec![ValueDesc::Data(DataKind::Range)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let h = input_histogram(&DEF, inputs, 0)?;
        Ok(vec![Value::Data(Data::Range(h.range(
            percent_milli(self.low),
            percent_milli(self.high),
            self.mask(),
        )))])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let params = SolveParams {
            a: percent_milli(self.low),
            b: percent_milli(self.high),
            c: self.mask(),
            d: 0,
            ..Default::default()
        };
        record_solver(&DEF, rec, inputs, outputs, "range_from_histogram", params)
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
