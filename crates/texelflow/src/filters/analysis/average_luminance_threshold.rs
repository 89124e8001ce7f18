//! Adaptive threshold against the image's own mean luma: white where BT.601 luma >=
//! `multiplier` * mean luma, black elsewhere; alpha kept. Matches GPUImage's
//! `GPUImageAverageLuminanceThresholdFilter` (a luminosity reduction feeding a threshold),
//! with BT.601 luma and an exact integer comparison.
//!
//! A composite: a Y-sum reduction (GPU, into `stats` data) followed by
//! `luminance_threshold_by_stats` (reads the mean on the GPU), so no value leaves the GPU.

use super::luminance_threshold_by_stats::LuminanceThresholdByStats;
use super::reduce::{ReduceLumaSum, DEFAULT_PREFETCH};
use crate::error::Result;

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
        let image = *inputs.first().ok_or_else(|| crate::Error::invalid("`average_luminance_threshold` needs an image"))?;
        // which reduction kernel computes the statistics is this filter's schedule
        // (`StatsReduction`): the node reads it from the run's overrides when it records
        let stats = g.add(ReduceLumaSum, &[image])?;
        g.add(LuminanceThresholdByStats { multiplier: f.multiplier }, &[image, stats[0]])
    },
}

/// Which reduction kernel computes the statistics the threshold reads: the schedule the run's
/// overrides name for `average_luminance_threshold` (`RunOptions::schedules`), read when the
/// `ReduceLumaSum` node records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StatsReduction {
    /// `ysum`, `ysum_pf`, `ysum_nopf`: only what the threshold reads, the Y sum and the count
    /// (`ReduceLumaSum`), its loop software-pipelined or not (`ysum`: `reduce`'s default).
    LumaSum { prefetch: bool },
    /// `reduce`: the full statistics (`Reduce`'s kernel).
    Full,
}

impl StatsReduction {
    /// The default (H200 at 4K).
    pub(crate) fn choose() -> StatsReduction {
        // whole graph 0.0456 ms against `reduce`'s 0.0495; 0.0367 ms in run s9-b2 (1.71x copy)
        StatsReduction::LumaSum {
            prefetch: DEFAULT_PREFETCH,
        }
    }

    /// A schedule by its variant name.
    pub(crate) fn parse(name: &str) -> Result<StatsReduction> {
        Ok(match name {
            "ysum" => StatsReduction::LumaSum {
                prefetch: DEFAULT_PREFETCH,
            },
            "ysum_pf" => StatsReduction::LumaSum { prefetch: true },
            "ysum_nopf" => StatsReduction::LumaSum { prefetch: false },
            "reduce" => StatsReduction::Full,
            v => {
                return Err(crate::runtime::schedule::unknown(
                    DEF.name,
                    v,
                    &["ysum", "ysum_pf", "ysum_nopf", "reduce"],
                ))
            }
        })
    }

    /// The schedule the run's overrides (`rec`'s) name, if they do.
    pub(crate) fn named(rec: &crate::runtime::NodeRecorder<'_>) -> Result<Option<StatsReduction>> {
        rec.schedule(DEF.name)
            .map(StatsReduction::parse)
            .transpose()
    }
}
