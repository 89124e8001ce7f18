//! The Vulkan driver's own statistics of compiled kernels (register count, shared memory,
//! spills, as the driver names them) through `VK_KHR_pipeline_executable_properties`.
//!
//! Why: several kernels run well below the issue rate their instruction counts allow, and
//! register pressure (fewer warps per SM) is the usual suspect; the driver knows the answer.
//! wgpu neither enables the extension nor exposes its pipelines, so this module opens its own
//! Vulkan device (with `ash`), turns each kernel's WGSL into SPIR-V with naga under the
//! options wgpu's Vulkan backend uses (SPIR-V 1.6 on Vulkan 1.3, the kernel's bounds-check,
//! loop-bounding and workgroup-zeroing choices), builds the compute pipeline with
//! `CAPTURE_STATISTICS` and reads the statistics back. It compiles only; nothing runs. The
//! numbers are the driver's for this SPIR-V, which can differ slightly from wgpu's
//! (descriptor layout, robustness features).

use std::ffi::{CStr, CString};

use ash::vk;

use crate::error::{Error, Result};
use crate::runtime::CompiledKernel;

/// One statistic of one compiled executable, as the driver reports it.
#[derive(Clone, Debug)]
pub struct Statistic {
    /// The driver's name for it.
    pub name: String,
    /// Its value, formatted.
    pub value: String,
}

/// A kernel's statistics (one entry per executable the driver made; one for compute).
#[derive(Clone, Debug)]
pub struct KernelStats {
    /// The kernel's pipeline cache key (`CompiledKernel::key`).
    pub key: String,
    /// Per executable: its name and statistics.
    pub executables: Vec<(String, Vec<Statistic>)>,
}

fn vk_err(what: &str) -> impl Fn(vk::Result) -> Error + '_ {
    move |e| Error::Gpu(format!("driver statistics: {what}: {e}"))
}

/// An own Vulkan device with pipeline executable properties enabled.
pub struct DriverStats {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    pep: ash::khr::pipeline_executable_properties::Device,
    /// Name of the physical device, to check it is the one the benchmark ran on.
    pub device_name: String,
}

impl DriverStats {
    /// Opens the first device whose name contains `adapter` (case-insensitive; any device
    /// when empty) that offers the extension.
    pub fn open(adapter: &str) -> Result<Self> {
        // SAFETY: loading the system's Vulkan loader; every handle below is created and
        // destroyed by this struct.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| Error::Gpu(format!("driver statistics: no Vulkan loader: {e}")))?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let instance = unsafe {
            entry.create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
        }
        .map_err(vk_err("create instance"))?;
        match Self::open_device(&instance, adapter) {
            Ok((device, pep, device_name)) => Ok(Self {
                _entry: entry,
                instance,
                device,
                pep,
                device_name,
            }),
            Err(e) => {
                unsafe { instance.destroy_instance(None) };
                Err(e)
            }
        }
    }

    fn open_device(
        instance: &ash::Instance,
        adapter: &str,
    ) -> Result<(
        ash::Device,
        ash::khr::pipeline_executable_properties::Device,
        String,
    )> {
        let want = adapter.to_lowercase();
        let ext = ash::khr::pipeline_executable_properties::NAME;
        for pd in
            unsafe { instance.enumerate_physical_devices() }.map_err(vk_err("enumerate devices"))?
        {
            let props = unsafe { instance.get_physical_device_properties(pd) };
            let name = props
                .device_name_as_c_str()
                .map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !name.to_lowercase().contains(&want) || props.api_version < vk::API_VERSION_1_3 {
                continue;
            }
            let exts = unsafe { instance.enumerate_device_extension_properties(pd) }
                .map_err(vk_err("device extensions"))?;
            if !exts.iter().any(|e| e.extension_name_as_c_str() == Ok(ext)) {
                continue;
            }
            let Some(family) = unsafe { instance.get_physical_device_queue_family_properties(pd) }
                .iter()
                .position(|q| q.queue_flags.contains(vk::QueueFlags::COMPUTE))
            else {
                continue;
            };
            // Everything the device supports in 1.1-1.3 (f16, 8-bit storage, subgroup size
            // control, ...), so any kernel's SPIR-V capabilities are allowed.
            let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
            let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
            let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
            let mut fpep = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
            let mut f2 = vk::PhysicalDeviceFeatures2::default()
                .push_next(&mut f11)
                .push_next(&mut f12)
                .push_next(&mut f13)
                .push_next(&mut fpep);
            unsafe { instance.get_physical_device_features2(pd, &mut f2) };
            let features = f2.features;
            if fpep.pipeline_executable_info == vk::FALSE {
                continue;
            }
            let mut fpep = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
                .pipeline_executable_info(true);
            f11.p_next = std::ptr::null_mut();
            f12.p_next = std::ptr::null_mut();
            f13.p_next = std::ptr::null_mut();
            let mut enabled = vk::PhysicalDeviceFeatures2::default()
                .features(features)
                .push_next(&mut f11)
                .push_next(&mut f12)
                .push_next(&mut f13)
                .push_next(&mut fpep);
            let prio = [1.0f32];
            let queues = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(family as u32)
                .queue_priorities(&prio)];
            let ext_names = [ext.as_ptr()];
            let info = vk::DeviceCreateInfo::default()
                .queue_create_infos(&queues)
                .enabled_extension_names(&ext_names)
                .push_next(&mut enabled);
            let device = unsafe { instance.create_device(pd, &info, None) }
                .map_err(vk_err("create device"))?;
            let pep = ash::khr::pipeline_executable_properties::Device::new(instance, &device);
            return Ok((device, pep, name));
        }
        Err(Error::Gpu(format!(
            "driver statistics: no Vulkan 1.3 device{} offers VK_KHR_pipeline_executable_properties",
            if adapter.is_empty() { String::new() } else { format!(" named like `{adapter}`") }
        )))
    }

    /// Compiles `k` and reads the driver's statistics.
    pub fn kernel(&self, k: &CompiledKernel) -> Result<KernelStats> {
        let module = naga::front::wgsl::parse_str(&k.source)
            .map_err(|e| Error::Gpu(format!("driver statistics: parsing `{}`: {e}", k.key)))?;
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .map_err(|e| Error::Gpu(format!("driver statistics: validating `{}`: {e}", k.key)))?;
        let checked = k.checks.bounds_checks;
        let policy = if checked {
            naga::proc::BoundsCheckPolicy::Restrict
        } else {
            naga::proc::BoundsCheckPolicy::Unchecked
        };
        let options = naga::back::spv::Options {
            lang_version: (1, 6),
            bounds_check_policies: naga::proc::BoundsCheckPolicies {
                index: policy,
                // wgpu leaves buffer accesses to robustBufferAccess2 where the device has it
                // (NVIDIA does), as here
                buffer: naga::proc::BoundsCheckPolicy::Unchecked,
                image_load: policy,
                binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
            },
            zero_initialize_workgroup_memory: if k.zero_init_workgroup {
                naga::back::spv::ZeroInitializeWorkgroupMemoryMode::Native
            } else {
                naga::back::spv::ZeroInitializeWorkgroupMemoryMode::None
            },
            force_loop_bounding: k.checks.force_loop_bounding,
            emit_int_div_checks: k.checks.int_div_checks,
            ..Default::default()
        };
        let pipeline_options = naga::back::spv::PipelineOptions {
            shader_stage: naga::ShaderStage::Compute,
            entry_point: k.entry.to_string(),
        };
        let words = naga::back::spv::write_vec(&module, &info, &options, Some(&pipeline_options))
            .map_err(|e| {
            Error::Gpu(format!("driver statistics: SPIR-V for `{}`: {e}", k.key))
        })?;

        // descriptor set layouts from the module's bindings (buffers only: our kernels' kind)
        let mut sets: Vec<Vec<vk::DescriptorSetLayoutBinding>> = Vec::new();
        for (_, var) in module.global_variables.iter() {
            let Some(b) = &var.binding else { continue };
            let ty = match var.space {
                naga::AddressSpace::Uniform => vk::DescriptorType::UNIFORM_BUFFER,
                naga::AddressSpace::Storage { .. } => vk::DescriptorType::STORAGE_BUFFER,
                _ => {
                    return Err(Error::Gpu(format!(
                        "driver statistics: `{}` binds something other than a buffer",
                        k.key
                    )))
                }
            };
            let g = b.group as usize;
            if sets.len() <= g {
                sets.resize(g + 1, Vec::new());
            }
            sets[g].push(
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b.binding)
                    .descriptor_type(ty)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE),
            );
        }
        let d = &self.device;
        let mut set_layouts = Vec::new();
        let mut shader = vk::ShaderModule::null();
        let mut layout = vk::PipelineLayout::null();
        let mut pipeline = vk::Pipeline::null();
        let result = (|| -> Result<KernelStats> {
            for s in &sets {
                set_layouts.push(
                    unsafe {
                        d.create_descriptor_set_layout(
                            &vk::DescriptorSetLayoutCreateInfo::default().bindings(s),
                            None,
                        )
                    }
                    .map_err(vk_err("descriptor set layout"))?,
                );
            }
            shader = unsafe {
                d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)
            }
            .map_err(vk_err("shader module"))?;
            layout = unsafe {
                d.create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts),
                    None,
                )
            }
            .map_err(vk_err("pipeline layout"))?;
            let entry = CString::new(k.entry)
                .map_err(|_| Error::Gpu("driver statistics: entry point name".into()))?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(shader)
                .name(&entry);
            let info = vk::ComputePipelineCreateInfo::default()
                .flags(vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR)
                .stage(stage)
                .layout(layout);
            pipeline =
                unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &[info], None) }
                    .map_err(|(_, e)| vk_err("compute pipeline")(e))?[0];
            let props = unsafe {
                self.pep.get_pipeline_executable_properties(
                    &vk::PipelineInfoKHR::default().pipeline(pipeline),
                )
            }
            .map_err(vk_err("executable properties"))?;
            let mut out = KernelStats {
                key: k.key.clone(),
                executables: Vec::new(),
            };
            for (i, p) in props.iter().enumerate() {
                let exe = vk::PipelineExecutableInfoKHR::default()
                    .pipeline(pipeline)
                    .executable_index(i as u32);
                let stats = unsafe { self.pep.get_pipeline_executable_statistics(&exe) }
                    .map_err(vk_err("executable statistics"))?;
                let list = stats
                    .iter()
                    .map(|s| {
                        let value = match s.format {
                            vk::PipelineExecutableStatisticFormatKHR::BOOL32 => {
                                (unsafe { s.value.b32 } != 0).to_string()
                            }
                            vk::PipelineExecutableStatisticFormatKHR::INT64 => {
                                unsafe { s.value.i64 }.to_string()
                            }
                            vk::PipelineExecutableStatisticFormatKHR::UINT64 => {
                                unsafe { s.value.u64 }.to_string()
                            }
                            vk::PipelineExecutableStatisticFormatKHR::FLOAT64 => {
                                format!("{:.3}", unsafe { s.value.f64 })
                            }
                            _ => "?".into(),
                        };
                        Statistic {
                            name: c_text(s.name_as_c_str()),
                            value,
                        }
                    })
                    .collect();
                out.executables.push((c_text(p.name_as_c_str()), list));
            }
            Ok(out)
        })();
        unsafe {
            d.destroy_pipeline(pipeline, None);
            d.destroy_pipeline_layout(layout, None);
            d.destroy_shader_module(shader, None);
            for l in set_layouts {
                d.destroy_descriptor_set_layout(l, None);
            }
        }
        result
    }
}

fn c_text(c: std::result::Result<&CStr, std::ffi::FromBytesUntilNulError>) -> String {
    c.map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl Drop for DriverStats {
    fn drop(&mut self) {
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a device with the extension (lavapipe has it), a small kernel compiles and reports
    /// at least one statistic; without one, opening fails with a clear error, not a panic.
    #[test]
    fn reports_statistics_or_says_why_not() {
        let k = CompiledKernel {
            key: "test.copy".into(),
            entry: "main",
            source: "@group(0) @binding(0) var<storage, read> a: array<u32>;\n@group(0) @binding(1) var<storage, read_write> b: array<u32>;\n@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) { b[g.x] = a[g.x] + 1u; }\n".into(),
            checks: wgpu::ShaderRuntimeChecks::checked(),
            zero_init_workgroup: true,
        };
        match DriverStats::open("") {
            Ok(ds) => {
                let s = ds.kernel(&k).expect("statistics of a trivial kernel");
                assert_eq!(s.key, "test.copy");
                assert!(
                    s.executables.iter().any(|(_, v)| !v.is_empty()),
                    "no statistics: {s:?}"
                );
            }
            Err(e) => assert!(e.to_string().contains("driver statistics"), "{e}"),
        }
    }
}
