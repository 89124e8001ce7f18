//! What code outside texelflow needs to write a filter of its own with a GPU kernel: the
//! [`Filter`] trait and its declaration, the [`NodeRecorder`] a filter's `record_gpu` records
//! into, its [`GpuSlot`]s, [`Kernel`]s and the dispatch-size helpers, the WGSL preambles every
//! kernel may use ([`COMMON_WGSL`], [`CONV_WGSL`]), uniform layouts, and the run's schedule
//! overrides. The rest of the runtime (device selection, the buffer pool, error capture, the
//! kernel cache) and the filter shapes are internal: open a device through [`crate::Backend`]
//! and [`crate::GpuOptions`].
//!
//! A filter written this way joins a [`crate::Graph`] like a built-in one (`Graph::add`); its
//! CPU twin (`run_cpu`) is what `Backend::Cpu` runs and what tests compare the kernel against.

pub use crate::filters::registry::{
    expect_image, input_image, slot_image, Family, Filter, FilterDef, Footprint, EXACT_ENOUGH,
    IMAGE,
};
#[cfg(feature = "bench")]
pub use crate::runtime::driver_stats;
pub use crate::runtime::schedule::{parse as parse_schedules, Schedules};
pub use crate::runtime::uniform::{FieldLayout, UniformBlock, UniformField, UniformLayout};
pub use crate::runtime::{
    groups_1d, groups_2d, CompiledKernel, GpuInfo, GpuSlot, Kernel, NodeRecorder, COMMON_WGSL,
    CONV_WGSL,
};
