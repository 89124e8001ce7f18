//! Soft elegance: two LUTs with a soft glow between them. Matches the structure of GPUImage's
//! `GPUImageSoftEleganceFilter` (LUT 1, a Gaussian blur of it blended back at 0.14, LUT 2); the
//! two LUTs are this project's own (`crates/texelflow/luts/soft_elegance_{1,2}.png`).

use super::lut_cube::LutCube;
use super::preset::Look;
use crate::filters::blend::AlphaBlend;
use crate::filters::neighborhood::GaussianBlur;

/// The first LUT, before the glow.
pub static LOOK_1: Look = Look::new(
    "soft_elegance_1",
    include_bytes!("../../../luts/soft_elegance_1.png"),
    "hsb(saturation=0.9, brightness=1.05) | tone_curve(rgb=[0,0, 0.5,0.56, 1,1])",
);
/// The second LUT, after the glow.
pub static LOOK_2: Look = Look::new(
    "soft_elegance_2",
    include_bytes!("../../../luts/soft_elegance_2.png"),
    "rgb(red=1.04, green=1, blue=0.96) | contrast(1.08)",
);

crate::composite_filter! {
    /// LUT 1, a soft glow (its Gaussian blur blended over it), LUT 2.
    pub struct SoftElegance;
    name: "soft_elegance",
    family: Lookup,
    gpuimage: "GPUImageSoftEleganceFilter",
    summary: "Soft, bright look: LUT, a Gaussian glow blended in, a second LUT (built-in LUTs of this project).",
    doc: "As GPUImage's filter group: lut_cube(LUT 1), gaussian_blur(sigma=blur) of that, alpha_blend(mix) of the blur over it, \
          lut_cube(LUT 2). GPUImage's defaults: blur 10, mix 0.14.",
    params: {
        blur: float(0.1, 32.0) = 10.0 => "sigma of the glow, in pixels",
        mix: float(0.0, 1.0) = 0.14 => "weight of the glow",
    },
    tolerance: crate::filters::registry::Tolerance {
        max_diff: 2,
        why: "four steps, each within one level of its twin (the blur by its error bound); LUT 2's slope (contrast 1.08) can carry a one-level difference to two",
    },
    lower: |f, g, inputs| {
        let graded = g.add(LutCube::shared(LOOK_1.cube()?, 1.0)?, inputs)?;
        let glow = g.add(GaussianBlur::new(f.blur)?, &graded)?;
        let soft = g.add(AlphaBlend::new(f.mix)?, &[graded[0], glow[0]])?;
        g.add(LutCube::shared(LOOK_2.cube()?, 1.0)?, &soft)
    },
}
