//! Adaptive threshold against the image's own mean luma: white where BT.601 luma >=
//! `multiplier` * mean luma, black elsewhere; alpha kept. Matches GPUImage's
//! `GPUImageAverageLuminanceThresholdFilter` (a luminosity reduction feeding a threshold),
//! with BT.601 luma and an exact integer comparison.
//!
//! A composite: it lowers to `reduce` (GPU reduction into `stats` data) followed by
//! `luminance_threshold_by_stats` (reads the mean on the GPU), so no value leaves the GPU.

use super::luminance_threshold_by_stats::{LuminanceThresholdByStats, MULTIPLIER};
use super::reduce::{Reduce, ReduceLumaSum};
use crate::error::{Error, Result};
use crate::graph::{Graph, Port};
use crate::image::PixelFormat;
use crate::params::check_float;
use crate::registry::{expect_image, Family, Filter, FilterDef, EXACT_ENOUGH, IMAGE};
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Value, ValueDesc};

/// White where luma >= multiplier * the image's mean luma; alpha kept.
#[derive(Clone, Debug)]
pub struct AverageLuminanceThreshold {
    pub multiplier: f32,
}

impl AverageLuminanceThreshold {
    /// Fails when `multiplier` is outside [0, 4].
    pub fn new(multiplier: f32) -> Result<Self> {
        Ok(Self { multiplier: check_float(&DEF, "multiplier", multiplier)? })
    }
}

impl Default for AverageLuminanceThreshold {
    fn default() -> Self {
        Self { multiplier: 1.0 }
    }
}

pub static DEF: FilterDef = FilterDef {
    name: "average_luminance_threshold",
    family: Family::Analysis,
    summary: "White where luma >= multiplier * the image's mean luma, else black; alpha kept.",
    doc: "Luma is BT.601 (round(0.299R + 0.587G + 0.114B)). Runs as two GPU nodes: `reduce` \
(whole-image statistics) then `luminance_threshold_by_stats` (compares Y * count * 1000 against \
round(multiplier * 1000) * sum_y exactly), so the mean never leaves the GPU.",
    gpuimage: "GPUImageAverageLuminanceThresholdFilter",
    params: &[MULTIPLIER],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(AverageLuminanceThreshold::new(a.f32("multiplier")?)?)),
    uniforms: &[],
    test_inputs: None,
    schedules: &["reduce", "ysum_pf"],
};

impl Filter for AverageLuminanceThreshold {
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8])?;
        Ok(vec![ValueDesc::Image(d)])
    }
    fn lower(&self, graph: &mut Graph, inputs: &[Port]) -> Option<Result<Vec<Port>>> {
        let image = *inputs.first()?;
        let threshold = LuminanceThresholdByStats { multiplier: self.multiplier };
        // Default (`ysum`): a reduction of only what the threshold reads (Y sum, count);
        // `reduce`: the full `reduce` node (the default before run g5, H200 at 4K: whole
        // graph 0.0495 ms against 0.0456).
        let stats = match crate::runtime::schedule::get(DEF.name).as_deref() {
            // `ysum_pf` / `ysum_nopf`: its loop pipelined or not (reduce.rs, `luma_sum_prefetch`)
            None | Some("ysum" | "ysum_pf" | "ysum_nopf") => graph.add(ReduceLumaSum, &[image]),
            Some("reduce") => graph.add(Reduce, &[image]),
            Some(v) => return Some(Err(crate::runtime::schedule::unknown(DEF.name, v, &["ysum", "ysum_pf", "ysum_nopf", "reduce"]))),
        };
        Some(stats.and_then(|stats| graph.add(threshold, &[image, stats[0]])))
    }
    fn run_cpu(&self, _: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        Err(Error::Graph("`average_luminance_threshold` is a composite: it runs as the nodes it lowers to".into()))
    }
    fn record_gpu(&self, _: &mut NodeRecorder<'_>, _: &[GpuSlot], _: &[GpuSlot]) -> Result<()> {
        Err(Error::Graph("`average_luminance_threshold` is a composite: it runs as the nodes it lowers to".into()))
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
