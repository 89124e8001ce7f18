//! Adaptive threshold against the image's own mean luma: white where BT.601 luma >=
//! `multiplier` * mean luma, black elsewhere; alpha kept. Matches GPUImage's
//! `GPUImageAverageLuminanceThresholdFilter` (a luminosity reduction feeding a threshold),
//! with BT.601 luma and an exact integer comparison.
//!
//! A composite: a Y-sum reduction (GPU, into `stats` data) followed by
//! `luminance_threshold_by_stats` (reads the mean on the GPU), so no value leaves the GPU.

use super::luminance_threshold_by_stats::LuminanceThresholdByStats;
use super::reduce::{Reduce, ReduceLumaSum};

crate::composite_filter! {
    /// White where luma >= multiplier * the image's mean luma; alpha kept.
    pub struct AverageLuminanceThreshold;
    name: "average_luminance_threshold",
    family: Analysis,
    gpuimage: "GPUImageAverageLuminanceThresholdFilter",
    summary: "White where luma >= multiplier * the image's mean luma, else black; alpha kept.",
    doc: "Luma is BT.601 (round(0.299R + 0.587G + 0.114B)). Runs as two GPU nodes: a reduction \
of Y (sum and count) then `luminance_threshold_by_stats` (compares Y * count * 1000 against \
round(multiplier * 1000) * sum_y exactly), so the mean never leaves the GPU.",
    params: { multiplier: float(0.0, 4.0) = 1.0 => "pixels whose luma is at least this times the mean luma turn white" },
    schedules: &["reduce", "ysum_pf"],
    lower: |f, g, inputs| {
        let image = *inputs.first().ok_or_else(|| crate::Error::Graph("`average_luminance_threshold` needs an image".into()))?;
        // Default `ysum`: a reduction of only what the threshold reads (Y sum, count); `reduce`:
        // the full statistics (H200 at 4K, whole graph: 0.0456 ms against 0.0495 ms).
        let stats = match crate::runtime::schedule::get(DEF.name).as_deref() {
            // `ysum_pf` / `ysum_nopf`: its loop pipelined or not (reduce.rs, `luma_sum_prefetch`)
            None | Some("ysum" | "ysum_pf" | "ysum_nopf") => g.add(ReduceLumaSum, &[image])?,
            Some("reduce") => g.add(Reduce, &[image])?,
            Some(v) => return Err(crate::runtime::schedule::unknown(DEF.name, v, &["ysum", "ysum_pf", "ysum_nopf", "reduce"])),
        };
        g.add(LuminanceThresholdByStats { multiplier: f.multiplier }, &[image, stats[0]])
    },
}
