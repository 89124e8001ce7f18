//! Data results and image analyses as JSON, the form the CLI writes (`--data`, `analyze
//! --json`) and the Python bindings return (as dicts), so both give the same fields.

use crate::value::{Data, Stats};

/// A data value as JSON: a point list as `{"points": [{"x", "y", "score"}...], "overflow", "found"}`,
/// a line list as `{"lines": [{"rho", "theta", "votes"}...], "overflow", "found", "max_votes"}`
/// (strongest first; θ in radians), a histogram as `{"histogram": {CHANNEL: [256 counts]...}, "space"}`
/// (channels named for the space), curves as `{"lut": {"r": [256 levels]...}}`, black and white
/// points as `{"range": {CHANNEL: {"low", "high"}...}}` (the channels computed), the other kinds
/// with their fields.
pub fn data_json(d: &Data) -> serde_json::Value {
    match d {
        Data::Points(p) => serde_json::json!({
            "points": p.points.iter().map(|q| serde_json::json!({ "x": q.x, "y": q.y, "score": q.score })).collect::<Vec<_>>(),
            "overflow": p.overflow,
            "found": p.found,
        }),
        Data::Lines(l) => serde_json::json!({
            "lines": l.lines.iter().map(|q| serde_json::json!({ "rho": q.rho, "theta": q.theta, "votes": q.votes })).collect::<Vec<_>>(),
            "overflow": l.overflow,
            "found": l.found,
            "max_votes": l.max_votes,
        }),
        Data::Stats(s) => {
            let ch: serde_json::Map<String, serde_json::Value> = Stats::CHANNELS.iter().enumerate().map(|(c, n)| (n.to_string(), serde_json::json!({ "min": s.min[c], "max": s.max[c], "sum": s.sum[c], "mean": s.mean(c) }))).collect();
            serde_json::json!({ "count": s.count, "channels": ch })
        }
        Data::Histogram(h) => {
            let ch: serde_json::Map<String, serde_json::Value> = h
                .channel_names()
                .iter()
                .enumerate()
                .map(|(c, n)| (n.to_string(), serde_json::json!(h.bins[c].to_vec())))
                .collect();
            serde_json::json!({ "histogram": ch, "space": h.space.name() })
        }
        Data::Lut(l) => {
            let ch: serde_json::Map<String, serde_json::Value> = crate::Lut::CHANNELS
                .iter()
                .enumerate()
                .map(|(c, n)| (n.to_string(), serde_json::json!(l.table[c].to_vec())))
                .collect();
            serde_json::json!({ "lut": ch })
        }
        Data::Range(r) => {
            let ch: serde_json::Map<String, serde_json::Value> = crate::Range::CHANNELS
                .iter()
                .enumerate()
                .filter(|(c, _)| r.has(*c))
                .map(|(c, n)| {
                    (
                        n.to_string(),
                        serde_json::json!({ "low": r.low[c], "high": r.high[c] }),
                    )
                })
                .collect();
            serde_json::json!({ "range": ch })
        }
        Data::Mean { sum, count } => {
            serde_json::json!({ "mean": d.mean_value(), "sum": sum, "count": count })
        }
        Data::Color(c) => {
            let [r, g, b] = c.color();
            serde_json::json!({ "color": [r, g, b], "hex": format!("#{r:02x}{g:02x}{b:02x}"), "share": c.share(), "pixels_in_cell": c.count, "cell": c.cell, "bits": c.bits })
        }
        Data::Bytes(b) => serde_json::json!({ "bytes": b.bytes.len(), "words": b.words }),
        Data::Motion(m) => {
            let (x, y) = m
                .centroid()
                .map_or((None, None), |(x, y)| (Some(x), Some(y)));
            serde_json::json!({ "centroid_x": x, "centroid_y": y, "intensity": m.intensity(), "moving_pixels": m.moving, "width": m.width, "height": m.height })
        }
        Data::Fingerprint(f) => {
            serde_json::json!({ "grid": f.grid, "bits": f.bits, "pixels": f.pixels, "bins": f.bins })
        }
        Data::PhotoMetrics(m) => {
            let a = crate::assess::Assessment::from_metrics(m);
            serde_json::json!({
                "score": a.score(), "tenengrad": a.tenengrad, "laplacian_variance": a.laplacian_variance,
                "mean_luma": a.mean_luma, "clipped_shadows": a.clipped_shadows, "clipped_highlights": a.clipped_highlights,
                "rms_contrast": a.rms_contrast, "luma_p1": a.luma_p1, "luma_p99": a.luma_p99, "colorfulness": a.colorfulness,
                "mean_saturation": a.mean_saturation, "noise_sigma": a.noise_sigma,
            })
        }
    }
}

/// What `texelflow analyze` measures of an image: per-channel statistics, the histograms and
/// the mean HSV saturation, from one graph (`analysis_graph`) run in one submission.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// Per-channel statistics.
    pub stats: Stats,
    /// Per-channel histograms.
    pub histogram: crate::Histogram,
    /// Mean HSV saturation in [0, 1].
    pub mean_saturation: f64,
}

/// The analysis graph for an RGBA8 image of `desc`: source `image`, outputs `stats`
/// (`reduce`), `histogram` and `saturation` (`mean_saturation`).
pub fn analysis_graph(desc: crate::ImageDesc) -> crate::Result<crate::Graph> {
    use crate::graph::params::Args;
    let mut g = crate::Graph::new();
    let src = g.source("image", desc)?;
    for (output, filter) in [
        ("stats", "reduce"),
        ("histogram", "histogram"),
        ("saturation", "mean_saturation"),
    ] {
        let def = crate::filters::registry::find(filter)?;
        let port = g.add_boxed((def.build)(&Args::defaults(def))?, &[src])?[0];
        g.output(output, port)?;
    }
    Ok(g)
}

impl Analysis {
    /// Reads the outputs of `analysis_graph` (data values by output name).
    pub fn from_outputs(
        width: u32,
        height: u32,
        mut get: impl FnMut(&str) -> Option<Data>,
    ) -> crate::Result<Analysis> {
        let missing =
            |what: &str| crate::Error::invalid(format!("the analysis graph gave no {what}"));
        let Some(Data::Stats(stats)) = get("stats") else {
            return Err(missing("statistics"));
        };
        let Some(Data::Histogram(histogram)) = get("histogram") else {
            return Err(missing("histogram"));
        };
        let mean_saturation = get("saturation")
            .and_then(|d| d.mean_value())
            .ok_or_else(|| missing("saturation"))?;
        Ok(Analysis {
            width,
            height,
            stats,
            histogram,
            mean_saturation,
        })
    }

    /// `analyze --json`'s fields (without `file`): size, backend, per-channel min/max/mean,
    /// mean luminance and saturation, `histogram` (channel -> 256 counts, the shape of
    /// `data_json`'s histogram) and `levels` (per-channel percentiles and clipping).
    pub fn to_json(&self, backend: &str) -> serde_json::Value {
        let (s, h) = (&self.stats, &self.histogram);
        let n = s.count.max(1) as f64;
        let ch =
            |c: usize| serde_json::json!({ "min": s.min[c], "max": s.max[c], "mean": s.mean(c) });
        let hc = |c: usize| {
            serde_json::json!({
                "p05": h.percentile(c, 0.05), "p50": h.percentile(c, 0.5), "p95": h.percentile(c, 0.95),
                "clipped_low": h.bins[c][0] as f64 / n, "clipped_high": h.bins[c][255] as f64 / n,
            })
        };
        // the histogram in `data_json`'s shape (`apply --data -p histogram`'s "histogram":
        // channel -> 256 counts), its summary beside it (issue 29: one shape, not two)
        let histogram = match data_json(&Data::Histogram(h.clone())) {
            serde_json::Value::Object(mut m) => m.remove("histogram").unwrap_or_default(),
            _ => serde_json::Value::Null,
        };
        serde_json::json!({
            "width": self.width, "height": self.height,
            "backend": backend,
            "channels": { "r": ch(0), "g": ch(1), "b": ch(2), "a": ch(3), "y": ch(4) },
            "mean_luminance": s.mean(4) / 255.0,
            "mean_saturation": self.mean_saturation,
            "histogram": histogram,
            "levels": { "r": hc(0), "g": hc(1), "b": hc(2), "y": hc(3), "a": hc(4) },
        })
    }
}

/// `v` as indented JSON with every array of numbers on one line (a histogram is one line,
/// not 256): what the CLI prints for `analyze --json` and writes for `--data`.
pub fn to_string_compact(v: &serde_json::Value) -> String {
    fn go(v: &serde_json::Value, depth: usize, out: &mut String) {
        use serde_json::Value as V;
        let pad = |d: usize| "  ".repeat(d);
        match v {
            V::Array(a) if a.iter().all(|x| !x.is_array() && !x.is_object()) => {
                out.push_str(&serde_json::to_string(v).unwrap_or_default());
            }
            V::Array(a) if !a.is_empty() => {
                out.push_str("[\n");
                for (k, x) in a.iter().enumerate() {
                    out.push_str(&pad(depth + 1));
                    go(x, depth + 1, out);
                    out.push_str(if k + 1 < a.len() { ",\n" } else { "\n" });
                }
                out.push_str(&pad(depth));
                out.push(']');
            }
            V::Object(m) if !m.is_empty() => {
                out.push_str("{\n");
                for (k, (key, x)) in m.iter().enumerate() {
                    out.push_str(&pad(depth + 1));
                    out.push_str(&serde_json::to_string(key).unwrap_or_default());
                    out.push_str(": ");
                    go(x, depth + 1, out);
                    out.push_str(if k + 1 < m.len() { ",\n" } else { "\n" });
                }
                out.push_str(&pad(depth));
                out.push('}');
            }
            _ => out.push_str(&serde_json::to_string(v).unwrap_or_default()),
        }
    }
    let mut out = String::new();
    go(v, 0, &mut out);
    out
}

/// Runs the analysis of an RGBA8 image on `backend`.
pub fn analyze(backend: &crate::Backend, img: &crate::Image) -> crate::Result<Analysis> {
    let g = analysis_graph(img.desc())?;
    let mut r = backend.run(&g, &[("image", img)], &crate::RunOptions::default())?;
    Analysis::from_outputs(img.width(), img.height(), |name| match r.take(name) {
        Some(crate::Value::Data(d)) => Some(d),
        _ => None,
    })
}
