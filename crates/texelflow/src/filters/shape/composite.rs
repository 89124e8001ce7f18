//! The composite shape (GPUImage's `GPUImageFilterGroup`, GPUImage3's `OperationGroup`): a
//! filter that is a graph of other filters. It declares its parameters and `lower`, which adds
//! its primitives to the graph; it has no kernel and no CPU twin of its own (its primitives
//! have both), and its outputs are whatever the lowered graph gives.

use crate::error::{Error, Result};
use crate::filters::registry::{FilterDef, Footprint};
use crate::graph::NodeKind;
use crate::graph::{Graph, Port};
use crate::value::ValueDesc;

/// What a composite's lowering makes of inputs with these descriptions, found by lowering it
/// into a scratch graph of sources.
pub fn lowered_outputs(
    def: &FilterDef,
    inputs: &[ValueDesc],
    lower: impl FnOnce(&mut Graph, &[Port]) -> Result<Vec<Port>>,
) -> Result<Vec<ValueDesc>> {
    let mut g = Graph::new();
    let mut ports = Vec::new();
    for (i, d) in inputs.iter().enumerate() {
        match d {
            ValueDesc::Image(desc) => ports.push(g.source(&format!("in{i}"), *desc)?),
            ValueDesc::Data(_) => {
                return Err(Error::invalid(format!(
                    "`{}`: composites take images only",
                    def.name
                )))
            }
        }
    }
    Ok(lower(&mut g, &ports)?
        .into_iter()
        .map(|p| g.desc(p))
        .collect())
}

/// What the lowered graph's first output reads of the first input: the nodes' footprints
/// composed along every path (conservatively, `WholeImage` when the lowering fails).
pub fn lowered_footprint(
    def: &FilterDef,
    inputs: &[ValueDesc],
    lower: impl FnOnce(&mut Graph, &[Port]) -> Result<Vec<Port>>,
) -> Footprint {
    let mut g = Graph::new();
    let mut ports = Vec::new();
    for (i, d) in inputs.iter().enumerate() {
        match d {
            ValueDesc::Image(desc) => match g.source(&format!("in{i}"), *desc) {
                Ok(p) => ports.push(p),
                Err(_) => return Footprint::WholeImage,
            },
            ValueDesc::Data(_) => return Footprint::WholeImage,
        }
    }
    let Ok(outs) = lower(&mut g, &ports) else {
        return Footprint::WholeImage;
    };
    let Some(out) = outs.first() else {
        return Footprint::WholeImage;
    };
    let _ = def;
    // per node: the footprint of its output on the sources (sources are the identity)
    let mut fp: Vec<Footprint> = Vec::with_capacity(g.nodes.len());
    for n in &g.nodes {
        let f = match &n.kind {
            NodeKind::Source { .. } => Footprint::Pixel,
            // last run's value of the same place: per pixel in space
            NodeKind::State => n
                .inputs
                .iter()
                .map(|p| fp[p.node])
                .reduce(Footprint::union)
                .unwrap_or(Footprint::Pixel),
            NodeKind::Filter(f) => {
                let descs: Vec<ValueDesc> = n.inputs.iter().map(|p| g.desc(*p)).collect();
                let own = f.footprint(&descs);
                n.inputs
                    .iter()
                    .map(|p| own.after(fp[p.node]))
                    .reduce(Footprint::union)
                    .unwrap_or(own)
            }
        };
        fp.push(f);
    }
    fp[out.node]
}

/// The error of a composite asked to run itself: `Graph::add` always expands composites.
pub fn never_runs(def: &FilterDef) -> Error {
    Error::invalid(format!(
        "`{}` is a composite: it is expanded into its filters when added to a graph",
        def.name
    ))
}

/// Declares a composite filter in one place: parameters as in `pixel_filter!`, and
/// `lower: |f, graph, inputs| -> Result<Vec<Port>>`. See `morphology/opening.rs`. A composite
/// whose result is data declares it with `outputs:` (default: one image).
#[macro_export]
macro_rules! composite_filter {
    (
        $(#[$meta:meta])*
        pub struct $Name:ident;
        name: $name:literal,
        family: $family:ident,
        gpuimage: $gpuimage:literal,
        summary: $summary:literal,
        $(doc: $doc:expr,)?
        params: { $( $p:ident : $kind:ident $( ( $($karg:expr),* ) )? = $default:expr => $pdoc:literal ),* $(,)? },
        $(tolerance: $tol:expr,)?
        $(schedules: $sched:expr,)?
        $(outputs: $outs:expr,)?
        lower: |$lf:ident, $lg:ident, $li:ident| $lower:expr $(,)?
    ) => {
        $crate::__pf_params!($(#[$meta])* $Name { $( $p : $kind = $default => $pdoc ),* });

        impl $Name {
            fn lower_into(&self, $lg: &mut $crate::graph::Graph, $li: &[$crate::graph::Port]) -> $crate::Result<Vec<$crate::graph::Port>> {
                let $lf = self;
                $lower
            }
        }

        $crate::__pf_def! {
            $Name, $name, $crate::filters::registry::Family::$family, $gpuimage, $summary, [$($doc)?], [],
            [$( $p : $kind $( ( $($karg),* ) )? = $default => $pdoc ),*], [],
            $crate::filters::registry::IMAGE, $crate::__pf_or!([$($tol)?] [$crate::filters::registry::EXACT_ENOUGH]), $crate::__pf_or!([$($sched)?] [&[]])
            $(, outputs: $outs)?
        }

        impl $crate::filters::registry::Filter for $Name {
            fn footprint(&self, inputs: &[$crate::value::ValueDesc]) -> $crate::filters::registry::Footprint {
                $crate::filters::shape::composite::lowered_footprint(&DEF, inputs, |g, ports| self.lower_into(g, ports))
            }
            fn def(&self) -> &'static $crate::filters::registry::FilterDef {
                &DEF
            }
            fn output_descs(&self, inputs: &[$crate::value::ValueDesc]) -> $crate::Result<Vec<$crate::value::ValueDesc>> {
                $crate::filters::shape::composite::lowered_outputs(&DEF, inputs, |g, ports| self.lower_into(g, ports))
            }
            fn run_cpu(&self, _: &[&$crate::value::Value], _: &[$crate::value::ValueDesc]) -> $crate::Result<Vec<$crate::value::Value>> {
                Err($crate::filters::shape::composite::never_runs(&DEF))
            }
            fn record_gpu(&self, _: &mut $crate::runtime::NodeRecorder<'_>, _: &[$crate::runtime::GpuSlot], _: &[$crate::runtime::GpuSlot]) -> $crate::Result<()> {
                Err($crate::filters::shape::composite::never_runs(&DEF))
            }
            fn lower(&self, graph: &mut $crate::graph::Graph, inputs: &[$crate::graph::Port]) -> Option<$crate::Result<Vec<$crate::graph::Port>>> {
                Some(self.lower_into(graph, inputs))
            }
            fn box_clone(&self) -> Box<dyn $crate::filters::registry::Filter> {
                Box::new(self.clone())
            }
        }
    };
}
