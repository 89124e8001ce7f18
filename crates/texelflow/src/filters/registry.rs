//! The filter registry: every filter declared once. The spec parser, CLI (`list`, `help`),
//! docs/filters.md's filter table and the GPU-vs-CPU test matrix all iterate `all()`. The declaration
//! types live with the graph (`crate::graph::filter`, re-exported here for filter files);
//! `catalogue()` hands the graph what it needs of the filters.

pub use crate::graph::filter::*;

use crate::error::{Error, Result};
use crate::graph::{Graph, Pipeline};

/// All registered filters, in catalogue order.
pub fn all() -> &'static [&'static FilterDef] {
    crate::filters::registry()
}

/// Looks a filter up by name, suggesting the nearest on a miss.
pub fn find(name: &str) -> Result<&'static FilterDef> {
    catalogue().find(name)
}

static CATALOGUE: Catalogue = Catalogue {
    defs: all,
    to_rgba: || Box::new(crate::filters::convert::ToRgba),
    premultiply: || Box::new(crate::filters::color::PremultiplyAlpha),
    unpremultiply: || Box::new(crate::filters::color::UnpremultiplyAlpha),
    crop_px: |x, y, w, h| Ok(Box::new(crate::filters::geometry::Crop::px(x, y, w, h)?)),
    fit: crate::filters::geometry::fit::add_fit,
};

/// The catalogue the graph layer is handed (`Graph::new`, `Pipeline::new`, `Pipeline::parse`).
pub fn catalogue() -> &'static Catalogue {
    &CATALOGUE
}

impl Graph {
    /// An empty graph over the whole catalogue.
    pub fn new() -> Self {
        Graph::with_catalogue(catalogue())
    }
}

impl Default for Graph {
    fn default() -> Self {
        Self::new()
    }
}

impl Pipeline {
    /// An empty pipeline over the whole catalogue.
    pub fn new() -> Self {
        Pipeline::with_catalogue(catalogue())
    }
}

impl Pipeline {
    /// Parses a text spec over the whole catalogue; `load` opens the images named by image
    /// parameters.
    pub fn parse(
        text: &str,
        load: &mut dyn FnMut(&str) -> Result<crate::Image>,
    ) -> Result<Pipeline> {
        Pipeline::parse_with(catalogue(), text, load)
    }
}

impl Default for Pipeline {
    fn default() -> Self {
        Self::new()
    }
}

/// Builds one filter from a call in spec syntax, e.g. `create("gaussian_blur(sigma=2)")`, for a
/// graph node: a filter's extra images are its input ports there, so image parameters
/// (`alpha_blend(with=...)`) may be left out (a path given is ignored).
pub fn create(call: &str) -> Result<Box<dyn Filter>> {
    let calls = crate::graph::spec::parse(call)?;
    let [one] = calls.as_slice() else {
        return Err(Error::Spec {
            message: format!("expected one filter, got {}", calls.len()),
            column: 1,
        });
    };
    let (def, args) = crate::graph::spec::resolve_node(catalogue(), one)?;
    (def.build)(&args)
}

/// The whole catalogue as JSON, for front ends that list filters without a copy of their own
/// (the web playground, `texelflow list --json`): per filter its name, family, summary, notes,
/// GPUImage counterpart, inputs and outputs (`image` or a data kind), parameters with their
/// kind, default and range or options, and how far its GPU result may be from its CPU twin.
pub fn catalogue_json() -> serde_json::Value {
    use crate::graph::params::ParamKind;
    use serde_json::json;
    let port = |p: &PortDef| {
        json!({
            "name": p.name,
            "kind": match p.kind {
                PortKind::Image => "image",
                PortKind::Data(k) => k.name(),
            },
        })
    };
    let filters: Vec<serde_json::Value> = all()
        .iter()
        .map(|d| {
            let params: Vec<serde_json::Value> = d
                .params
                .iter()
                .map(|p| {
                    let mut v = match p.kind {
                        ParamKind::Float { default, min, max } => {
                            json!({"kind": "float", "default": default, "min": min, "max": max})
                        }
                        ParamKind::Int { default, min, max } => {
                            json!({"kind": "int", "default": default, "min": min, "max": max})
                        }
                        ParamKind::Bool { default } => json!({"kind": "bool", "default": default}),
                        ParamKind::Choice { default, options } => {
                            json!({"kind": "choice", "default": default, "options": options})
                        }
                        ParamKind::Floats { default, min, max } => {
                            json!({"kind": "floats", "default": default, "min": min, "max": max})
                        }
                        ParamKind::Points {
                            default,
                            max_points,
                        } => {
                            json!({"kind": "points", "default": default, "max_points": max_points})
                        }
                        ParamKind::Path {
                            required,
                            extension,
                        } => json!({"kind": "path", "required": required, "extension": extension}),
                        ParamKind::Image => json!({"kind": "image"}),
                        ParamKind::Text => json!({"kind": "text"}),
                        ParamKind::Named => json!({"kind": "named"}),
                    };
                    v["name"] = json!(p.name);
                    v["doc"] = json!(p.doc);
                    v
                })
                .collect();
            json!({
                "name": d.name,
                "family": d.family.name(),
                "summary": d.summary,
                "doc": d.doc,
                "gpuimage": d.gpuimage,
                "inputs": d.inputs.iter().map(port).collect::<Vec<_>>(),
                "outputs": d.outputs.iter().map(port).collect::<Vec<_>>(),
                "params": params,
                "tolerance": {"max_diff": d.tolerance.max_diff, "why": d.tolerance.why},
            })
        })
        .collect();
    json!({ "filters": filters })
}
