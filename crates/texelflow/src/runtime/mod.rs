//! GPU runtime: adapter and device selection, error capture, the compiled-kernel cache,
//! the buffer pool and per-dispatch recording. Nothing here knows about filters.

mod context;
pub mod device;
#[cfg(feature = "bench")]
pub mod driver_stats;
#[cfg(target_os = "linux")]
mod external;
mod kernel;
mod map_future;
mod pool;
pub mod schedule;
mod tape;
pub mod uniform;
pub(crate) mod wgsl_template;

pub use context::{CompiledKernel, Gpu, GpuInfo, GpuOptions};
pub(crate) use context::{Readback, Staged};
pub use device::{AdapterSummary, CudaVisible, DeviceChoice, DeviceSelector};
#[cfg(target_os = "linux")]
pub use external::{ExportedBuffer, ExportedSemaphore};
pub(crate) use kernel::Bind;
pub use kernel::{groups_1d, groups_2d, GpuSlot, Kernel, NodeRecorder, COMMON_WGSL, CONV_WGSL};
pub(crate) use pool::size_class;
/// The monotonic clock of timings and deadlines: std's natively; in a browser (wasm32), where
/// std's `Instant::now` panics, web-time's (`performance.now()`).
#[cfg(not(target_arch = "wasm32"))]
pub(crate) use std::time::Instant;
pub(crate) use tape::{Tape, TapeDispatch};
#[cfg(target_arch = "wasm32")]
pub(crate) use web_time::Instant;
