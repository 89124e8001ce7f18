//! `texelflow list` / `help` and the filter table of docs/filters.md, all generated from the registry.

use anyhow::Result;
use texelflow::params::ParamKind;
use texelflow::registry;

pub fn plain_list() -> String {
    let mut s = String::new();
    let mut family = None;
    for d in registry::all() {
        if family != Some(d.family) {
            family = Some(d.family);
            s.push_str(&format!("\n{}:\n", d.family.name()));
        }
        s.push_str(&format!("  {:<30} {}\n", d.name, d.summary));
    }
    s
}

fn params_brief(d: &registry::FilterDef) -> String {
    d.params
        .iter()
        .map(|p| match p.kind {
            ParamKind::Float { default, min, max } => {
                format!("`{}`={default} [{min}, {max}]", p.name)
            }
            ParamKind::Int { default, min, max } => {
                format!("`{}`={default} [{min}, {max}]", p.name)
            }
            ParamKind::Bool { default } => format!("`{}`={default}", p.name),
            ParamKind::Choice { default, options } => {
                format!("`{}`={default} ({})", p.name, options.join("\\|"))
            }
            ParamKind::Floats { default, .. } => {
                format!("`{}` ({} numbers)", p.name, default.len())
            }
            ParamKind::Image => format!("`{}`=image", p.name),
            ParamKind::Points { .. } => format!("`{}` (curve points)", p.name),
            ParamKind::Path {
                required: true,
                extension,
            } => format!("`{}`=.{extension} file", p.name),
            ParamKind::Path {
                required: false,
                extension,
            } => format!("`{}`=.{extension} file (optional)", p.name),
            ParamKind::Text => format!("`{}`=\"text\" (optional)", p.name),
            ParamKind::Named => format!("`{}`=number (any other names)", p.name),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The filter table (checked against docs/filters.md by a test).
pub fn markdown_table() -> String {
    let mut s = String::from("| filter | family | parameters (default [range]) | GPUImage | what it does |\n|---|---|---|---|---|\n");
    for d in registry::all() {
        s.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            d.name,
            d.family.name(),
            params_brief(d),
            if d.gpuimage.is_empty() {
                "—".to_string()
            } else {
                d.gpuimage.trim_start_matches("GPUImage").to_string()
            },
            d.summary.replace('|', "\\|")
        ));
    }
    s
}

pub fn help(name: &str) -> Result<String> {
    let d = registry::find(name)?;
    let mut s = format!("{} ({})\n  {}\n", d.name, d.family.name(), d.summary);
    if !d.gpuimage.is_empty() {
        s.push_str(&format!("  matches GPUImage's {}\n", d.gpuimage));
    }
    if !d.doc.is_empty() {
        s.push_str(&format!("\n  {}\n", d.doc));
    }
    s.push_str("\ninputs:  ");
    s.push_str(
        &d.inputs
            .iter()
            .map(|p| p.name)
            .collect::<Vec<_>>()
            .join(", "),
    );
    if let Some(formats) = registry::image_formats(d).filter(|f| !f.is_empty()) {
        let narrowed = if formats.contains(&texelflow::PixelFormat::Rgba16) {
            ""
        } else {
            " (a pipeline narrows a 16-bit image to rgba8 before it)"
        };
        s.push_str(&format!(
            "\nformats: {}{narrowed}",
            formats
                .iter()
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if d.premultiplied() {
        s.push_str("\nalpha:   premultiplied (R, G, B multiplied by alpha before the filter and divided after, so transparent pixels' hidden colour does not bleed)");
    }
    s.push_str("\noutputs: ");
    s.push_str(
        &d.outputs
            .iter()
            .map(|p| format!("{} ({:?})", p.name, p.kind))
            .collect::<Vec<_>>()
            .join(", "),
    );
    s.push_str("\n\nparameters:\n");
    if d.params.is_empty() {
        s.push_str("  (none)\n");
    }
    for p in d.params {
        s.push_str(&format!(
            "  {:<12} {}\n  {:<12} {}\n",
            p.name,
            p.doc,
            "",
            p.describe()
        ));
    }
    if d.tolerance.max_diff > 1 {
        s.push_str(&format!(
            "\nGPU and CPU may differ by up to {}/255: {}\n",
            d.tolerance.max_diff, d.tolerance.why
        ));
    }
    s.push_str(&format!("\nexample: {}\n", example(d)));
    Ok(s)
}

/// The filter's call in a spec: its required image and file parameters (`with=other.png`,
/// `lut=lut.png`, `file=file.cube`) and its other scalar parameters at their defaults.
fn call(d: &registry::FilterDef) -> String {
    let mut args: Vec<String> = d
        .params
        .iter()
        .filter_map(|p| match p.kind {
            ParamKind::Image if p.name == "lut" => Some("lut=lut.png".to_string()),
            ParamKind::Image => Some(format!("{}=other.png", p.name)),
            ParamKind::Path {
                required: true,
                extension,
            } => Some(format!("{}=file.{extension}", p.name)),
            _ => None,
        })
        .collect();
    args.extend(
        d.params
            .iter()
            .filter(|p| {
                !matches!(
                    p.kind,
                    ParamKind::Image
                        | ParamKind::Floats { .. }
                        | ParamKind::Points { .. }
                        | ParamKind::Path { .. }
                        | ParamKind::Text
                        | ParamKind::Named
                )
            })
            .map(|p| {
                let v = match p.default_value() {
                    Some(texelflow::params::ParamValue::Float(x)) => x.to_string(),
                    Some(texelflow::params::ParamValue::Int(x)) => x.to_string(),
                    Some(texelflow::params::ParamValue::Bool(b)) => b.to_string(),
                    Some(texelflow::params::ParamValue::Choice(c)) => c,
                    _ => String::new(),
                };
                format!("{}={v}", p.name)
            }),
    );
    if args.is_empty() {
        d.name.to_string()
    } else {
        format!("{}({})", d.name, args.join(", "))
    }
}

/// A filter that makes `kind` data from what `depth` more steps can give it (an image, or
/// data made so), as a spec prefix: `histogram`, or `histogram | range_from_histogram`.
fn producer(kind: texelflow::DataKind, depth: usize) -> Option<String> {
    if depth == 0 {
        return None;
    }
    registry::all().iter().find_map(|d| {
        let makes = matches!(d.outputs, [registry::PortDef { kind: registry::PortKind::Data(k), .. }] if *k == kind);
        let needs_file = d.params.iter().any(|p| matches!(p.kind, ParamKind::Image | ParamKind::Path { required: true, .. }));
        if !makes || needs_file {
            return None;
        }
        match d.inputs {
            [registry::PortDef { kind: registry::PortKind::Image, .. }] => Some(d.name.to_string()),
            [registry::PortDef { kind: registry::PortKind::Data(k), .. }] => producer(*k, depth - 1).map(|p| format!("{p} | {}", d.name)),
            _ => None,
        }
    })
}

/// A command that runs the filter as `help` shows it: the data it reads made by the steps
/// before it, its result written as an image or, for data, as JSON (`--data out.json`).
pub fn example(d: &registry::FilterDef) -> String {
    let mut spec = call(d);
    // the data inputs are made first; an image + data stage takes the last image before them
    if let Some(registry::PortDef {
        kind: registry::PortKind::Data(kind),
        ..
    }) = d
        .inputs
        .iter()
        .find(|p| p.kind != registry::PortKind::Image)
    {
        if let Some(p) = producer(*kind, 3) {
            spec = format!("{p} | {spec}");
        }
    }
    let data_out = matches!(
        d.outputs.first(),
        Some(registry::PortDef {
            kind: registry::PortKind::Data(_),
            ..
        })
    );
    let dest = if data_out {
        "--data out.json"
    } else {
        "out.png"
    };
    format!("texelflow apply in.png {dest} --pipeline \"{spec}\"")
}

/// Every filter's example, `name<TAB>command` a line (`list --examples`; a test runs them all).
pub fn examples() -> String {
    registry::all()
        .iter()
        .map(|d| format!("{}\t{}\n", d.name, example(d)))
        .collect()
}
