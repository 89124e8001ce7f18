//! Levels curves from black and white points: `range` data in, `lut` data out, each of R, G, B
//! stretched so its black point maps to 0 and its white point to 255 (alpha kept), per channel
//! or linked. The solver node of `auto_levels`; the curve is GPUImage's `GPUImageLevelsFilter`
//! with min and max from the data and gamma 1, rounded exactly in integers.

use super::{record_solver, SolveParams, SOLVE_UNIFORM};
use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_data, Family, Filter, FilterDef, PortDef, PortKind, EXACT_ENOUGH,
};
use crate::graph::params::ParamDef;
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Data, DataKind, Value, ValueDesc};

/// Stretch curves from `range` data.
#[derive(Clone, Debug, Default)]
pub struct LevelsLut {
    /// One stretch for R, G and B (lowest black point to highest white point), keeping the
    /// colour balance; otherwise one per channel.
    pub linked: bool,
}

impl LevelsLut {
    /// The filter (never fails).
    pub fn new(linked: bool) -> Result<Self> {
        Ok(Self { linked })
    }
}

/// The `linked` parameter.
pub const LINKED: ParamDef = ParamDef::boolean("linked", false, "one stretch for R, G, B from the lowest black point to the highest white point (keeps the colour balance)");

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "levels_lut",
    family: Family::Analysis,
    summary: "Stretch curves (lut data) mapping range data's black/white points of R, G, B to 0 and 255.",
    doc: "Input: `range` data (R, G, B points). Output: `lut` data: level v of a channel with black point lo \
and white point hi becomes 0 at or below lo, 255 at or above hi, round(255 (v - lo) / (hi - lo)) (half up) \
between; a channel with hi <= lo is left as it is; alpha is kept. linked=true uses the lowest lo and highest hi \
of the three for all of them.",
    gpuimage: "GPUImageLevelsFilter",
    params: &[LINKED],
    inputs: &[PortDef { name: "range", kind: PortKind::Data(DataKind::Range) }],
    outputs: &[PortDef { name: "lut", kind: PortKind::Data(DataKind::Lut) }],
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(LevelsLut::new(a.bool("linked")?)?)),
    uniforms: &[SOLVE_UNIFORM],
    test_inputs: None,
    schedules: &[],
};

impl Filter for LevelsLut {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::WholeImage
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        expect_data(&DEF, inputs, 0, DataKind::Range)?;
        Ok(vec![ValueDesc::Data(DataKind::Lut)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let Some(Data::Range(r)) = inputs.first().and_then(|v| v.as_data()) else {
            return Err(Error::Graph(
                "`levels_lut` input 0 must be range data".into(),
            ));
        };
        Ok(vec![Value::Data(Data::Lut(
            crate::value::histogram::levels_lut(r, self.linked),
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
            "levels_lut",
            SolveParams {
                a: self.linked as u32,
                ..Default::default()
            },
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
