//! Filters by family, each a Rust file with its `.wgsl` beside it. Each family module lists
//! its filters in `DEFS`; the registry is their concatenation in this order.

pub mod analysis;
pub mod blend;
pub mod color;
pub mod convert;
pub mod effect;
pub mod generator;
pub mod geometry;
pub mod lookup;
pub mod morphology;
pub mod neighborhood;
pub mod registry;
pub(crate) mod shape;
pub mod temporal;
pub mod user_kernel;
pub mod user_stencil;
pub mod yuv;

use std::sync::OnceLock;

use crate::filters::registry::FilterDef;

static ALL: OnceLock<Vec<&'static FilterDef>> = OnceLock::new();

/// CPU twin of WGSL's `tie_floor` (common.wgsl): the floor of a cell index nudged up by 1/256 of
/// a cell, so that pixel centres exactly on a cell boundary fall in the same cell on the GPU and here.
pub(crate) fn tie_floor(t: f32) -> f32 {
    (t + 1.0 / 256.0).floor()
}

/// Every registered filter.
pub fn registry() -> &'static [&'static FilterDef] {
    ALL.get_or_init(|| {
        [
            color::DEFS,
            &[&user_kernel::DEF, &user_stencil::DEF],
            convert::DEFS,
            blend::DEFS,
            neighborhood::DEFS,
            morphology::DEFS,
            analysis::DEFS,
            lookup::DEFS,
            geometry::DEFS,
            effect::DEFS,
            generator::DEFS,
            temporal::DEFS,
        ]
        .iter()
        .flat_map(|d| d.iter().copied())
        .collect()
    })
}
