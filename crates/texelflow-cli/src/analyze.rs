//! `texelflow analyze`: one graph with a fan-out from the image to `reduce`, `histogram`
//! and `mean_saturation`, executed in one submission.

use std::path::Path;

use anyhow::{Context, Result};
use texelflow::{Backend, Data, Stats};

/// A data value as JSON (the library's `json::data_json`, which the Python bindings share).
pub fn data_json(d: &Data) -> serde_json::Value {
    texelflow::json::data_json(d)
}

/// Writes `data_json(d)` to `path` (`-`: standard output; a FIFO or device written into
/// directly, a regular file replaced atomically unless `no_clobber`: `io::output`).
pub fn write_data_json(d: &Data, path: &Path, no_clobber: bool) -> Result<()> {
    let text = texelflow::json::to_string_compact(&data_json(d)) + "\n";
    if path.as_os_str() == "-" {
        out!("{text}");
        return Ok(());
    }
    let options = texelflow::io::output::OutputOptions {
        no_clobber,
        special_files: true,
    };
    texelflow::io::output::write_output(path, text.as_bytes(), options)?;
    Ok(())
}

/// Parses `WxH`.
fn parse_size(s: &str) -> Result<(u32, u32)> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .with_context(|| format!("plot size `{s}` is not WxH (e.g. 1024x600)"))?;
    Ok((
        w.trim()
            .parse()
            .with_context(|| format!("plot size `{s}` is not WxH (e.g. 1024x600)"))?,
        h.trim()
            .parse()
            .with_context(|| format!("plot size `{s}` is not WxH (e.g. 1024x600)"))?,
    ))
}

/// Draws the R, G, B and Y histograms of `h` into `path`.
fn write_plot(h: &texelflow::Histogram, input: &Path, path: &Path, size: &str) -> Result<()> {
    let size = parse_size(size)?;
    // R, G, B and Y (alpha, the fifth channel, is left out of the chart)
    let names = &texelflow::Histogram::CHANNELS[..4];
    let series: Vec<crate::plot::Series<'_>> = names
        .iter()
        .enumerate()
        .map(|(c, n)| crate::plot::Series {
            name: n,
            bins: &h.bins[c],
            color: crate::plot::channel_color(n),
        })
        .collect();
    let title = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some(note) = crate::plot::histogram_png(&series, &title, path, size)? {
        eprintln!("note: {note}");
    }
    Ok(())
}

pub fn run(be: &Backend, input: &Path, json: bool, plot: Option<(&Path, &str)>) -> Result<()> {
    if let Some((_, size)) = plot {
        parse_size(size)?;
    }
    let img = crate::load_image(input)?
        .0
        .convert(texelflow::PixelFormat::Rgba8);
    let analysis = texelflow::json::analyze(be, &img)?;
    let (s, h, sat) = (
        &analysis.stats,
        &analysis.histogram,
        analysis.mean_saturation,
    );
    let n = s.count.max(1) as f64;
    if let Some((path, size)) = plot {
        write_plot(h, input, path, size)?;
    }
    if json {
        let mut v = analysis.to_json(&be.describe());
        if let Some(fields) = v.as_object_mut() {
            fields.insert(
                "file".into(),
                serde_json::json!(input.display().to_string()),
            );
        }
        outln!("{}", texelflow::json::to_string_compact(&v));
        return Ok(());
    }
    outln!(
        "{}: {}x{} ({})",
        input.display(),
        img.width(),
        img.height(),
        be.describe()
    );
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
                format!(
                    "{:.2}% / {:.2}%",
                    100.0 * h.bins[k][0] as f64 / n,
                    100.0 * h.bins[k][255] as f64 / n
                ),
            ),
            None => ("-".into(), "-".into(), "-".into(), "-".into()),
        };
        outln!(
            "{:<7} {:>5} {:>5} {:>8.2}  {:>5} {:>5} {:>5}  {}",
            name,
            s.min[c],
            s.max[c],
            s.mean(c),
            p5,
            p50,
            p95,
            clip
        );
    }
    outln!("mean luminance (BT.601): {:.4}", s.mean(4) / 255.0);
    outln!("mean saturation (HSV):   {:.4}", sat);
    Ok(())
}
