//! `pixelflow analyze`: one graph with a fan-out from the image to `reduce`, `histogram`
//! and `mean_saturation`, executed in one submission.

use std::path::Path;

use anyhow::{Context, Result};
use pixelflow::params::Args;
use pixelflow::{registry, Backend, Data, Graph, RunOptions, Stats};

fn node(g: &mut Graph, name: &str, input: pixelflow::Port) -> Result<pixelflow::Port> {
    let def = registry::find(name)?;
    let f = (def.build)(&Args::defaults(def))?;
    Ok(g.add_boxed(f, &[input])?[0])
}

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
            let ch: serde_json::Map<String, serde_json::Value> = h.channel_names().iter().enumerate().map(|(c, n)| (n.to_string(), serde_json::json!(h.bins[c].to_vec()))).collect();
            serde_json::json!({ "histogram": ch, "space": h.space.name() })
        }
        Data::Lut(l) => {
            let ch: serde_json::Map<String, serde_json::Value> = pixelflow::Lut::CHANNELS.iter().enumerate().map(|(c, n)| (n.to_string(), serde_json::json!(l.table[c].to_vec()))).collect();
            serde_json::json!({ "lut": ch })
        }
        Data::Range(r) => {
            let ch: serde_json::Map<String, serde_json::Value> = pixelflow::Range::CHANNELS.iter().enumerate().filter(|(c, _)| r.has(*c)).map(|(c, n)| (n.to_string(), serde_json::json!({ "low": r.low[c], "high": r.high[c] }))).collect();
            serde_json::json!({ "range": ch })
        }
        Data::Mean { sum, count } => serde_json::json!({ "mean": d.mean_value(), "sum": sum, "count": count }),
        Data::Color(c) => {
            let [r, g, b] = c.color();
            serde_json::json!({ "color": [r, g, b], "hex": format!("#{r:02x}{g:02x}{b:02x}"), "share": c.share(), "pixels_in_cell": c.count, "cell": c.cell, "bits": c.bits })
        }
        Data::Fingerprint(f) => serde_json::json!({ "grid": f.grid, "bits": f.bits, "pixels": f.pixels, "bins": f.bins }),
        Data::PhotoMetrics(m) => {
            let a = pixelflow::assess::Assessment::from_metrics(m);
            serde_json::json!({
                "score": a.score(), "tenengrad": a.tenengrad, "laplacian_variance": a.laplacian_variance,
                "mean_luma": a.mean_luma, "clipped_shadows": a.clipped_shadows, "clipped_highlights": a.clipped_highlights,
                "rms_contrast": a.rms_contrast, "luma_p1": a.luma_p1, "luma_p99": a.luma_p99, "colorfulness": a.colorfulness,
                "mean_saturation": a.mean_saturation, "noise_sigma": a.noise_sigma,
            })
        }
    }
}

/// Writes `data_json(d)` to `path` (`-`: standard output).
pub fn write_data_json(d: &Data, path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(&data_json(d))? + "\n";
    if path.as_os_str() == "-" {
        out!("{text}");
        return Ok(());
    }
    // atomically, as images: a temporary file beside it, renamed over it
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let tmp = dir.join(format!(".{}.pixelflow-{}.tmp", path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default(), std::process::id()));
    let written = std::fs::write(&tmp, text).and_then(|_| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.with_context(|| format!("writing `{}`", path.display()))
}

/// Parses `WxH`.
fn parse_size(s: &str) -> Result<(u32, u32)> {
    let (w, h) = s.split_once(['x', 'X']).with_context(|| format!("plot size `{s}` is not WxH (e.g. 1024x600)"))?;
    Ok((w.trim().parse().with_context(|| format!("plot size `{s}` is not WxH (e.g. 1024x600)"))?, h.trim().parse().with_context(|| format!("plot size `{s}` is not WxH (e.g. 1024x600)"))?))
}

/// Draws the R, G, B and Y histograms of `h` into `path`.
fn write_plot(h: &pixelflow::Histogram, input: &Path, path: &Path, size: &str) -> Result<()> {
    let size = parse_size(size)?;
    // R, G, B and Y (alpha, the fifth channel, is left out of the chart)
    let names = &pixelflow::Histogram::CHANNELS[..4];
    let series: Vec<crate::plot::Series<'_>> = names.iter().enumerate().map(|(c, n)| crate::plot::Series { name: n, bins: &h.bins[c], color: crate::plot::channel_color(n) }).collect();
    let title = input.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if let Some(note) = crate::plot::histogram_png(&series, &title, path, size)? {
        eprintln!("note: {note}");
    }
    Ok(())
}

pub fn run(be: &Backend, input: &Path, json: bool, plot: Option<(&Path, &str)>) -> Result<()> {
    if let Some((_, size)) = plot {
        parse_size(size)?;
    }
    let img = crate::load_image(input)?.0.convert(pixelflow::PixelFormat::Rgba8);
    let mut g = Graph::new();
    let src = g.source("image", img.desc())?;
    let stats = node(&mut g, "reduce", src)?;
    let hist = node(&mut g, "histogram", src)?;
    let sat = node(&mut g, "mean_saturation", src)?;
    g.output("stats", stats)?;
    g.output("histogram", hist)?;
    g.output("saturation", sat)?;
    let r = be.run(&g, &[("image", &img)], &RunOptions::default())?;
    let Some(pixelflow::Value::Data(Data::Stats(s))) = r.get("stats").cloned() else { anyhow::bail!("no stats") };
    let Some(pixelflow::Value::Data(Data::Histogram(h))) = r.get("histogram").cloned() else { anyhow::bail!("no histogram") };
    let sat = r.get("saturation").and_then(|v| v.as_data()).and_then(|d| d.mean_value()).context("no saturation")?;
    let n = s.count.max(1) as f64;
    if let Some((path, size)) = plot {
        write_plot(&h, input, path, size)?;
    }
    if json {
        let ch = |c: usize| {
            serde_json::json!({ "min": s.min[c], "max": s.max[c], "mean": s.mean(c) })
        };
        let hc = |c: usize| {
            serde_json::json!({
                "p05": h.percentile(c, 0.05), "p50": h.percentile(c, 0.5), "p95": h.percentile(c, 0.95),
                "clipped_low": h.bins[c][0] as f64 / n, "clipped_high": h.bins[c][255] as f64 / n,
                "bins": h.bins[c].to_vec(),
            })
        };
        let v = serde_json::json!({
            "file": input.display().to_string(),
            "width": img.width(), "height": img.height(),
            "backend": be.describe(),
            "channels": { "r": ch(0), "g": ch(1), "b": ch(2), "a": ch(3), "y": ch(4) },
            "mean_luminance": s.mean(4) / 255.0,
            "mean_saturation": sat,
            "histogram": { "r": hc(0), "g": hc(1), "b": hc(2), "y": hc(3), "a": hc(4) },
        });
        outln!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    outln!("{}: {}x{} ({})", input.display(), img.width(), img.height(), be.describe());
    outln!("channel   min   max     mean     p5   p50   p95  clipped low/high");
    for (c, name) in Stats::CHANNELS.iter().enumerate() {
        // Stats order r, g, b, a, y; histogram order r, g, b, y, a
        let hist_c = match c {
            0..=2 => Some(c),
            3 => Some(4),
            4 => Some(3),
            _ => None,
        };
        let (p5, p50, p95, clip) = match hist_c {
            Some(k) => (
                h.percentile(k, 0.05).to_string(),
                h.percentile(k, 0.5).to_string(),
                h.percentile(k, 0.95).to_string(),
                format!("{:.2}% / {:.2}%", 100.0 * h.bins[k][0] as f64 / n, 100.0 * h.bins[k][255] as f64 / n),
            ),
            None => ("-".into(), "-".into(), "-".into(), "-".into()),
        };
        outln!("{:<7} {:>5} {:>5} {:>8.2}  {:>5} {:>5} {:>5}  {}", name, s.min[c], s.max[c], s.mean(c), p5, p50, p95, clip);
    }
    outln!("mean luminance (BT.601): {:.4}", s.mean(4) / 255.0);
    outln!("mean saturation (HSV):   {:.4}", sat);
    Ok(())
}
