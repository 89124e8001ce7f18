//! Executors. The GPU executor records every node into one command encoder (a compute pass
//! per step, bracketed by timestamp queries when the device has them), submits once and
//! reads back only the requested outputs. The CPU executor runs each filter's reference
//! implementation in the same order.

use crate::runtime::Instant;
use std::collections::HashMap;
use std::sync::Arc;

use super::plan::plan;
use super::sequence::StateStore;
use super::{Graph, NodeKind, TilePolicy};
use crate::error::{Error, Result};
use crate::graph::fuse::record_fused;
use crate::image::Image;
use crate::runtime::{Gpu, GpuOptions, GpuSlot, NodeRecorder, Tape};
use crate::value::{Data, Value, ValueDesc};

/// Where a graph runs.
#[derive(Clone, Debug)]
pub enum Backend {
    /// A GPU device.
    Gpu(Arc<Gpu>),
    /// The CPU reference implementation.
    Cpu,
}

impl Backend {
    /// The GPU `opts` asks for, else the best one, or the CPU reference with a reason: where
    /// there is none, where it cannot be opened, where `opts.cuda_visible_devices` hides
    /// NVIDIA's GPUs, and where the best adapter is a software rasterizer (lavapipe, llvmpipe,
    /// SwiftShader, WARP: slower than the CPU reference) and nothing was asked for (no
    /// `device`, `adapter`, `backend` nor `allow_software`). The rule:
    /// `runtime::device::choose_adapter`.
    pub fn auto(opts: &GpuOptions) -> (Backend, Option<String>) {
        match Self::auto_choice(opts) {
            (b, Ok(c)) if c.index.is_none() => (b, Some(c.reason.to_string())),
            (b, Ok(_)) => (b, None),
            (b, Err(e)) => (
                b,
                Some(format!(
                    "{e}; running on the CPU reference implementation instead"
                )),
            ),
        }
    }

    /// `auto`, with what was chosen and why (`DeviceChoice`: the adapter's index, `None` for
    /// the CPU reference, and the reason), or the error that made it the CPU reference.
    pub fn auto_choice(
        opts: &GpuOptions,
    ) -> (
        Backend,
        std::result::Result<crate::runtime::DeviceChoice, Error>,
    ) {
        match Gpu::open_chosen(opts, true) {
            Ok((Some(g), c)) => (Backend::Gpu(g), Ok(c)),
            Ok((None, c)) => (Backend::Cpu, Ok(c)),
            Err(e) => (Backend::Cpu, Err(e)),
        }
    }

    /// A GPU backend or an error (no fallback).
    pub fn gpu(opts: &GpuOptions) -> Result<Backend> {
        Ok(Backend::Gpu(Gpu::new(opts)?))
    }
    /// Human-readable name.
    pub fn describe(&self) -> String {
        match self {
            Backend::Gpu(g) => {
                let i = g.info();
                format!("{} ({})", i.name, i.backend)
            }
            Backend::Cpu => "CPU reference".into(),
        }
    }
    /// `run`, awaited: the readback is awaited instead of waited for, so a browser (which
    /// cannot block on the GPU) runs graphs too; natively the future polls the device. The
    /// graph runs whole; data outputs that are byte streams (encoded images) are not read
    /// this way yet.
    pub async fn run_async(
        &self,
        graph: &Graph,
        sources: &[(&str, &Image)],
        opts: &RunOptions,
    ) -> Result<RunResult> {
        self.check_run(graph, sources, opts)?;
        if graph.outputs.iter().any(|(_, p)| {
            matches!(
                graph.desc(*p),
                ValueDesc::Data(crate::value::DataKind::Bytes { .. })
            )
        }) {
            return Err(Error::unsupported(
                "an encoded image as a graph's output of an awaited run",
            ));
        }
        let mut result = match self {
            Backend::Gpu(g) => {
                let submitted = submit_gpu(g, graph, sources, opts, None)?;
                finish_gpu_async(graph, submitted).await
            }
            Backend::Cpu => run_cpu(graph, sources, opts, None),
        }?;
        result.notes = graph.notes.clone();
        Ok(result)
    }

    /// Executes a graph with its sources bound by name.
    /// A graph with states (`Graph::state`) runs as a sequence's first run: run it through
    /// a `Sequence` to carry values from run to run.
    pub fn run(
        &self,
        graph: &Graph,
        sources: &[(&str, &Image)],
        opts: &RunOptions,
    ) -> Result<RunResult> {
        self.check_run(graph, sources, opts)?;
        let mut result = match self {
            Backend::Gpu(g) => finish_gpu(graph, submit_gpu(g, graph, sources, opts, None)?),
            Backend::Cpu => run_cpu(graph, sources, opts, None),
        }?;
        result.notes = graph.notes.clone();
        Ok(result)
    }

    /// What `run` and `run_async` check before anything runs: the sources bound, the graph
    /// within the limits and runnable on this backend.
    fn check_run(
        &self,
        graph: &Graph,
        sources: &[(&str, &Image)],
        opts: &RunOptions,
    ) -> Result<()> {
        check_sources(graph, sources)?;
        super::check::check_graph(graph, matches!(self, Backend::Cpu), &opts.limits)
    }
}

/// Options of one run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Collect per-node times (GPU timestamps, or wall clock on the CPU).
    pub timings: bool,
    /// Fill every output buffer with a poison pattern first (tests: unwritten pixels show).
    pub poison: bool,
    /// Fuse runs of per-pixel filters into one kernel.
    pub fuse: bool,
    /// How an image too large for the GPU (or its memory budget) is cut: tiles, bands, how
    /// many in flight (`plan_run` reads it).
    pub tiling: TilePolicy,
    /// Schedule overrides, `(filter, variant)`: a filter's kernel variant instead of its
    /// measured default (the bench and the tests run the others; the CLI maps
    /// `TEXELFLOW_SCHEDULE=gaussian_blur=sweep,...`). One list for the whole run, its tiles
    /// and bands included: every node's recorder carries it (`NodeRecorder::schedule`), and
    /// where a filter is named more than once the last entry wins. The CPU twins have no
    /// schedules and ignore it; an unknown variant fails the GPU run when it is recorded.
    pub schedules: Vec<(String, String)>,
    /// Most per-pixel filters fused into one kernel (`None`: the measured default, 16).
    pub max_fused: Option<usize>,
    /// Strips a large source is uploaded in (`None`: the measured default; 1: one copy).
    pub upload_strips: Option<u32>,
    /// Tests of failure handling: the step holding the node of this label fails as if the
    /// device ran out of memory.
    pub inject_gpu_fault: Option<String>,
    /// Most pixels an image of the run may have, host memory it may take, filter nodes
    /// (`crate::limits`); checked before anything is allocated.
    pub limits: crate::limits::Limits,
    /// Shrink-on-load (issue 30; on by default): where the pipeline begins with a resize that
    /// shrinks by 2 or more in both axes to a size that does not depend on the input's
    /// (`shrink_on_load_size`), `io::apply_file` decodes a JPEG at the DCT scale (1/2, 1/4,
    /// 1/8) that keeps at least that size, and the resize runs from there to the exact size.
    /// The result differs from the full decode + the same resize by the bound stated at
    /// `shrink_on_load_size`. `false` (the CLI's `--no-shrink-on-load`): always the full decode.
    pub shrink_on_load: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            timings: false,
            poison: false,
            fuse: true,
            tiling: TilePolicy::default(),
            schedules: Vec::new(),
            max_fused: None,
            upload_strips: None,
            inject_gpu_fault: None,
            limits: crate::limits::Limits::default(),
            shrink_on_load: true,
        }
    }
}

/// Time spent in one step (a node, or a fused run of nodes joined by `+`).
#[derive(Clone, Debug)]
pub struct NodeTiming {
    /// The node's label, or fused nodes' labels joined by `+`.
    pub label: String,
    /// Time in ms.
    pub ms: f64,
}

/// Named outputs, optional timings, and the graph's notes.
#[derive(Debug)]
pub struct RunResult {
    /// Output values by name.
    pub outputs: Vec<(String, Value)>,
    /// Per-step times, with `RunOptions::timings`.
    pub timings: Vec<NodeTiming>,
    /// Where a GPU run's wall time went on the host (zero on the CPU backend).
    pub host: HostTimes,
    /// What the graph's builder changed that the user should know (`Graph::note`), e.g. a
    /// 16-bit image narrowed to 8 bits before a filter that takes 8-bit images only.
    pub notes: Vec<String>,
}

/// A GPU run's host-side wall times, ms: copying the inputs into staging memory, recording
/// the commands (kernel compiles included on first use), submitting and waiting for the GPU
/// (uploads, kernels, the copies to readback memory), mapping and copying the outputs out.
#[derive(Clone, Copy, Debug, Default)]
pub struct HostTimes {
    /// Copying the inputs into staging memory.
    pub upload_ms: f64,
    /// Recording the commands (first-use kernel compiles included).
    pub record_ms: f64,
    /// Submitting and waiting for the GPU.
    pub wait_ms: f64,
    /// Mapping and copying the outputs out.
    pub readback_ms: f64,
}

impl RunResult {
    /// The output named `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.outputs.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
    /// Removes and returns the output named `name`.
    pub fn take(&mut self, name: &str) -> Option<Value> {
        let i = self.outputs.iter().position(|(n, _)| n == name)?;
        Some(self.outputs.remove(i).1)
    }
}

pub(crate) fn check_sources(graph: &Graph, sources: &[(&str, &Image)]) -> Result<()> {
    for (name, node) in graph.sources() {
        let img = sources
            .iter()
            .find(|(n, _)| *n == name)
            .ok_or_else(|| {
                Error::Graph(crate::GraphError::SourceNotImage {
                    name: name.to_string(),
                })
            })?
            .1;
        let want = graph.nodes[node].outputs[0];
        if ValueDesc::Image(img.desc()) != want {
            return Err(Error::Graph(crate::GraphError::SourceMismatch {
                name: name.to_string(),
                declared: want.to_string(),
                got: img.desc().to_string(),
            }));
        }
    }
    if graph.outputs.is_empty() {
        return Err(Error::Graph(crate::GraphError::NoOutputs));
    }
    Ok(())
}

/// The CPU executor; with `store`, states take the values carried from the previous run and
/// the feeds' values are carried into the next.
pub(crate) fn run_cpu(
    graph: &Graph,
    sources: &[(&str, &Image)],
    opts: &RunOptions,
    mut store: Option<&mut StateStore>,
) -> Result<RunResult> {
    graph.check_states()?;
    if let Some(st) = store.as_deref_mut() {
        st.prepare(graph);
    }
    let mut values: HashMap<(usize, usize), Value> = HashMap::new();
    let mut timings = Vec::new();
    // each value is dropped after its last reader (memory bounded by what is live, not by the
    // graph's length)
    let mut last_read: HashMap<(usize, usize), usize> = HashMap::new();
    for (i, n) in graph.nodes.iter().enumerate() {
        for p in &n.inputs {
            last_read.insert((p.node, p.output), i);
        }
    }
    for p in graph
        .outputs
        .iter()
        .map(|(_, p)| p)
        .chain(graph.feeds.iter().map(|(_, p)| p))
    {
        last_read.insert((p.node, p.output), usize::MAX);
    }
    for (i, n) in graph.nodes.iter().enumerate() {
        match &n.kind {
            NodeKind::Source { name } => {
                let img = sources
                    .iter()
                    .find(|(s, _)| s == name)
                    .map(|(_, im)| (*im).clone())
                    .ok_or_else(|| {
                        Error::Graph(crate::GraphError::SourceMissing {
                            name: name.to_string(),
                        })
                    })?;
                values.insert((i, 0), Value::Image(img));
            }
            NodeKind::Filter(f) => {
                let t0 = Instant::now();
                let ins: Vec<&Value> = n
                    .inputs
                    .iter()
                    .map(|p| {
                        values
                            .get(&(p.node, p.output))
                            .ok_or_else(|| Error::internal("input not computed"))
                    })
                    .collect::<Result<_>>()?;
                let outs =
                    crate::region::with_window(n.pixel_window, || f.run_cpu(&ins, &n.outputs))?;
                if opts.timings {
                    timings.push(NodeTiming {
                        label: n.label.clone(),
                        ms: t0.elapsed().as_secs_f64() * 1e3,
                    });
                }
                for (k, v) in outs.into_iter().enumerate() {
                    values.insert((i, k), v);
                }
                for p in &n.inputs {
                    if last_read.get(&(p.node, p.output)) == Some(&i) {
                        values.remove(&(p.node, p.output));
                    }
                }
            }
            NodeKind::State => {
                let carried = store.as_deref_mut().and_then(|st| st.cpu.get(&i).cloned());
                let v = match carried {
                    Some(v) => v,
                    None => n
                        .inputs
                        .first()
                        .and_then(|p| values.get(&(p.node, p.output)))
                        .cloned()
                        .ok_or_else(|| {
                            Error::internal("a state's initial value was not computed")
                        })?,
                };
                values.insert((i, 0), v);
            }
        }
    }
    if let Some(st) = store {
        for (state, p) in &graph.feeds {
            let v = values
                .get(&(p.node, p.output))
                .cloned()
                .ok_or_else(|| Error::internal("a state's feed was not computed"))?;
            st.cpu.insert(*state, v);
        }
    }
    let outputs = graph
        .outputs
        .iter()
        .map(|(name, p)| {
            Ok((
                name.clone(),
                values
                    .get(&(p.node, p.output))
                    .cloned()
                    .ok_or_else(|| Error::internal("output not computed"))?,
            ))
        })
        .collect::<Result<_>>()?;
    Ok(RunResult {
        outputs,
        timings,
        host: HostTimes::default(),
        notes: Vec::new(),
    })
}

/// Byte pattern written into outputs before a poisoned run.
pub const POISON: u8 = 0xA5;

/// Buffers of one run. A buffer freed mid-run is reused only by later steps of the same
/// run; everything goes back to the shared pool after the submission completes, so another
/// thread cannot write into a buffer that this submission still uses.
pub(crate) struct RunBuffers<'g> {
    gpu: &'g Gpu,
    free: Vec<Arc<wgpu::Buffer>>,
    /// Buffers never recycled within a run (benchmark sources reused across runs).
    pub(crate) pinned: Vec<Arc<wgpu::Buffer>>,
}

impl<'g> RunBuffers<'g> {
    pub(crate) fn new(gpu: &'g Gpu) -> Self {
        Self {
            gpu,
            free: Vec::new(),
            pinned: Vec::new(),
        }
    }
    pub(crate) fn take(&mut self, bytes: u64) -> Result<Arc<wgpu::Buffer>> {
        let class = crate::runtime::size_class(bytes);
        if let Some(i) = self.free.iter().position(|b| b.size() == class) {
            return Ok(self.free.swap_remove(i));
        }
        Ok(self
            .gpu
            .pool
            .lock()
            .map_err(|_| Error::Gpu("buffer pool poisoned".into()))?
            .take(&self.gpu.device, bytes))
    }
    pub(crate) fn give(&mut self, b: Arc<wgpu::Buffer>) {
        if self.pinned.iter().any(|p| Arc::ptr_eq(p, &b))
            || self.free.iter().any(|p| Arc::ptr_eq(p, &b))
        {
            return;
        }
        self.free.push(b);
    }
    /// Hands every buffer back to the shared pool (after the GPU is done with them).
    pub(crate) fn release(&mut self) {
        if let Ok(mut p) = self.gpu.pool.lock() {
            for b in self.free.drain(..) {
                p.give(b);
            }
        }
    }
}

/// What `encode_steps` leaves behind: live slots (outputs among them) and step labels.
pub(crate) struct Encoded<'g> {
    pub slots: HashMap<(usize, usize), GpuSlot>,
    pub labels: Vec<String>,
    /// Recorders hold uniform buffers and bind groups until submission.
    _recorders: Vec<NodeRecorder<'g>>,
}

/// The buffer of each uploaded source, by `(node, output)`.
type SourceSlots = HashMap<(usize, usize), GpuSlot>;

/// Uploads the sources into buffers from `bufs`, recording the copies of large ones into
/// `encoder` (their staging buffers are returned, for `Gpu::recycle_uploads` after the run).
pub(crate) fn upload_sources(
    gpu: &Gpu,
    graph: &Graph,
    sources: &[(&str, &Image)],
    bufs: &mut RunBuffers<'_>,
    encoder: &mut wgpu::CommandEncoder,
) -> Result<(SourceSlots, Vec<crate::runtime::Staged>)> {
    let mut slots = HashMap::new();
    let mut staged = Vec::new();
    for (name, node) in graph.sources() {
        let img = sources
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, i)| *i)
            .ok_or_else(|| {
                Error::Graph(crate::GraphError::SourceMissing {
                    name: name.to_string(),
                })
            })?;
        let desc = graph.nodes[node].outputs[0];
        let buf = bufs.take(desc.gpu_bytes())?;
        staged.extend(gpu.upload(encoder, &buf, &img.gpu_bytes()));
        slots.insert((node, 0), GpuSlot { buffer: buf, desc });
    }
    Ok((slots, staged))
}

/// Fails with `TooLarge` when a value does not fit one storage binding.
pub(crate) fn check_limits(gpu: &Gpu, budget: Option<u64>, graph: &Graph) -> Result<()> {
    if let Some(budget) = budget {
        let need = graph_gpu_bytes(graph);
        if need > budget {
            let why = super::tile::graph_halo(graph)
                .err()
                .map_or_else(String::new, |w| format!(" and cannot run in tiles: {w}"));
            return Err(Error::Limit(format!(
                "this run needs about {} of GPU memory, more than --max-gpu-memory {}{why}",
                crate::limits::human_bytes(need),
                crate::limits::human_bytes(budget)
            )));
        }
    }
    let limit = gpu.max_binding();
    for n in &graph.nodes {
        for d in &n.outputs {
            let bytes = d.gpu_bytes();
            if bytes > limit {
                let (width, height) = d.image().map_or((0, 0), |i| (i.width, i.height));
                return Err(Error::TooLarge {
                    width,
                    height,
                    bytes,
                    limit,
                });
            }
        }
    }
    Ok(())
}

/// The GPU memory of a run of `graph`, at most: every value's buffer at once.
pub(crate) fn graph_gpu_bytes(graph: &Graph) -> u64 {
    graph
        .nodes
        .iter()
        .flat_map(|n| n.outputs.iter())
        .map(|d| d.gpu_bytes())
        .sum()
}

/// A GPU error of the submission as a whole (a device lost while it ran), naming its steps: the
/// one step, or the first and last of several (the device does not say which one failed).
pub(crate) fn in_submission(e: Error, labels: &[String]) -> Error {
    let step = match labels {
        [] => return e,
        [one] => one.clone(),
        [first, .., last] => format!(
            "{first} … {last}: one of {} steps submitted together",
            labels.len()
        ),
    };
    match e {
        Error::Gpu(_) | Error::DeviceLost(_) => Error::InStep {
            step,
            source: Box::new(e),
        },
        other => other,
    }
}

/// Tests of failure handling (`RunOptions::inject_gpu_fault`, the CLI's
/// `TEXELFLOW_INJECT_GPU_FAULT=<node label>`): the step holding that node fails as if the
/// device ran out of memory.
fn injected_fault<'a>(
    fault: Option<&str>,
    mut labels: impl Iterator<Item = &'a str>,
) -> Result<()> {
    match fault {
        Some(f) if labels.any(|l| l == f) => Err(Error::Gpu(format!(
            "Out of Memory (injected by TEXELFLOW_INJECT_GPU_FAULT={f})"
        ))),
        _ => Ok(()),
    }
}

/// How `encode_steps` lays steps out in compute passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Passes {
    /// One compute pass per step, with timestamp pair `base+2s, base+2s+1` when a query set
    /// is given (per-node timings).
    PerStep,
    /// Consecutive steps share one compute pass (wgpu still orders their dispatches with
    /// barriers); a pass ends only where a step needs commands outside a pass first (buffer
    /// clears, poison fills). With a query set, `base` is written at the start of the first
    /// pass and `base+1` at the end of the last: the whole run. Why: a pass boundary between
    /// dependent steps cost ~6.7 us on the H200 (run 22: the 10-node chain's steps sum to
    /// 0.124 of its 0.178 ms, average_luminance_threshold's to 0.039 of 0.046), while
    /// dependent dispatches inside one pass cost nearly nothing (the two-pass dilation and
    /// the decimated Gaussian time no more than their passes alone).
    Merged,
}

/// Records every step of `plan` onto `tape`, in compute passes as `passes` says. `slots`
/// holds the sources on entry; dead values return to `bufs` as soon as their last reader is
/// recorded. A node whose output already lies in a buffer of the caller's
/// (`Filter::output_buffer`, e.g. a graph's input in a wgpu buffer) takes that buffer as its
/// slot and records nothing: no copy of the input.
#[allow(clippy::too_many_arguments)]
pub(crate) fn encode_steps<'g>(
    gpu: &'g Gpu,
    graph: &Graph,
    plan: &super::plan::Plan,
    tape: &mut Tape,
    bufs: &mut RunBuffers<'_>,
    mut slots: HashMap<(usize, usize), GpuSlot>,
    query_set: Option<(&wgpu::QuerySet, u32)>,
    poison: Option<&wgpu::Buffer>,
    passes: Passes,
) -> Result<Encoded<'g>> {
    let mut recorders: Vec<NodeRecorder<'g>> = Vec::new();
    let mut labels = Vec::new();
    // Merged: recorders waiting for the shared pass, and whether a pass was encoded yet
    let mut pending: Vec<usize> = Vec::new();
    let mut began = false;
    let merged_pass = |tape: &mut Tape,
                       recorders: &[NodeRecorder<'g>],
                       pending: &mut Vec<usize>,
                       began: &mut bool,
                       last: bool| {
        if pending.is_empty() && !(last && query_set.is_some()) {
            return;
        }
        let tw = query_set.map(|(q, base)| {
            (
                q.clone(),
                (!*began).then_some(base),
                last.then_some(base + 1),
            )
        });
        let dispatches = pending
            .iter()
            .flat_map(|&i| recorders[i].tape_dispatches())
            .collect();
        tape.pass("texelflow.steps", tw, dispatches);
        pending.clear();
        *began = true;
    };
    // a value read by one node alone, as its first input, where that node gives a buffer of
    // the caller's for it (`Filter::input_buffer`): made there directly
    let mut readers: HashMap<(usize, usize), Vec<(usize, usize)>> = HashMap::new();
    for (i, n) in graph.nodes.iter().enumerate() {
        for (j, p) in n.inputs.iter().enumerate() {
            readers.entry((p.node, p.output)).or_default().push((i, j));
        }
    }
    // never where an input lies (a caller may pass one buffer as both)
    let inputs_at: Vec<&wgpu::Buffer> = graph
        .nodes
        .iter()
        .filter_map(|n| match &n.kind {
            NodeKind::Filter(f) => f.output_buffer(),
            _ => None,
        })
        .collect();
    let made_in = |port: (usize, usize), desc: &ValueDesc| -> Option<Arc<wgpu::Buffer>> {
        if graph
            .outputs
            .iter()
            .any(|(_, p)| (p.node, p.output) == port)
        {
            return None;
        }
        match readers.get(&port).map(Vec::as_slice) {
            Some(&[(r, 0)]) => match &graph.nodes[r].kind {
                NodeKind::Filter(f) => f
                    .input_buffer()
                    .filter(|(b, room)| {
                        crate::runtime::size_class(desc.gpu_bytes()) <= (*room).min(b.size())
                            && !inputs_at.contains(b)
                    })
                    .map(|(b, _)| Arc::new(b.clone())),
                _ => None,
            },
            _ => None,
        }
    };
    // the values whose last reader is each step (linear in the graph, however long)
    let mut dying: Vec<Vec<(usize, usize)>> = vec![Vec::new(); plan.steps.len()];
    for (k, &u) in &plan.last_use {
        if !plan.outputs.contains(k) {
            if let Some(d) = dying.get_mut(u) {
                d.push(*k);
            }
        }
    }
    for (s, step) in plan.steps.iter().enumerate() {
        if passes == Passes::Merged && poison.is_some() {
            merged_pass(tape, &recorders, &mut pending, &mut began, false);
        }
        let last = *step
            .nodes
            .last()
            .ok_or_else(|| Error::internal("empty step"))?;
        let first = step.nodes[0];
        let node = &graph.nodes[last];
        if matches!(node.kind, NodeKind::State) {
            // A state's slot is already in `slots` when it carries last run's value; otherwise
            // (a first run) its initial value is copied in, outside any compute pass.
            if !slots.contains_key(&(last, 0)) {
                let init = node
                    .inputs
                    .first()
                    .and_then(|p| slots.get(&(p.node, p.output)))
                    .cloned()
                    .ok_or_else(|| {
                        Error::internal("a state's initial value was not materialised")
                    })?;
                let desc = node.outputs[0];
                let buf = bufs.take(desc.gpu_bytes())?;
                if passes == Passes::Merged {
                    merged_pass(tape, &recorders, &mut pending, &mut began, false);
                }
                tape.copy_buffer(
                    (&init.buffer, 0),
                    (&buf, 0),
                    init.buffer.size().min(buf.size()),
                );
                slots.insert((last, 0), GpuSlot { buffer: buf, desc });
            }
            if let (Passes::PerStep, Some((q, base))) = (passes, query_set) {
                // an empty pass keeps the timestamp pairs aligned with the steps
                let tw = (
                    q.clone(),
                    Some(base + 2 * s as u32),
                    Some(base + 2 * s as u32 + 1),
                );
                tape.pass(&node.label, Some(tw), Vec::new());
            }
            labels.push(node.label.clone());
            free_dying(&dying, s, &mut slots, bufs);
            continue;
        }
        let label = step
            .nodes
            .iter()
            .map(|&i| graph.nodes[i].label.as_str())
            .collect::<Vec<_>>()
            .join("+");
        // each step's allocations and recording in error scopes of their own: a GPU error (out
        // of memory, validation) names the step it happened in
        let recorded = gpu.scoped(|| -> Result<NodeRecorder<'g>> {
            injected_fault(
                plan.fault.as_deref(),
                step.nodes.iter().map(|&i| graph.nodes[i].label.as_str()),
            )?;
            // the caller's buffer already holds this node's one output: it is the slot
            let given = match &node.kind {
                NodeKind::Filter(f) if step.nodes.len() == 1 && node.outputs.len() == 1 => f
                    .output_buffer()
                    .filter(|b| b.size() >= node.outputs[0].gpu_bytes())
                    .map(|b| Arc::new(b.clone())),
                _ => None,
            };
            if let Some(buffer) = given {
                bufs.pinned.push(buffer.clone());
                let slot = GpuSlot {
                    buffer,
                    desc: node.outputs[0],
                };
                slots.insert((last, 0), slot);
                return Ok(NodeRecorder::new(gpu));
            }
            let mut outs = Vec::new();
            for (k, d) in node.outputs.iter().enumerate() {
                let given = (node.outputs.len() == 1)
                    .then(|| made_in((last, k), d))
                    .flatten();
                let buf = match given {
                    Some(b) => {
                        bufs.pinned.push(b.clone());
                        b
                    }
                    None => {
                        let buf = bufs.take(d.gpu_bytes())?;
                        if let Some(p) = poison {
                            tape.copy_buffer((p, 0), (&buf, 0), buf.size().min(p.size()));
                        }
                        buf
                    }
                };
                let slot = GpuSlot {
                    buffer: buf,
                    desc: *d,
                };
                slots.insert((last, k), slot.clone());
                outs.push(slot);
            }
            let ins: Vec<GpuSlot> = graph.nodes[first]
                .inputs
                .iter()
                .map(|p| {
                    slots
                        .get(&(p.node, p.output))
                        .cloned()
                        .ok_or_else(|| Error::internal("input not materialised"))
                })
                .collect::<Result<_>>()?;
            let mut rec = NodeRecorder::new(gpu);
            // a step's nodes share one window (`plan` fuses none across windows)
            rec.pixel_window = graph.nodes[first].pixel_window;
            rec.schedules = plan.schedules.clone();
            if step.nodes.len() == 1 {
                if let NodeKind::Filter(f) = &node.kind {
                    f.record_gpu(&mut rec, &ins, &outs)?;
                }
            } else {
                let ops: Vec<_> = step
                    .nodes
                    .iter()
                    .filter_map(|&i| match &graph.nodes[i].kind {
                        NodeKind::Filter(f) => f.pixel_op(),
                        NodeKind::Source { .. } | NodeKind::State => None,
                    })
                    .collect();
                // the runs' second images: every node's inputs after its first, in run order
                let with: Vec<GpuSlot> = step
                    .nodes
                    .iter()
                    .flat_map(|&i| graph.nodes[i].inputs.iter().skip(1))
                    .map(|p| {
                        slots
                            .get(&(p.node, p.output))
                            .cloned()
                            .ok_or_else(|| Error::internal("input not materialised"))
                    })
                    .collect::<Result<_>>()?;
                let (Some(src), Some(dst)) = (ins.first(), outs.first()) else {
                    return Err(Error::internal("fused step without input or output"));
                };
                record_fused(&mut rec, &ops, src, &with, dst)?;
            }
            Ok(rec)
        });
        let mut rec = recorded.and_then(|r| r).map_err(|e| Error::InStep {
            step: label.clone(),
            source: Box::new(e),
        })?;
        match passes {
            Passes::PerStep => {
                rec.tape_clears(tape);
                let tw = query_set.map(|(q, base)| {
                    (
                        q.clone(),
                        Some(base + 2 * s as u32),
                        Some(base + 2 * s as u32 + 1),
                    )
                });
                tape.pass(&node.label, tw, rec.tape_dispatches().collect());
                rec.tape_copies(tape);
            }
            Passes::Merged => {
                if rec.has_clears() {
                    merged_pass(tape, &recorders, &mut pending, &mut began, false);
                    rec.tape_clears(tape);
                }
                pending.push(recorders.len());
            }
        }
        labels.push(label);
        // the temporaries go back for later steps: those are encoded after this one's copies
        for t in rec.temps.drain(..) {
            bufs.give(t);
        }
        let copies = rec.has_copies();
        recorders.push(rec);
        if passes == Passes::Merged && copies {
            // a copy reads what the node's dispatches wrote: the shared pass ends first
            merged_pass(tape, &recorders, &mut pending, &mut began, false);
            if let Some(rec) = recorders.last() {
                rec.tape_copies(tape);
            }
        }
        free_dying(&dying, s, &mut slots, bufs);
    }
    if passes == Passes::Merged {
        merged_pass(tape, &recorders, &mut pending, &mut began, true);
    }
    Ok(Encoded {
        slots,
        labels,
        _recorders: recorders,
    })
}

/// Returns to `bufs` the values whose last reader is step `s` (`dying[s]`: not outputs or feeds).
fn free_dying(
    dying: &[Vec<(usize, usize)>],
    s: usize,
    slots: &mut HashMap<(usize, usize), GpuSlot>,
    bufs: &mut RunBuffers<'_>,
) {
    for &k in dying.get(s).into_iter().flatten() {
        if let Some(slot) = slots.remove(&k) {
            bufs.give(slot.buffer);
        }
    }
}

/// Converts resolved timestamp pairs into per-step milliseconds.
pub(crate) fn step_times(gpu: &Gpu, raw: &[u8], labels: Vec<String>) -> Vec<NodeTiming> {
    let period = gpu.queue.get_timestamp_period() as f64;
    let t: Vec<u64> = raw
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();
    labels
        .into_iter()
        .enumerate()
        .filter_map(|(s, label)| {
            Some(NodeTiming {
                label,
                ms: t.get(2 * s + 1)?.saturating_sub(*t.get(2 * s)?) as f64 * period / 1e6,
            })
        })
        .collect()
}

/// A buffer of `POISON` bytes as large as the graph's largest value (poisoned runs copy it
/// over every output first).
pub(crate) fn poison_buffer(gpu: &Gpu, graph: &Graph) -> wgpu::Buffer {
    let max = graph
        .nodes
        .iter()
        .flat_map(|n| n.outputs.iter())
        .map(|d| d.gpu_bytes())
        .max()
        .unwrap_or(16);
    let size = crate::runtime::size_class(max);
    let b = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("texelflow.poison"),
        size,
        usage: wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    gpu.queue.write_buffer(&b, 0, &vec![POISON; size as usize]);
    b
}

/// Records every step of `plan` (a pass per step with a query set of `n` timestamps, else
/// shared passes), then the copies of the graph's outputs (and the resolved timestamps, last)
/// into read-back buffers, in the GPU's error scopes.
#[allow(clippy::too_many_arguments)]
pub(crate) fn record_with_readbacks<'g>(
    gpu: &'g Gpu,
    graph: &Graph,
    plan: &super::plan::Plan,
    encoder: &mut wgpu::CommandEncoder,
    bufs: &mut RunBuffers<'_>,
    slots: HashMap<(usize, usize), GpuSlot>,
    query_set: Option<(&wgpu::QuerySet, u32)>,
    poison: Option<&wgpu::Buffer>,
) -> Result<(Encoded<'g>, Vec<crate::runtime::Readback>)> {
    gpu.scoped(|| -> Result<(Encoded<'g>, Vec<crate::runtime::Readback>)> {
        let passes = if query_set.is_some() {
            Passes::PerStep
        } else {
            Passes::Merged
        };
        let mut tape = Tape::default();
        let encoded = encode_steps(
            gpu,
            graph,
            plan,
            &mut tape,
            bufs,
            slots,
            query_set.map(|(q, _)| (q, 0)),
            poison,
            passes,
        )?;
        tape.play(encoder);
        let reads: Vec<(&wgpu::Buffer, u64)> = graph
            .outputs
            .iter()
            .map(|(_, p)| {
                encoded
                    .slots
                    .get(&(p.node, p.output))
                    .map(|s| (&*s.buffer, first_read(&s.desc)))
                    .ok_or_else(|| Error::internal("output not materialised"))
            })
            .collect::<Result<_>>()?;
        let mut staging = gpu.read_buffers(encoder, &reads);
        if let Some((q, n)) = query_set {
            let resolve = gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("texelflow.resolve"),
                size: n as u64 * 8,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            encoder.resolve_query_set(q, 0..n, &resolve, 0);
            staging.extend(gpu.read_buffers(encoder, &[(&resolve, n as u64 * 8)]));
        }
        Ok((encoded, staging))
    })?
}

/// The bytes of an output's buffer the run's read-back copies: all of it, but for a stream of
/// bytes (`DataKind::Bytes`) its header and an eighth of its capacity (a JPEG's entropy-coded
/// data fits in that unless it is noise at quality 100); `read_rest` copies what is left.
fn first_read(desc: &ValueDesc) -> u64 {
    match desc {
        ValueDesc::Data(crate::value::DataKind::Bytes { capacity }) => {
            crate::value::Bytes::read_len(*capacity, capacity / 8)
        }
        d => d.gpu_bytes(),
    }
}

/// The rest of a stream of bytes whose first `read.len()` bytes came back with the run: the
/// stream's length is in its header; a second copy and map round trip brings the bytes past
/// what was read.
pub(crate) fn read_rest(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    capacity: u32,
    read: &mut Vec<u8>,
) -> Result<()> {
    let Some(n) = read
        .get(..4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
    else {
        return Err(Error::Gpu("bytes buffer too small".into()));
    };
    let want = crate::value::Bytes::read_len(capacity, n);
    let have = read.len() as u64;
    if want <= have {
        return Ok(());
    }
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("texelflow.read_rest"),
        });
    let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("texelflow.read_rest"),
        size: want - have,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    encoder.copy_buffer_to_buffer(buffer, have, &staging, 0, want - have);
    let index = gpu.submit([encoder.finish()])?;
    let staged = [crate::runtime::Readback {
        buffer: staging,
        len: want - have,
    }];
    let (rest, _) = gpu.map_all_after(&staged, Some(index))?;
    for r in rest {
        read.extend_from_slice(&r);
    }
    Ok(())
}

/// A GPU run submitted and not yet read back (`finish_gpu` waits for it).
pub(crate) struct Submitted<'g> {
    gpu: &'g Gpu,
    bufs: RunBuffers<'g>,
    encoded: Encoded<'g>,
    staging: Vec<crate::runtime::Readback>,
    index: wgpu::SubmissionIndex,
    uploads: Vec<crate::runtime::Staged>,
    timestamps: bool,
    /// State buffers of the previous run, read by this one: back to the pool once it is done.
    retired: Vec<Arc<wgpu::Buffer>>,
    upload_ms: f64,
    record_ms: f64,
}

/// Uploads, records and submits a run without waiting for it. With `store`, states read the
/// buffers the previous run's feeds left there, and this run's feeds are left there in turn
/// (the buffers change hands; nothing is copied).
pub(crate) fn submit_gpu<'g>(
    gpu: &'g Gpu,
    graph: &Graph,
    sources: &[(&str, &Image)],
    opts: &RunOptions,
    mut store: Option<&mut StateStore>,
) -> Result<Submitted<'g>> {
    gpu.check_health()?;
    check_limits(gpu, opts.tiling.max_gpu_memory, graph)?;
    graph.check_states()?;
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
            label: Some("texelflow.run"),
        });
    let clock = Instant::now();
    let (mut slots, uploads) = upload_sources(gpu, graph, sources, &mut bufs, &mut encoder)?;
    let upload_ms = ms_since(clock);
    let mut carried: Vec<Arc<wgpu::Buffer>> = Vec::new();
    if let Some(st) = store.as_deref_mut() {
        st.prepare(graph);
        for (&node, slot) in &st.gpu {
            slots.insert((node, 0), slot.clone());
            bufs.pinned.push(slot.buffer.clone());
            carried.push(slot.buffer.clone());
        }
    }
    let poison_buf = opts.poison.then(|| poison_buffer(gpu, graph));

    let clock = Instant::now();
    let (encoded, staging) = record_with_readbacks(
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
    // the feeds' buffers become the states' for the next run: kept out of the pool
    let mut next: HashMap<usize, GpuSlot> = HashMap::new();
    for (state, p) in graph.feeds.iter().filter(|_| store.is_some()) {
        let slot = encoded
            .slots
            .get(&(p.node, p.output))
            .cloned()
            .ok_or_else(|| Error::internal("a state's feed was not materialised"))?;
        bufs.pinned.push(slot.buffer.clone());
        next.insert(*state, slot);
    }
    let index = gpu
        .submit([cmd])
        .map_err(|e| in_submission(e, &encoded.labels))?;
    let mut retired = Vec::new();
    if let Some(st) = store {
        retired = carried
            .into_iter()
            .filter(|b| !next.values().any(|n| Arc::ptr_eq(&n.buffer, b)))
            .collect();
        st.gpu = next;
    }
    Ok(Submitted {
        gpu,
        bufs,
        encoded,
        staging,
        index,
        uploads,
        timestamps: query_set.is_some(),
        retired,
        upload_ms,
        record_ms,
    })
}

/// Records a run of `graph`, whose sources are all made on the device (no host image), into
/// the caller's `encoder` without submitting it and without reading anything back: for an
/// application's frame loop (issue 31). The run's buffers are taken from the pool and
/// returned, not given back (the caller submits later, so a later run must not reuse them;
/// wgpu keeps them alive until the caller's commands are done): a caller that waits for the
/// submission may give them back to the device's pool (`Gpu::give_back`), so a next run
/// reuses them instead of making its own.
pub(crate) fn encode_into_keeping(
    gpu: &Gpu,
    graph: &Graph,
    opts: &RunOptions,
    encoder: &mut wgpu::CommandEncoder,
) -> Result<Vec<Arc<wgpu::Buffer>>> {
    let (tape, used) = record_tape(gpu, graph, opts)?;
    tape.play(encoder);
    Ok(used)
}

/// `encode_into_keeping`'s recording, onto a tape: the tape and the run's buffers.
fn record_tape(
    gpu: &Gpu,
    graph: &Graph,
    opts: &RunOptions,
) -> Result<(Tape, Vec<Arc<wgpu::Buffer>>)> {
    gpu.check_health()?;
    check_limits(gpu, opts.tiling.max_gpu_memory, graph)?;
    graph.check_states()?;
    let plan = plan(graph, opts);
    let mut bufs = RunBuffers::new(gpu);
    let mut tape = Tape::default();
    // no host images here: every source must be made on the device
    if let Some((name, _)) = graph.sources().next() {
        return Err(Error::Graph(crate::GraphError::SourceMissing {
            name: name.to_string(),
        }));
    }
    let encoded = gpu.scoped(|| {
        encode_steps(
            gpu,
            graph,
            &plan,
            &mut tape,
            &mut bufs,
            HashMap::new(),
            None,
            None,
            Passes::Merged,
        )
    })??;
    let mut used: Vec<Arc<wgpu::Buffer>> = std::mem::take(&mut bufs.free);
    for slot in encoded.slots.into_values() {
        let pinned = bufs.pinned.iter().any(|b| Arc::ptr_eq(b, &slot.buffer));
        if !pinned && !used.iter().any(|b| Arc::ptr_eq(b, &slot.buffer)) {
            used.push(slot.buffer);
        }
    }
    Ok((tape, used))
}

/// A run recorded once and played again as often as asked (issue 31: a frame loop, a stream of
/// tensors): the graph, its plan, its pipelines, bind groups and uniforms are made once, so a
/// later run costs its commands' encoding, one submission and (`run`) one wait. Every run
/// reads the graph's inputs and writes its outputs where they were when it was prepared (the
/// caller's buffers or textures); the buffers between are the prepared run's own, kept until
/// it is dropped. Made by `Pipeline::prepare_produced_then`, `io::texture::prepare_buffers`
/// and `io::texture::prepare_textures`.
pub struct PreparedRun {
    gpu: Arc<Gpu>,
    tape: Tape,
    /// The run's buffers: its own, never handed to the device's pool.
    buffers: Vec<Arc<wgpu::Buffer>>,
}

impl std::fmt::Debug for PreparedRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedRun")
            .field("buffers", &self.buffers.len())
            .finish()
    }
}

impl PreparedRun {
    /// Records `graph` (whose sources are made on the device) once. An error where a filter
    /// of the graph sends data for this run only (a staged upload: such a graph runs, but is
    /// not prepared) or the graph keeps state between runs.
    pub(crate) fn new(gpu: &Arc<Gpu>, graph: &Graph, opts: &RunOptions) -> Result<PreparedRun> {
        if graph
            .nodes
            .iter()
            .any(|n| matches!(n.kind, NodeKind::State))
        {
            return Err(Error::unsupported(
                "a prepared run of a graph that keeps state between runs (a temporal filter)",
            ));
        }
        let (tape, buffers) = record_tape(gpu, graph, opts)?;
        if !tape.replayable() {
            return Err(Error::unsupported(
                "a prepared run of a graph that uploads data of its own each run",
            ));
        }
        Ok(PreparedRun {
            gpu: gpu.clone(),
            tape,
            buffers,
        })
    }

    /// Adds `other`'s run after this one's (a batch: one submission for all).
    pub(crate) fn append(&mut self, other: PreparedRun) {
        self.tape.append(other.tape);
        self.buffers.extend(other.buffers);
    }

    /// Records the run into `encoder` (the caller submits it: a frame of a render loop).
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        self.tape.play(encoder);
    }

    /// Runs it: one submission, then a wait until the GPU is done.
    pub fn run(&self) -> Result<()> {
        let index = self.gpu.submit([self.commands()?])?;
        self.gpu.wait_for(Some(index))
    }

    /// The run's commands in a command buffer of their own (the device checked first).
    fn commands(&self) -> Result<wgpu::CommandBuffer> {
        self.gpu.check_health()?;
        let mut encoder = self
            .gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("texelflow.prepared"),
            });
        self.tape.play(&mut encoder);
        Ok(encoder.finish())
    }

    /// Submits a run that starts on the GPU once `semaphore` reaches `wait` and sets it to
    /// `signal` when done, and returns without waiting: another API on the same GPU (CUDA)
    /// signals `wait` after writing the inputs and waits for `signal` before reading the
    /// outputs, so the order is kept with no host wait. Values only grow, and the caller waits
    /// (on its side) before a later run's inputs are written.
    #[cfg(target_os = "linux")]
    pub fn submit_between(
        &self,
        semaphore: &crate::runtime::ExportedSemaphore,
        wait: u64,
        signal: u64,
    ) -> Result<()> {
        self.gpu
            .submit_between(self.commands()?, semaphore, wait, signal)
    }

    /// How many kernels a run dispatches.
    pub fn dispatches(&self) -> usize {
        self.tape.dispatches()
    }

    /// The device it runs on.
    pub fn gpu(&self) -> &Arc<Gpu> {
        &self.gpu
    }
}

/// Waits for a submitted run and reads its outputs back.
pub(crate) fn finish_gpu(graph: &Graph, run: Submitted<'_>) -> Result<RunResult> {
    let clock = Instant::now();
    let (bytes, wait_ms) = run
        .gpu
        .map_all_after(&run.staging, Some(run.index.clone()))
        .map_err(|e| in_submission(e, &run.encoded.labels))?;
    let readback_ms = ms_since(clock) - wait_ms;
    outputs_of(graph, run, bytes, (wait_ms, readback_ms))
}

/// `finish_gpu`, awaiting the readback instead of waiting for it (`Backend::run_async`).
pub(crate) async fn finish_gpu_async(graph: &Graph, run: Submitted<'_>) -> Result<RunResult> {
    let clock = Instant::now();
    let bytes = run
        .gpu
        .map_all_async(&run.staging)
        .await
        .map_err(|e| in_submission(e, &run.encoded.labels))?;
    outputs_of(graph, run, bytes, (ms_since(clock), 0.0))
}

/// The run's outputs from the bytes read back (`bytes`, outputs then timestamps), its
/// buffers back to the pool; `(wait_ms, readback_ms)` for its host times.
fn outputs_of(
    graph: &Graph,
    run: Submitted<'_>,
    mut bytes: Vec<Vec<u8>>,
    (wait_ms, readback_ms): (f64, f64),
) -> Result<RunResult> {
    let Submitted {
        gpu,
        mut bufs,
        encoded,
        staging: _,
        index: _,
        uploads,
        timestamps,
        retired,
        upload_ms,
        record_ms,
    } = run;
    gpu.recycle_uploads(uploads);
    let Encoded {
        slots,
        labels,
        _recorders: recorders,
    } = encoded;
    for r in recorders {
        gpu.recycle_uploads(r.staged.into_iter().map(|(s, _, _)| s).collect());
    }
    // past the outputs: the timestamps, when asked for
    let stamps = if bytes.len() > graph.outputs.len() {
        bytes.pop()
    } else {
        None
    };

    let mut outputs = Vec::new();
    for ((name, p), mut b) in graph.outputs.iter().zip(bytes) {
        let v = match graph.desc(*p) {
            ValueDesc::Image(d) => Value::Image(Image::from_gpu_vec(d, b)?),
            ValueDesc::Data(k @ crate::value::DataKind::Bytes { capacity }) => {
                let slot = slots
                    .get(&(p.node, p.output))
                    .ok_or_else(|| Error::internal("output not materialised"))?;
                read_rest(gpu, &slot.buffer, capacity, &mut b)
                    .map_err(|e| in_submission(e, &labels))?;
                Value::Data(Data::from_gpu_bytes(k, &b)?)
            }
            ValueDesc::Data(k) => Value::Data(Data::from_gpu_bytes(k, &b)?),
        };
        outputs.push((name.clone(), v));
    }
    for (_, slot) in slots {
        bufs.give(slot.buffer);
    }
    // the previous run's state buffers: this run has read them
    bufs.pinned
        .retain(|p| !retired.iter().any(|r| Arc::ptr_eq(p, r)));
    for b in retired {
        bufs.give(b);
    }
    bufs.release();
    let timings = match (timestamps, stamps.as_deref()) {
        (true, Some(ts)) => step_times(gpu, ts, labels),
        _ => Vec::new(),
    };
    Ok(RunResult {
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

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}
