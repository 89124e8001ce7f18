//! The whole photo assessment in one pass over the image (issue 16's ≤ 3× copy target):
//! `photo_metrics` and `color_fingerprint(grid, bits)` as two data outputs of one node, equal
//! to what the two nodes give (same layouts, same exact integers). `assess::add_fused_assessment`
//! uses it; `assess` runs the two nodes, measured faster (H200, 4032x3024: 0.131 ms against
//! 0.142 `direct` and 0.152 `runs`; BENCHMARKS.md, session 13).
//!
//! GPU: the metrics kernel (photo_metrics.wgsl) with the fingerprint hooks of
//! photo_metrics_fingerprint.wgsl: each pixel's bin is counted while the tile loads, so the
//! image is read once instead of twice. Up to `FUSED_WG_BINS_MAX` bins (2048 at the defaults)
//! count in workgroup memory and merge into the global counts once per workgroup (non-empty
//! bins only); larger fingerprints count into global memory directly. Schedules (`direct`, the
//! default, and `runs`): `photo_metrics::FpCounting`.
//!
//! CPU twin: the two nodes' twins (`metrics_cpu`, `fingerprint_cpu`), so the fused kernel is
//! checked against the same references as the separate ones.

use super::color_fingerprint::fingerprint_cpu;
use super::photo_metrics::{metrics_cpu, metrics_input, record_metrics, METRICS_UNIFORM};
use crate::error::{Error, Result};
use crate::filters::registry::{
    input_image, Family, Filter, FilterDef, PortDef, PortKind, EXACT_ENOUGH, IMAGE,
};
use crate::graph::params::{check_int, ParamDef};
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::photo::FingerprintLayout;
use crate::value::{Data, DataKind, Value, ValueDesc};

/// Photo metrics and colour fingerprint in one pass.
#[derive(Clone, Debug)]
pub struct PhotoAssessment {
    /// Fingerprint blocks per side.
    pub grid: u32,
    /// Fingerprint bits per channel.
    pub bits: u32,
}

impl PhotoAssessment {
    /// Fails when a parameter is outside its declared range.
    pub fn new(grid: u32, bits: u32) -> Result<Self> {
        Ok(Self {
            grid: check_int(&DEF, "grid", grid)?,
            bits: check_int(&DEF, "bits", bits)?,
        })
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "photo_assessment",
    family: Family::Analysis,
    summary: "photo_metrics and color_fingerprint in one pass over the image (photo_metrics and fingerprint data).",
    doc: "Two outputs: `metrics`, what photo_metrics gives, and `fingerprint`, what color_fingerprint(grid, bits) gives, \
equal to theirs (same layouts, same exact counts and sums) from one read of the image instead of two. \
`texelflow assess` (library: texelflow::assess::assess_image) runs it. A pipeline continues from the first output. Alpha is ignored.",
    gpuimage: "",
    params: &[
        ParamDef::int("grid", 2, 1, 8, "fingerprint blocks per side (as color_fingerprint)"),
        ParamDef::int("bits", 3, 1, 4, "top bits kept of each of R, G, B in the fingerprint (as color_fingerprint)"),
    ],
    inputs: IMAGE,
    outputs: &[
        PortDef { name: "metrics", kind: PortKind::Data(DataKind::PhotoMetrics) },
        PortDef { name: "fingerprint", kind: PortKind::Data(DataKind::Fingerprint) },
    ],
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(PhotoAssessment::new(a.u32("grid")?, a.u32("bits")?)?)),
    uniforms: &[METRICS_UNIFORM],
    test_inputs: None,
    // the alternative to the default `direct` (photo_metrics::FpCounting)
    schedules: &["runs"],
};

impl Filter for PhotoAssessment {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::WholeImage
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = metrics_input(&DEF, inputs)?;
        FingerprintLayout::new(self.grid, self.bits, d.width, d.height)?;
        Ok(vec![
            ValueDesc::Data(DataKind::PhotoMetrics),
            ValueDesc::Data(DataKind::Fingerprint),
        ])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        Ok(vec![
            Value::Data(Data::PhotoMetrics(metrics_cpu(img)?)),
            Value::Data(Data::Fingerprint(fingerprint_cpu(
                img, self.grid, self.bits,
            )?)),
        ])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let (Some(input), [metrics, fingerprint]) = (inputs.first(), outputs) else {
            return Err(Error::Graph(
                "`photo_assessment` needs one input and two outputs".into(),
            ));
        };
        let d = input
            .desc
            .image()
            .ok_or_else(|| Error::Graph("`photo_assessment` input must be an image".into()))?;
        let layout = FingerprintLayout::new(self.grid, self.bits, d.width, d.height)?;
        record_metrics(&DEF, rec, input, metrics, Some((fingerprint, layout)))
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
