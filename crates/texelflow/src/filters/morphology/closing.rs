//! Dilation then erosion with the same radius. Matches GPUImage's `GPUImageClosingFilter`
//! (all channels here, not red only).

use crate::filters::morphology::{Dilation, Erosion};

crate::composite_filter! {
    /// Dilation then erosion: fills dark details smaller than the window.
    pub struct Closing;
    name: "closing",
    family: Morphology,
    gpuimage: "GPUImageClosingFilter",
    summary: "Dilation then erosion (fills dark specks and gaps smaller than the window).",
    doc: "Runs as two nodes, `dilation` then `erosion`, with the same radius (see those filters). \
          Idempotent: closing a closed image changes nothing. RGBA8 or Gray8; exact.",
    params: { radius: uint(1, 32) = 1 => "window half-size: the square window is (2r+1)x(2r+1) pixels" },
    tolerance: crate::filters::morphology::separable::EXACT,
    lower: |f, g, inputs| {
        let dilated = g.add(Dilation::new(f.radius)?, inputs)?;
        g.add(Erosion::new(f.radius)?, &dilated)
    },
}
