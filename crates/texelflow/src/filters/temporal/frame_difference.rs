//! The change from the previous frame (aoce's and OpenCV's frame differencing; GPUImage has no
//! direct equivalent: its high-pass filter compares with a running average).

use crate::filters::blend::DifferenceBlend;

crate::composite_filter! {
    /// `out = |frame - previous frame|` on R, G, B; alpha from the frame.
    pub struct FrameDifference;
    name: "frame_difference",
    family: Temporal,
    gpuimage: "",
    summary: "|frame - previous frame| on RGB (alpha kept): the first frame comes out black.",
    doc: "difference_blend of each frame with the frame before it, which stays on the GPU between frames (a state \
node). The first frame, and a still image, come out black (alpha kept). RGBA8 or RGBA16.",
    params: {},
    lower: |_f, g, inputs| {
        let frame = super::frame_of("frame_difference", inputs)?;
        let previous = g.state(frame)?;
        let out = g.add1(DifferenceBlend, &[frame, previous])?;
        g.feed(previous, frame)?;
        Ok(vec![out])
    },
}
