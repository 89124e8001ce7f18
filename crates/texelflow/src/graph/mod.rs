//! Filter graphs: build (this file), plan (`plan.rs`: fusion and buffer liveness), execute
//! (`execute.rs`: one GPU submission, or the CPU reference), plus the chain API
//! (`pipeline.rs`) and the text spec shared by CLI and library (`spec.rs`).
//!
//! Nodes can only consume ports that already exist, so a graph is acyclic by construction;
//! every `add` checks input count, kinds, formats and sizes immediately.

mod bands;
mod chain;
mod check;
pub mod cost;
pub(crate) mod execute;
pub mod filter;
pub mod fit;
pub mod fuse;
pub mod host;
pub mod params;
mod partials;
mod pipeline;
pub(crate) mod plan;
pub mod rows;
pub mod run_plan;
mod sequence;
pub mod spec;
pub(crate) mod stream;
mod tile;
pub mod trace;

pub use bands::{StreamReport, TilePolicy, DEFAULT_BAND_ROWS, DEFAULT_IN_FLIGHT};
pub use cost::{
    cpu_is_quicker, output_pixels, CpuCost, GPU_START_MS, JPEG_DECODE_SAVED_NS,
    JPEG_ENCODE_SAVED_NS, ONE_IMAGE_CORE_SHARE,
};
pub use execute::{Backend, HostTimes, NodeTiming, PreparedRun, RunOptions, RunResult};
pub use filter::Catalogue;
pub use fit::Fit;
pub use host::{HostImage, HostRunResult, HostValue, MappedImage, PinnedUpload};
pub use pipeline::Pipeline;
pub use run_plan::{plan_run, shrink_on_load_size, RunPlan, SHRINK_ON_LOAD_MAX_DIFF};
pub use sequence::Sequence;
pub use stream::stream;
pub use tile::{crop_image, TileTimes};

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};
use crate::image::ImageDesc;
use crate::value::ValueDesc;
use filter::{Filter, PortKind};

static NEXT_GRAPH: AtomicU64 = AtomicU64::new(1);

/// An output of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Port {
    graph: u64,
    pub(crate) node: usize,
    pub(crate) output: usize,
}

/// Index of a node, for replacing its filter between runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeId(pub(crate) usize);

pub(crate) enum NodeKind {
    Source {
        name: String,
    },
    Filter(Box<dyn Filter>),
    /// A value carried from one run of a sequence to the next (`Graph::state`): the value its
    /// feed had in the previous run, or its one input (the initial value) in a sequence's
    /// first run and in a run outside any sequence.
    State,
}

pub(crate) struct Node {
    pub(crate) label: String,
    pub(crate) kind: NodeKind,
    pub(crate) inputs: Vec<Port>,
    pub(crate) outputs: Vec<ValueDesc>,
    /// Where this node's image lies in a larger one (a tile's graph): per-pixel filters that
    /// read their position see the whole image's coordinates (`Graph::set_pixel_window`).
    pub(crate) pixel_window: Option<crate::region::PixelWindow>,
}

/// A DAG of sources, filters and named outputs: any shape of computation (several inputs,
/// several outputs, data beside images), where `Pipeline` is a chain.
///
/// # Examples
///
/// A blur and its histogram from one source, run on the CPU reference (`Backend::Gpu` runs the
/// same graph on a GPU, in one submission):
///
/// ```
/// use texelflow::filters::{analysis::Histogram, neighborhood::GaussianBlur};
/// use texelflow::{Backend, Graph, Image, PixelFormat, RunOptions, Value};
/// # fn main() -> texelflow::Result<()> {
/// let img = Image::from_u8(16, 8, PixelFormat::Rgba8, vec![200; 16 * 8 * 4])?;
/// let mut g = Graph::new();
/// let src = g.source("photo", img.desc())?;
/// let blurred = g.add1(GaussianBlur::new(1.5)?, &[src])?;
/// let hist = g.add1(Histogram::new(), &[blurred])?;
/// g.output("blurred", blurred)?;
/// g.output("histogram", hist)?;
/// let r = Backend::Cpu.run(&g, &[("photo", &img)], &RunOptions::default())?;
/// assert!(matches!(r.get("blurred"), Some(Value::Image(i)) if i.width() == 16));
/// assert!(matches!(r.get("histogram"), Some(Value::Data(_))));
/// # Ok(())
/// # }
/// ```
pub struct Graph {
    id: u64,
    pub(crate) nodes: Vec<Node>,
    pub(crate) outputs: Vec<(String, Port)>,
    /// `(state node, port)`: the port whose value the state node carries into the next run.
    pub(crate) feeds: Vec<(usize, Port)>,
    /// Prefix for labels of nodes added while lowering a composite.
    label_prefix: Vec<String>,
    /// What the builder changed that a user should know (an image narrowed to 8 bits before a
    /// filter that takes no 16-bit images); copied into every `RunResult`.
    pub(crate) notes: Vec<String>,
    /// No premultiplied-alpha nodes around averaging filters (`set_straight_alpha`).
    straight_alpha: bool,
    /// Set while the filter between such nodes is added (it gets none of its own).
    premultiplying: bool,
    /// The window nodes added from now on get (`set_pixel_window`).
    pixel_window: Option<crate::region::PixelWindow>,
    /// What the graph asks of the filters layer (the conversions it inserts).
    catalogue: &'static Catalogue,
}

impl Graph {
    /// An empty graph that inserts its conversions from `catalogue` (`Graph::new` gives the
    /// whole registry's).
    pub fn with_catalogue(catalogue: &'static Catalogue) -> Self {
        Self {
            catalogue,
            id: NEXT_GRAPH.fetch_add(1, Ordering::Relaxed),
            nodes: Vec::new(),
            outputs: Vec::new(),
            feeds: Vec::new(),
            label_prefix: Vec::new(),
            notes: Vec::new(),
            straight_alpha: false,
            premultiplying: false,
            pixel_window: None,
        }
    }

    /// Where the images of the nodes added from now on lie in larger ones (a tile's part of
    /// the whole image); `all` sets it for the nodes added so far too.
    pub(crate) fn set_pixel_window(
        &mut self,
        window: Option<crate::region::PixelWindow>,
        all: bool,
    ) {
        self.pixel_window = window;
        if all {
            for n in &mut self.nodes {
                n.pixel_window = window;
            }
        }
    }

    /// Records a note for the user (once per distinct text); runs report them in `RunResult::notes`.
    pub fn note(&mut self, text: String) {
        if !self.notes.contains(&text) {
            self.notes.push(text);
        }
    }

    /// The notes recorded while building (see `note`).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// An image input, bound by name at run time to an image of exactly this description.
    pub fn source(&mut self, name: &str, desc: ImageDesc) -> Result<Port> {
        if self.sources().any(|(n, _)| n == name) {
            return Err(Error::Graph(crate::GraphError::DuplicateName {
                what: "sources",
                name: name.to_string(),
            }));
        }
        self.nodes.push(Node {
            label: name.to_string(),
            kind: NodeKind::Source {
                name: name.to_string(),
            },
            inputs: vec![],
            outputs: vec![ValueDesc::Image(desc)],
            pixel_window: self.pixel_window,
        });
        Ok(Port {
            graph: self.id,
            node: self.nodes.len() - 1,
            output: 0,
        })
    }

    /// Adds a filter consuming `inputs`; returns its output ports. Composite filters expand
    /// into their primitives here.
    pub fn add(&mut self, filter: impl Filter + 'static, inputs: &[Port]) -> Result<Vec<Port>> {
        self.add_boxed(Box::new(filter), inputs)
    }

    /// `add` for a filter already boxed (as the registry builds them).
    pub fn add_boxed(&mut self, filter: Box<dyn Filter>, inputs: &[Port]) -> Result<Vec<Port>> {
        let def = filter.def();
        for p in inputs {
            if p.graph != self.id
                || p.node >= self.nodes.len()
                || p.output >= self.nodes[p.node].outputs.len()
            {
                return Err(Error::Graph(crate::GraphError::ForeignPort {
                    node: Some(def.name.to_string()),
                }));
            }
        }
        if inputs.len() != def.inputs.len() {
            return Err(Error::Graph(crate::GraphError::InputCount {
                node: def.name.to_string(),
                expected: def.inputs.len(),
                names: def
                    .inputs
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>()
                    .join(", "),
                got: inputs.len(),
            }));
        }
        let descs: Vec<ValueDesc> = inputs.iter().map(|p| self.desc(*p)).collect();
        for (i, (pd, d)) in def.inputs.iter().zip(&descs).enumerate() {
            let ok = match (pd.kind, d) {
                (PortKind::Image, ValueDesc::Image(_)) => true,
                (PortKind::Data(k), ValueDesc::Data(k2)) => k == *k2,
                _ => false,
            };
            if !ok {
                return Err(Error::wrong_input(
                    def.name,
                    format!("input {i} (`{}`) expects {:?}, got {d}", pd.name, pd.kind),
                ));
            }
        }
        let outputs = filter.output_descs(&descs)?;
        // a filter that averages colours sees them premultiplied by alpha (RGBA images)
        let rgba = |d: Option<&ValueDesc>| {
            matches!(
                d.and_then(|d| d.image()).map(|i| i.format),
                Some(crate::PixelFormat::Rgba8 | crate::PixelFormat::Rgba16)
            )
        };
        // (filters added by the caller: a composite's own blur is part of its arithmetic)
        if def.premultiplied()
            && !self.straight_alpha
            && !self.premultiplying
            && self.label_prefix.is_empty()
            && rgba(descs.first())
            && rgba(outputs.first())
        {
            self.premultiplying = true;
            let ports = self.add_premultiplied(filter, inputs);
            self.premultiplying = false;
            return ports;
        }
        self.label_prefix.push(def.name.to_string());
        let lowered = filter.lower(self, inputs);
        self.label_prefix.pop();
        if let Some(ports) = lowered {
            return ports;
        }
        // bounded work for any spec: graph building, planning and kernel generation are linear
        // in the nodes, and this bounds the nodes
        // (`RunOptions::limits` may lower it for a run; building stops here whatever it says)
        let max_nodes = crate::limits::DEFAULT_MAX_NODES;
        if self.nodes.len() >= max_nodes {
            return Err(Error::Limit(format!("the graph would have more than {max_nodes} nodes (the limit; composite filters count their parts): split the pipeline into several runs")));
        }
        let label = if self.label_prefix.is_empty() {
            def.name.to_string()
        } else {
            format!("{}/{}", self.label_prefix.join("/"), def.name)
        };
        let n = outputs.len();
        self.nodes.push(Node {
            label,
            kind: NodeKind::Filter(filter),
            inputs: inputs.to_vec(),
            outputs,
            pixel_window: self.pixel_window,
        });
        let node = self.nodes.len() - 1;
        Ok((0..n)
            .map(|output| Port {
                graph: self.id,
                node,
                output,
            })
            .collect())
    }

    /// `filter` between `premultiply_alpha` on its first input and `unpremultiply_alpha` on its
    /// first output (labelled `<filter>/premultiply_alpha`, `<filter>/unpremultiply_alpha`).
    fn add_premultiplied(&mut self, filter: Box<dyn Filter>, inputs: &[Port]) -> Result<Vec<Port>> {
        let name = filter.def().name.to_string();
        let (&first, rest) = inputs
            .split_first()
            .ok_or_else(|| Error::wrong_input(name.as_str(), "has no input"))?;
        self.label_prefix.push(name.clone());
        let pre = self.add1_boxed((self.catalogue.premultiply)(), &[first]);
        self.label_prefix.pop();
        let mut ins = vec![pre?];
        ins.extend_from_slice(rest);
        let mut outs = self.add_boxed(filter, &ins)?;
        let out = *outs
            .first()
            .ok_or_else(|| Error::wrong_input(name.as_str(), "has no output"))?;
        self.label_prefix.push(name);
        let post = self.add1_boxed((self.catalogue.unpremultiply)(), &[out]);
        self.label_prefix.pop();
        outs[0] = post?;
        Ok(outs)
    }

    /// Leaves the colour of every filter straight (no `premultiply_alpha` / `unpremultiply_alpha`
    /// around the filters of `registry::PREMULTIPLIED_ALPHA`): for images known to be opaque,
    /// where those nodes change nothing but cost a pass each. Applies to filters added after.
    pub fn set_straight_alpha(&mut self, straight: bool) {
        self.straight_alpha = straight;
    }

    /// The catalogue this graph inserts its conversions from.
    pub fn catalogue(&self) -> &'static Catalogue {
        self.catalogue
    }

    /// `add_boxed` for single-output filters.
    pub(crate) fn add1_boxed(&mut self, filter: Box<dyn Filter>, inputs: &[Port]) -> Result<Port> {
        Ok(self.add_boxed(filter, inputs)?[0])
    }

    /// `add` for single-output filters.
    pub fn add1(&mut self, filter: impl Filter + 'static, inputs: &[Port]) -> Result<Port> {
        Ok(self.add(filter, inputs)?[0])
    }

    /// Marks a port as a named result, read back after execution.
    pub fn output(&mut self, name: &str, port: Port) -> Result<()> {
        if port.graph != self.id {
            return Err(Error::Graph(crate::GraphError::ForeignPort { node: None }));
        }
        if self.outputs.iter().any(|(n, _)| n == name) {
            return Err(Error::Graph(crate::GraphError::DuplicateName {
                what: "outputs",
                name: name.to_string(),
            }));
        }
        self.outputs.push((name.to_string(), port));
        Ok(())
    }

    /// A value carried across the runs of a sequence (a one-frame delay, GPUImage's
    /// `GPUImageBuffer`, aoce's SaveFrame layer): in each run the port gives what the port
    /// named by `feed` held in the previous run, without leaving the GPU. In the first run of a
    /// sequence, and in any run outside one (`Backend::run`), it gives the value of `init`
    /// (computed earlier in the same run). Every state must be fed exactly once before the
    /// graph runs. The graph stays acyclic: the feed is read after the run, not within it.
    ///
    /// ```
    /// # use texelflow::{graph::Graph, ImageDesc, PixelFormat, filters::blend::DissolveBlend};
    /// # fn main() -> texelflow::Result<()> {
    /// // a running average of the frames (low_pass): out = mix(frame, previous out, 0.5)
    /// let mut g = Graph::new();
    /// let frame = g.source("input", ImageDesc::new(64, 48, PixelFormat::Rgba8))?;
    /// let previous = g.state(frame)?;
    /// let out = g.add1(DissolveBlend { mix: 0.5 }, &[frame, previous])?;
    /// g.feed(previous, out)?;
    /// g.output("output", out)?;
    /// # Ok(()) }
    /// ```
    pub fn state(&mut self, init: Port) -> Result<Port> {
        self.check_port(init, "state")?;
        let desc = self.desc(init);
        let label = if self.label_prefix.is_empty() {
            "state".to_string()
        } else {
            format!("{}/state", self.label_prefix.join("/"))
        };
        self.nodes.push(Node {
            label,
            kind: NodeKind::State,
            inputs: vec![init],
            outputs: vec![desc],
            pixel_window: self.pixel_window,
        });
        Ok(Port {
            graph: self.id,
            node: self.nodes.len() - 1,
            output: 0,
        })
    }

    /// Names the port whose value `state` (from `Graph::state`) gives in the next run; it must
    /// carry what the state carries.
    pub fn feed(&mut self, state: Port, next: Port) -> Result<()> {
        self.check_port(state, "feed")?;
        self.check_port(next, "feed")?;
        if !matches!(self.nodes[state.node].kind, NodeKind::State) {
            return Err(Error::Graph(crate::GraphError::State(
                "`feed` takes a port made by `state`".into(),
            )));
        }
        if self.feeds.iter().any(|(s, _)| *s == state.node) {
            return Err(Error::Graph(crate::GraphError::State(
                "this state is already fed".into(),
            )));
        }
        if self.desc(state) != self.desc(next) {
            return Err(Error::Graph(crate::GraphError::State(format!(
                "a state of {} cannot be fed {}",
                self.desc(state),
                self.desc(next)
            ))));
        }
        self.feeds.push((state.node, next));
        Ok(())
    }

    /// Whether the graph carries values from run to run (it has states).
    pub fn has_state(&self) -> bool {
        self.nodes.iter().any(|n| matches!(n.kind, NodeKind::State))
    }

    /// Fails unless every state is fed (the executors call this).
    pub(crate) fn check_states(&self) -> Result<()> {
        for (i, n) in self.nodes.iter().enumerate() {
            if matches!(n.kind, NodeKind::State) && !self.feeds.iter().any(|(s, _)| *s == i) {
                return Err(Error::Graph(crate::GraphError::State(format!(
                    "`{}` is never fed (Graph::feed)",
                    n.label
                ))));
            }
        }
        Ok(())
    }

    fn check_port(&self, p: Port, what: &str) -> Result<()> {
        if p.graph != self.id
            || p.node >= self.nodes.len()
            || p.output >= self.nodes[p.node].outputs.len()
        {
            return Err(Error::Graph(crate::GraphError::ForeignPort {
                node: Some(what.to_string()),
            }));
        }
        Ok(())
    }

    /// What a port carries.
    pub fn desc(&self, port: Port) -> ValueDesc {
        self.nodes[port.node].outputs[port.output]
    }

    /// The node that produces `port`.
    pub fn node_of(&self, port: Port) -> NodeId {
        NodeId(port.node)
    }

    /// Replaces a node's filter (new parameters) for the next run, keeping pipelines and
    /// buffers. The new filter must produce the same outputs from the same inputs.
    pub fn replace(&mut self, node: NodeId, filter: Box<dyn Filter>) -> Result<()> {
        let inputs: Vec<ValueDesc> = self
            .nodes
            .get(node.0)
            .ok_or_else(|| Error::internal("no such node"))?
            .inputs
            .iter()
            .map(|p| self.desc(*p))
            .collect();
        let outs = filter.output_descs(&inputs)?;
        let n = &mut self.nodes[node.0];
        match &n.kind {
            NodeKind::Filter(old) if old.def().name == filter.def().name && outs == n.outputs => {
                n.kind = NodeKind::Filter(filter);
                Ok(())
            }
            _ => Err(Error::invalid(
                "replace needs a filter of the same kind with the same outputs",
            )),
        }
    }

    pub(crate) fn sources(&self) -> impl Iterator<Item = (&str, usize)> {
        self.nodes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| match &n.kind {
                NodeKind::Source { name } => Some((name.as_str(), i)),
                NodeKind::Filter(_) | NodeKind::State => None,
            })
    }

    /// Number of filter nodes (after composites were expanded).
    pub fn filter_count(&self) -> usize {
        self.nodes
            .iter()
            .filter(|n| matches!(n.kind, NodeKind::Filter(_)))
            .count()
    }

    /// Labels of filter nodes in execution order.
    pub fn labels(&self) -> Vec<String> {
        self.nodes
            .iter()
            .filter(|n| matches!(n.kind, NodeKind::Filter(_)))
            .map(|n| n.label.clone())
            .collect()
    }
}
