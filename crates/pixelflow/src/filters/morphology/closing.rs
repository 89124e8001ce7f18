//! Dilation then erosion with the same radius. Matches GPUImage's `GPUImageClosingFilter`
//! (all channels here, not red only). A composite: it lowers to a `dilation` node and an
//! `erosion` node, so it has no kernel of its own.

use crate::error::{Error, Result};
use crate::filters::morphology::separable::{self, EXACT, RADIUS};
use crate::filters::morphology::{Dilation, Erosion};
use crate::graph::{Graph, Port};
use crate::params::check_int;
use crate::registry::{Family, Filter, FilterDef, IMAGE};
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Value, ValueDesc};

/// Dilation then erosion: fills dark details smaller than the window.
#[derive(Clone, Debug)]
pub struct Closing {
    pub radius: u32,
}

impl Closing {
    /// Fails when `radius` is outside [1, 32].
    pub fn new(radius: u32) -> Result<Self> {
        Ok(Self { radius: check_int(&DEF, "radius", radius)? })
    }
}

impl Default for Closing {
    fn default() -> Self {
        Self { radius: 1 }
    }
}

pub static DEF: FilterDef = FilterDef {
    name: "closing",
    family: Family::Morphology,
    summary: "Dilation then erosion (fills dark specks and gaps smaller than the window).",
    doc: "Runs as two nodes, `dilation` then `erosion`, with the same radius (see those filters). \
          Idempotent: closing a closed image changes nothing. RGBA8 or Gray8; exact.",
    gpuimage: "GPUImageClosingFilter",
    params: &[RADIUS],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT,
    build: |a| Ok(Box::new(Closing::new(a.u32("radius")?)?)),
    uniforms: &[],
    test_inputs: None,
    schedules: &[],
};

impl Filter for Closing {
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        separable::output_descs(&DEF, inputs)
    }
    fn run_cpu(&self, _inputs: &[&Value], _outputs: &[ValueDesc]) -> Result<Vec<Value>> {
        Err(Error::Graph("`closing` is lowered to dilation + erosion and never runs itself".into()))
    }
    fn record_gpu(&self, _rec: &mut NodeRecorder<'_>, _inputs: &[GpuSlot], _outputs: &[GpuSlot]) -> Result<()> {
        Err(Error::Graph("`closing` is lowered to dilation + erosion and never runs itself".into()))
    }
    fn lower(&self, graph: &mut Graph, inputs: &[Port]) -> Option<Result<Vec<Port>>> {
        let (r, inputs) = (self.radius, inputs.to_vec());
        Some(Dilation::new(r).and_then(|d| graph.add(d, &inputs)).and_then(|dilated| graph.add(Erosion::new(r)?, &dilated)))
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
