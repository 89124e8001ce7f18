//! `apply IN OUT` on a large image: streamed through the pipeline in bands of rows
//! (`Pipeline::run_streamed`), PNG and TIFF decoded and encoded as the bands go, so that peak
//! memory is a few bands rather than the whole image times its intermediates (README,
//! "Limits"). Used from `STREAM_FROM_PIXELS` pixels where the pipeline can run in tiles;
//! `PIXELFLOW_STREAM=1` streams any image, `=0` never.

use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use pixelflow::rows;
use pixelflow::{Backend, ImageDesc, Limits, LoadOptions, PixelFormat, Pipeline, SaveOptions, StreamOptions};

/// Images of at least this many pixels (64 MP: 256 MiB as RGBA8) are streamed by default.
pub const STREAM_FROM_PIXELS: u64 = 1 << 26;

/// What the streamed `apply` needs besides the paths.
pub struct Apply {
    pub cli_fallback: bool,
    pub allow_truncated: bool,
    pub save: SaveOptions,
    pub timings: bool,
}

/// The decoded size and format of `path` from its header (as `Image::load` would decode it),
/// or `None` where the header cannot be read (the whole path then reports why).
fn probe(path: &Path) -> Option<ImageDesc> {
    let reader = image::ImageReader::open(path).ok()?.with_guessed_format().ok()?;
    let decoder = reader.into_decoder().ok()?;
    let (w, h) = image::ImageDecoder::dimensions(&decoder);
    let ct = image::ImageDecoder::color_type(&decoder);
    let format = if ct.bytes_per_pixel() / ct.channel_count().max(1) > 1 {
        PixelFormat::Rgba16
    } else if ct == image::ColorType::L8 {
        PixelFormat::Gray8
    } else {
        PixelFormat::Rgba8
    };
    Some(ImageDesc::new(w, h, format))
}

/// The input's size and format where it is to be streamed: large (or `PIXELFLOW_STREAM=1`)
/// and not `PIXELFLOW_STREAM=0`.
pub fn wanted(input: &Path) -> Option<ImageDesc> {
    let mode = std::env::var("PIXELFLOW_STREAM").unwrap_or_default();
    if mode == "0" {
        return None;
    }
    let desc = probe(input)?;
    (mode == "1" || desc.width as u64 * desc.height as u64 >= STREAM_FROM_PIXELS).then_some(desc)
}

/// Streams `input` (of `desc`, from `wanted`) through `pipe` into `output` if the pipeline can
/// run in bands; `Ok(false)`: not streamed, take the whole-image path.
pub fn try_apply(a: &Apply, be: &Backend, input: &Path, output: &Path, pipe: &Pipeline, desc: ImageDesc) -> Result<bool> {
    if pipe.stream_halo(desc).is_err() || pipe.output_desc(desc).is_err() {
        // reductions, resampling, position-dependent filters: the whole path (which says why
        // where the image does not fit)
        return Ok(false);
    }
    // the pixel limit first, with the whole path's message (a decompression bomb's header)
    Limits::global().check_decode_pixels(desc.width, desc.height).map_err(|m| pixelflow::Error::ImageIo { path: input.to_path_buf(), message: m })?;
    let t0 = Instant::now();
    let opts = StreamOptions::default();
    let plan = pipe.plan_stream(be, desc, &opts)?;
    let out_desc = pipe.output_desc(desc)?;
    // formats that are not streamed hold the whole image on their side
    let in_format = image::ImageFormat::from_path(input).ok();
    let out_format = image::ImageFormat::from_path(output).ok();
    let in_streams = matches!(in_format, Some(image::ImageFormat::Png | image::ImageFormat::Tiff));
    let out_streams = matches!(out_format, Some(image::ImageFormat::Png | image::ImageFormat::Tiff));
    let whole = |d: ImageDesc| d.pixels() as u64 * rows::sample_bytes_per_pixel(d.format) as u64;
    let need = plan.host_bytes + if in_streams { 0 } else { 2 * whole(desc) } + if out_streams { 0 } else { whole(out_desc) };
    Limits::global().check_memory(&format!("streaming {}x{} in bands", desc.width, desc.height), need)?;
    let load = LoadOptions { limits: None, allow_truncated: a.allow_truncated };
    let (mut source, meta) = rows::open_rows(input, &load)?;
    let save = SaveOptions { icc_profile: meta.icc_profile.clone(), exif: meta.exif.clone(), ..a.save.clone() };
    let mut sink = rows::create_rows(output, out_desc, &save)?;
    let decode_ms = t0.elapsed().as_secs_f64() * 1e3;
    let t_run = Instant::now();
    let report = match pipe.run_streamed(be, &mut *source, &mut *sink, &opts) {
        Err(e) if a.cli_fallback && e.is_gpu_failure() && matches!(be, Backend::Gpu(_)) => {
            eprintln!("pixelflow: note: {e}; running again on the CPU reference (--fallback cpu)");
            drop(sink);
            let (mut source, _) = rows::open_rows(input, &load)?;
            sink = rows::create_rows(output, out_desc, &save)?;
            pipe.run_streamed(&Backend::Cpu, &mut *source, &mut *sink, &opts)?
        }
        other => other?,
    };
    for w in source.warnings() {
        eprintln!("pixelflow: warning: `{}`: {w}", input.display());
    }
    let run_ms = t_run.elapsed().as_secs_f64() * 1e3;
    let t_finish = Instant::now();
    for n in sink.finish()? {
        eprintln!("pixelflow: note: `{}`: {n}", output.display());
    }
    let whole_note = match (source.streams(), out_streams) {
        (true, true) => String::new(),
        (false, true) => " (the input's format is decoded whole)".into(),
        (true, false) => " (the output's format is encoded whole)".into(),
        (false, false) => " (input and output formats are decoded and encoded whole)".into(),
    };
    eprintln!(
        "pixelflow: note: {}x{} streamed in {} bands of {} rows, tiles up to {} pixels wide with a {}-pixel halo; host memory about {} by the README's formula{whole_note}",
        desc.width,
        desc.height,
        plan.height.div_ceil(plan.band_rows.max(1)),
        plan.band_rows,
        plan.tile_width,
        plan.halo,
        pixelflow::limits::human_bytes(need)
    );
    if a.timings {
        eprintln!(
            "path (wall ms): open {decode_ms:.1}, streamed decode + run + encode {run_ms:.1} ({} tiles), finish {:.1}, total {:.1}; peak RSS {}",
            report.tiles,
            t_finish.elapsed().as_secs_f64() * 1e3,
            t0.elapsed().as_secs_f64() * 1e3,
            peak_rss().map_or("unknown".into(), pixelflow::limits::human_bytes)
        );
    }
    Ok(true)
}

/// This process's peak resident memory (`VmHWM` of `/proc/self/status`), where known.
pub fn peak_rss() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kb| kb * 1024)
}
