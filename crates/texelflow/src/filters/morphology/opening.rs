//! Erosion then dilation with the same radius. Matches GPUImage's `GPUImageOpeningFilter`
//! (all channels here, not red only).

use crate::filters::morphology::{Dilation, Erosion};

crate::composite_filter! {
    /// Erosion then dilation: removes bright details smaller than the window.
    pub struct Opening;
    name: "opening",
    family: Morphology,
    gpuimage: "GPUImageOpeningFilter",
    summary: "Erosion then dilation (removes bright specks smaller than the window).",
    doc: "Runs as two nodes, `erosion` then `dilation`, with the same radius (see those filters). \
          Idempotent: opening an opened image changes nothing. RGBA8 or Gray8; exact.",
    params: { radius: uint(1, 32) = 1 => "window half-size: the square window is (2r+1)x(2r+1) pixels" },
    tolerance: crate::filters::morphology::separable::EXACT,
    lower: |f, g, inputs| {
        let eroded = g.add(Erosion::new(f.radius)?, inputs)?;
        g.add(Dilation::new(f.radius)?, &eroded)
    },
}
