//! `apply IN OUT` on a large image: streamed through the pipeline in bands of rows
//! (`Pipeline::run_streamed`), PNG and TIFF decoded and encoded as the bands go, so that peak
//! memory is a few bands rather than the whole image times its intermediates (docs/cli.md,
//! "Memory of a streamed image"). Used from `texelflow::io::STREAM_FROM_PIXELS` pixels where
//! the pipeline can run in tiles;
//! `TEXELFLOW_STREAM=1` streams any image, `=0` never.

use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use texelflow::batch::StreamPolicy;
use texelflow::io::rows;
use texelflow::{Backend, ImageDesc, LoadOptions, Pipeline, SaveOptions};

/// What the streamed `apply` needs besides the paths.
pub struct Apply {
    pub cli_fallback: bool,
    pub allow_truncated: bool,
    pub save: SaveOptions,
    pub timings: bool,
}

/// The input's size and format where it is to be streamed: large (or `TEXELFLOW_STREAM=1`)
/// and not `TEXELFLOW_STREAM=0`. The size is the one decoded at `min_size` (shrink-on-load: a
/// JPEG before a leading shrink decoded at a DCT scale, `rows::probe_load`), not the file's.
pub fn wanted(input: &Path, min_size: Option<(u32, u32)>) -> Option<ImageDesc> {
    let mode = stream_policy();
    if mode == StreamPolicy::Never {
        return None;
    }
    let load = LoadOptions {
        min_size,
        ..Default::default()
    };
    let desc = rows::probe_load(input, &load).ok()?;
    (mode == StreamPolicy::Always || texelflow::io::streams_by_default(desc)).then_some(desc)
}

/// `TEXELFLOW_STREAM` (`1`: stream any image, `0`: never; else large ones), for one image and
/// for a batch.
pub fn stream_policy() -> StreamPolicy {
    match std::env::var("TEXELFLOW_STREAM")
        .unwrap_or_default()
        .as_str()
    {
        "0" => StreamPolicy::Never,
        "1" => StreamPolicy::Always,
        _ => StreamPolicy::Auto,
    }
}

/// Streams `input` through `pipe` into `output` if the pipeline can run in bands
/// (`Pipeline::stream_file`); `Ok(false)`: not streamed, take the whole-image path.
pub fn try_apply(
    a: &Apply,
    be: &Backend,
    input: &Path,
    output: &Path,
    pipe: &Pipeline,
) -> Result<bool> {
    let t0 = Instant::now();
    let load = LoadOptions {
        limits: Some(crate::limits()),
        allow_truncated: a.allow_truncated,
        ..Default::default()
    };
    let opts = crate::run_options();
    let report = match pipe.stream_file(be, input, output, &load, &a.save, &opts) {
        Err(e) if a.cli_fallback && e.is_gpu_failure() && matches!(be, Backend::Gpu(_)) => {
            eprintln!("texelflow: note: {e}; running again on the CPU reference (--fallback cpu)");
            pipe.stream_file(&Backend::Cpu, input, output, &load, &a.save, &opts)?
        }
        other => other?,
    };
    let Some(report) = report else {
        return Ok(false);
    };
    for w in &report.warnings {
        eprintln!("texelflow: warning: `{}`: {w}", input.display());
    }
    for n in &report.notes {
        eprintln!("texelflow: note: {n}");
    }
    if a.timings {
        eprintln!(
            "path (wall ms): open {:.1}, streamed decode + run + encode {:.1} ({} tiles), finish {:.1}, total {:.1}; peak RSS {}",
            report.open_ms,
            report.run_ms,
            report.stream.tiles,
            report.finish_ms,
            t0.elapsed().as_secs_f64() * 1e3,
            peak_rss().map_or("unknown".into(), texelflow::limits::human_bytes)
        );
    }
    Ok(true)
}

/// This process's peak resident memory (`VmHWM` of `/proc/self/status`), where known.
pub fn peak_rss() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace()
        .nth(1)?
        .parse::<u64>()
        .ok()
        .map(|kb| kb * 1024)
}
