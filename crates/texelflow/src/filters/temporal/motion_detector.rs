//! Where and how much a video moves, per frame. Matches GPUImage's `GPUImageMotionDetector`
//! (low pass, motion comparison, average colour; its callback gets the centroid and the
//! intensity), with the mean taken exactly instead of from an 8-bit mask.

use super::LowPass;
use crate::filters::analysis::MotionCentroid;

crate::composite_filter! {
    /// `motion_centroid(frame, low_pass(frame))`: motion data per frame.
    pub struct MotionDetector;
    name: "motion_detector",
    family: Temporal,
    gpuimage: "GPUImageMotionDetector",
    summary: "Per frame: the centroid and intensity of motion against the running average (motion data).",
    doc: "low_pass(strength) of the frames, then motion_centroid of each frame against it: a pixel moves where its RGB \
distance from the running average is at least `threshold`. Output is `motion` data: centroid_x and centroid_y \
(0..1 across the frame; none when nothing moved), intensity (the share of pixels moving) and the count. With a \
video and `--data out.jsonl` (or `.csv`) it is written for every frame. A still image has no motion.",
    params: {
        strength: float(0.0, 1.0) = 0.5 => "weight of the previous output in the running average (GPUImage's filterStrength): higher is smoother and slower to follow",
        threshold: float(0.0, 1.7321) = 0.2 => "RGB distance (colours in 0..1) from the running average at which a pixel counts as moving"
    },
    outputs: &[crate::filters::registry::PortDef { name: "motion", kind: crate::filters::registry::PortKind::Data(crate::value::DataKind::Motion) }],
    lower: |f, g, inputs| {
        let frame = super::frame_of("motion_detector", inputs)?;
        let average = g.add1(LowPass::new(f.strength)?, &[frame])?;
        g.add(MotionCentroid::new(f.threshold)?, &[frame, average])
    },
}
