//! Kernels and per-node recording. A filter's GPU side records `Cmd`s (dispatches, buffer
//! clears, buffer-to-texture copies) into a `NodeRecorder`; the executor later plays the
//! dispatches into one compute pass per node, so each node can carry its own timestamp pair,
//! with the clears before that pass and the copies after it.

use std::sync::Arc;

use crate::error::Result;
use crate::runtime::Gpu;
use crate::value::ValueDesc;

/// Code shared by all kernels (pixel packing helpers, luma).
pub const COMMON_WGSL: &str = include_str!("common.wgsl");
/// Integer/float conversions behind neutral names (`unorm_unpack`, `bytes_f32`, ...), so a
/// device-specific set can replace the built-ins. A bit-trick set (bytes OR'd into the
/// mantissa of 2^23) was measured on the H200 and gained nothing (run 9): NVIDIA's int-to-float
/// conversions are not the bottleneck they were suspected to be (docs/perf-notes.md).
pub const CONV_WGSL: &str = include_str!("conv_builtin.wgsl");
/// Buffer-to-texture copy kernel of `NodeRecorder::rgba8_texture`.
const TO_TEXTURE_WGSL: &str = include_str!("to_texture.wgsl");

/// A compute kernel: WGSL sources concatenated after `common.wgsl`, and an entry point.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// Cache key; must be unique per distinct source.
    pub key: String,
    /// WGSL sources, appended after `common.wgsl` in order.
    pub sources: Vec<&'static str>,
    /// The entry point.
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
        Self {
            key: key.to_string(),
            sources: sources.to_vec(),
            entry,
            generated: None,
            checks: None,
            zero_init_workgroup: true,
        }
    }
    /// The whole module: the shared helpers, `sources`, `generated`; `enable` directives
    /// (e.g. `enable f16;`) from any part are moved to the top, where WGSL requires them.
    pub(crate) fn source(&self) -> String {
        let mut body = String::from(COMMON_WGSL);
        body.push('\n');
        body.push_str(CONV_WGSL);
        for part in self
            .sources
            .iter()
            .copied()
            .chain(self.generated.as_deref())
        {
            body.push('\n');
            body.push_str(part);
        }
        if !body.contains("enable ") {
            return body;
        }
        let (mut head, mut rest) = (String::new(), String::with_capacity(body.len()));
        for line in body.lines() {
            let t = line.trim_start();
            let out = if t.starts_with("enable ") && t.ends_with(';') {
                &mut head
            } else {
                &mut rest
            };
            out.push_str(line);
            out.push('\n');
        }
        head + &rest
    }
}

/// A value's buffer on the GPU.
#[derive(Clone, Debug)]
pub struct GpuSlot {
    /// The buffer.
    pub buffer: Arc<wgpu::Buffer>,
    /// What the buffer holds.
    pub desc: ValueDesc,
}

/// One recorded GPU command.
pub(crate) enum Cmd {
    /// Zero a buffer (encoded before the node's compute pass).
    Clear(Arc<wgpu::Buffer>),
    /// A dispatch with its bind group.
    Dispatch {
        pipeline: Arc<wgpu::ComputePipeline>,
        bind_group: wgpu::BindGroup,
        groups: [u32; 3],
    },
    /// Copy rows of `bytes_per_row` from a buffer into a texture's first mip level and layer,
    /// all of it (encoded after the node's pass).
    CopyToTexture {
        buffer: Arc<wgpu::Buffer>,
        bytes_per_row: u32,
        texture: wgpu::Texture,
    },
}

/// Collects one node's commands and its temporary buffers.
pub struct NodeRecorder<'a> {
    pub(crate) gpu: &'a Gpu,
    pub(crate) cmds: Vec<Cmd>,
    pub(crate) temps: Vec<Arc<wgpu::Buffer>>,
    /// Large uploads (`upload_staged`): a kept staging buffer, copied into the buffer beside it
    /// (this many bytes) before the node's pass; back to the device's pool after the run.
    pub(crate) staged: Vec<(crate::runtime::Staged, Arc<wgpu::Buffer>, u64)>,
    /// Where the graph's image lies in a larger one (a tile): per-pixel filters that read
    /// their position use it (`graph::fuse`).
    pub(crate) pixel_window: Option<crate::region::PixelWindow>,
    /// The run's schedule overrides (`RunOptions::schedules`), set by the executor; filters
    /// read them through `schedule`.
    pub(crate) schedules: crate::runtime::schedule::Schedules,
}

impl<'a> NodeRecorder<'a> {
    pub(crate) fn new(gpu: &'a Gpu) -> Self {
        Self {
            gpu,
            cmds: Vec::new(),
            temps: Vec::new(),
            staged: Vec::new(),
            pixel_window: None,
            schedules: Default::default(),
        }
    }

    /// The device (for capability queries such as subgroup support).
    pub fn gpu(&self) -> &Gpu {
        self.gpu
    }

    /// The schedule variant the run's overrides (`RunOptions::schedules`) name for `key` (a
    /// filter's registry name), if any; the last entry for a key wins. `None`: the filter's
    /// measured default.
    pub fn schedule(&self, key: &str) -> Option<&str> {
        self.schedules.get(key)
    }

    /// Puts the recorded staged uploads and buffer clears on `tape` (ahead of the node's
    /// pass). A staged upload's bytes are this run's only: the tape then plays once.
    pub(crate) fn tape_clears(&self, tape: &mut crate::runtime::Tape) {
        for (staged, dst, len) in &self.staged {
            tape.copy_buffer((&staged.buffer, 0), (dst, 0), *len);
            tape.mark_once();
        }
        for c in &self.cmds {
            if let Cmd::Clear(b) = c {
                tape.clear(b);
            }
        }
    }

    /// Whether the node recorded buffer clears or staged uploads (which must be encoded
    /// outside a pass).
    pub fn has_clears(&self) -> bool {
        !self.staged.is_empty() || self.cmds.iter().any(|c| matches!(c, Cmd::Clear(_)))
    }

    /// Whether the node recorded buffer-to-texture copies (which must be encoded outside a
    /// pass, after its dispatches: `encode_copies`).
    pub fn has_copies(&self) -> bool {
        self.cmds
            .iter()
            .any(|c| matches!(c, Cmd::CopyToTexture { .. }))
    }

    /// Puts the recorded buffer-to-texture copies on `tape` (after the node's pass).
    pub(crate) fn tape_copies(&self, tape: &mut crate::runtime::Tape) {
        for c in &self.cmds {
            if let Cmd::CopyToTexture {
                buffer,
                bytes_per_row,
                texture,
            } = c
            {
                tape.copy_to_texture(buffer, *bytes_per_row, texture);
            }
        }
    }

    /// A buffer of the run's pool holding `bytes`: large ones go through the device's kept
    /// staging buffers (no buffer made per run; a 4K JPEG's 24 MB of coefficients each
    /// image), copied in before the node's pass; small ones as `upload`.
    pub fn upload_staged(&mut self, label: &str, bytes: &[u8]) -> Result<Arc<wgpu::Buffer>> {
        let write = |mut to: wgpu::WriteOnly<'_, [u8]>| to.copy_from_slice(bytes);
        match self.gpu.stage(bytes.len(), &write) {
            Some(staged) => {
                let dst = self.temp(bytes.len() as u64);
                self.staged.push((staged, dst.clone(), bytes.len() as u64));
                Ok(dst)
            }
            None => self.upload(label, bytes),
        }
    }

    /// The recorded dispatches, in order, for a pass on a tape.
    pub(crate) fn tape_dispatches(
        &self,
    ) -> impl Iterator<Item = crate::runtime::TapeDispatch> + '_ {
        self.cmds.iter().filter_map(|c| match c {
            Cmd::Dispatch {
                pipeline,
                bind_group,
                groups,
            } => Some(crate::runtime::TapeDispatch {
                pipeline: pipeline.clone(),
                bind_group: bind_group.clone(),
                groups: *groups,
            }),
            _ => None,
        })
    }

    /// Plays the recorded dispatches, in order, into `pass`.
    pub fn encode_dispatches(&self, pass: &mut wgpu::ComputePass<'_>) {
        for c in &self.cmds {
            if let Cmd::Dispatch {
                pipeline,
                bind_group,
                groups,
            } = c
            {
                pass.set_pipeline(pipeline);
                pass.set_bind_group(0, bind_group, &[]);
                pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
            }
        }
    }

    /// A scratch storage buffer that lives until the end of this node.
    pub fn temp(&mut self, bytes: u64) -> Arc<wgpu::Buffer> {
        let b = match self.gpu.pool.lock() {
            Ok(mut p) => p.take(&self.gpu.device, bytes),
            Err(_) => Arc::new(self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("texelflow.temp"),
                size: crate::runtime::pool::size_class(bytes),
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })),
        };
        self.temps.push(b.clone());
        b
    }

    /// A read-only storage buffer holding `bytes` (constant data a filter brings, such as a
    /// LUT file's table), padded to a multiple of 16 bytes. Its own buffer, not the pool's:
    /// it is filled at creation, before anything in the submission runs.
    pub fn upload(&mut self, label: &str, bytes: &[u8]) -> Result<Arc<wgpu::Buffer>> {
        let size = (bytes.len() as u64).div_ceil(16).max(1) * 16;
        let b = self.gpu.scoped(|| {
            self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage: wgpu::BufferUsages::STORAGE,
                mapped_at_creation: true,
            })
        })?;
        {
            let mut view = b
                .slice(..)
                .get_mapped_range_mut()
                .map_err(|e| crate::Error::Gpu(e.to_string()))?;
            view.slice(..bytes.len()).copy_from_slice(bytes);
        }
        b.unmap();
        Ok(Arc::new(b))
    }

    /// `upload` once per `owner` (an immutable value, e.g. a parsed LUT): later runs that
    /// record the same owner get the same buffer, so a table is not sent again every frame.
    /// At most `MAX_CONSTANTS` owners are kept per device.
    pub fn upload_cached<T: std::any::Any + Send + Sync>(
        &mut self,
        owner: &Arc<T>,
        label: &str,
        bytes: impl FnOnce() -> Vec<u8>,
    ) -> Result<Arc<wgpu::Buffer>> {
        const MAX_CONSTANTS: usize = 8;
        let key = Arc::as_ptr(owner) as *const () as usize;
        let found = self
            .gpu
            .constants
            .lock()
            .ok()
            .and_then(|c| c.iter().find(|(k, ..)| *k == key).map(|(.., b)| b.clone()));
        if let Some(b) = found {
            return Ok(b);
        }
        let b = self.upload(label, &bytes())?;
        if let Ok(mut c) = self.gpu.constants.lock() {
            if c.len() >= MAX_CONSTANTS {
                c.remove(0);
            }
            let keep: Arc<dyn std::any::Any + Send + Sync> = owner.clone();
            c.push((key, keep, b.clone()));
        }
        Ok(b)
    }

    /// Copies `buffer` into all of `texture`'s first mip level and layer after the node's
    /// dispatches ran (so a kernel of the node can fill the buffer first): rows of
    /// `bytes_per_row` bytes, a multiple of 256 (`wgpu::COPY_BYTES_PER_ROW_ALIGNMENT`), in the
    /// texture's own texel layout. For formats a kernel cannot store to (r8unorm is no
    /// storage-texture format). An error where the texture lacks `COPY_DST` usage, has a block
    /// size other than one texel, the rows are misaligned or too short, or the buffer too small.
    pub fn copy_buffer_to_texture(
        &mut self,
        buffer: &Arc<wgpu::Buffer>,
        bytes_per_row: u32,
        texture: &wgpu::Texture,
    ) -> Result<()> {
        if !texture.usage().contains(wgpu::TextureUsages::COPY_DST) {
            return Err(crate::Error::invalid(
                "the texture needs COPY_DST usage for texelflow to copy into it",
            ));
        }
        let format = texture.format();
        let texel = match (format.block_dimensions(), format.block_copy_size(None)) {
            ((1, 1), Some(b)) => b,
            _ => {
                return Err(crate::Error::unsupported(format!(
                    "a copy into a {format:?} texture (texelflow copies into uncompressed colour textures)"
                )))
            }
        };
        let (w, h) = (u64::from(texture.width()), u64::from(texture.height()));
        let row = u64::from(bytes_per_row);
        if row % u64::from(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) != 0 || row < w * u64::from(texel) {
            return Err(crate::Error::invalid(format!(
                "rows of {row} bytes for a {w}-texel-wide {format:?} texture (a multiple of 256, at least a row)"
            )));
        }
        let need = row * h.saturating_sub(1) + w * u64::from(texel);
        if buffer.size() < need {
            return Err(crate::Error::invalid(format!(
                "a buffer of {} bytes copied into a texture that takes {need}",
                buffer.size()
            )));
        }
        self.cmds.push(Cmd::CopyToTexture {
            buffer: buffer.clone(),
            bytes_per_row,
            texture: texture.clone(),
        });
        Ok(())
    }

    /// Zeroes `buffer` before the node's dispatches run.
    pub fn clear(&mut self, buffer: &Arc<wgpu::Buffer>) {
        self.cmds.push(Cmd::Clear(buffer.clone()));
    }

    /// `dispatch` for kernels that write every workgroup variable before reading it: skips
    /// the zero-initialisation of workgroup memory that WGSL otherwise requires.
    pub fn dispatch_uninit(
        &mut self,
        kernel: &Kernel,
        buffers: &[&wgpu::Buffer],
        uniform: &[u8],
        groups: [u32; 3],
    ) -> Result<()> {
        let k = Kernel {
            zero_init_workgroup: false,
            ..kernel.clone()
        };
        self.dispatch(&k, buffers, uniform, groups)
    }

    /// Records a dispatch. Bindings are `buffers` in order at 0..n, then, if `uniform` is not
    /// empty, a uniform buffer at binding n. Every binding must be used by the kernel. The
    /// bind group holds its buffers, so nothing here must outlive the call.
    pub fn dispatch(
        &mut self,
        kernel: &Kernel,
        buffers: &[&wgpu::Buffer],
        uniform: &[u8],
        groups: [u32; 3],
    ) -> Result<()> {
        let binds: Vec<Bind<'_>> = buffers.iter().map(|b| Bind::Buffer(b)).collect();
        self.dispatch_binds(kernel, &binds, uniform, groups)
    }

    /// `dispatch` with textures and samplers among the bindings (0..n in order, then the uniform).
    pub(crate) fn dispatch_binds(
        &mut self,
        kernel: &Kernel,
        binds: &[Bind<'_>],
        uniform: &[u8],
        groups: [u32; 3],
    ) -> Result<()> {
        let pipeline = self.gpu.pipeline(kernel, || kernel.source())?;
        let layout = pipeline.get_bind_group_layout(0);
        let mut entries: Vec<wgpu::BindGroupEntry> = binds
            .iter()
            .enumerate()
            .map(|(i, b)| wgpu::BindGroupEntry {
                binding: i as u32,
                resource: match b {
                    Bind::Buffer(b) => b.as_entire_binding(),
                    Bind::Texture(v) => wgpu::BindingResource::TextureView(v),
                    Bind::Sampler(s) => wgpu::BindingResource::Sampler(s),
                },
            })
            .collect();
        let ubuf = if uniform.is_empty() {
            None
        } else {
            let size = (uniform.len() as u64).div_ceil(16) * 16;
            let b = self.gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("texelflow.uniform"),
                size,
                usage: wgpu::BufferUsages::UNIFORM,
                mapped_at_creation: true,
            });
            {
                let mut view = b
                    .slice(..)
                    .get_mapped_range_mut()
                    .map_err(|e| crate::Error::Gpu(e.to_string()))?;
                view.slice(..uniform.len()).copy_from_slice(uniform);
            }
            b.unmap();
            Some(b)
        };
        if let Some(b) = &ubuf {
            entries.push(wgpu::BindGroupEntry {
                binding: binds.len() as u32,
                resource: b.as_entire_binding(),
            });
        }
        let bind_group = self.gpu.scoped(|| {
            self.gpu
                .device
                .create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some(&kernel.key),
                    layout: &layout,
                    entries: &entries,
                })
        })?;
        if groups.iter().all(|&g| g > 0) {
            self.cmds.push(Cmd::Dispatch {
                pipeline,
                bind_group,
                groups,
            });
        }
        Ok(())
    }

    /// A scratch RGBA8 (unorm) texture of `width` x `height` that kernels write as a storage
    /// texture and later ones sample with the hardware's filtering (seed 004's third way).
    /// Not pooled; the bind groups that use it keep it alive. Fails past the device's 2-D
    /// texture limit, so callers check `Gpu::max_texture_side` first.
    pub fn temp_texture(&mut self, width: u32, height: u32) -> Result<wgpu::TextureView> {
        let t = self.gpu.scoped(|| {
            self.gpu.device.create_texture(&wgpu::TextureDescriptor {
                label: Some("texelflow.temp_texture"),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba8Unorm,
                usage: wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::TEXTURE_BINDING,
                view_formats: &[],
            })
        })?;
        Ok(t.create_view(&Default::default()))
    }

    /// A `temp_texture` holding the packed RGBA8 image in `src` (`width` x `height`), filled by
    /// a dispatch recorded here; later dispatches of the node may sample it.
    pub fn rgba8_texture(
        &mut self,
        src: &wgpu::Buffer,
        width: u32,
        height: u32,
    ) -> Result<wgpu::TextureView> {
        let max = self.gpu.max_texture_side();
        if width > max || height > max {
            return Err(crate::Error::unsupported(format!(
                "a {width}x{height} texture exceeds the device's {max}x{max}"
            )));
        }
        let view = self.temp_texture(width, height)?;
        let kernel = Kernel::new("runtime.to_texture", &[TO_TEXTURE_WGSL], "to_texture");
        let uniform: [u32; 4] = [width, height, 0, 0];
        self.dispatch_binds(
            &kernel,
            &[Bind::Buffer(src), Bind::Texture(&view)],
            bytemuck::cast_slice(&uniform),
            groups_2d(width, height, 16, 16),
        )?;
        Ok(view)
    }
}

/// One binding of a dispatch.
pub(crate) enum Bind<'a> {
    Buffer(&'a wgpu::Buffer),
    Texture(&'a wgpu::TextureView),
    Sampler(&'a wgpu::Sampler),
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

/// For unit tests that run one kernel on raw buffers.
#[cfg(test)]
pub(crate) mod test_support {
    use super::*;
    use crate::runtime::GpuOptions;

    /// The test GPU (`TEXELFLOW_TEST_BACKEND`, default Vulkan); panics when there is none.
    pub(crate) fn gpu() -> std::sync::Arc<Gpu> {
        match Gpu::new(&GpuOptions {
            backend: Some(
                std::env::var("TEXELFLOW_TEST_BACKEND").unwrap_or_else(|_| "vulkan".into()),
            ),
            adapter: None,
            ..Default::default()
        }) {
            Ok(g) => g,
            Err(e) => panic!(
                "GPU tests need a Vulkan adapter (install mesa-vulkan-drivers for lavapipe): {e}"
            ),
        }
    }

    /// Runs `kernel` once with `input` at binding 0, a zeroed output of `out_bytes` at
    /// binding 1 and `uniform` (if not empty) at binding 2; returns the output.
    pub(crate) fn run_once(
        gpu: &Gpu,
        kernel: &Kernel,
        input: &[u8],
        out_bytes: u64,
        uniform: &[u8],
        groups: [u32; 3],
    ) -> Vec<u8> {
        let dev = &gpu.device;
        let src = dev.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: input.len() as u64,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: true,
        });
        src.slice(..)
            .get_mapped_range_mut()
            .expect("mapped at creation")
            .copy_from_slice(input);
        src.unmap();
        let dst = dev.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: out_bytes,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let mut rec = NodeRecorder::new(gpu);
        rec.dispatch(kernel, &[&src, &dst], uniform, groups)
            .expect("dispatch");
        let mut enc = dev.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            rec.encode_dispatches(&mut pass);
        }
        let staging = gpu.read_buffers(&mut enc, &[(&dst, out_bytes)]);
        gpu.queue.submit([enc.finish()]);
        gpu.map_all(&staging).expect("map").swap_remove(0)
    }
}

#[cfg(test)]
mod tests {
    //! The conversion helpers, bit for bit: the equivalence matrix's 1/255 tolerance would
    //! hide an off-by-one rounding, so they are checked exactly here.
    use super::*;

    const PROBE: &str = "
@group(0) @binding(0) var<storage, read> vals: array<f32>;
@group(0) @binding(1) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    let i = g.x;
    if (i >= arrayLength(&vals)) { return; }
    let f = vals[i];
    out[4u * i] = unorm_pack(vec4<f32>(f, 0.0, 1.0, f)) ;
    out[4u * i + 1u] = floor_u32(vec4<f32>(abs(f) * 1000.0)).x;
    let b = i & 255u;
    out[4u * i + 2u] = bitcast<u32>(bytes_f32(b * 0x01010101u).y);
    out[4u * i + 3u] = bitcast<u32>(small_f32(vec4<u32>(i * 977u)).z);
}";

    fn run(gpu: &Gpu, vals: &[f32]) -> Vec<u32> {
        let k = Kernel::new("test.conv", &[PROBE], "main");
        let out = test_support::run_once(
            gpu,
            &k,
            bytemuck::cast_slice(vals),
            (vals.len() * 16) as u64,
            &[],
            [(vals.len() as u32).div_ceil(64), 1, 1],
        );
        bytemuck::cast_slice(&out).to_vec()
    }

    #[test]
    fn conversion_helpers_are_exact_in_both_variants() {
        let gpu = test_support::gpu();
        // every byte's unorm value, its exact rounding ties (k + 0.5) / 255, neighbours of
        // both, out-of-range values, and plain fractions for floor
        let mut vals: Vec<f32> = Vec::new();
        for k in 0..256 {
            let tie = (k as f32 + 0.5) / 255.0;
            vals.extend([
                k as f32 / 255.0,
                tie,
                f32::from_bits(tie.to_bits() + 1),
                f32::from_bits(tie.to_bits() - 1),
                k as f32 * 0.0123 + 0.0005,
                k as f32 * 0.5,
            ]);
        }
        vals.extend([-1.0, -0.0, 1.0, 1.5, 2.0, 4000.0, 0.0005, 0.0015, 0.0025]);
        let expect = |i: usize, f: f32| -> [u32; 4] {
            let q = |x: f32| (0.5 + 255.0 * x.clamp(0.0, 1.0)).floor() as u32;
            let b = (i & 255) as f32;
            [
                q(f) | (q(0.0) << 8) | (q(1.0) << 16) | (q(f) << 24),
                (f.abs() * 1000.0).floor() as u32,
                b.to_bits(),
                ((i * 977) as f32).to_bits(),
            ]
        };
        {
            let got = run(&gpu, &vals);
            let mut bad = Vec::new();
            for (i, &f) in vals.iter().enumerate() {
                let e = expect(i, f);
                let g = &got[4 * i..4 * i + 4];
                // unorm_pack: the product 255 * x may round either way at a tie in f32
                // (fused or not); accept exactly those two roundings of a tie and nothing else
                // unorm_pack: 0.5 + 255 * x may be rounded once (fused) or twice; where that
                // real value is within 1e-4 of an integer either floor is right, elsewhere
                // only the exact one
                let near_tie = {
                    let r = 0.5 + 255.0 * (f as f64).clamp(0.0, 1.0);
                    (r - r.round()).abs() < 1e-4
                };
                let pack_ok = g[0] == e[0]
                    || (near_tie
                        && [0, 24]
                            .iter()
                            .all(|&s| ((g[0] >> s) & 255).abs_diff((e[0] >> s) & 255) <= 1)
                        && (g[0] >> 8) & 0xFFFF == (e[0] >> 8) & 0xFFFF);
                if !pack_ok || g[1..] != e[1..] {
                    bad.push(format!("{f:e}: got {g:?} want {e:?}"));
                }
            }
            assert!(
                bad.is_empty(),
                "{} wrong, e.g. {:?}",
                bad.len(),
                &bad[..bad.len().min(5)]
            );
        }
    }
}
