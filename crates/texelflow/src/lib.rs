//! texelflow: GPU image processing in the tradition of GPUImage, on wgpu compute shaders,
//! with a CPU reference implementation of every filter.
//!
//! Layout: `runtime` (device, kernels, buffers), `graph` (build, plan, execute, chain API,
//! text spec, `trace`: GPU timings for benchmarks), `filters` (by family, WGSL beside Rust),
//! `registry` (one declaration per filter), `image`/`value` (what flows along edges).
//!
//! ```no_run
//! use texelflow::{Backend, GpuOptions, Image, Pipeline};
//! use texelflow::filters::{color::Brightness, neighborhood::GaussianBlur};
//! # fn main() -> texelflow::Result<()> {
//! let (backend, _note) = Backend::auto(&GpuOptions::default());
//! let img = Image::open("in.png")?;
//! let out = Pipeline::new().then(GaussianBlur::new(2.0)?).then(Brightness::new(0.1)?).run(&backend, &img)?;
//! # Ok(()) }
//! ```

pub mod assess;
#[cfg(not(target_arch = "wasm32"))]
pub mod batch;
pub mod error;
pub mod extend;
pub mod filters;
pub mod graph;
pub mod image;
pub mod input;
pub mod io;
pub mod json;
pub mod limits;
pub mod region;
pub(crate) mod runtime;
pub mod value;
#[cfg(feature = "video")]
pub mod video;

/// The catalogue of every filter (`filters::registry`).
pub use filters::registry;
/// Filter parameters (`graph::params`), at the crate root for filter authors.
pub use graph::params;
/// GPU tracing for benchmarks (`graph::trace`): a graph's runs timed by timestamp queries.
pub use graph::trace;
/// Histograms (`value::histogram`).
pub use value::histogram;

pub use error::{BatchError, Error, GraphError, Result};
pub use filters::user_kernel::UserKernel;
pub use filters::user_stencil::UserStencil;
/// Quotes a value for a text spec (`graph::spec::quote`): build specs from file names you
/// do not control as `format!("lut_cube(file={})", texelflow::quote(path))`.
pub use graph::spec::quote;
pub use graph::{
    Backend, Graph, HostImage, HostRunResult, HostTimes, HostValue, MappedImage, NodeTiming,
    PinnedUpload, Pipeline, Port, PreparedRun, RunOptions, RunPlan, RunResult, Sequence,
    StreamReport, TilePolicy,
};
pub use image::{Image, ImageDesc, PixelFormat};
pub use io::codec::Subsampling;
pub use io::{exif_upright, FileReport, LoadOptions, Loaded, PngCompression, SaveOptions};
pub use limits::Limits;
pub use registry::{Filter, FilterDef};
/// Which adapter a run opens: the device selector, the adapters' order, `CUDA_VISIBLE_DEVICES`.
pub use runtime::device;
pub use runtime::{AdapterSummary, CudaVisible, DeviceChoice, DeviceSelector, Gpu, GpuOptions};
#[cfg(target_os = "linux")]
pub use runtime::{ExportedBuffer, ExportedSemaphore};
pub use value::{
    CompareMethod, Data, DataKind, DominantCell, Histogram, HistogramSpace, Line, Lines, Lut,
    Motion, Point, Points, Range, Stats, Value, ValueDesc,
};
