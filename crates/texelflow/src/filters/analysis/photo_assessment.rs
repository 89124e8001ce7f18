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
use super::photo_metrics::{check_metrics_size, metrics_cpu, record_metrics, METRICS_UNIFORM};
use crate::error::{Error, Result};
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::photo::FingerprintLayout;
use crate::value::Data;

crate::reduction_filter! {
    /// Photo metrics and colour fingerprint in one pass.
    pub struct PhotoAssessment;
    name: "photo_assessment",
    gpuimage: "",
    summary: "photo_metrics and color_fingerprint in one pass over the image (photo_metrics and fingerprint data).",
    doc: "Two outputs: `metrics`, what photo_metrics gives, and `fingerprint`, what color_fingerprint(grid, bits) gives, \
equal to theirs (same layouts, same exact counts and sums) from one read of the image instead of two. \
`texelflow assess` (library: texelflow::assess::assess_image) runs it. A pipeline continues from the first output. Alpha is ignored.",
    params: {
        grid: uint(1, 8) = 2 => "fingerprint blocks per side (as color_fingerprint)",
        bits: uint(1, 4) = 3 => "top bits kept of each of R, G, B in the fingerprint (as color_fingerprint)",
    },
    formats: [Rgba8],
    outputs: { metrics: PhotoMetrics, fingerprint: Fingerprint },
    check: |f, d| {
        check_metrics_size(&DEF, d)?;
        FingerprintLayout::new(f.grid, f.bits, d.width, d.height)
    },
    uniforms: [METRICS_UNIFORM],
    // the alternative to the default `direct` (photo_metrics::FpCounting)
    schedules: &["runs"],
    cpu: |f, img| [
        Data::PhotoMetrics(metrics_cpu(img)?),
        Data::Fingerprint(fingerprint_cpu(img, f.grid, f.bits)?),
    ],
    gpu_slots: record,
}

/// Records the metrics kernel with the fingerprint counted in its loading loop.
fn record(
    f: &PhotoAssessment,
    rec: &mut NodeRecorder<'_>,
    inputs: &[GpuSlot],
    outputs: &[GpuSlot],
) -> Result<()> {
    let (Some(input), [metrics, fingerprint]) = (inputs.first(), outputs) else {
        return Err(Error::invalid(
            "`photo_assessment` needs one input and two outputs",
        ));
    };
    let d = input
        .desc
        .image()
        .ok_or_else(|| Error::invalid("`photo_assessment` input must be an image"))?;
    let layout = FingerprintLayout::new(f.grid, f.bits, d.width, d.height)?;
    record_metrics(&DEF, rec, input, metrics, Some((fingerprint, layout)))
}
