//! Execution plan: which nodes run as one kernel (fused per-pixel runs), in what order, and
//! when each intermediate value dies so its buffer returns to the pool for later nodes.

use std::collections::HashMap;

use super::{Graph, NodeKind, Port, RunOptions};

/// One unit of GPU work: a single node, or a fused run of per-pixel nodes.
pub(crate) struct Step {
    pub nodes: Vec<usize>,
}

pub(crate) struct Plan {
    pub steps: Vec<Step>,
    /// Index of the last step that reads each materialised port.
    pub last_use: HashMap<(usize, usize), usize>,
    /// Ports the caller asked for, and ports feeding states (never recycled before read-back;
    /// a feed's buffer becomes its state's for the next run).
    pub outputs: Vec<(usize, usize)>,
    /// The node label whose step fails as if out of memory (`RunOptions::inject_gpu_fault`).
    pub fault: Option<String>,
    /// The run's schedule overrides (`RunOptions::schedules`), handed to every step's recorder.
    pub schedules: crate::runtime::schedule::Schedules,
}

/// Most per-pixel nodes fused into one kernel. A longer run becomes several kernels of at
/// most this many: the driver's compile time grows about as the square of the chain (chained
/// `brightness` on lavapipe, release build, first run: 50 ops 0.07 s, 100 0.20 s, 200 0.71 s,
/// 500 11.7 s, of which naga's parse 0.06 s and the rest LLVM in the driver; every step before
/// it, parsing, graph and plan, stayed under 1 ms), while a kernel boundary costs one read and
/// write of the image. In groups of 16 the 500-op chain took 0.15 s and 5000 ops 0.4 s (docs/
/// perf-notes.md); a long run of one filter repeated compiles one kernel, reused by every group.
pub(crate) const MAX_FUSED: usize = 16;

/// `MAX_FUSED`, or `RunOptions::max_fused` where set (for measuring the choice).
fn max_fused(opts: &RunOptions) -> usize {
    opts.max_fused.filter(|&n| n > 0).unwrap_or(MAX_FUSED)
}

pub(crate) fn plan(graph: &Graph, opts: &RunOptions) -> Plan {
    let fuse = opts.fuse;
    let mut consumers: HashMap<(usize, usize), usize> = HashMap::new();
    for n in &graph.nodes {
        for p in &n.inputs {
            *consumers.entry((p.node, p.output)).or_default() += 1;
        }
    }
    let outputs: Vec<(usize, usize)> = graph
        .outputs
        .iter()
        .map(|(_, p)| p)
        .chain(graph.feeds.iter().map(|(_, p)| p))
        .map(|p| (p.node, p.output))
        .collect();
    let max_fused = max_fused(opts);
    let is_pixel =
        |i: usize| matches!(&graph.nodes[i].kind, NodeKind::Filter(f) if f.pixel_op().is_some());

    let mut steps: Vec<Step> = Vec::new();
    // node index -> step index, for nodes that end a step
    let mut step_ending_with: HashMap<usize, usize> = HashMap::new();
    // node index -> its step, for the check below
    let mut step_of: HashMap<usize, usize> = HashMap::new();
    for (i, n) in graph.nodes.iter().enumerate() {
        if matches!(n.kind, NodeKind::Source { .. }) {
            continue;
        }
        // A run continues through a node's first input; a blend's second image is bound as an
        // extra input of the run's kernel, so it must be made by a step before the run's: a
        // source, or a node planned earlier (not, say, a resize of the second image added
        // after the run began, as `fit=` adds).
        if fuse && is_pixel(i) && !n.inputs.is_empty() {
            let Port {
                node: src, output, ..
            } = n.inputs[0];
            // and a run's nodes lie in one window (a tile's graph through a resize has two)
            let private = consumers.get(&(src, output)) == Some(&1)
                && !outputs.contains(&(src, output))
                && graph.nodes[src].pixel_window == n.pixel_window;
            if private && is_pixel(src) {
                if let Some(&s) = step_ending_with
                    .get(&src)
                    .filter(|&&s| steps[s].nodes.len() < max_fused)
                {
                    let ready = n.inputs[1..]
                        .iter()
                        .all(|p| step_of.get(&p.node).is_none_or(|&t| t < s));
                    if !ready {
                        steps.push(Step { nodes: vec![i] });
                        step_of.insert(i, steps.len() - 1);
                        step_ending_with.insert(i, steps.len() - 1);
                        continue;
                    }
                    steps[s].nodes.push(i);
                    step_of.insert(i, s);
                    step_ending_with.remove(&src);
                    step_ending_with.insert(i, s);
                    continue;
                }
            }
        }
        steps.push(Step { nodes: vec![i] });
        step_of.insert(i, steps.len() - 1);
        step_ending_with.insert(i, steps.len() - 1);
    }
    let mut last_use = HashMap::new();
    for (s, step) in steps.iter().enumerate() {
        for &i in &step.nodes {
            for p in &graph.nodes[i].inputs {
                last_use.insert((p.node, p.output), s);
            }
        }
    }
    Plan {
        steps,
        last_use,
        outputs,
        fault: opts.inject_gpu_fault.clone().filter(|f| !f.is_empty()),
        schedules: crate::runtime::schedule::Schedules::new(&opts.schedules),
    }
}
