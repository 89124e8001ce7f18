//! Running average of the frames. Matches GPUImage's `GPUImageLowPassFilter` (a dissolve
//! blend of each frame with the filter's previous output, held in a `GPUImageBuffer`), with
//! the mix in exact integer steps (`low_pass_step`) so the average never drifts between GPU
//! and CPU.

use super::LowPassStep;

crate::composite_filter! {
    /// `out = mix(frame, previous out, strength)` (exactly, `low_pass_step`); the first frame
    /// passes unchanged.
    pub struct LowPass;
    name: "low_pass",
    family: Temporal,
    gpuimage: "GPUImageLowPassFilter",
    summary: "Running average of a video's frames: out = mix(frame, previous output, strength).",
    doc: "Each output is low_pass_step(frame, previous output, strength), i.e. mix(frame, previous, strength) in exact \
integer steps of 1/256: an exponential moving average \
that smooths flicker and noise over time and leaves trails behind motion. The previous output stays on the GPU \
between frames (a state node). The first frame, and a still image, pass unchanged. RGBA8 or RGBA16.",
    params: { strength: float(0.0, 1.0) = 0.5 => "weight of the previous output in the running average (GPUImage's filterStrength): higher is smoother and slower to follow" },
    lower: |f, g, inputs| {
        let frame = super::frame_of("low_pass", inputs)?;
        let previous = g.state(frame)?;
        let out = g.add1(LowPassStep::new(f.strength)?, &[frame, previous])?;
        g.feed(previous, out)?;
        Ok(vec![out])
    },
}
