//! Kernels and per-node recording. A filter's GPU side records `Cmd`s (dispatches and
//! buffer clears) into a `NodeRecorder`; the executor later plays them into one compute
//! pass per node, so each node can carry its own timestamp pair.

use std::sync::Arc;

use crate::error::Result;
use crate::runtime::Gpu;
use crate::value::ValueDesc;

/// Code shared by all kernels (pixel packing helpers, luma).
pub const COMMON_WGSL: &str = include_str!("../filters/common.wgsl");

/// A compute kernel: WGSL sources concatenated after `common.wgsl`, and an entry point.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// Cache key; must be unique per distinct source.
    pub key: String,
    pub sources: Vec<&'static str>,
    pub entry: &'static str,
    /// Source generated at run time (fused per-pixel chains); appended after `sources`.
    pub generated: Option<String>,
    /// wgpu's shader runtime checks; `None` is the device's policy (`Gpu::runtime_checks`).
    pub checks: Option<wgpu::ShaderRuntimeChecks>,
    /// WGSL zero-initialises workgroup memory unless this is false (only for kernels that
    /// write every workgroup variable before reading it).
    pub zero_init_workgroup: bool,
}

impl Kernel {
    /// A kernel from static WGSL files.
    pub fn new(key: &str, sources: &[&'static str], entry: &'static str) -> Self {
        Self { key: key.to_string(), sources: sources.to_vec(), entry, generated: None, checks: None, zero_init_workgroup: true }
    }
    fn source(&self) -> String {
        let mut s = String::from(COMMON_WGSL);
        for part in &self.sources {
            s.push('\n');
            s.push_str(part);
        }
        if let Some(g) = &self.generated {
            s.push('\n');
            s.push_str(g);
        }
        s
    }
}

/// A value's buffer on the GPU.
#[derive(Clone, Debug)]
pub struct GpuSlot {
    pub buffer: Arc<wgpu::Buffer>,
    pub desc: ValueDesc,
}

/// One recorded GPU command.
pub enum Cmd {
    /// Zero a buffer (encoded before the node's compute pass).
    Clear(Arc<wgpu::Buffer>),
    /// A dispatch with its bind group.
    Dispatch { pipeline: Arc<wgpu::ComputePipeline>, bind_group: wgpu::BindGroup, groups: [u32; 3] },
}

/// Collects one node's commands and its temporary buffers.
pub struct NodeRecorder<'a> {
    pub(crate) gpu: &'a Gpu,
    pub(crate) cmds: Vec<Cmd>,
    pub(crate) temps: Vec<Arc<wgpu::Buffer>>,
}

impl<'a> NodeRecorder<'a> {
    pub(crate) fn new(gpu: &'a Gpu) -> Self {
        Self { gpu, cmds: Vec::new(), temps: Vec::new() }
    }

    /// The device (for capability queries such as subgroup support).
    pub fn gpu(&self) -> &Gpu {
        self.gpu
    }

    /// A scratch storage buffer that lives until the end of this node.
    pub fn temp(&mut self, bytes: u64) -> Arc<wgpu::Buffer> {
        let b = match self.gpu.pool.lock() {
            Ok(mut p) => p.take(&self.gpu.device, bytes),
            Err(_) => Arc::new(self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("pixelflow.temp"),
                size: crate::runtime::pool::size_class(bytes),
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })),
        };
        self.temps.push(b.clone());
        b
    }

    /// Zeroes `buffer` before the node's dispatches run.
    pub fn clear(&mut self, buffer: &Arc<wgpu::Buffer>) {
        self.cmds.push(Cmd::Clear(buffer.clone()));
    }

    /// `dispatch` for kernels that write every workgroup variable before reading it: skips
    /// the zero-initialisation of workgroup memory that WGSL otherwise requires.
    pub fn dispatch_uninit(&mut self, kernel: &Kernel, buffers: &[&wgpu::Buffer], uniform: &[u8], groups: [u32; 3]) -> Result<()> {
        let k = Kernel { zero_init_workgroup: false, ..kernel.clone() };
        self.dispatch(&k, buffers, uniform, groups)
    }

    /// Records a dispatch. Bindings are `buffers` in order at 0..n, then, if `uniform` is not
    /// empty, a uniform buffer at binding n. Every binding must be used by the kernel. The
    /// bind group holds its buffers, so nothing here must outlive the call.
    pub fn dispatch(&mut self, kernel: &Kernel, buffers: &[&wgpu::Buffer], uniform: &[u8], groups: [u32; 3]) -> Result<()> {
        let pipeline = self.gpu.pipeline(kernel, || kernel.source())?;
        let layout = pipeline.get_bind_group_layout(0);
        let mut entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry { binding: i as u32, resource: b.as_entire_binding() })
            .collect();
        let ubuf = if uniform.is_empty() {
            None
        } else {
            let size = (uniform.len() as u64).div_ceil(16) * 16;
            let b = self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("pixelflow.uniform"),
                size,
                usage: wgpu::BufferUsages::UNIFORM,
                mapped_at_creation: true,
            });
            {
                let mut view = b.slice(..).get_mapped_range_mut().map_err(|e| crate::Error::Gpu(e.to_string()))?;
                view.slice(..uniform.len()).copy_from_slice(uniform);
            }
            b.unmap();
            Some(b)
        };
        if let Some(b) = &ubuf {
            entries.push(wgpu::BindGroupEntry { binding: buffers.len() as u32, resource: b.as_entire_binding() });
        }
        let bind_group = self.gpu.scoped(|| {
            self.gpu.device.create_bind_group(&wgpu::BindGroupDescriptor { label: Some(&kernel.key), layout: &layout, entries: &entries })
        })?;
        if groups.iter().all(|&g| g > 0) {
            self.cmds.push(Cmd::Dispatch { pipeline, bind_group, groups });
        }
        Ok(())
    }
}

/// Workgroup counts for `n` invocations at `wg` per group, folded into 2-D when the count
/// passes the 65535 limit of one dimension. Kernels recover the linear id with
/// `linear_id()` from `common.wgsl`.
pub fn groups_1d(n: u64, wg: u32) -> [u32; 3] {
    let groups = n.div_ceil(wg as u64).max(1);
    if groups <= 65535 {
        [groups as u32, 1, 1]
    } else {
        let y = groups.div_ceil(65535);
        [groups.div_ceil(y) as u32, y as u32, 1]
    }
}

/// Workgroup counts covering a `width x height` grid with `wx x wy` groups.
pub fn groups_2d(width: u32, height: u32, wx: u32, wy: u32) -> [u32; 3] {
    [width.div_ceil(wx).max(1), height.div_ceil(wy).max(1), 1]
}
