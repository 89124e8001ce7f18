//! Temporal filters (GPUImage's `GPUImageLowPassFilter`, `GPUImageHighPassFilter`,
//! `GPUImageMotionDetector`, and more): filters of a sequence of frames that carry state from
//! one frame to the next on the GPU. Each is a composite whose graph holds a `Graph::state`
//! (the previous frame's value of some node, a one-frame delay) fed by a later node; run
//! through a `Sequence` (as `texelflow apply` does for a video), the state carries over;
//! run once (a still image), a state holds its initial value, so each filter describes what
//! it does to a first frame.

include!(concat!(env!("OUT_DIR"), "/filters_temporal.rs"));

use crate::error::{Error, Result};
use crate::graph::Port;

/// The one image input of a temporal composite.
fn frame_of(name: &str, inputs: &[Port]) -> Result<Port> {
    match inputs {
        [frame] => Ok(*frame),
        _ => Err(Error::invalid(format!(
            "`{name}` takes one image, got {} inputs",
            inputs.len()
        ))),
    }
}
