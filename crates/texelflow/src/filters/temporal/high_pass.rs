//! What changed against the running average. Matches GPUImage's `GPUImageHighPassFilter`
//! (`GPUImageLowPassFilter`, then a difference blend of the frame with its result).

use super::LowPass;
use crate::filters::blend::DifferenceBlend;

crate::composite_filter! {
    /// `out = |frame - low_pass(frame)|` on R, G, B; alpha from the frame.
    pub struct HighPass;
    name: "high_pass",
    family: Temporal,
    gpuimage: "GPUImageHighPassFilter",
    summary: "What moves or changes: |frame - running average| (RGB; alpha kept).",
    doc: "low_pass(strength), then difference_blend of the frame with it: still parts of the scene go black, \
moving or changing parts light up. The first frame, and a still image, come out black (alpha kept). RGBA8 or RGBA16.",
    params: { strength: float(0.0, 1.0) = 0.5 => "weight of the previous output in the running average (GPUImage's filterStrength): higher is smoother and slower to follow" },
    lower: |f, g, inputs| {
        let frame = super::frame_of("high_pass", inputs)?;
        let average = g.add1(LowPass::new(f.strength)?, &[frame])?;
        Ok(vec![g.add1(DifferenceBlend, &[frame, average])?])
    },
}
