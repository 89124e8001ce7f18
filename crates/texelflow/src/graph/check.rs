//! A graph checked against the limits before it runs (`crate::limits`): nothing is allocated
//! before these pass.

use super::{Graph, NodeKind};
use crate::error::Result;
use crate::limits::Limits;

/// Checks a graph against the run's limits before it runs (`cpu`: on the CPU reference, else
/// a GPU): at most `max_nodes` filter nodes, every image within `max_pixels`, the memory
/// estimate of the module docs within `max_memory`. Nothing is allocated before this passes.
pub(crate) fn check_graph(graph: &Graph, cpu: bool, l: &Limits) -> Result<()> {
    let filters = graph
        .nodes
        .iter()
        .filter(|n| matches!(n.kind, NodeKind::Filter(_)))
        .count();
    if filters > l.max_nodes {
        return Err(crate::Error::Limit(format!("the graph has {filters} filter nodes, more than the limit of {} (composite filters count their parts): split the pipeline into several runs", l.max_nodes)));
    }
    let (mut sources, mut largest, mut largest_pixels) = (0u64, 0u64, 0u64);
    for n in &graph.nodes {
        for d in &n.outputs {
            if matches!(n.kind, NodeKind::Source { .. }) {
                sources = sources.saturating_add(d.gpu_bytes());
                continue;
            }
            if let Some(i) = d.image() {
                l.check_pixels(&format!("the output of `{}`", n.label), i.width, i.height)?;
                largest_pixels = largest_pixels.max(i.pixels() as u64);
            }
            largest = largest.max(d.gpu_bytes());
        }
    }
    let need = if cpu {
        sources
            .saturating_mul(2)
            .saturating_add(largest.saturating_mul(2))
            .saturating_add(largest_pixels.saturating_mul(16))
    } else {
        sources.saturating_add(largest.saturating_mul(3))
    };
    l.check_memory(
        if cpu {
            "the run on the CPU reference"
        } else {
            "the run"
        },
        need,
    )
}

/// Checks every image a graph makes against `max_pixels` (a run in tiles or bands, whose memory
/// the tiles bound instead: an intermediate or output too large is still refused).
pub(crate) fn check_graph_pixels(graph: &Graph, l: &Limits) -> Result<()> {
    for n in graph
        .nodes
        .iter()
        .filter(|n| !matches!(n.kind, NodeKind::Source { .. }))
    {
        for i in n.outputs.iter().filter_map(|d| d.image()) {
            l.check_pixels(&format!("the output of `{}`", n.label), i.width, i.height)?;
        }
    }
    Ok(())
}

/// Checks the host memory of a run in tiles or bands on a GPU (issue 29 item 7): its sources
/// and its output are held whole, plus `tiles` bytes for the tiles in flight (their staging
/// copies in and out). Checked before anything is allocated, as the CPU reference's whole run.
pub(crate) fn check_tiled_memory(graph: &Graph, tiles: u64, l: &Limits) -> Result<()> {
    let mut sources = 0u64;
    for n in &graph.nodes {
        if matches!(n.kind, NodeKind::Source { .. }) {
            for d in &n.outputs {
                sources = sources.saturating_add(d.gpu_bytes());
            }
        }
    }
    let output = super::bands::graph_output_image(graph)
        .map(|d| d.pixels() as u64 * crate::image::sample_bytes_per_pixel(d.format) as u64)
        .unwrap_or(0);
    l.check_memory(
        "the run in tiles",
        sources.saturating_add(output).saturating_add(tiles),
    )
}
