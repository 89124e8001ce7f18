//! Adapter selection and the device. wgpu's default uncaptured-error handler panics; here
//! every device error is captured (error scopes around each submission and pipeline build,
//! plus a handler that records stray errors) and surfaced as `Error::Gpu`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::device::{adapter_order, choose_adapter, AdapterSummary, DeviceChoice, DeviceSelector};
use crate::error::{Error, Result};
use crate::runtime::pool::BufferPool;

/// How to pick and open the GPU. The library reads no environment variable: the CLI and
/// Python map `WGPU_BACKEND`, `WGPU_ADAPTER_NAME` and `TEXELFLOW_*` into these fields.
#[derive(Clone, Debug, Default)]
pub struct GpuOptions {
    /// Comma list of backends: vulkan, metal, dx12, gl (`None`: every backend, best first).
    pub backend: Option<String>,
    /// The device to open as text, a `DeviceSelector` (an index, a PCI bus id, a UUID, else a
    /// case-insensitive substring of the adapter's name); parsed when the device is chosen.
    /// `None`: `cuda_visible_devices`, else the best adapter (discrete first). `device` wins.
    pub adapter: Option<String>,
    /// The device to open (`DeviceSelector`); wins over `adapter`.
    pub device: Option<DeviceSelector>,
    /// The value of `CUDA_VISIBLE_DEVICES` as the caller read it (the library reads no
    /// environment variable): where no device is asked for (`device`, `adapter`), its first
    /// entry selects the adapter (`DeviceSelector::from_cuda_visible_devices`: a `GPU-` UUID, or
    /// CUDA's index among NVIDIA's adapters in PCI bus order); empty or `-1` hides NVIDIA's
    /// adapters (`Backend::auto` then runs the CPU reference).
    pub cuda_visible_devices: Option<String>,
    /// `Backend::auto` opens a software rasterizer (lavapipe, llvmpipe, SwiftShader, WARP)
    /// where it is the best adapter; by default it runs the CPU reference there instead, which
    /// is quicker. A backend or device asked for (`backend`, `adapter`, `device`) opens it too;
    /// `Gpu::new` always does.
    pub allow_software: bool,
    /// Kernels that choose between subgroup operations and a workgroup-memory form (the
    /// reductions) take the workgroup form on any device: to test it, or to sidestep a
    /// driver's broken subgroup support.
    pub no_subgroups: bool,
    /// wgpu's full shader runtime checks, forced loop bounding included (off by default: every
    /// loop in our kernels is bounded by its uniforms, and the counter costs registers).
    pub full_shader_checks: bool,
    /// Opens the device so that it can share timeline semaphores with another API on the GPU
    /// (`Gpu::export_semaphore`: on Linux's Vulkan, `VK_KHR_external_semaphore_fd` where the
    /// driver has it). The Python bindings ask for it: their CUDA route orders its runs by one.
    pub semaphore_export: bool,
}

/// What `texelflow info` prints.
#[derive(Clone, Debug)]
pub struct GpuInfo {
    /// Adapter name.
    pub name: String,
    /// vulkan, metal, dx12 or gl.
    pub backend: String,
    /// DiscreteGpu, IntegratedGpu, VirtualGpu, Cpu or Other.
    pub device_type: String,
    /// Driver name.
    pub driver: String,
    /// Driver version details.
    pub driver_info: String,
    /// Largest storage buffer binding, bytes.
    pub max_storage_binding: u64,
    /// Largest buffer, bytes.
    pub max_buffer_size: u64,
    /// Workgroup memory per workgroup, bytes.
    pub max_workgroup_storage: u32,
    /// Most invocations per workgroup.
    pub max_invocations_per_workgroup: u32,
    /// The device's wgpu features, lower-case, sorted.
    pub features: Vec<String>,
    /// Nanoseconds per timestamp tick.
    pub timestamp_period_ns: f32,
}

/// One compiled kernel as the device got it: the whole WGSL module and how it was built.
#[derive(Clone, Debug)]
pub struct CompiledKernel {
    /// The pipeline cache key (kernel key, entry point, runtime checks).
    pub key: String,
    /// The entry point.
    pub entry: &'static str,
    /// The whole WGSL module as compiled.
    pub source: String,
    /// The runtime checks it was compiled with.
    pub checks: wgpu::ShaderRuntimeChecks,
    /// Whether workgroup memory was zero-initialised.
    pub zero_init_workgroup: bool,
}

/// A staging buffer a copy was recorded into, and how many of its bytes that copy fills.
pub(crate) struct Readback {
    pub(crate) buffer: wgpu::Buffer,
    pub(crate) len: u64,
}

/// An upload staging buffer and whether it is mapped (writable) now.
pub(crate) struct Staged {
    pub(crate) buffer: wgpu::Buffer,
    mapped: Arc<std::sync::atomic::AtomicBool>,
}

/// Uploads at least this large go through the kept staging buffers; smaller ones through
/// `queue.write_buffer`, whose own staging is cheap at that size.
const STAGED_UPLOAD_BYTES: usize = 1 << 20;

/// An entry of `Gpu::constants`: the owner's address, the owner, the uploaded buffer.
type Constant = (
    usize,
    Arc<dyn std::any::Any + Send + Sync>,
    Arc<wgpu::Buffer>,
);

/// How each buffer's mapping ended (`None` while pending).
pub(crate) type MapResult = Option<std::result::Result<(), wgpu::BufferAsyncError>>;

/// An open GPU device with its caches. Cheap to share (`Arc<Gpu>`).
pub struct Gpu {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    adapter_info: wgpu::AdapterInfo,
    pub(crate) features: wgpu::Features,
    pub(crate) limits: wgpu::Limits,
    pipelines: Mutex<HashMap<String, Arc<wgpu::ComputePipeline>>>,
    /// Per kernel, held while it compiles: threads that need the same kernel at once (a
    /// batch's first images) wait for one compile instead of each compiling it, while
    /// different kernels compile at once (a batch's warm-up threads; a machine's first run
    /// compiles every kernel in the driver).
    compiling: Mutex<HashMap<String, Arc<Mutex<()>>>>,
    /// Compiled kernels' modules, in compile order (for `runtime::driver_stats`); `None`
    /// unless `keep_compiled_kernels` asked for them, so ordinary runs keep no sources.
    compiled: Mutex<Option<Vec<CompiledKernel>>>,
    /// Shader runtime checks for our kernels: bounds checks on; wgpu's forced loop
    /// bounding off (every loop in our kernels is bounded by its uniforms, and the counter
    /// costs registers and a branch per iteration); integer-division checks on.
    /// `GpuOptions::full_shader_checks` restores wgpu's defaults.
    pub(crate) runtime_checks: wgpu::ShaderRuntimeChecks,
    /// `GpuOptions::no_subgroups`.
    no_subgroups: bool,
    pub(crate) pool: Mutex<BufferPool>,
    /// Held across every submission of texelflow's (`submit`): a submission ordered by an
    /// exported semaphore stages its waits and signals for the queue's next one, its own.
    pub(crate) submit_lock: Mutex<()>,
    /// Readback staging buffers (MAP_READ) by size class, kept between runs: a batch of 4K
    /// images would otherwise allocate and fault in 33 MB of host-visible memory per image.
    readback: Mutex<HashMap<u64, Vec<wgpu::Buffer>>>,
    /// Upload staging buffers (MAP_WRITE), each with a flag its re-mapping sets once it is
    /// mapped again: `queue.write_buffer` would allocate (and the OS pin) a fresh one per image.
    uploads: Mutex<Vec<Staged>>,
    /// Read-only data uploaded once and kept across runs (a LUT's table), by its owner's
    /// address; each entry keeps its owner alive, so the address cannot be reused while the
    /// entry lives. Bounded: the oldest entries go first.
    pub(crate) constants: Mutex<Vec<Constant>>,
    lost: Arc<Mutex<Option<String>>>,
    stray_errors: Arc<Mutex<Vec<String>>>,
    /// Bilinear, clamp-to-edge sampler for kernels that sample textures (made on first use).
    linear_sampler: std::sync::OnceLock<wgpu::Sampler>,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Gpu({} on {:?})",
            self.adapter_info.name, self.adapter_info.backend
        )
    }
}

fn parse_backends(s: &str) -> Result<wgpu::Backends> {
    let mut b = wgpu::Backends::empty();
    for part in s.split(',').map(|p| p.trim().to_ascii_lowercase()) {
        b |= match part.as_str() {
            "vulkan" | "vk" => wgpu::Backends::VULKAN,
            "metal" | "mtl" => wgpu::Backends::METAL,
            "dx12" | "d3d12" => wgpu::Backends::DX12,
            "gl" | "gles" | "opengl" => wgpu::Backends::GL,
            "primary" => wgpu::Backends::PRIMARY,
            "all" => wgpu::Backends::all(),
            other => {
                return Err(Error::NoAdapter(format!(
                    ": unknown backend `{other}` (use vulkan, metal, dx12, gl)"
                )))
            }
        };
    }
    Ok(b)
}

/// What `Gpu::adapters` says of `adapter` (index 0: `enumerate` numbers them).
fn summary(adapter: &wgpu::Adapter) -> AdapterSummary {
    let i = adapter.get_info();
    AdapterSummary {
        index: 0,
        name: i.name,
        backend: format!("{:?}", i.backend).to_lowercase(),
        device_type: format!("{:?}", i.device_type),
        driver: format!("{} {}", i.driver, i.driver_info).trim().to_string(),
        vendor: i.vendor,
        pci_bus_id: Some(i.device_pci_bus_id).filter(|p| !p.is_empty()),
        uuid: adapter_uuid(adapter),
    }
}

/// The adapter's device UUID (`VkPhysicalDeviceIDProperties::deviceUUID`, what CUDA and
/// nvidia-smi report for the same GPU), asked of Vulkan before any device is opened; `None`
/// off Vulkan or where the instance or device is older than Vulkan 1.1.
#[cfg(all(
    not(target_arch = "wasm32"),
    any(
        windows,
        target_os = "linux",
        target_os = "android",
        target_os = "freebsd"
    )
))]
fn adapter_uuid(adapter: &wgpu::Adapter) -> Option<[u8; 16]> {
    use ash::vk;
    // SAFETY: read-only queries on the adapter's own instance and physical device, while the
    // hal adapter is held.
    let hal = unsafe { adapter.as_hal::<wgpu::hal::api::Vulkan>() }?;
    let shared = hal.shared_instance();
    if shared.instance_api_version() < vk::API_VERSION_1_1 {
        return None;
    }
    let instance = shared.raw_instance();
    let pd = hal.raw_physical_device();
    // SAFETY: as above.
    let props = unsafe { instance.get_physical_device_properties(pd) };
    if props.api_version < vk::API_VERSION_1_1 {
        return None;
    }
    let mut id = vk::PhysicalDeviceIDProperties::default();
    let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut id);
    // SAFETY: as above; both the instance and the device are Vulkan 1.1 or later.
    unsafe { instance.get_physical_device_properties2(pd, &mut props2) };
    Some(id.device_uuid)
}

/// No Vulkan here: no UUID.
#[cfg(not(all(
    not(target_arch = "wasm32"),
    any(
        windows,
        target_os = "linux",
        target_os = "android",
        target_os = "freebsd"
    )
)))]
fn adapter_uuid(_adapter: &wgpu::Adapter) -> Option<[u8; 16]> {
    None
}

impl Gpu {
    /// Opens the adapter `opts` asks for (`GpuOptions::device`, `adapter`, else
    /// `cuda_visible_devices`), else the best: discrete first, then integrated, virtual,
    /// software, the first in the order (`Gpu::adapters`) among equals; a native backend
    /// (Vulkan/Metal/DX12) before GL. A software rasterizer is opened here when it is the best;
    /// `Backend::auto` runs the CPU reference there instead.
    pub fn new(opts: &GpuOptions) -> Result<Arc<Gpu>> {
        let (gpu, choice) = Self::open_chosen(opts, false)?;
        gpu.ok_or_else(|| Error::NoAdapter(format!(": {}", choice.reason)))
    }

    /// The device chosen by `choose_adapter` (with `auto`, `Backend::auto`'s rule), opened;
    /// `None` where the rule takes the CPU reference.
    pub(crate) fn open_chosen(
        opts: &GpuOptions,
        auto: bool,
    ) -> Result<(Option<Arc<Gpu>>, DeviceChoice)> {
        let (adapters, choice) = Self::choose(opts, auto)?;
        let Some(index) = choice.index else {
            return Ok((None, choice));
        };
        let adapter = adapters
            .into_iter()
            .find(|(_, s)| s.index == index)
            .map(|(a, _)| a)
            .ok_or_else(|| Error::NoAdapter(format!(" at index {index}")))?;
        Ok((Some(Self::from_adapter(adapter, opts)?), choice))
    }

    /// The adapters `opts`' backends allow, in the documented order (`runtime::device`:
    /// hardware GPUs by PCI bus id, then the rest), each with its index, PCI bus id and UUID;
    /// empty when there is none. `Gpu::choice` says which one a run takes.
    pub fn adapters(opts: &GpuOptions) -> Result<Vec<AdapterSummary>> {
        Ok(Self::enumerate(opts)?.into_iter().map(|(_, s)| s).collect())
    }

    /// The adapters (`Gpu::adapters`) and which one a run with `opts` takes, and why
    /// (`runtime::device::choose_adapter`): with `auto`, `Backend::auto`'s rule (a software
    /// rasterizer only when asked for), else `Gpu::new`'s.
    pub fn choice(opts: &GpuOptions, auto: bool) -> Result<(Vec<AdapterSummary>, DeviceChoice)> {
        let (adapters, choice) = Self::choose(opts, auto)?;
        Ok((adapters.into_iter().map(|(_, s)| s).collect(), choice))
    }

    /// The adapters and the choice among them.
    #[allow(clippy::type_complexity)]
    fn choose(
        opts: &GpuOptions,
        auto: bool,
    ) -> Result<(Vec<(wgpu::Adapter, AdapterSummary)>, DeviceChoice)> {
        let adapters = Self::enumerate(opts)?;
        let summaries: Vec<AdapterSummary> = adapters.iter().map(|(_, s)| s.clone()).collect();
        let choice = choose_adapter(&summaries, opts, auto)?;
        Ok((adapters, choice))
    }

    /// The adapters `opts`' backends allow, in the documented order.
    fn enumerate(opts: &GpuOptions) -> Result<Vec<(wgpu::Adapter, AdapterSummary)>> {
        let backend_str = opts.backend.clone().filter(|s| !s.trim().is_empty());
        let enumerate = |backends: wgpu::Backends| {
            let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
            desc.backends = backends;
            desc.flags = wgpu::InstanceFlags::empty();
            let instance = wgpu::Instance::new(desc);
            pollster::block_on(instance.enumerate_adapters(backends))
        };
        let adapters = match &backend_str {
            Some(s) => enumerate(parse_backends(s)?),
            // Native APIs first; GL only when none answers (probing GL needs a display
            // server on some systems and prints noise without one).
            None => {
                let native = enumerate(wgpu::Backends::PRIMARY);
                if native.is_empty() {
                    enumerate(wgpu::Backends::GL)
                } else {
                    native
                }
            }
        };
        let summaries: Vec<AdapterSummary> = adapters.iter().map(summary).collect();
        let order = adapter_order(&summaries);
        let mut slots: Vec<Option<(wgpu::Adapter, AdapterSummary)>> =
            adapters.into_iter().zip(summaries).map(Some).collect();
        let mut out = Vec::with_capacity(slots.len());
        for at in order {
            if let Some((adapter, s)) = slots.get_mut(at).and_then(Option::take) {
                let index = out.len();
                out.push((adapter, AdapterSummary { index, ..s }));
            }
        }
        Ok(out)
    }

    /// texelflow on a device the caller opened (issue 31: a viewer, an engine, an editor that
    /// has its own): kernels, buffers and runs live on it beside the caller's work, so images
    /// already there need no trip through host memory. `adapter` is the one the device came
    /// from (its name, backend and subgroup size). texelflow uses the features it knows of that
    /// the device has (timestamps, subgroups, f16) and plans within the device's limits (a run
    /// past them goes in tiles). The caller's uncaptured-error and device-lost handlers stay
    /// as they are: texelflow sees its own errors through error scopes.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # fn main() -> texelflow::Result<()> {
    /// let instance = wgpu::Instance::default();
    /// let adapter = pollster::block_on(instance.request_adapter(&Default::default())).unwrap();
    /// let (device, queue) = pollster::block_on(adapter.request_device(&Default::default())).unwrap();
    /// // the caller keeps using `device` and `queue`; texelflow shares them
    /// let gpu = texelflow::Gpu::from_wgpu(&adapter, device.clone(), queue.clone(), &Default::default());
    /// let backend = texelflow::Backend::Gpu(gpu);
    /// # Ok(())
    /// # }
    /// ```
    pub fn from_wgpu(
        adapter: &wgpu::Adapter,
        device: wgpu::Device,
        queue: wgpu::Queue,
        opts: &GpuOptions,
    ) -> Arc<Gpu> {
        let features = device.features() & Self::WANTED_FEATURES;
        let limits = device.limits();
        Self::build(
            adapter.get_info(),
            device,
            queue,
            features,
            limits,
            opts,
            None,
        )
    }

    /// The optional features texelflow's kernels use where the device has them.
    const WANTED_FEATURES: wgpu::Features = wgpu::Features::TIMESTAMP_QUERY
        .union(wgpu::Features::SUBGROUP)
        .union(wgpu::Features::SHADER_F16);

    /// `new`, awaited: how a browser opens texelflow on its WebGPU adapter (the page cannot
    /// block); natively the same device as `new`, opened before the future is first polled
    /// resolves.
    pub async fn new_async(opts: &GpuOptions) -> Result<Arc<Gpu>> {
        #[cfg(target_arch = "wasm32")]
        {
            let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
            desc.backends = wgpu::Backends::BROWSER_WEBGPU;
            let instance = wgpu::Instance::new(desc);
            let adapter = instance
                .request_adapter(&wgpu::RequestAdapterOptions {
                    power_preference: wgpu::PowerPreference::HighPerformance,
                    ..Default::default()
                })
                .await
                .map_err(|e| Error::NoAdapter(format!(" in this browser (WebGPU: {e})")))?;
            Self::open_adapter(adapter, opts).await
        }
        #[cfg(not(target_arch = "wasm32"))]
        Self::new(opts)
    }

    fn from_adapter(adapter: wgpu::Adapter, opts: &GpuOptions) -> Result<Arc<Gpu>> {
        pollster::block_on(Self::open_adapter(adapter, opts))
    }

    /// Opens `adapter`'s device with the features and limits texelflow uses, and its handlers.
    async fn open_adapter(adapter: wgpu::Adapter, opts: &GpuOptions) -> Result<Arc<Gpu>> {
        let adapter_info = adapter.get_info();
        let features = adapter.features() & Self::WANTED_FEATURES;
        // The adapter's own limits: large images need large storage bindings.
        let limits = adapter.limits();
        let desc = wgpu::DeviceDescriptor {
            label: Some("texelflow"),
            required_features: features,
            required_limits: limits.clone(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        };
        // on Linux's Vulkan, with semaphores another API can import (CUDA, `export_semaphore`)
        #[cfg(target_os = "linux")]
        let opened = opts
            .semaphore_export
            .then(|| super::external::open_with_semaphore_export(&adapter, &desc))
            .flatten();
        #[cfg(not(target_os = "linux"))]
        let opened = None;
        let (device, queue) = match opened {
            Some(pair) => pair,
            None => adapter.request_device(&desc).await.map_err(|e| {
                Error::NoAdapter(format!(": could not open `{}`: {e}", adapter_info.name))
            })?,
        };
        let lost = Arc::new(Mutex::new(None));
        let lost2 = lost.clone();
        device.set_device_lost_callback(move |reason, msg| {
            if let Ok(mut l) = lost2.lock() {
                *l = Some(format!("{reason:?}: {msg}"));
            }
        });
        let stray_errors = Arc::new(Mutex::new(Vec::new()));
        let stray2 = stray_errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            if let Ok(mut v) = stray2.lock() {
                v.push(e.to_string());
            }
        }));
        Ok(Self::build(
            adapter_info,
            device,
            queue,
            features,
            limits,
            opts,
            Some((lost, stray_errors)),
        ))
    }

    /// The `Gpu` over an open device; `handlers`: the device-lost and uncaptured-error
    /// records its handlers fill (`None` on a caller's device, whose handlers are its own).
    #[allow(clippy::type_complexity)]
    fn build(
        adapter_info: wgpu::AdapterInfo,
        device: wgpu::Device,
        queue: wgpu::Queue,
        features: wgpu::Features,
        limits: wgpu::Limits,
        opts: &GpuOptions,
        handlers: Option<(Arc<Mutex<Option<String>>>, Arc<Mutex<Vec<String>>>)>,
    ) -> Arc<Gpu> {
        let (lost, stray_errors) = handlers.unwrap_or_default();
        Arc::new(Gpu {
            device,
            queue,
            adapter_info,
            features,
            limits,
            pipelines: Mutex::new(HashMap::new()),
            compiling: Mutex::new(HashMap::new()),
            constants: Mutex::new(Vec::new()),
            compiled: Mutex::new(None),
            no_subgroups: opts.no_subgroups,
            runtime_checks: if opts.full_shader_checks {
                wgpu::ShaderRuntimeChecks::checked()
            } else {
                wgpu::ShaderRuntimeChecks {
                    force_loop_bounding: false,
                    ..wgpu::ShaderRuntimeChecks::checked()
                }
            },
            pool: Mutex::new(BufferPool::default()),
            submit_lock: Mutex::new(()),
            readback: Mutex::new(HashMap::new()),
            uploads: Mutex::new(Vec::new()),
            lost,
            stray_errors,
            linear_sampler: std::sync::OnceLock::new(),
        })
    }

    /// `new`, with the largest storage binding texelflow uses held to `bytes` (at most the
    /// device's): images whose buffers exceed it run in tiles. For tests of tiling on small
    /// images, and to bound the GPU memory a run takes.
    pub fn new_with_binding_limit(opts: &GpuOptions, bytes: u64) -> Result<Arc<Gpu>> {
        let gpu = Self::new(opts)?;
        let mut gpu = Arc::try_unwrap(gpu)
            .map_err(|_| Error::Gpu("the new device is shared already".into()))?;
        gpu.limits.max_storage_buffer_binding_size =
            gpu.limits.max_storage_buffer_binding_size.min(bytes);
        gpu.limits.max_buffer_size = gpu.limits.max_buffer_size.min(bytes);
        Ok(Arc::new(gpu))
    }

    /// Adapter, backend, limits and features.
    pub fn info(&self) -> GpuInfo {
        let i = &self.adapter_info;
        let mut features: Vec<String> = self
            .features
            .iter_names()
            .map(|(n, _)| n.to_lowercase())
            .collect();
        features.sort();
        GpuInfo {
            name: i.name.clone(),
            backend: format!("{:?}", i.backend).to_lowercase(),
            device_type: format!("{:?}", i.device_type),
            driver: i.driver.clone(),
            driver_info: i.driver_info.clone(),
            max_storage_binding: self.limits.max_storage_buffer_binding_size,
            max_buffer_size: self.limits.max_buffer_size,
            max_workgroup_storage: self.limits.max_compute_workgroup_storage_size,
            max_invocations_per_workgroup: self.limits.max_compute_invocations_per_workgroup,
            features,
            timestamp_period_ns: self.queue.get_timestamp_period(),
        }
    }

    /// Backend the device runs on.
    pub fn backend(&self) -> wgpu::Backend {
        self.adapter_info.backend
    }

    /// Whether per-node GPU timings are available.
    pub fn has_timestamps(&self) -> bool {
        self.features.contains(wgpu::Features::TIMESTAMP_QUERY)
    }

    /// Whether subgroup operations may be used in kernels.
    pub fn has_subgroups(&self) -> bool {
        self.features.contains(wgpu::Features::SUBGROUP)
    }

    /// Whether kernels with a subgroup form and a workgroup form may take the subgroup one
    /// (`has_subgroups`, unless `GpuOptions::no_subgroups`).
    pub fn subgroup_kernels(&self) -> bool {
        self.has_subgroups() && !self.no_subgroups
    }

    /// Whether f16 arithmetic (`shader-f16`) may be used in kernels.
    pub fn has_f16(&self) -> bool {
        self.features.contains(wgpu::Features::SHADER_F16)
    }

    /// Largest subgroup the device may run (kernels that lay a workgroup out in whole
    /// subgroups check it).
    pub fn subgroup_max_size(&self) -> u32 {
        self.adapter_info.subgroup_max_size
    }

    /// Largest side of a 2-D texture (textures are a schedule's choice: callers fall back to buffers past it).
    pub fn max_texture_side(&self) -> u32 {
        self.limits.max_texture_dimension_2d
    }

    /// The bilinear sampler with clamp-to-edge addressing (replicated edges, as our buffer kernels).
    pub fn linear_sampler(&self) -> &wgpu::Sampler {
        self.linear_sampler.get_or_init(|| {
            self.device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some("texelflow.linear_clamp"),
                address_mode_u: wgpu::AddressMode::ClampToEdge,
                address_mode_v: wgpu::AddressMode::ClampToEdge,
                mag_filter: wgpu::FilterMode::Linear,
                min_filter: wgpu::FilterMode::Linear,
                ..Default::default()
            })
        })
    }

    /// Largest buffer one binding may hold (the storage-binding limit, at most the buffer limit).
    pub fn max_binding(&self) -> u64 {
        (self.limits.max_storage_buffer_binding_size).min(self.limits.max_buffer_size)
    }

    /// Fails with `DeviceLost` once the device is gone, and with `Gpu` for errors that
    /// escaped an error scope.
    pub(crate) fn check_health(&self) -> Result<()> {
        if let Some(l) = self.lost.lock().ok().and_then(|l| l.clone()) {
            return Err(Error::DeviceLost(l));
        }
        if let Ok(mut v) = self.stray_errors.lock() {
            if !v.is_empty() {
                let msg = v.join("; ");
                v.clear();
                return Err(Error::Gpu(msg));
            }
        }
        Ok(())
    }

    /// Submits `commands` (in an error scope), holding `submit_lock`.
    pub(crate) fn submit(
        &self,
        commands: impl IntoIterator<Item = wgpu::CommandBuffer>,
    ) -> Result<wgpu::SubmissionIndex> {
        let _only = self
            .submit_lock
            .lock()
            .map_err(|_| Error::Gpu("submission lock poisoned".into()))?;
        self.scoped(|| self.queue.submit(commands))
    }

    /// Runs `f` inside validation and out-of-memory error scopes.
    pub(crate) fn scoped<T>(&self, f: impl FnOnce() -> T) -> Result<T> {
        // a browser's error scopes resolve on its event loop, after this returns: there, errors
        // reach the uncaptured-error handler and surface at the next health check
        #[cfg(target_arch = "wasm32")]
        let out = f();
        #[cfg(not(target_arch = "wasm32"))]
        let out = self.scoped_native(f)?;
        self.check_health()?;
        Ok(out)
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn scoped_native<T>(&self, f: impl FnOnce() -> T) -> Result<T> {
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let val = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let out = f();
        let v = pollster::block_on(val.pop());
        let o = pollster::block_on(oom.pop());
        match v.or(o) {
            Some(e) => Err(Error::Gpu(e.to_string())),
            None => Ok(out),
        }
    }

    /// Compiles a kernel once; later calls with the same key return the cached pipeline.
    pub(crate) fn pipeline(
        &self,
        kernel: &crate::runtime::Kernel,
        source: impl FnOnce() -> String,
    ) -> Result<Arc<wgpu::ComputePipeline>> {
        let (key, entry) = (kernel.key.as_str(), kernel.entry);
        let checks = kernel.checks.unwrap_or(self.runtime_checks);
        let full_key = format!(
            "{key}::{entry}::{}{}{}{}",
            u8::from(checks.bounds_checks),
            u8::from(checks.force_loop_bounding),
            u8::from(checks.int_div_checks),
            u8::from(kernel.zero_init_workgroup)
        );
        let cached = || -> Result<Option<Arc<wgpu::ComputePipeline>>> {
            Ok(self
                .pipelines
                .lock()
                .map_err(|_| Error::Gpu("pipeline cache poisoned".into()))?
                .get(&full_key)
                .cloned())
        };
        if let Some(p) = cached()? {
            return Ok(p);
        }
        let gate = self
            .compiling
            .lock()
            .map_err(|_| Error::Gpu("pipeline cache poisoned".into()))?
            .entry(full_key.clone())
            .or_default()
            .clone();
        let _compiling = gate
            .lock()
            .map_err(|_| Error::Gpu("pipeline cache poisoned".into()))?;
        if let Some(p) = cached()? {
            return Ok(p);
        }
        let src = source();
        let kept_src = self
            .compiled
            .lock()
            .ok()
            .and_then(|c| c.is_some().then(|| src.clone()));
        let pipeline = self
            .scoped(|| {
                let desc = wgpu::ShaderModuleDescriptor {
                    label: Some(key),
                    source: wgpu::ShaderSource::Wgsl(src.into()),
                };
                // SAFETY: only checks our kernels make unnecessary are dropped: see
                // `Gpu::runtime_checks`. Bounds checks stay on unless a caller asks otherwise.
                let module = unsafe { self.device.create_shader_module_trusted(desc, checks) };
                self.device
                    .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                        label: Some(&full_key),
                        layout: None,
                        module: &module,
                        entry_point: Some(entry),
                        compilation_options: wgpu::PipelineCompilationOptions {
                            zero_initialize_workgroup_memory: kernel.zero_init_workgroup,
                            ..Default::default()
                        },
                        cache: None,
                    })
            })
            .map_err(|e| Error::Gpu(format!("compiling kernel `{full_key}`: {e}")))?;
        let p = Arc::new(pipeline);
        if let (Some(source), Ok(mut compiled)) = (kept_src, self.compiled.lock()) {
            if let Some(list) = compiled.as_mut() {
                list.push(CompiledKernel {
                    key: full_key.clone(),
                    entry,
                    source,
                    checks,
                    zero_init_workgroup: kernel.zero_init_workgroup,
                });
            }
        }
        if let Ok(mut cache) = self.pipelines.lock() {
            cache.insert(full_key, p.clone());
        }
        Ok(p)
    }

    /// From now on, keep the module of every kernel compiled (see `compiled_kernels`).
    pub fn keep_compiled_kernels(&self) {
        if let Ok(mut c) = self.compiled.lock() {
            c.get_or_insert_with(Vec::new);
        }
    }

    /// Kernels compiled since `keep_compiled_kernels`, in compile order.
    pub fn compiled_kernel_count(&self) -> usize {
        self.compiled
            .lock()
            .ok()
            .and_then(|c| c.as_ref().map(Vec::len))
            .unwrap_or(0)
    }

    /// The kept kernels from index `from` on (see `compiled_kernel_count`).
    pub fn compiled_kernels(&self, from: usize) -> Vec<CompiledKernel> {
        self.compiled
            .lock()
            .ok()
            .and_then(|c| {
                c.as_ref()
                    .and_then(|v| v.get(from..))
                    .map(<[CompiledKernel]>::to_vec)
            })
            .unwrap_or_default()
    }

    /// Number of compiled kernels (for tests of the cache).
    pub fn pipeline_count(&self) -> usize {
        self.pipelines.lock().map(|c| c.len()).unwrap_or(0)
    }

    /// The wgpu device (to make textures and buffers for `io::texture`'s runs on texelflow's
    /// own device).
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The wgpu queue of `device`.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// Gives buffers of finished runs back to the pool (`graph::execute::encode_into_keeping`).
    pub(crate) fn give_back(&self, buffers: Vec<Arc<wgpu::Buffer>>) {
        if let Ok(mut pool) = self.pool.lock() {
            for b in buffers {
                pool.give(b);
            }
        }
    }

    /// Blocks until submission `index` has finished (all submitted work: `None`). Threads
    /// sharing the device wait for their own work only, not for each other's.
    pub(crate) fn wait_for(&self, index: Option<wgpu::SubmissionIndex>) -> Result<()> {
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: index,
                timeout: None,
            })
            .map_err(|e| Error::DeviceLost(e.to_string()))?;
        self.check_health()
    }

    /// Reads back whole buffers (each `(buffer, bytes)`) with one map round trip.
    pub(crate) fn read_buffers(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        sources: &[(&wgpu::Buffer, u64)],
    ) -> Vec<Readback> {
        sources
            .iter()
            .map(|(buf, size)| {
                let size = size.div_ceil(4) * 4;
                let class = crate::runtime::size_class(size);
                let reused = self
                    .readback
                    .lock()
                    .ok()
                    .and_then(|mut p| p.get_mut(&class).and_then(Vec::pop));
                let staging = reused.unwrap_or_else(|| {
                    self.device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("texelflow.readback"),
                        size: class,
                        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    })
                });
                encoder.copy_buffer_to_buffer(buf, 0, &staging, 0, size);
                Readback {
                    buffer: staging,
                    len: size,
                }
            })
            .collect()
    }

    /// Records an upload of `bytes` into `dst` (at offset 0): through a kept staging buffer
    /// (returned: hand it to `recycle_uploads` once the submission has finished) for large
    /// ones, else `queue.write_buffer`.
    pub(crate) fn upload(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        dst: &wgpu::Buffer,
        bytes: &[u8],
    ) -> Option<Staged> {
        self.upload_with(encoder, dst, 0, bytes.len(), &|mut to: wgpu::WriteOnly<
            '_,
            [u8],
        >| {
            to.copy_from_slice(bytes)
        })
    }

    /// `upload` of `len` bytes at `offset` of `dst` that `write` puts straight into the staging
    /// memory (exactly `len` bytes), so a caller converting or gathering pixels (a strided
    /// numpy array) makes no intermediate copy.
    pub(crate) fn upload_with(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        dst: &wgpu::Buffer,
        offset: u64,
        len: usize,
        write: &dyn Fn(wgpu::WriteOnly<'_, [u8]>),
    ) -> Option<Staged> {
        match self.stage(len, write) {
            Some(staged) => {
                encoder.copy_buffer_to_buffer(&staged.buffer, 0, dst, offset, len as u64);
                Some(staged)
            }
            None => {
                let mut bytes = vec![0u8; len];
                write(wgpu::WriteOnly::from_mut(bytes.as_mut_slice()));
                self.queue.write_buffer(dst, offset, &bytes);
                None
            }
        }
    }

    /// `len` bytes that `write` puts into a kept (or new) staging buffer, unmapped and ready
    /// to be copied from; `None` where the kept buffers do not serve (`len` under
    /// `STAGED_UPLOAD_BYTES` or not a multiple of 4, or no mapping): the caller writes
    /// through the queue instead.
    pub(crate) fn stage(
        &self,
        len: usize,
        write: &dyn Fn(wgpu::WriteOnly<'_, [u8]>),
    ) -> Option<Staged> {
        use std::sync::atomic::Ordering;
        if len < STAGED_UPLOAD_BYTES || !len.is_multiple_of(4) {
            return None;
        }
        let class = crate::runtime::size_class(len as u64);
        let kept = self.uploads.lock().ok().and_then(|mut p| {
            let i = p
                .iter()
                .position(|s| s.buffer.size() == class && s.mapped.load(Ordering::Acquire))?;
            Some(p.swap_remove(i))
        });
        let staged = kept.unwrap_or_else(|| Staged {
            buffer: self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("texelflow.upload"),
                size: class,
                usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: true,
            }),
            mapped: Arc::new(std::sync::atomic::AtomicBool::new(true)),
        });
        match staged.buffer.get_mapped_range_mut(..len as u64) {
            Ok(mut view) => write(view.slice(..)),
            // not mapped after all: the plain path
            Err(_) => return None,
        }
        staged.buffer.unmap();
        staged.mapped.store(false, Ordering::Release);
        Some(staged)
    }

    /// Staging buffers of finished submissions back to the pool (up to 1 GiB), mapped again
    /// in the background (a later poll completes the mapping; until then they are not taken).
    pub(crate) fn recycle_uploads(&self, staged: Vec<Staged>) {
        use std::sync::atomic::Ordering;
        const KEEP_BYTES: u64 = 1 << 30;
        let Ok(mut p) = self.uploads.lock() else {
            return;
        };
        for s in staged {
            let kept: u64 = p.iter().map(|s| s.buffer.size()).sum();
            if kept + s.buffer.size() > KEEP_BYTES {
                continue;
            }
            let flag = s.mapped.clone();
            s.buffer.map_async(wgpu::MapMode::Write, .., move |r| {
                flag.store(r.is_ok(), Ordering::Release)
            });
            p.push(s);
        }
    }

    /// Keeps an unmapped staging buffer for a later `read_buffers`, up to 1 GiB of them.
    pub(crate) fn keep_readback(&self, staging: &wgpu::Buffer) {
        const KEEP_BYTES: u64 = 1 << 30;
        if let Ok(mut p) = self.readback.lock() {
            let kept: u64 = p.iter().map(|(size, v)| size * v.len() as u64).sum();
            if kept + staging.size() <= KEEP_BYTES {
                p.entry(staging.size()).or_default().push(staging.clone());
            }
        }
    }

    /// Maps staging buffers written by `read_buffers` after submission and copies them out.
    // tracing (`graph::trace`) and the kernel tests read back this way
    #[allow(dead_code)]
    pub(crate) fn map_all(&self, staging: &[Readback]) -> Result<Vec<Vec<u8>>> {
        self.map_all_after(staging, None).map(|(bytes, _)| bytes)
    }

    /// `map_all` once submission `index` (that wrote the staging buffers) has finished; also
    /// the wall time (ms) spent waiting for it.
    pub(crate) fn map_all_after(
        &self,
        staging: &[Readback],
        index: Option<wgpu::SubmissionIndex>,
    ) -> Result<(Vec<Vec<u8>>, f64)> {
        let wait_ms = self.map_staging_after(staging, index)?;
        Ok((self.copy_out_mapped(staging)?, wait_ms))
    }

    /// `map_all`, awaited (the async run API: a browser cannot block on the GPU).
    pub(crate) async fn map_all_async(&self, staging: &[Readback]) -> Result<Vec<Vec<u8>>> {
        let buffers: Vec<(&wgpu::Buffer, u64)> =
            staging.iter().map(|s| (&s.buffer, s.len)).collect();
        super::map_future::MapFuture::start(self, &buffers).await?;
        self.copy_out_mapped(staging)
    }

    /// The mapped staging buffers' bytes; each is unmapped and kept for a later readback.
    fn copy_out_mapped(&self, staging: &[Readback]) -> Result<Vec<Vec<u8>>> {
        let mut out = Vec::with_capacity(staging.len());
        for s in staging {
            let view = s
                .buffer
                .get_mapped_range(..s.len)
                .map_err(|e| Error::Gpu(e.to_string()))?;
            out.push(view.to_vec());
            drop(view);
            s.buffer.unmap();
            self.keep_readback(&s.buffer);
        }
        Ok(out)
    }

    /// Maps the staging buffers once submission `index` has finished and leaves them mapped
    /// (`map_all_after` copies them out; `graph::host` hands them to the caller as they are).
    /// Returns the wall time (ms) spent waiting for the submission.
    pub(crate) fn map_staging_after(
        &self,
        staging: &[Readback],
        index: Option<wgpu::SubmissionIndex>,
    ) -> Result<f64> {
        let clock = super::Instant::now();
        let results: Arc<Mutex<Vec<MapResult>>> = Arc::new(Mutex::new(vec![None; staging.len()]));
        for (i, s) in staging.iter().enumerate() {
            let r = results.clone();
            s.buffer
                .map_async(wgpu::MapMode::Read, ..s.len, move |res| {
                    if let Ok(mut v) = r.lock() {
                        v[i] = Some(res);
                    }
                });
        }
        self.wait_for(index)?;
        let wait_ms = clock.elapsed().as_secs_f64() * 1e3;
        // Another thread's poll may be running our callbacks right now (the device is
        // shared); give it a moment rather than report a readback as lost.
        let deadline = super::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let done = results
                .lock()
                .map(|r| r.iter().all(Option::is_some))
                .unwrap_or(true);
            if done || super::Instant::now() > deadline {
                break;
            }
            let _ = self.device.poll(wgpu::PollType::Poll);
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        let res = results
            .lock()
            .map_err(|_| Error::Gpu("readback state poisoned".into()))?;
        for r in res.iter() {
            match r {
                Some(Ok(())) => {}
                Some(Err(e)) => return Err(Error::Gpu(format!("mapping a readback buffer: {e}"))),
                None => return Err(Error::DeviceLost("readback never completed".into())),
            }
        }
        Ok(wait_ms)
    }
}
