//! Per-channel minimum over a square window. Matches GPUImage's `GPUImageErosionFilter`
//! (which looks at red only and stops at radius 4); here every channel of RGBA8, or the one
//! of Gray8, is eroded independently, at any radius up to 32 at a cost that barely depends on it.

use crate::error::Result;
use crate::filters::morphology::separable::{self, Op, EXACT, RADIUS, UNIFORMS};
use crate::graph::params::check_int;
use crate::filters::registry::{Family, Filter, FilterDef, IMAGE};
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Value, ValueDesc};

/// Minimum over a (2r+1)x(2r+1) square, edges replicated.
#[derive(Clone, Debug)]
pub struct Erosion {
    /// Window half-size: the window is (2r+1)x(2r+1).
    pub radius: u32,
}

impl Erosion {
    /// Fails when `radius` is outside [1, 32].
    pub fn new(radius: u32) -> Result<Self> {
        Ok(Self { radius: check_int(&DEF, "radius", radius)? })
    }
}

impl Default for Erosion {
    fn default() -> Self {
        Self { radius: 1 }
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "erosion",
    family: Family::Morphology,
    summary: "Per-channel minimum over a square (2r+1)x(2r+1) window (grows dark regions).",
    doc: "Radius 1 on RGBA8: one pass (each column's 3-row window in registers, the row minimum from rows buffered in workgroup memory). Otherwise separable: a row minimum then a column minimum (dilation of the inverted samples), each by the van Herk / Gil-Werman algorithm \
          (three comparisons per pixel and pass whatever the radius; past radius 8 the row pass combines \
          two or four overlapping smaller windows, one or two comparisons more). Edges replicated. RGBA8 (all four channels \
          independently) or Gray8. Exact: GPU and CPU agree bit for bit.",
    gpuimage: "GPUImageErosionFilter",
    params: &[RADIUS],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT,
    build: |a| Ok(Box::new(Erosion::new(a.u32("radius")?)?)),
    uniforms: UNIFORMS,
    test_inputs: None,
    schedules: separable::SCHEDULES,
};

impl Filter for Erosion {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::Radius(self.radius)
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        separable::output_descs(&DEF, inputs)
    }
    fn run_cpu(&self, inputs: &[&Value], _outputs: &[ValueDesc]) -> Result<Vec<Value>> {
        separable::run_cpu(&DEF, inputs, self.radius, Op::Min)
    }
    fn record_gpu(&self, rec: &mut NodeRecorder<'_>, inputs: &[GpuSlot], outputs: &[GpuSlot]) -> Result<()> {
        // the fields are public: values set past `new`'s checks are errors here, not overflows
        check_int(&DEF, "radius", self.radius)?;
        let (input, output, _) = crate::filters::registry::one_to_one(&DEF, inputs, outputs)?;
        separable::record(rec, DEF.name, input, output, self.radius, Op::Min)
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
