//! GPU tracing: a graph timed on the GPU by timestamp queries, for benchmarks (the harness
//! behind `texelflow bench` is the `texelflow-bench` crate, built on this module alone).
//!
//! [`Traced`] prepares a graph for repeated runs: its sources are uploaded once into `N`
//! independent buffer sets (so a benchmark can rotate through more memory than the caches
//! hold) and kept there. [`Traced::submit`] records a list of [`Op`]s, graph runs on any of
//! those sets and dispatches of the caller's own compute kernels ([`Dispatch`], e.g. a
//! clock probe), into ONE submission, and returns a [`Trace`] for each timed one: its GPU
//! time from timestamp queries, when it started in the submission, and, for a run timed per
//! step, every step's time. [`Traced::run`] is one run timed per step, alone.
//!
//! Runs are recorded as the executor records them (`Backend::run`: same plan, same fusion,
//! same kernels, schedule overrides from `RunOptions::schedules`); outputs are never read
//! back. A run timed as a whole ([`Timing::Whole`]) lays its steps out in shared compute
//! passes as an untimed run does; one timed per step ([`Timing::PerStep`]) gets a pass per
//! step, so its steps' times include the pass boundaries' cost.
//!
//! # Examples
//!
//! ```no_run
//! use texelflow::filters::neighborhood::GaussianBlur;
//! use texelflow::trace::{Op, Timing, Traced};
//! use texelflow::{Gpu, GpuOptions, Image, ImageDesc, Pipeline, PixelFormat, RunOptions};
//! # fn main() -> texelflow::Result<()> {
//! let gpu = Gpu::new(&GpuOptions::default())?;
//! let inputs: Vec<Image> = (0..4)
//!     .map(|_| Image::zeroed(ImageDesc::new(1920, 1080, PixelFormat::Rgba8)))
//!     .collect();
//! // a pipeline's graph has one source, `input`
//! let (graph, _) = Pipeline::new().then(GaussianBlur::new(2.0)?).graph(&inputs[0])?;
//! // four source sets, one per input image, uploaded once
//! let sets: Vec<Vec<(&str, &Image)>> = inputs.iter().map(|i| vec![("input", i)]).collect();
//! let mut traced = Traced::new(&gpu, &graph, &sets, &RunOptions::default())?;
//! // one run alone, a pass per step
//! let one = traced.run(0)?;
//! for step in &one.steps {
//!     println!("{} {:.3} ms", step.label, step.ms);
//! }
//! // every set in turn, back to back in one submission
//! let ops: Vec<Op> = (0..traced.sets()).map(|set| Op::Run { set, timing: Timing::Whole }).collect();
//! let traces = traced.submit(&ops)?;
//! let gbps = traced.bytes() as f64 / (traces[0].ms * 1e-3) / 1e9;
//! println!("{:.3} ms, {gbps:.1} GB/s", traces[0].ms);
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use super::execute::{
    check_limits, check_sources, encode_steps, in_submission, step_times, upload_sources, Encoded,
    Passes, RunBuffers,
};
use super::plan::{plan, Plan};
use super::{Graph, NodeTiming, RunOptions};
use crate::error::{Error, Result};
use crate::image::Image;
use crate::runtime::{Gpu, GpuSlot, Kernel, NodeRecorder};

/// How a graph run of a submission is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timing {
    /// Not timed (e.g. runs that only keep the GPU busy before the timed ones).
    Untimed,
    /// As a whole, from its first pass's start to its last pass's end; its steps share
    /// compute passes as in an untimed run of the executor.
    Whole,
    /// A compute pass per step, each timed (the pass boundaries' cost is in the times).
    PerStep,
}

/// A caller's compute kernel, dispatched once in a compute pass of its own (a clock probe, a
/// spin that raises the GPU's clocks before the timed runs).
#[derive(Clone, Debug)]
pub struct Dispatch {
    /// The kernel; its WGSL follows the library's shared helpers (`Kernel::sources`).
    pub kernel: Kernel,
    /// Scratch storage buffers (read-write) bound at 0..n, this many bytes each; their
    /// contents are undefined.
    pub scratch: Vec<u64>,
    /// Uniform bytes bound after them (at binding n); none when empty.
    pub uniform: Vec<u8>,
    /// Workgroups dispatched.
    pub groups: [u32; 3],
}

/// One item of a submission ([`Traced::submit`]), recorded in order.
#[derive(Clone, Copy, Debug)]
pub enum Op<'k> {
    /// A run of the graph on source set `set` (`0..Traced::sets()`).
    Run {
        /// The source set.
        set: usize,
        /// How it is timed.
        timing: Timing,
    },
    /// One dispatch of a caller's kernel.
    Kernel {
        /// The kernel and its bindings.
        dispatch: &'k Dispatch,
        /// Whether it is timed.
        timed: bool,
    },
}

impl Op<'_> {
    fn timed(&self) -> bool {
        match self {
            Op::Run { timing, .. } => *timing != Timing::Untimed,
            Op::Kernel { timed, .. } => *timed,
        }
    }
}

/// GPU times of one timed op of a submission, from timestamp queries.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// When it started: ms after the start of the submission's first timed op.
    pub start_ms: f64,
    /// From its first pass's start to its last pass's end, ms.
    pub ms: f64,
    /// A run timed per step: each step (a node, or fused nodes' labels joined by `+`) and
    /// its time; empty otherwise.
    pub steps: Vec<NodeTiming>,
}

/// A graph prepared for timed GPU runs on `N` source sets uploaded once (see the module's
/// docs). Its buffers return to the device's pool when it is dropped.
pub struct Traced<'a> {
    gpu: &'a Gpu,
    graph: &'a Graph,
    plan: Plan,
    sets: Vec<SourceSet<'a>>,
}

/// One source set: its own free list (its sources pinned in it) and the sources' buffers.
struct SourceSet<'a> {
    bufs: RunBuffers<'a>,
    sources: HashMap<(usize, usize), GpuSlot>,
}

impl std::fmt::Debug for Traced<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Traced")
            .field("steps", &self.plan.steps.len())
            .field("sets", &self.sets.len())
            .finish()
    }
}

impl<'a> Traced<'a> {
    /// Checks `graph` as `Backend::run` does (sources, limits, what one binding holds), plans
    /// it with `opts` (fusion, schedule overrides) and uploads each of `sets` (every source
    /// bound by name, as `Backend::run` takes them) into buffers of its own. `opts.timings`
    /// and `opts.poison` play no part; tiling does not either (the graph runs whole). Fails
    /// on a device without timestamp queries.
    pub fn new(
        gpu: &'a Gpu,
        graph: &'a Graph,
        sets: &[Vec<(&str, &Image)>],
        opts: &RunOptions,
    ) -> Result<Self> {
        if !gpu.has_timestamps() {
            return Err(Error::Gpu(
                "this adapter has no timestamp queries; cannot trace".into(),
            ));
        }
        if sets.is_empty() {
            return Err(Error::invalid("tracing needs at least one source set"));
        }
        for sources in sets {
            check_sources(graph, sources)?;
        }
        super::check::check_graph(graph, false, &opts.limits)?;
        check_limits(gpu, opts.tiling.max_gpu_memory, graph)?;
        graph.check_states()?;
        let plan = plan(graph, opts);
        let mut traced = Self {
            gpu,
            graph,
            plan,
            sets: Vec::with_capacity(sets.len()),
        };
        for sources in sets {
            let mut bufs = RunBuffers::new(gpu);
            let mut encoder = gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("texelflow.trace.upload"),
                });
            let (slots, staged) = upload_sources(gpu, graph, sources, &mut bufs, &mut encoder)?;
            let index = gpu.submit([encoder.finish()])?;
            gpu.wait_for(Some(index))?;
            gpu.recycle_uploads(staged);
            // sources stay: no step of a run may write into them
            bufs.pinned = slots.values().map(|s| s.buffer.clone()).collect();
            traced.sets.push(SourceSet {
                bufs,
                sources: slots,
            });
        }
        Ok(traced)
    }

    /// Number of source sets.
    pub fn sets(&self) -> usize {
        self.sets.len()
    }

    /// Bytes a run must move at the least: every source read once, every output written once.
    pub fn bytes(&self) -> u64 {
        let g = self.graph;
        let sources: u64 = g
            .sources()
            .map(|(_, n)| g.nodes[n].outputs[0].gpu_bytes())
            .sum();
        let outputs: u64 = g.outputs.iter().map(|(_, p)| g.desc(*p).gpu_bytes()).sum();
        sources + outputs
    }

    /// One run on source set `set`, timed per step, in a submission of its own.
    pub fn run(&mut self, set: usize) -> Result<Trace> {
        self.submit(&[Op::Run {
            set,
            timing: Timing::PerStep,
        }])?
        .pop()
        .ok_or_else(|| Error::internal("a timed run left no trace"))
    }

    /// Records `ops` in order into one submission, submits it and waits for it; returns a
    /// [`Trace`] per timed op, in order. Runs of the same set reuse its buffers (the device
    /// orders the accesses).
    pub fn submit(&mut self, ops: &[Op<'_>]) -> Result<Vec<Trace>> {
        let gpu = self.gpu;
        let steps = self.plan.steps.len() as u32;
        // each op's first timestamp query and how many it writes
        let mut queries: Vec<(u32, u32)> = Vec::with_capacity(ops.len());
        let mut n_q = 0u32;
        for op in ops {
            let n = match *op {
                Op::Run { set, timing } => {
                    if set >= self.sets.len() {
                        return Err(Error::invalid(format!(
                            "source set {set} of {}",
                            self.sets.len()
                        )));
                    }
                    match timing {
                        Timing::Untimed => 0,
                        Timing::Whole => 2,
                        Timing::PerStep => 2 * steps,
                    }
                }
                Op::Kernel { timed, .. } => 2 * timed as u32,
            };
            queries.push((n_q, n));
            n_q = n_q.saturating_add(n);
        }
        if n_q > wgpu::QUERY_SET_MAX_QUERIES {
            return Err(Error::invalid(format!(
                "a submission of {n_q} timestamps, more than a query set holds ({}): submit fewer ops at once",
                wgpu::QUERY_SET_MAX_QUERIES
            )));
        }
        let qs = (n_q > 0).then(|| {
            gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("texelflow.trace"),
                ty: wgpu::QueryType::Timestamp,
                count: n_q,
            })
        });
        let resolve = qs.as_ref().map(|_| {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("texelflow.trace.resolve"),
                size: n_q as u64 * 8,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        });
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("texelflow.trace"),
            });
        let (graph, plan, sets) = (self.graph, &self.plan, &mut self.sets);
        // recorders (bind groups, uniforms) live until the submission is done
        // the plan carries the run's schedule overrides to every recorder
        let recorded = {
            gpu.scoped(|| -> Result<_> {
                let mut encoded: Vec<Encoded<'a>> = Vec::new();
                let mut kernels: Vec<NodeRecorder<'a>> = Vec::new();
                let mut labels: Vec<Vec<String>> = Vec::new();
                for (op, &(q, n)) in ops.iter().zip(&queries) {
                    let query = qs.as_ref().filter(|_| n > 0).map(|qs| (qs, q));
                    match *op {
                        Op::Run { set, timing } => {
                            let SourceSet { bufs, sources } = &mut sets[set];
                            let passes = match timing {
                                Timing::PerStep => Passes::PerStep,
                                Timing::Untimed | Timing::Whole => Passes::Merged,
                            };
                            let mut tape = crate::runtime::Tape::default();
                            let e = encode_steps(
                                gpu,
                                graph,
                                plan,
                                &mut tape,
                                bufs,
                                sources.clone(),
                                query,
                                None,
                                passes,
                            )?;
                            tape.play(&mut encoder);
                            // outputs return to their set's free list: its next run reuses them
                            for slot in e.slots.values() {
                                bufs.give(slot.buffer.clone());
                            }
                            if timing == Timing::PerStep {
                                labels.push(e.labels.clone());
                            }
                            encoded.push(e);
                        }
                        Op::Kernel { dispatch, .. } => {
                            let mut rec = NodeRecorder::new(gpu);
                            let scratch: Vec<Arc<wgpu::Buffer>> =
                                dispatch.scratch.iter().map(|&b| rec.temp(b)).collect();
                            let binds: Vec<&wgpu::Buffer> = scratch.iter().map(|b| &**b).collect();
                            rec.dispatch(
                                &dispatch.kernel,
                                &binds,
                                &dispatch.uniform,
                                dispatch.groups,
                            )?;
                            let tw = query.map(|(qs, q)| wgpu::ComputePassTimestampWrites {
                                query_set: qs,
                                beginning_of_pass_write_index: Some(q),
                                end_of_pass_write_index: Some(q + 1),
                            });
                            let mut pass =
                                encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                                    label: Some(&dispatch.kernel.key),
                                    timestamp_writes: tw,
                                });
                            rec.encode_dispatches(&mut pass);
                            drop(pass);
                            kernels.push(rec);
                        }
                    }
                }
                let staging = match (&qs, &resolve) {
                    (Some(qs), Some(resolve)) => {
                        encoder.resolve_query_set(qs, 0..n_q, resolve, 0);
                        gpu.read_buffers(&mut encoder, &[(resolve, n_q as u64 * 8)])
                    }
                    _ => Vec::new(),
                };
                Ok((encoded, kernels, labels, staging))
            })
        }?;
        let (encoded, mut kernels, labels, staging) = recorded?;
        // a device error of the submission names the graph's steps (any run may have failed)
        let steps_of = encoded.first().map(|e| e.labels.as_slice()).unwrap_or(&[]);
        let index = gpu
            .submit([encoder.finish()])
            .map_err(|e| in_submission(e, steps_of))?;
        let raw = if staging.is_empty() {
            gpu.wait_for(Some(index))?;
            Vec::new()
        } else {
            gpu.map_all(&staging)?.swap_remove(0)
        };
        drop(encoded);
        // the kernels' scratch buffers: back to the pool now that the GPU is done with them
        if let Ok(mut pool) = gpu.pool.lock() {
            for rec in &mut kernels {
                for b in rec.temps.drain(..) {
                    pool.give(b);
                }
            }
        }
        drop(kernels);
        let t: Vec<u64> = raw
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect();
        let period = gpu.queue.get_timestamp_period() as f64;
        let ms = |from: usize, to: usize| match (t.get(from), t.get(to)) {
            (Some(a), Some(b)) => b.saturating_sub(*a) as f64 * period / 1e6,
            _ => 0.0,
        };
        let mut labels = labels.into_iter();
        let mut traces = Vec::new();
        for (op, &(q, n)) in ops.iter().zip(&queries) {
            if !op.timed() {
                continue;
            }
            let (q, n) = (q as usize, n as usize);
            let mut trace = Trace::default();
            if n > 0 {
                trace.start_ms = ms(0, q);
                trace.ms = ms(q, q + n - 1);
            }
            if let Op::Run {
                timing: Timing::PerStep,
                ..
            } = op
            {
                let l = labels.next().unwrap_or_default();
                let bytes = raw.get(q * 8..(q + n) * 8).unwrap_or_default();
                trace.steps = step_times(gpu, bytes, l);
            }
            traces.push(trace);
        }
        Ok(traces)
    }
}

impl Drop for Traced<'_> {
    fn drop(&mut self) {
        for set in &mut self.sets {
            set.bufs.pinned.clear();
            set.bufs.release();
        }
    }
}
