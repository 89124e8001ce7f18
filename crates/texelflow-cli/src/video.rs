//! `texelflow apply in.mp4 out.mp4 -p SPEC`: video through the `ffmpeg` program (issue 18), by
//! the library's `texelflow::video` (which describes the job). Here: the flags as
//! `VideoOptions`, `TEXELFLOW_PIPE_BYTES`, the Ctrl-C handler, the progress bar and the notes
//! on stderr.
//!
//! The children run in a process group of their own, so Ctrl-C reaches only texelflow, which
//! stops taking frames, stops both children and removes the partial file.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::Ordering;

use anyhow::{anyhow, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use texelflow::video::{TransferMode, VideoEvent, VideoJob, VideoOptions};
use texelflow::{Backend, Pipeline};

/// The `apply` options that concern video.
pub struct Options<'a> {
    pub input: &'a Path,
    pub output: &'a Path,
    /// `-f rawvideo`: `-` as input or output is raw RGBA8 frames on stdin/stdout.
    pub raw: bool,
    /// Size of raw input frames.
    pub size: Option<(u32, u32)>,
    /// Video encoder (default by the output's extension: libx264 for .mp4/.mkv/.mov, libvpx-vp9 for .webm).
    pub codec: Option<String>,
    pub crf: Option<u8>,
    /// Encoded pixel format (default yuv420p for the usual lossy codecs, else ffmpeg's choice).
    pub pix_fmt: Option<String>,
    /// Output frame rate: frames are dropped or repeated (by ffmpeg) to keep the duration.
    pub fps: Option<String>,
    pub no_clobber: bool,
    /// Frames in flight.
    pub jobs: usize,
    /// How frames cross the pipes: `auto` (I420 where input and output are 4:2:0), `rgba`, `yuv420p`.
    pub transfer: String,
    /// `--data`: the pipeline ends in data and `output` is where its JSON lines go, one per frame
    /// (`-`: stdout); no video is written.
    pub data: bool,
}

/// Whether `apply IN OUT` is a video job: raw frames, or a video extension on either side.
pub fn wanted(input: &Path, output: Option<&Path>, raw: bool) -> bool {
    texelflow::video::is_video_job(input, output, raw)
}

/// Runs a video job; each of `devices` opens a device (several: `--devices`, the frames spread
/// over them), on threads of their own while ffprobe reads the input.
pub fn run(o: &Options<'_>, devices: &[&(dyn Fn() -> Backend + Sync)], spec: &str) -> Result<()> {
    // Ctrl-C (from here on): stop taking frames; the job removes the partial file
    let cancel = crate::interrupted();
    crate::VIDEO_RUNNING.store(true, Ordering::SeqCst);
    let options = VideoOptions {
        raw: o.raw,
        size: o.size,
        codec: o.codec.clone(),
        crf: o.crf,
        pix_fmt: o.pix_fmt.clone(),
        fps: o.fps.clone(),
        no_clobber: o.no_clobber,
        jobs: o.jobs,
        transfer: TransferMode::parse(&o.transfer).unwrap_or_default(),
        data: o.data,
        pipe_bytes: std::env::var("TEXELFLOW_PIPE_BYTES")
            .ok()
            .and_then(|v| v.parse::<i32>().ok()),
        cancel: Some(cancel),
    };
    let job = VideoJob::new(o.input, o.output, &options)?;
    // the input: its probe (ffprobe) and the GPU start overlap
    let (be, probed) = std::thread::scope(|s| {
        let gpus: Vec<_> = devices.iter().map(|open| s.spawn(open)).collect();
        let probed = job.probe(&crate::limits());
        let be: std::thread::Result<Vec<Backend>> = gpus.into_iter().map(|g| g.join()).collect();
        (be, probed)
    });
    let be = be.map_err(|_| anyhow!("GPU initialisation panicked"))?;
    let info = probed?;
    let pipeline = Pipeline::parse(spec, &mut |p: &str| {
        crate::load_image(std::path::Path::new(p)).map(|l| l.0)
    })?;

    let mut bar: Option<ProgressBar> = None;
    let mut on_event = |e: VideoEvent<'_>| match e {
        VideoEvent::Note(n) => eprintln!("texelflow: note: {n}"),
        VideoEvent::Started { expected } => {
            let b = ProgressBar::with_draw_target(
                expected,
                if std::io::stderr().is_terminal() {
                    ProgressDrawTarget::stderr()
                } else {
                    ProgressDrawTarget::hidden()
                },
            );
            let template = if expected.is_some() {
                "{bar:30} {pos}/{len} frames  {msg}  eta {eta}"
            } else {
                "{spinner} {pos} frames  {msg}"
            };
            if let Ok(style) = ProgressStyle::with_template(template) {
                b.set_style(style);
            }
            bar = Some(b);
        }
        VideoEvent::Frame { fps, .. } => {
            if let Some(b) = &bar {
                b.inc(1);
                b.set_message(format!("{fps:.1} fps"));
            }
        }
        VideoEvent::Finished => {
            if let Some(b) = bar.take() {
                b.finish_and_clear();
            }
        }
        _ => {}
    };
    job.run_on(&be, &pipeline, &info, &crate::run_options(), &mut on_event)?;
    // the process ends here: the OS reclaims the device faster than wgpu's teardown
    std::mem::forget(be);
    Ok(())
}
