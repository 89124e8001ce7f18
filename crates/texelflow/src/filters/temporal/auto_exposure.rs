//! Exposure that follows the scene: each frame is brightened or darkened so that its mean luma
//! reaches a target, with the gain taken from the previous frame's statistics. The streaming
//! idea of the source articles (aoce: feed a reduction's 1x1 result to the next frame's
//! parameters, so the pipeline never waits for a read-back). GPUImage has no equivalent.

use crate::filters::analysis::{ExposureByStats, Reduce};

crate::composite_filter! {
    /// `exposure_by_stats(frame, reduce(previous frame))`.
    pub struct AutoExposure;
    name: "auto_exposure",
    family: Temporal,
    gpuimage: "",
    summary: "Brightens or darkens each frame towards a target mean luma, from the previous frame's statistics (no read-back).",
    doc: "reduce of every frame gives its statistics, which stay on the GPU (a state node) and set the gain of the \
next frame through exposure_by_stats: gain = target / mean luma, within [1/max_gain, max_gain]. The first frame, \
and a still image, use their own statistics. RGBA8.",
    params: {
        target: float(0.05, 0.95) = 0.5 => "mean BT.601 luma (0..1) the gain aims for",
        max_gain: float(1.0, 16.0) = 4.0 => "the gain stays within [1/max_gain, max_gain]"
    },
    lower: |f, g, inputs| {
        let frame = super::frame_of("auto_exposure", inputs)?;
        let stats = g.add1(Reduce::new(), &[frame])?;
        let previous = g.state(stats)?;
        let out = g.add1(ExposureByStats::new(f.target, f.max_gain)?, &[frame, previous])?;
        g.feed(previous, stats)?;
        Ok(vec![out])
    },
}
