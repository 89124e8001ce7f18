//! Device memory another API on the same GPU can use: storage buffers whose memory Vulkan
//! exports as an opaque file descriptor (`VK_KHR_external_memory_fd`), which CUDA imports
//! (`cuImportExternalMemory`) to read and write the same bytes. That is how the Python
//! bindings take CUDA tensors with no host copy. wgpu has no API for it, so the buffer is
//! made through its Vulkan layer (`wgpu::hal`) and handed to wgpu, which frees it with the
//! `wgpu::Buffer`. A timeline semaphore exported the same way (`VK_KHR_external_semaphore_fd`)
//! orders a run between the other API's work with no host wait (`ExportedSemaphore`).

use std::os::fd::{FromRawFd, OwnedFd};

use ash::vk;
use wgpu::hal::api::Vulkan;

use super::Gpu;
use crate::error::{Error, Result};

/// A storage buffer (`STORAGE | COPY_SRC | COPY_DST`) in device memory exported as an opaque
/// file descriptor. Give the descriptor to the importing API with `allocation_size` and
/// `dedicated` (CUDA: `CUDA_EXTERNAL_MEMORY_HANDLE_DESC`'s size and its `DEDICATED` flag);
/// the importer owns it from then on. The memory lives while the `wgpu::Buffer` does, so
/// keep this (or the buffer) until the importer no longer uses the memory.
pub struct ExportedBuffer {
    buffer: wgpu::Buffer,
    fd: Option<OwnedFd>,
    allocation_size: u64,
}

impl std::fmt::Debug for ExportedBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "ExportedBuffer({} bytes, allocation {})",
            self.buffer.size(),
            self.allocation_size
        )
    }
}

impl ExportedBuffer {
    /// The buffer, for `io::texture::run_buffers` and friends.
    pub fn buffer(&self) -> &wgpu::Buffer {
        &self.buffer
    }

    /// The exported descriptor, given once (`None` after).
    pub fn take_fd(&mut self) -> Option<OwnedFd> {
        self.fd.take()
    }

    /// The size of the exported allocation, bytes (at least the buffer's size): what an
    /// importer must be told.
    pub fn allocation_size(&self) -> u64 {
        self.allocation_size
    }

    /// Whether the allocation is dedicated to this buffer (always, here: NVIDIA's drivers
    /// want it for memory CUDA imports).
    pub fn dedicated(&self) -> bool {
        true
    }
}

impl Gpu {
    /// A storage buffer of `size` bytes whose memory can be imported by another API on this GPU
    /// (CUDA), through an opaque file descriptor. An error where the device is not a Vulkan
    /// one, or its driver does not export memory (`VK_KHR_external_memory_fd`).
    pub fn export_buffer(&self, size: u64) -> Result<ExportedBuffer> {
        if size == 0 || size > self.limits.max_buffer_size {
            return Err(Error::invalid(format!(
                "a shared buffer of {size} bytes: this device allows 1 to {} bytes",
                self.limits.max_buffer_size
            )));
        }
        // SAFETY: the raw device is only used for the calls below, while `hal` is held, and
        // every object made with it is either destroyed here on failure or handed to wgpu.
        let hal = unsafe { self.device.as_hal::<Vulkan>() }
            .ok_or_else(|| Error::unsupported("memory sharing needs a Vulkan device"))?;
        if !hal
            .enabled_device_extensions()
            .contains(&ash::khr::external_memory_fd::NAME)
        {
            return Err(Error::unsupported(
                "this Vulkan driver does not export memory (no VK_KHR_external_memory_fd)",
            ));
        }
        let raw = hal.raw_device();
        let instance = hal.shared_instance().raw_instance();
        let handle_type = vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD;
        let vk_err = |what: &str, e: vk::Result| Error::Gpu(format!("{what}: {e}"));

        let mut external = vk::ExternalMemoryBufferCreateInfo::default().handle_types(handle_type);
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(
                vk::BufferUsageFlags::STORAGE_BUFFER
                    | vk::BufferUsageFlags::TRANSFER_SRC
                    | vk::BufferUsageFlags::TRANSFER_DST,
            )
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .push_next(&mut external);
        // SAFETY: a valid create info on the device's own raw handle.
        let buffer = unsafe { raw.create_buffer(&info, None) }
            .map_err(|e| vk_err("creating a shared buffer", e))?;
        // SAFETY (all calls below): `buffer` and `memory` are this device's and not yet in use.
        let requirements = unsafe { raw.get_buffer_memory_requirements(buffer) };
        let properties =
            unsafe { instance.get_physical_device_memory_properties(hal.raw_physical_device()) };
        let memory_type = (0..properties.memory_type_count).find(|&i| {
            requirements.memory_type_bits & (1 << i) != 0
                && properties.memory_types[i as usize]
                    .property_flags
                    .contains(vk::MemoryPropertyFlags::DEVICE_LOCAL)
        });
        let Some(memory_type) = memory_type else {
            unsafe { raw.destroy_buffer(buffer, None) };
            return Err(Error::unsupported(
                "no device-local memory type can hold a shared buffer",
            ));
        };
        let mut export = vk::ExportMemoryAllocateInfo::default().handle_types(handle_type);
        let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().buffer(buffer);
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(requirements.size)
            .memory_type_index(memory_type)
            .push_next(&mut export)
            .push_next(&mut dedicated);
        let memory = match unsafe { raw.allocate_memory(&alloc, None) } {
            Ok(m) => m,
            Err(e) => {
                unsafe { raw.destroy_buffer(buffer, None) };
                return Err(vk_err("allocating shared memory", e));
            }
        };
        let release = |e: Error| {
            unsafe {
                raw.destroy_buffer(buffer, None);
                raw.free_memory(memory, None);
            }
            e
        };
        if let Err(e) = unsafe { raw.bind_buffer_memory(buffer, memory, 0) } {
            return Err(release(vk_err("binding shared memory", e)));
        }
        let fd_api = ash::khr::external_memory_fd::Device::new(instance, raw);
        let get = vk::MemoryGetFdInfoKHR::default()
            .memory(memory)
            .handle_type(handle_type);
        let fd = match unsafe { fd_api.get_memory_fd(&get) } {
            // SAFETY: a new descriptor the driver gave us to own.
            Ok(fd) if fd >= 0 => unsafe { OwnedFd::from_raw_fd(fd) },
            Ok(_) => {
                return Err(release(Error::Gpu(
                    "exporting shared memory: no descriptor".into(),
                )))
            }
            Err(e) => return Err(release(vk_err("exporting shared memory", e))),
        };
        // SAFETY: `buffer` is bound to the whole of `memory`, which wgpu owns from here (it
        // destroys both when the `wgpu::Buffer` goes); nothing maps it.
        let hal_buffer = unsafe {
            wgpu::hal::vulkan::Buffer::from_raw_managed(buffer, memory, 0, requirements.size)
        };
        drop(hal);
        // SAFETY: the hal buffer was made on this device with the usages given here.
        let buffer = unsafe {
            self.device.create_buffer_from_hal::<Vulkan>(
                hal_buffer,
                &wgpu::BufferDescriptor {
                    label: Some("texelflow shared"),
                    size,
                    usage: wgpu::BufferUsages::STORAGE
                        | wgpu::BufferUsages::COPY_SRC
                        | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                },
            )
        };
        Ok(ExportedBuffer {
            buffer,
            fd: Some(fd),
            allocation_size: requirements.size,
        })
    }

    /// The device's UUID as Vulkan reports it (`VkPhysicalDeviceIDProperties::deviceUUID`), which
    /// CUDA reports for the same GPU (`cuDeviceGetUuid`); `None` on a device that is not a
    /// Vulkan one.
    pub fn device_uuid(&self) -> Option<[u8; 16]> {
        // SAFETY: read-only queries on the device's own handles.
        let hal = unsafe { self.device.as_hal::<Vulkan>() }?;
        let instance = hal.shared_instance().raw_instance();
        let mut id = vk::PhysicalDeviceIDProperties::default();
        let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut id);
        unsafe { instance.get_physical_device_properties2(hal.raw_physical_device(), &mut props) };
        Some(id.device_uuid)
    }
}

/// A Vulkan timeline semaphore exported as an opaque file descriptor, which another API on
/// the same GPU imports (CUDA: `cuImportExternalSemaphore`, type `TIMELINE_SEMAPHORE_FD`) to
/// signal values texelflow's submissions wait for and to wait for values they signal
/// (`PreparedRun::submit_between`): the order between the two queues is kept on the GPU, with
/// no host wait. Drop it only once no submission or importer uses it any more.
pub struct ExportedSemaphore {
    raw: vk::Semaphore,
    device: ash::Device,
    fd: Option<OwnedFd>,
}

impl std::fmt::Debug for ExportedSemaphore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ExportedSemaphore({:?})", self.raw)
    }
}

impl ExportedSemaphore {
    /// The exported descriptor, given once (`None` after): the importer owns it.
    pub fn take_fd(&mut self) -> Option<OwnedFd> {
        self.fd.take()
    }
}

impl ExportedSemaphore {
    /// Its value now.
    pub fn value(&self) -> Result<u64> {
        // SAFETY: a query on our own timeline semaphore.
        unsafe { self.device.get_semaphore_counter_value(self.raw) }
            .map_err(|e| Error::Gpu(format!("reading a shared semaphore: {e}")))
    }

    /// Sets it to `value` (more than it holds) from the host, as the other API would on its
    /// queue.
    pub fn signal(&self, value: u64) -> Result<()> {
        let info = vk::SemaphoreSignalInfo::default()
            .semaphore(self.raw)
            .value(value);
        // SAFETY: a host signal of our own timeline semaphore.
        unsafe { self.device.signal_semaphore(&info) }
            .map_err(|e| Error::Gpu(format!("signalling a shared semaphore: {e}")))
    }

    /// Waits on the host until it reaches `value`, at most `timeout`; whether it did.
    pub fn wait(&self, value: u64, timeout: std::time::Duration) -> Result<bool> {
        let semaphores = [self.raw];
        let values = [value];
        let info = vk::SemaphoreWaitInfo::default()
            .semaphores(&semaphores)
            .values(&values);
        let nanos = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        // SAFETY: a host wait on our own timeline semaphore.
        match unsafe { self.device.wait_semaphores(&info, nanos) } {
            Ok(()) => Ok(true),
            Err(vk::Result::TIMEOUT) => Ok(false),
            Err(e) => Err(Error::Gpu(format!("waiting for a shared semaphore: {e}"))),
        }
    }
}

impl Drop for ExportedSemaphore {
    fn drop(&mut self) {
        // SAFETY: our semaphore; its owner waited for every use (the type's contract)
        unsafe { self.device.destroy_semaphore(self.raw, None) };
    }
}

/// The device extension that exports semaphores, which wgpu does not enable itself.
const SEMAPHORE_FD: &std::ffi::CStr = ash::khr::external_semaphore_fd::NAME;

/// Opens `adapter`'s device as `request_device` would, with `VK_KHR_external_semaphore_fd`
/// enabled too where the adapter is a Vulkan one that has it (for `Gpu::export_semaphore`);
/// `None` where it is not, or opening so failed (the caller opens it the usual way).
pub(super) fn open_with_semaphore_export(
    adapter: &wgpu::Adapter,
    desc: &wgpu::DeviceDescriptor<'_>,
) -> Option<(wgpu::Device, wgpu::Queue)> {
    // SAFETY: the hal adapter is only read, and the device it opens is handed to wgpu at once.
    let open = unsafe {
        let hal = adapter.as_hal::<Vulkan>()?;
        if !hal
            .physical_device_capabilities()
            .supports_extension(SEMAPHORE_FD)
        {
            return None;
        }
        hal.open_with_callback(
            desc.required_features,
            &desc.required_limits,
            &desc.memory_hints,
            Some(Box::new(
                |args: wgpu::hal::vulkan::CreateDeviceCallbackArgs<'_, '_, '_>| {
                    if !args.extensions.contains(&SEMAPHORE_FD) {
                        args.extensions.push(SEMAPHORE_FD);
                    }
                },
            )),
        )
        .ok()?
    };
    // SAFETY: a device opened on this adapter, with the features and limits `desc` asks for.
    unsafe { adapter.create_device_from_hal::<Vulkan>(open, desc) }.ok()
}

impl Gpu {
    /// A timeline semaphore (value 0) another API on this GPU can import through an opaque file
    /// descriptor. An error where the device is not a Vulkan one texelflow opened with
    /// `GpuOptions::semaphore_export` on a driver that has `VK_KHR_external_semaphore_fd`, or
    /// the driver cannot export a timeline semaphore.
    pub fn export_semaphore(&self) -> Result<ExportedSemaphore> {
        // SAFETY: the raw device is used for the calls below while `hal` is held; the
        // semaphore made is destroyed here on failure, else by `ExportedSemaphore`.
        let hal = unsafe { self.device.as_hal::<Vulkan>() }
            .ok_or_else(|| Error::unsupported("semaphore sharing needs a Vulkan device"))?;
        if !hal.enabled_device_extensions().contains(&SEMAPHORE_FD) {
            return Err(Error::unsupported(
                "this Vulkan device does not export semaphores (no VK_KHR_external_semaphore_fd)",
            ));
        }
        let raw = hal.raw_device();
        let instance = hal.shared_instance().raw_instance();
        let handle_type = vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD;
        let mut timeline = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(0);
        let query = vk::PhysicalDeviceExternalSemaphoreInfo::default()
            .handle_type(handle_type)
            .push_next(&mut timeline);
        let mut props = vk::ExternalSemaphoreProperties::default();
        // SAFETY: a query on the device's own physical device.
        unsafe {
            instance.get_physical_device_external_semaphore_properties(
                hal.raw_physical_device(),
                &query,
                &mut props,
            )
        };
        if !props
            .external_semaphore_features
            .contains(vk::ExternalSemaphoreFeatureFlags::EXPORTABLE)
        {
            return Err(Error::unsupported(
                "this Vulkan driver does not export timeline semaphores",
            ));
        }
        let mut timeline = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(0);
        let mut export = vk::ExportSemaphoreCreateInfo::default().handle_types(handle_type);
        let info = vk::SemaphoreCreateInfo::default()
            .push_next(&mut timeline)
            .push_next(&mut export);
        // SAFETY: a valid create info on the device's own raw handle.
        let semaphore = unsafe { raw.create_semaphore(&info, None) }
            .map_err(|e| Error::Gpu(format!("creating a shared semaphore: {e}")))?;
        let fd_api = ash::khr::external_semaphore_fd::Device::new(instance, raw);
        let get = vk::SemaphoreGetFdInfoKHR::default()
            .semaphore(semaphore)
            .handle_type(handle_type);
        // SAFETY: our new semaphore, exportable as asked.
        let fd = match unsafe { fd_api.get_semaphore_fd(&get) } {
            // SAFETY: a new descriptor the driver gave us to own.
            Ok(fd) if fd >= 0 => unsafe { OwnedFd::from_raw_fd(fd) },
            other => {
                // SAFETY: our semaphore, never used.
                unsafe { raw.destroy_semaphore(semaphore, None) };
                return Err(Error::Gpu(format!(
                    "exporting a shared semaphore: {}",
                    other
                        .err()
                        .map_or("no descriptor".into(), |e| e.to_string())
                )));
            }
        };
        Ok(ExportedSemaphore {
            raw: semaphore,
            device: raw.clone(),
            fd: Some(fd),
        })
    }

    /// Submits `commands` to wait on the GPU until `semaphore` reaches `wait`, and to set it to
    /// `signal` when they are done; returns without waiting. The two semaphore operations are
    /// staged on the queue for its next submission, this one: nothing else may submit to this
    /// device between (`submit_lock`).
    pub(crate) fn submit_between(
        &self,
        commands: wgpu::CommandBuffer,
        semaphore: &ExportedSemaphore,
        wait: u64,
        signal: u64,
    ) -> Result<()> {
        let _only = self
            .submit_lock
            .lock()
            .map_err(|_| Error::Gpu("submission lock poisoned".into()))?;
        {
            // SAFETY: staging operations on our semaphore, consumed by the submission below
            let hal = unsafe { self.queue.as_hal::<Vulkan>() }
                .ok_or_else(|| Error::unsupported("semaphore sharing needs a Vulkan device"))?;
            hal.add_wait_semaphore(
                semaphore.raw,
                Some(wait),
                vk::PipelineStageFlags::ALL_COMMANDS,
            );
            hal.add_signal_semaphore(semaphore.raw, Some(signal));
        }
        self.scoped(|| self.queue.submit([commands]))?;
        // retire what earlier runs finished, without waiting
        let _ = self.device.poll(wgpu::PollType::Poll);
        Ok(())
    }
}
