//! A cool pastel look. The name of GPUImage's `GPUImageMissEtikateFilter`; the LUT is this
//! project's own (`crates/texelflow/luts/miss_etikate.png`, made by the recipe below).

use super::lut_cube::LutCube;
use super::preset::Look;

/// The look: its LUT image and recipe.
pub static LOOK: Look = Look::new(
    "miss_etikate",
    include_bytes!("../../../luts/miss_etikate.png"),
    "white_balance(temperature=4300, tint=20) | levels(min=[0.02,0.02,0.02], mid=[1.1,1.05,1], max=[1,1,1], min_out=[0.06,0.05,0.08], max_out=[0.98,0.97,1]) | vibrance(-0.4)",
);

crate::composite_filter! {
    /// A cool pastel look through a built-in LUT.
    pub struct MissEtikate;
    name: "miss_etikate",
    family: Lookup,
    gpuimage: "GPUImageMissEtikateFilter",
    summary: "Cool pastel look (built-in LUT; this project's own grade, not GPUImage's image).",
    doc: "lut_cube with crates/texelflow/luts/miss_etikate.png, which is white_balance(temperature=4300, tint=20) | levels(lifted blacks, \
          softened whites) | vibrance(-0.4) applied to the identity LUT (the exact recipe: `preset.rs`, `miss_etikate::LOOK`).",
    params: { intensity: float(0.0, 1.0) = 1.0 => "mix between the original (0) and the look (1)" },
    lower: |f, g, inputs| g.add(LutCube::shared(LOOK.cube()?, f.intensity)?, inputs),
}
