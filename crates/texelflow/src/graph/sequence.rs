//! Runs of one graph as a sequence (the frames of a video): values carried from each run to
//! the next (`Graph::state`, `Graph::feed`) stay where they were made, on the GPU or in
//! memory, and the runs are submitted in frame order while several frames are in flight.
//!
//! Frame `k` waits for its turn only to record and submit; waiting for the GPU and reading the
//! result back happen after the next frame has had its turn. So a reduction of frame N can
//! set a parameter of frame N+1 (`auto_exposure`) with no read-back between them.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex};

use super::execute::{check_sources, finish_gpu, run_cpu, submit_gpu};
use super::{Backend, Graph, NodeKind, RunOptions, RunResult};
use crate::error::{Error, Result};
use crate::image::Image;
use crate::runtime::GpuSlot;
use crate::value::{Value, ValueDesc};

/// Values carried from one run to the next, by state node.
#[derive(Default)]
pub(crate) struct StateStore {
    /// The states (node, what it carries) the values belong to: a graph of another shape
    /// starts afresh.
    signature: Vec<(usize, ValueDesc)>,
    pub(crate) gpu: HashMap<usize, GpuSlot>,
    pub(crate) cpu: HashMap<usize, Value>,
}

impl StateStore {
    /// Forgets the carried values when `graph`'s states differ from those they were made for.
    pub(crate) fn prepare(&mut self, graph: &Graph) {
        let signature: Vec<(usize, ValueDesc)> = graph
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| matches!(n.kind, NodeKind::State))
            .map(|(i, n)| (i, n.outputs[0]))
            .collect();
        if signature != self.signature {
            self.gpu.clear();
            self.cpu.clear();
            self.signature = signature;
        }
    }
}

struct Turn {
    /// The frame whose turn it is.
    next: u64,
    /// Taken out while a frame records and submits.
    store: Option<StateStore>,
}

/// The state of a sequence of runs (a video's frames): what `Graph::state` nodes carry
/// between runs, and whose turn it is. Frames are numbered from 0 and each number is run (or
/// skipped) exactly once; threads may call `run_frame` in any order, and each waits for the
/// frames before it to be submitted.
///
/// ```no_run
/// use texelflow::{Backend, GpuOptions, Image, Pipeline, Sequence};
/// # fn main() -> texelflow::Result<()> {
/// let (backend, _) = Backend::auto(&GpuOptions::default());
/// let pipe = Pipeline::parse("low_pass(strength=0.8)", &mut |p| Image::open(p))?;
/// let seq = Sequence::new();
/// for (k, frame) in [Image::open("f0.png")?, Image::open("f1.png")?].iter().enumerate() {
///     let out = pipe.run_frame(&backend, frame, &seq, k as u64)?;
/// }
/// # Ok(()) }
/// ```
pub struct Sequence {
    turn: Mutex<Turn>,
    changed: Condvar,
}

impl Default for Sequence {
    fn default() -> Self {
        Self::new()
    }
}

impl Sequence {
    /// A sequence before its first frame.
    pub fn new() -> Self {
        Self {
            turn: Mutex::new(Turn {
                next: 0,
                store: Some(StateStore::default()),
            }),
            changed: Condvar::new(),
        }
    }

    /// The number of the next frame to run.
    pub fn next_frame(&self) -> u64 {
        self.turn.lock().map(|t| t.next).unwrap_or(0)
    }

    /// Runs frame `frame` of the sequence on `backend`: its states read what the previous
    /// frame's feeds held (their initial values in frame 0). Blocks until every earlier frame
    /// was submitted; returns once this frame's results are read back.
    pub fn run_frame(
        &self,
        backend: &Backend,
        graph: &Graph,
        sources: &[(&str, &Image)],
        opts: &RunOptions,
        frame: u64,
    ) -> Result<RunResult> {
        let mut turn = self.wait_turn(frame)?;
        let checked = check_sources(graph, sources);
        // whatever happens below, the next frame gets its turn
        let mut pass = PassOn {
            seq: self,
            store: turn.store.take(),
            done: false,
        };
        drop(turn);
        checked?;
        let store = pass
            .store
            .as_mut()
            .ok_or_else(|| Error::internal("the sequence's state is missing"))?;
        let mut result = match backend {
            Backend::Gpu(g) => {
                let submitted = submit_gpu(g, graph, sources, opts, Some(store));
                pass.finish(); // the GPU orders the submissions: the next frame may record now
                finish_gpu(graph, submitted?)
            }
            Backend::Cpu => {
                let r = run_cpu(graph, sources, opts, Some(store));
                pass.finish();
                r
            }
        }?;
        result.notes = graph.notes.clone();
        Ok(result)
    }

    /// Gives up frame `frame`'s turn without running it (its input could not be made): the
    /// states keep what the frame before left them.
    pub fn skip(&self, frame: u64) -> Result<()> {
        let mut turn = self.wait_turn(frame)?;
        turn.next += 1;
        self.changed.notify_all();
        Ok(())
    }

    /// Forgets the carried values and starts again at frame 0 (waits for a frame in progress).
    pub fn reset(&self) -> Result<()> {
        let mut turn = self.turn.lock().map_err(|_| poisoned())?;
        while turn.store.is_none() {
            turn = self.changed.wait(turn).map_err(|_| poisoned())?;
        }
        turn.next = 0;
        turn.store = Some(StateStore::default());
        self.changed.notify_all();
        Ok(())
    }

    fn wait_turn(&self, frame: u64) -> Result<std::sync::MutexGuard<'_, Turn>> {
        let mut turn = self.turn.lock().map_err(|_| poisoned())?;
        if frame < turn.next {
            return Err(Error::invalid(format!(
                "frame {frame} of this sequence was already run (the next is {})",
                turn.next
            )));
        }
        while turn.next != frame || turn.store.is_none() {
            turn = self.changed.wait(turn).map_err(|_| poisoned())?;
        }
        Ok(turn)
    }
}

fn poisoned() -> Error {
    Error::invalid("a thread running this sequence panicked")
}

/// Hands the store back and the turn on to the next frame, on success, error or panic.
struct PassOn<'s> {
    seq: &'s Sequence,
    store: Option<StateStore>,
    done: bool,
}

impl PassOn<'_> {
    fn finish(&mut self) {
        if self.done {
            return;
        }
        self.done = true;
        // a poisoned lock still holds the turn: hand it on regardless
        let mut turn = match self.seq.turn.lock() {
            Ok(t) => t,
            Err(p) => p.into_inner(),
        };
        turn.store = Some(self.store.take().unwrap_or_default());
        turn.next += 1;
        self.seq.changed.notify_all();
    }
}

impl Drop for PassOn<'_> {
    fn drop(&mut self) {
        self.finish();
    }
}
