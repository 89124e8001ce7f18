//! A warm, faded look. The name of GPUImage's `GPUImageAmatorkaFilter`; the LUT is this
//! project's own (`crates/texelflow/luts/amatorka.png`, made by the recipe below), not GPUImage's image.

use super::lut_cube::LutCube;
use super::preset::Look;

/// The look: its LUT image and recipe.
pub static LOOK: Look = Look::new(
    "amatorka",
    include_bytes!("../../../luts/amatorka.png"),
    "white_balance(temperature=6500, tint=12) | tone_curve(rgb=[0,0.06, 0.25,0.22, 0.75,0.8, 1,0.95]) | saturation(0.85)",
);

crate::composite_filter! {
    /// A warm, faded look through a built-in LUT.
    pub struct Amatorka;
    name: "amatorka",
    family: Lookup,
    gpuimage: "GPUImageAmatorkaFilter",
    summary: "Warm, faded look (built-in LUT; this project's own grade, not GPUImage's image).",
    doc: "lut_cube with crates/texelflow/luts/amatorka.png, which is white_balance(temperature=6500, tint=12) | tone_curve(rgb=[0,0.06, \
          0.25,0.22, 0.75,0.8, 1,0.95]) | saturation(0.85) applied to the identity LUT.",
    params: { intensity: float(0.0, 1.0) = 1.0 => "mix between the original (0) and the look (1)" },
    lower: |f, g, inputs| g.add(LutCube::shared(LOOK.cube()?, f.intensity)?, inputs),
}
