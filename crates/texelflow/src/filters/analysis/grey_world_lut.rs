//! Grey-world white balance curves: `histogram` data in, `lut` data out, R, G and B scaled by
//! gains that make the image's mean colour neutral (alpha kept). The solver node of
//! `auto_white_balance(method=grey_world)` (OpenCV's `xphoto::GrayworldWB` without its
//! saturation threshold).

use super::{input_histogram, record_solver, SolveParams, SOLVE_UNIFORM};
use crate::error::Result;
use crate::filters::registry::{
    expect_data, Family, Filter, FilterDef, PortDef, PortKind, EXACT_ENOUGH,
};
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Data, DataKind, Value, ValueDesc};

/// Grey-world gain curves from `histogram` data.
#[derive(Clone, Debug, Default)]
pub struct GreyWorldLut;

impl GreyWorldLut {
    /// The filter (no parameters).
    pub fn new() -> Result<Self> {
        Ok(Self)
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "grey_world_lut",
    family: Family::Analysis,
    summary: "Grey-world white balance curves (lut data) from histogram data: gains making the mean colour neutral.",
    doc: "Input: `histogram` data. Output: `lut` data: with S_c the sum of channel c's levels, level v of \
channel c becomes round(v (S_r + S_g + S_b) / (3 S_c)) (half up, at most 255), exactly in 64-bit integers; \
a channel with S_c = 0 is left as it is; alpha is kept. A grey image gets the identity.",
    gpuimage: "",
    params: &[],
    inputs: &[PortDef { name: "histogram", kind: PortKind::Data(DataKind::Histogram) }],
    outputs: &[PortDef { name: "lut", kind: PortKind::Data(DataKind::Lut) }],
    tolerance: EXACT_ENOUGH,
    build: |_| Ok(Box::new(GreyWorldLut)),
    uniforms: &[SOLVE_UNIFORM],
    test_inputs: None,
    schedules: &[],
};

impl Filter for GreyWorldLut {
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
            input_histogram(&DEF, inputs, 0)?.grey_world_lut(),
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
            "grey_world_lut",
            SolveParams::default(),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
