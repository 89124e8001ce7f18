//! Erosion then dilation with the same radius. Matches GPUImage's `GPUImageOpeningFilter`
//! (all channels here, not red only). A composite: it lowers to an `erosion` node and a
//! `dilation` node, so it has no kernel of its own.

use crate::error::{Error, Result};
use crate::filters::morphology::separable::{self, EXACT, RADIUS};
use crate::filters::morphology::{Dilation, Erosion};
use crate::graph::{Graph, Port};
use crate::params::check_int;
use crate::registry::{Family, Filter, FilterDef, IMAGE};
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Value, ValueDesc};

/// Erosion then dilation: removes bright details smaller than the window.
#[derive(Clone, Debug)]
pub struct Opening {
    pub radius: u32,
}

impl Opening {
    /// Fails when `radius` is outside [1, 32].
    pub fn new(radius: u32) -> Result<Self> {
        Ok(Self { radius: check_int(&DEF, "radius", radius)? })
    }
}

impl Default for Opening {
    fn default() -> Self {
        Self { radius: 1 }
    }
}

pub static DEF: FilterDef = FilterDef {
    name: "opening",
    family: Family::Morphology,
    summary: "Erosion then dilation (removes bright specks smaller than the window).",
    doc: "Runs as two nodes, `erosion` then `dilation`, with the same radius (see those filters). \
          Idempotent: opening an opened image changes nothing. RGBA8 or Gray8; exact.",
    gpuimage: "GPUImageOpeningFilter",
    params: &[RADIUS],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT,
    build: |a| Ok(Box::new(Opening::new(a.u32("radius")?)?)),
    uniforms: &[],
    test_inputs: None,
    schedules: &[],
};

impl Filter for Opening {
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        separable::output_descs(&DEF, inputs)
    }
    fn run_cpu(&self, _inputs: &[&Value], _outputs: &[ValueDesc]) -> Result<Vec<Value>> {
        Err(Error::Graph("`opening` is lowered to erosion + dilation and never runs itself".into()))
    }
    fn record_gpu(&self, _rec: &mut NodeRecorder<'_>, _inputs: &[GpuSlot], _outputs: &[GpuSlot]) -> Result<()> {
        Err(Error::Graph("`opening` is lowered to erosion + dilation and never runs itself".into()))
    }
    fn lower(&self, graph: &mut Graph, inputs: &[Port]) -> Option<Result<Vec<Port>>> {
        let (r, inputs) = (self.radius, inputs.to_vec());
        Some(Erosion::new(r).and_then(|e| graph.add(e, &inputs)).and_then(|eroded| graph.add(Dilation::new(r)?, &eroded)))
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
