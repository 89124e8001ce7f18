//! Device memory another API on the same GPU can use: storage buffers whose memory Vulkan
//! exports as an opaque file descriptor (`VK_KHR_external_memory_fd`), which CUDA imports
//! (`cuImportExternalMemory`) to read and write the same bytes. That is how the Python
//! bindings take CUDA tensors with no host copy. wgpu has no API for it, so the buffer is
//! made through its Vulkan layer (`wgpu::hal`) and handed to wgpu, which frees it with the
//! `wgpu::Buffer`.

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
