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

/// The whole catalogue as JSON, one schema for every front end that lists filters without a
/// copy of its own (the Python package's `list_filters`, the web playground): per filter its
/// name, family, summary, notes, GPUImage counterpart, inputs and outputs (`image` or a data
/// kind), the image formats it takes, how far its GPU result may be from its CPU twin, and
/// its parameters with their kind, default, range (`[min, max]`) or options, help line and
/// one-line description.
pub fn catalogue_json() -> serde_json::Value {
    use crate::graph::params::ParamKind;
    use serde_json::{json, Value};
    let port = |p: &PortDef| {
        json!({
            "name": p.name,
            "kind": match p.kind {
                PortKind::Image => "image",
                PortKind::Data(k) => k.name(),
            },
        })
    };
    let filters: Vec<Value> = all()
        .iter()
        .map(|d| {
            let params: Vec<Value> = d
                .params
                .iter()
                .map(|p| {
                    let (kind, default, range, options) = match p.kind {
                        ParamKind::Float { default, min, max } => {
                            ("float", json!(default), json!([min, max]), Value::Null)
                        }
                        ParamKind::Int { default, min, max } => {
                            ("int", json!(default), json!([min, max]), Value::Null)
                        }
                        ParamKind::Bool { default } => {
                            ("bool", json!(default), Value::Null, Value::Null)
                        }
                        ParamKind::Choice { default, options } => {
                            ("choice", json!(default), Value::Null, json!(options))
                        }
                        ParamKind::Floats { default, min, max } => {
                            ("floats", json!(default), json!([min, max]), Value::Null)
                        }
                        ParamKind::Points { default, .. } => {
                            ("points", json!(default), json!([0.0, 1.0]), Value::Null)
                        }
                        ParamKind::Path {
                            required,
                            extension,
                        } => (
                            "path",
                            Value::Null,
                            Value::Null,
                            json!({ "required": required, "extension": extension }),
                        ),
                        ParamKind::Image => ("image", Value::Null, Value::Null, Value::Null),
                        ParamKind::Text => ("text", Value::Null, Value::Null, Value::Null),
                        ParamKind::Named => ("named", Value::Null, Value::Null, Value::Null),
                    };
                    json!({
                        "name": p.name, "kind": kind, "default": default, "range": range,
                        "options": options, "doc": p.doc, "describe": p.describe(),
                    })
                })
                .collect();
            json!({
                "name": d.name,
                "family": d.family.name(),
                "summary": d.summary,
                "doc": d.doc,
                "gpuimage": d.gpuimage,
                "params": params,
                "inputs": d.inputs.iter().map(port).collect::<Vec<_>>(),
                "outputs": d.outputs.iter().map(port).collect::<Vec<_>>(),
                "formats": image_formats(d).map(|f| f.iter().map(|f| f.name()).collect::<Vec<_>>()),
                "tolerance": {"max_diff": d.tolerance.max_diff, "why": d.tolerance.why},
            })
        })
        .collect();
    json!({ "filters": filters })
}
