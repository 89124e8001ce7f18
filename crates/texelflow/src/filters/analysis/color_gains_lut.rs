//! White balance curves from a reference colour: `color` data in (the dominant colour's pixel
//! sums), `lut` data out, R, G and B scaled by gains that make that colour neutral (alpha
//! kept). The solver node of `auto_white_balance(method=dominant)`, the white balance from the
//! dominant colour of the RGBY-histogram article (seed 002).

use super::{record_solver, SolveParams, SOLVE_UNIFORM};
use crate::error::Error;
use crate::error::Result;
use crate::filters::registry::{
    expect_data, Family, Filter, FilterDef, PortDef, PortKind, EXACT_ENOUGH,
};
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Data, DataKind, Value, ValueDesc};

/// Gain curves from `color` data.
#[derive(Clone, Debug, Default)]
pub struct ColorGainsLut;

impl ColorGainsLut {
    /// The filter (no parameters).
    pub fn new() -> Result<Self> {
        Ok(Self)
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "color_gains_lut",
    family: Family::Analysis,
    summary: "White balance curves (lut data) from color data: gains making the dominant colour neutral.",
    doc: "Input: `color` data (from dominant_color). Output: `lut` data: with s_c the sum of channel c over the \
dominant cell's pixels, level v of channel c becomes round(v (s_r + s_g + s_b) / (3 s_c)) (half up, at most 255), exactly \
in 64-bit integers; a channel with s_c = 0 is left as it is; alpha is kept. A neutral dominant colour gives the identity.",
    gpuimage: "",
    params: &[],
    inputs: &[PortDef { name: "color", kind: PortKind::Data(DataKind::Color) }],
    outputs: &[PortDef { name: "lut", kind: PortKind::Data(DataKind::Lut) }],
    tolerance: EXACT_ENOUGH,
    build: |_| Ok(Box::new(ColorGainsLut)),
    uniforms: &[SOLVE_UNIFORM],
    test_inputs: None,
    schedules: &[],
};

impl Filter for ColorGainsLut {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::WholeImage
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        expect_data(&DEF, inputs, 0, DataKind::Color)?;
        Ok(vec![ValueDesc::Data(DataKind::Lut)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        match inputs.first().and_then(|v| v.as_data()) {
            Some(Data::Color(c)) => Ok(vec![Value::Data(Data::Lut(
                crate::value::histogram::gains_lut(c.sum),
            ))]),
            _ => Err(Error::Graph(
                "`color_gains_lut` input 0 must be color data".into(),
            )),
        }
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
            "color_gains_lut",
            SolveParams::default(),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
