//! Histogram equalisation curves: `histogram` data in, `lut` data out. OpenCV's `equalizeHist`
//! curve of Y applied to R, G and B alike (or each channel's own curve), rounded half up in
//! integers. The solver node of `histogram_equalization`.

use super::{input_histogram, record_solver, SolveParams, SOLVE_UNIFORM};
use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_data, Family, Filter, FilterDef, PortDef, PortKind, EXACT_ENOUGH,
};
use crate::graph::params::ParamDef;
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Data, DataKind, Value, ValueDesc};

/// What an equalisation curve is computed from.
pub const CHANNELS: &[&str] = &["luma", "rgb"];

/// Equalisation curves from `histogram` data.
#[derive(Clone, Debug, Default)]
pub struct EqualizationLut {
    /// Index into `CHANNELS`: 0 the Y curve for R, G, B; 1 each channel's own.
    pub channels: u32,
}

impl EqualizationLut {
    /// Fails when `channels` is not an index into `CHANNELS`.
    pub fn new(channels: u32) -> Result<Self> {
        if channels as usize >= CHANNELS.len() {
            return Err(Error::BadParam {
                filter: DEF.name.into(),
                param: "channels".into(),
                message: format!("must be one of {}", CHANNELS.join(", ")),
            });
        }
        Ok(Self { channels })
    }
}

/// The `channels` parameter.
pub const CHANNELS_PARAM: ParamDef = ParamDef::choice("channels", "luma", CHANNELS, "luma: the BT.601 luma's curve applied to R, G and B alike (hues kept); rgb: each channel equalised by its own curve");

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "equalization_lut",
    family: Family::Analysis,
    summary: "Histogram equalisation curves (lut data, OpenCV's equalizeHist curve) from histogram data.",
    doc: "Input: `histogram` data. Output: `lut` data: with cdf the cumulative counts and cdf_min the count \
of the lowest level present, level v becomes round(255 (cdf(v) - cdf_min) / (total - cdf_min)), half up, exactly \
in integers (OpenCV rounds an f32 product to nearest); a channel with one level keeps it; alpha is kept.",
    gpuimage: "GPUImageHistogramEqualizationFilter",
    params: &[CHANNELS_PARAM],
    inputs: &[PortDef { name: "histogram", kind: PortKind::Data(DataKind::Histogram) }],
    outputs: &[PortDef { name: "lut", kind: PortKind::Data(DataKind::Lut) }],
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(EqualizationLut::new(crate::graph::params::choice_index(&DEF, "channels", a.choice("channels")?)?)?)),
    uniforms: &[SOLVE_UNIFORM],
    test_inputs: None,
    schedules: &[],
};

impl Filter for EqualizationLut {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::WholeImage
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        expect_data(&DEF, inputs, 0, DataKind::Histogram)?;
        Ok(vec![ValueDesc::Data(DataKind::Lut)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        Ok(vec![Value::Data(Data::Lut(
            input_histogram(&DEF, inputs, 0)?.equalization_lut(self.channels == 1),
        ))])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        record_solver(
            &DEF,
            rec,
            inputs,
            outputs,
            "equalization_lut",
            SolveParams {
                a: self.channels,
                ..Default::default()
            },
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
