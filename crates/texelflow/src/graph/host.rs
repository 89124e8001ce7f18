//! Runs on the caller's pixel memory, for bindings (Python, numpy) that hold images in memory
//! of their own. A source writes itself straight into the upload staging memory (`HostImage`:
//! a strided or three-channel array is gathered and widened on the way, no intermediate copy),
//! and an image output is handed over as the mapped read-back memory itself (`MappedImage`:
//! no copy at all; the staging buffer goes back to the device's pool when it is dropped). So
//! a run touches each input once on the host and each output not at all, where `Backend::run`
//! copies an `Image` into staging and the staging into a new `Image`.
//!
//! The orchestration mirrors `execute::run_gpu` (one submission, steps in shared passes,
//! timestamps on request) and reuses its pieces; only the two ends differ.

use crate::runtime::Instant;
use std::sync::Arc;

pub use wgpu::WriteOnly;

use super::execute::{
    check_limits, poison_buffer, record_with_readbacks, step_times, Encoded, RunBuffers,
};
use super::plan::plan;
use super::{Backend, Graph, HostTimes, NodeTiming, RunOptions};
use crate::error::{Error, Result};
use crate::image::{Image, ImageDesc};
use crate::runtime::{Gpu, GpuSlot};
use crate::value::{Data, Value, ValueDesc};

/// A source image that can write its pixels in the GPU storage layout (module docs of
/// `crate::image`) into memory it is given, e.g. a numpy array of any strides.
pub trait HostImage: Sync {
    /// Size and format: the graph's source must be declared with exactly this.
    fn desc(&self) -> ImageDesc;
    /// Writes rows `first_row..` in the GPU layout of `desc()` (rows of
    /// `desc().format.gpu_row_bytes(width)` bytes): `dst` holds a whole number of rows, all
    /// inside the image, and every byte of it must be written.
    fn write_gpu_rows(&self, first_row: u32, dst: WriteOnly<'_, [u8]>);
    /// The pixels as an `Image`, for the CPU backend.
    fn to_image(&self) -> Result<Image>;
    /// The pinned upload buffer holding exactly these pixels in the GPU layout, if they live in
    /// one (`PinnedUpload`): a GPU run of the same device then records only the GPU copy from
    /// it, no host copy. `write_gpu_rows` must still work (other devices, the CPU, tiles).
    fn pinned(&self) -> Option<&PinnedUpload> {
        None
    }
}

impl HostImage for Image {
    fn desc(&self) -> ImageDesc {
        Image::desc(self)
    }
    fn write_gpu_rows(&self, first_row: u32, mut dst: WriteOnly<'_, [u8]>) {
        let start = first_row as usize * self.format().gpu_row_bytes(self.width()) as usize;
        // in bounds by the trait's contract (the callers below cut rows of this image)
        dst.copy_from_slice(&self.gpu_bytes()[start..start + dst.len()]);
    }
    fn to_image(&self) -> Result<Image> {
        Ok(self.clone())
    }
}

/// Host memory that is also the GPU's upload staging: a `MAP_WRITE | COPY_SRC` buffer of one
/// image in the GPU layout, whose mapping stays at one address for the buffer's whole life,
/// so that a caller (a numpy array) can write pixels into it and a run uploads them with a GPU
/// copy alone (`HostImage::pinned`), as from CUDA's pinned host memory.
///
/// wgpu lets the GPU read a buffer only while it is unmapped, so a run unmaps it, records the
/// copy, submits, and once the submission has finished maps it again (`map_async`, write);
/// the next run waits for that mapping. The address stays valid throughout because the
/// backends this is offered on keep host-visible memory persistently mapped: Vulkan
/// (wgpu-hal's gpu-allocator maps an allocation when it is made and unmaps it when it is freed;
/// `unmap_buffer` is a no-op) and Metal (`contents()` of a shared buffer). Elsewhere (DX12,
/// GL, where unmapping may move or revoke the mapping) `new` returns `None` and callers use
/// ordinary memory. Writes made while a run is using the buffer race with the GPU's copy
/// (that run may see some of them); they never touch memory that is not the buffer's.
pub struct PinnedUpload {
    buffer: wgpu::Buffer,
    gpu: Arc<Gpu>,
    desc: ImageDesc,
    ptr: std::ptr::NonNull<u8>,
    /// `MAPPED`, `PENDING` (map_async issued) or `UNMAPPED` (a run holds it, or a mapping failed).
    state: Arc<std::sync::atomic::AtomicU8>,
    /// Held by the run using the buffer: one run at a time.
    busy: std::sync::Mutex<()>,
}

const MAPPED: u8 = 0;
const PENDING: u8 = 1;
const UNMAPPED: u8 = 2;

// SAFETY: `ptr` is the persistent mapping of `buffer` (type docs), valid while `buffer`
// lives; the struct only hands it out, and the mapping state is behind an atomic and a mutex.
unsafe impl Send for PinnedUpload {}
// SAFETY: as `Send`.
unsafe impl Sync for PinnedUpload {}

impl std::fmt::Debug for PinnedUpload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PinnedUpload({})", self.desc)
    }
}

impl PinnedUpload {
    /// Whether `gpu` keeps mappings at a fixed address (type docs).
    pub fn supported(gpu: &Gpu) -> bool {
        matches!(gpu.backend(), wgpu::Backend::Vulkan | wgpu::Backend::Metal)
    }

    /// A pinned buffer for one image of `desc` on `gpu`, zero-filled; `None` where the backend
    /// does not keep mappings in place (type docs).
    pub fn new(gpu: &Arc<Gpu>, desc: ImageDesc) -> Result<Option<Self>> {
        if !Self::supported(gpu) {
            return Ok(None);
        }
        let len = desc.format.gpu_bytes(desc.width, desc.height);
        if len > gpu.limits.max_buffer_size {
            return Err(Error::TooLarge {
                width: desc.width,
                height: desc.height,
                bytes: len,
                limit: gpu.limits.max_buffer_size,
            });
        }
        let buffer = gpu.scoped(|| {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("texelflow.pinned_input"),
                size: len.div_ceil(4) * 4,
                usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: true,
            })
        })?;
        let ptr = {
            let mut view = buffer
                .get_mapped_range_mut(..)
                .map_err(|e| Error::Gpu(e.to_string()))?;
            view.slice(..).as_raw_ptr().cast::<u8>()
        };
        Ok(Some(Self {
            buffer,
            gpu: gpu.clone(),
            desc,
            ptr,
            state: Arc::new(std::sync::atomic::AtomicU8::new(MAPPED)),
            busy: std::sync::Mutex::new(()),
        }))
    }

    /// The image this buffer holds.
    pub fn desc(&self) -> ImageDesc {
        self.desc
    }
    /// The image's first byte; `len()` bytes, rows `row_bytes()` apart. Valid while `self` lives.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
    /// Bytes of the image in the GPU storage layout.
    pub fn len(&self) -> usize {
        self.desc
            .format
            .gpu_bytes(self.desc.width, self.desc.height) as usize
    }
    /// Whether the image has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes from one row's start to the next.
    pub fn row_bytes(&self) -> usize {
        self.desc.format.gpu_row_bytes(self.desc.width) as usize
    }
    /// Whether it belongs to `gpu`'s device.
    pub fn is_on(&self, gpu: &Arc<Gpu>) -> bool {
        Arc::ptr_eq(&self.gpu, gpu)
    }

    /// Takes the buffer for a run: waits for its mapping (issued after the previous run) and
    /// unmaps it, so the GPU may copy from it. Dropping the guard maps it again.
    fn begin(&self) -> Result<PinnedRun<'_>> {
        use std::sync::atomic::Ordering;
        let busy = self
            .busy
            .lock()
            .map_err(|_| Error::Gpu("pinned input state poisoned".into()))?;
        let deadline = Instant::now() + std::time::Duration::from_secs(10);
        while self.state.load(Ordering::Acquire) == PENDING {
            if Instant::now() > deadline {
                return Err(Error::DeviceLost(
                    "a pinned input was never mapped again".into(),
                ));
            }
            let _ = self.gpu.device.poll(wgpu::PollType::Poll);
            std::thread::sleep(std::time::Duration::from_micros(50));
        }
        if self.state.swap(UNMAPPED, Ordering::AcqRel) == MAPPED {
            // flushes the host's writes where the memory is not coherent
            self.buffer.unmap();
        }
        Ok(PinnedRun {
            pinned: self,
            _busy: busy,
        })
    }
}

/// A run's hold on a `PinnedUpload` (unmapped while it lives).
struct PinnedRun<'a> {
    pinned: &'a PinnedUpload,
    _busy: std::sync::MutexGuard<'a, ()>,
}

impl Drop for PinnedRun<'_> {
    fn drop(&mut self) {
        use std::sync::atomic::Ordering;
        let p = self.pinned;
        p.state.store(PENDING, Ordering::Release);
        let flag = p.state.clone();
        p.buffer.map_async(wgpu::MapMode::Write, .., move |r| {
            flag.store(if r.is_ok() { MAPPED } else { UNMAPPED }, Ordering::Release)
        });
        // completes it now when the GPU is done with the buffer (after a finished run)
        let _ = p.gpu.device.poll(wgpu::PollType::Poll);
    }
}

/// An output image left in the mapped read-back buffer the GPU copied it into. Read it in
/// place (`bytes`, rows of `row_bytes`); dropping it unmaps the buffer and returns it to the
/// device's pool for a later run.
pub struct MappedImage {
    /// `None` only while dropping (the view must go before the buffer is unmapped).
    view: Option<wgpu::BufferView>,
    buffer: wgpu::Buffer,
    gpu: Arc<Gpu>,
    desc: ImageDesc,
}

impl std::fmt::Debug for MappedImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MappedImage({})", self.desc)
    }
}

impl MappedImage {
    /// The image's size and format.
    pub fn desc(&self) -> ImageDesc {
        self.desc
    }
    /// The pixels in the GPU storage layout (`desc().format.gpu_bytes(..)` bytes): RGBA8 as
    /// bytes, RGBA16 as little-endian `u16` samples, the float formats as `f32`, Gray8 one byte
    /// per pixel in rows padded to whole 4-byte words (`row_bytes`).
    pub fn bytes(&self) -> &[u8] {
        let len = self
            .desc
            .format
            .gpu_bytes(self.desc.width, self.desc.height) as usize;
        self.view.as_deref().map_or(&[], |v| &v[..len.min(v.len())])
    }
    /// Bytes from one row's start to the next one's.
    pub fn row_bytes(&self) -> usize {
        self.desc.format.gpu_row_bytes(self.desc.width) as usize
    }
    /// A copy as an `Image`.
    pub fn to_image(&self) -> Result<Image> {
        Image::from_gpu_bytes(self.desc, self.bytes())
    }
}

impl Drop for MappedImage {
    fn drop(&mut self) {
        // every view of the buffer must be gone before it is unmapped
        self.view = None;
        self.buffer.unmap();
        self.gpu.keep_readback(&self.buffer);
    }
}

/// An output of `Backend::run_host`.
#[derive(Debug)]
// `Value` is large (a histogram's bins inline) wherever it is used; one per output is fine
#[allow(clippy::large_enum_variant)]
pub enum HostValue {
    /// An image in mapped read-back memory (GPU runs).
    Mapped(MappedImage),
    /// Data, or an image of a CPU run.
    Value(Value),
}

/// `RunResult` with `HostValue` outputs.
#[derive(Debug)]
pub struct HostRunResult {
    /// As `RunResult::outputs`, images left in mapped memory.
    pub outputs: Vec<(String, HostValue)>,
    /// As `RunResult::timings`.
    pub timings: Vec<NodeTiming>,
    /// As `RunResult::host`.
    pub host: HostTimes,
    /// As `RunResult::notes`.
    pub notes: Vec<String>,
}

impl HostRunResult {
    /// Removes and returns the output named `name`.
    pub fn take(&mut self, name: &str) -> Option<HostValue> {
        let i = self.outputs.iter().position(|(n, _)| n == name)?;
        Some(self.outputs.remove(i).1)
    }
}

impl Backend {
    /// `run` with the sources written straight into staging memory and image outputs left in
    /// mapped read-back memory (module docs). On the CPU backend the sources are copied into
    /// `Image`s and the outputs are `HostValue::Value`.
    pub fn run_host(
        &self,
        graph: &Graph,
        sources: &[(&str, &dyn HostImage)],
        opts: &RunOptions,
    ) -> Result<HostRunResult> {
        check_host_sources(graph, sources)?;
        let mut result = match self {
            Backend::Gpu(g) => run_gpu_host(g, graph, sources, opts)?,
            Backend::Cpu => {
                let images: Vec<(&str, Image)> = sources
                    .iter()
                    .map(|(n, s)| Ok((*n, s.to_image()?)))
                    .collect::<Result<_>>()?;
                let refs: Vec<(&str, &Image)> = images.iter().map(|(n, i)| (*n, i)).collect();
                let r = self.run(graph, &refs, opts)?;
                HostRunResult {
                    outputs: r
                        .outputs
                        .into_iter()
                        .map(|(n, v)| (n, HostValue::Value(v)))
                        .collect(),
                    timings: r.timings,
                    host: r.host,
                    notes: Vec::new(),
                }
            }
        };
        result.notes = graph.notes().to_vec();
        Ok(result)
    }
}

fn check_host_sources(graph: &Graph, sources: &[(&str, &dyn HostImage)]) -> Result<()> {
    for (name, node) in graph.sources() {
        let src = sources
            .iter()
            .find(|(n, _)| *n == name)
            .ok_or_else(|| {
                Error::Graph(crate::GraphError::SourceNotImage {
                    name: name.to_string(),
                })
            })?
            .1;
        let want = graph.nodes[node].outputs[0];
        if ValueDesc::Image(src.desc()) != want {
            return Err(Error::invalid(format!("source `{name}` was declared as {want} but got image {}; build the graph for this size", src.desc())));
        }
    }
    if graph.outputs.is_empty() {
        return Err(Error::Graph(crate::GraphError::NoOutputs));
    }
    Ok(())
}

fn run_gpu_host(
    gpu: &Arc<Gpu>,
    graph: &Graph,
    sources: &[(&str, &dyn HostImage)],
    opts: &RunOptions,
) -> Result<HostRunResult> {
    gpu.check_health()?;
    check_limits(gpu, opts.tiling.max_gpu_memory, graph)?;
    let plan = plan(graph, opts);
    let timestamps = opts.timings && gpu.has_timestamps();
    let n_queries = (plan.steps.len() * 2).max(2) as u32;
    let query_set = timestamps.then(|| {
        gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("texelflow.timings"),
            ty: wgpu::QueryType::Timestamp,
            count: n_queries,
        })
    });
    let mut bufs = RunBuffers::new(gpu);
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("texelflow.run_host"),
        });

    let clock = Instant::now();
    let mut slots = std::collections::HashMap::new();
    let mut uploads = Vec::new();
    let mut pinned_runs = Vec::new();
    for (name, node) in graph.sources() {
        let src = sources
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, s)| *s)
            .ok_or_else(|| {
                Error::Graph(crate::GraphError::SourceMissing {
                    name: name.to_string(),
                })
            })?;
        let desc = graph.nodes[node].outputs[0];
        let image = src.desc();
        let buf = bufs.take(desc.gpu_bytes())?;
        if let Some(p) = src
            .pinned()
            .filter(|p| p.is_on(gpu) && ValueDesc::Image(p.desc()) == desc)
        {
            // the pixels are in a pinned staging buffer already: the GPU copy alone
            let held = p.begin()?;
            encoder.copy_buffer_to_buffer(&p.buffer, 0, &buf, 0, desc.gpu_bytes().div_ceil(4) * 4);
            pinned_runs.push(held);
            slots.insert((node, 0), GpuSlot { buffer: buf, desc });
            continue;
        }
        let row_bytes = image.format.gpu_row_bytes(image.width);
        let strips = upload_strips(desc.gpu_bytes(), image.height, opts.upload_strips);
        if strips == 1 {
            uploads.extend(gpu.upload_with(
                &mut encoder,
                &buf,
                0,
                desc.gpu_bytes() as usize,
                &|dst| src.write_gpu_rows(0, dst),
            ));
        } else {
            // each strip's copy is submitted as soon as it is written, so the GPU copies one
            // while the host writes the next (the queue keeps them before the run's submission)
            let rows_per_strip = image.height.div_ceil(strips);
            let mut first = 0;
            while first < image.height {
                let rows = rows_per_strip.min(image.height - first);
                let mut strip =
                    gpu.device
                        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                            label: Some("texelflow.upload_strip"),
                        });
                let len = (rows as u64 * row_bytes) as usize;
                uploads.extend(gpu.upload_with(
                    &mut strip,
                    &buf,
                    first as u64 * row_bytes,
                    len,
                    &|dst| src.write_gpu_rows(first, dst),
                ));
                gpu.submit([strip.finish()])?;
                first += rows;
            }
        }
        slots.insert((node, 0), GpuSlot { buffer: buf, desc });
    }
    let upload_ms = ms_since(clock);
    let poison_buf = opts.poison.then(|| poison_buffer(gpu, graph));

    let clock = Instant::now();
    let (encoded, mut staging) = record_with_readbacks(
        gpu,
        graph,
        &plan,
        &mut encoder,
        &mut bufs,
        slots,
        query_set.as_ref().map(|q| (q, n_queries)),
        poison_buf.as_ref(),
    )?;
    let cmd = encoder.finish();
    let record_ms = ms_since(clock);
    let clock = Instant::now();
    let index = gpu.submit([cmd])?;
    let wait_ms = gpu.map_staging_after(&staging, Some(index))?;
    gpu.recycle_uploads(uploads);
    // the pinned inputs are mapped again for the caller's next writes
    drop(pinned_runs);
    let Encoded { slots, labels, .. } = encoded;
    // past the outputs: the timestamps, when asked for
    let stamps = if staging.len() > graph.outputs.len() {
        staging.pop()
    } else {
        None
    };

    let mut outputs = Vec::new();
    for ((name, p), s) in graph.outputs.iter().zip(staging) {
        let view = s
            .buffer
            .get_mapped_range(..s.len)
            .map_err(|e| Error::Gpu(e.to_string()))?;
        let v = match graph.desc(*p) {
            // the mapping itself becomes the output: no copy
            ValueDesc::Image(desc) => HostValue::Mapped(MappedImage {
                view: Some(view),
                buffer: s.buffer.clone(),
                gpu: gpu.clone(),
                desc,
            }),
            ValueDesc::Data(k) => {
                let mut b = view.to_vec();
                drop(view);
                s.buffer.unmap();
                gpu.keep_readback(&s.buffer);
                if let crate::value::DataKind::Bytes { capacity } = k {
                    let slot = slots
                        .get(&(p.node, p.output))
                        .ok_or_else(|| Error::internal("output not materialised"))?;
                    super::execute::read_rest(gpu, &slot.buffer, capacity, &mut b)?;
                }
                HostValue::Value(Value::Data(Data::from_gpu_bytes(k, &b)?))
            }
        };
        outputs.push((name.clone(), v));
    }
    let timings = match (&query_set, stamps) {
        (Some(_), Some(ts)) => {
            let raw = ts
                .buffer
                .get_mapped_range(..ts.len)
                .map_err(|e| Error::Gpu(e.to_string()))?
                .to_vec();
            ts.buffer.unmap();
            step_times(gpu, &raw, labels)
        }
        _ => Vec::new(),
    };
    let readback_ms = ms_since(clock) - wait_ms;
    for (_, slot) in slots {
        bufs.give(slot.buffer);
    }
    bufs.release();
    Ok(HostRunResult {
        outputs,
        timings,
        host: HostTimes {
            upload_ms,
            record_ms,
            wait_ms,
            readback_ms,
        },
        notes: Vec::new(),
    })
}

/// Sources at least this large are uploaded in strips (`upload_strips`).
const STRIP_UPLOAD_BYTES: u64 = 8 << 20;
/// Strips of a large source: writing a 4K RGBA8 image into staging memory and its DMA to the
/// GPU take about as long as each other (issue 19: 33 MB, ~0.65 ms each way on an H100's
/// PCIe), so overlapping them hides most of one; each strip costs a submission.
/// `RunOptions::upload_strips` overrides (1: one copy after the whole image is written).
const DEFAULT_UPLOAD_STRIPS: u32 = 4;

fn upload_strips(bytes: u64, rows: u32, asked: Option<u32>) -> u32 {
    if bytes < STRIP_UPLOAD_BYTES {
        return 1;
    }
    let n = asked.unwrap_or(DEFAULT_UPLOAD_STRIPS);
    n.clamp(1, rows.max(1))
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}
