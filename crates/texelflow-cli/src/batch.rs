//! `texelflow apply IN... --out-dir DIR`: many images through one pipeline in one process (one
//! GPU initialisation, kernels compiled once), several at a time. A file that fails (missing,
//! corrupt, not an image) is reported and the rest go on; the exit code says whether any failed.
//!
//! The batch itself is the library's (`texelflow::batch`: listing the files, naming the
//! outputs, the workers, the devices); here the flags become its options, and its progress,
//! messages and failures are drawn and printed in the CLI's words.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{anyhow, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use texelflow::batch::{BatchEvent, BatchOptions, BatchProgress};
use texelflow::{Backend, BatchError, Pipeline};

pub use texelflow::batch::{collect, output_path, Existing, FileTimes as PathTimes};

/// The batch's options.
pub struct Batch<'a> {
    pub inputs: &'a [PathBuf],
    pub out_dir: &'a Path,
    /// Output file name: `{stem}` (input name without extension), `{name}`, `{ext}` (input extension).
    pub name: &'a str,
    pub recursive: bool,
    pub jobs: usize,
    pub existing: Existing,
    pub timings: bool,
    pub save: texelflow::SaveOptions,
    /// `--fallback cpu`: an image whose GPU run fails runs again on the CPU reference.
    pub fallback: bool,
    /// `--allow-truncated`, for the images streamed in bands.
    pub allow_truncated: bool,
    /// Images whose pipeline runs (record, submit, wait, read back) at once; the other
    /// workers decode and encode meanwhile.
    pub gpu_jobs: usize,
    /// JPEGs are only entropy-decoded on the host, the rest of their decode running on the
    /// GPU as the graph's first node (off with `--cpu` and `--host-decode`).
    pub device_decode: bool,
    /// JPEG outputs are encoded on the GPU as the graph's last node, only the file's bytes
    /// read back (`io::jpeg_file`; off with `--cpu` and `--host-encode`).
    pub device_encode: bool,
}

/// How the run went, in the CLI's words.
#[derive(Debug, Default)]
pub struct Summary {
    pub done: usize,
    pub skipped: usize,
    pub failed: Vec<(PathBuf, String)>,
    /// With `timings`: each written file's path times, in completion order.
    pub times: Vec<(PathBuf, PathTimes)>,
    /// Wall time of the whole batch.
    pub wall: std::time::Duration,
    /// The runs' notes (`RunResult::notes`), each once however many files it concerned.
    pub notes: Vec<String>,
    /// From the batch's start: when the device was open, and when its warm-up compiles ended.
    pub device_times: Option<(std::time::Duration, std::time::Duration)>,
    /// With several devices (`--devices`): the files each ran.
    pub per_device: Vec<usize>,
}

/// The progress bar (on a terminal) and the messages of the running batch, on stderr.
struct Bar(ProgressBar);

impl BatchProgress for Bar {
    fn start(&self, files: usize) {
        self.0.set_length(files as u64);
    }
    fn file_done(&self, _: &Path, bytes_read: usize, elapsed: std::time::Duration) {
        let mb = bytes_read as f64 / 1e6;
        self.0
            .set_message(format!("{:.1} MB/s", mb / elapsed.as_secs_f64().max(1e-3)));
        self.0.inc(1);
    }
    fn event(&self, event: BatchEvent<'_>) {
        match event {
            BatchEvent::Warning { input, message } => {
                eprintln!("texelflow: warning: `{}`: {message}", input.display())
            }
            BatchEvent::Fallback { error, .. } => eprintln!(
                "texelflow: note: {error}; running again on the CPU reference (--fallback cpu)"
            ),
            BatchEvent::Note { message, .. } => eprintln!("texelflow: note: {message}"),
            _ => {}
        }
    }
}

/// A batch's error before any work, naming the flags where the library names its options.
fn in_cli_words(e: texelflow::Error) -> anyhow::Error {
    match e {
        texelflow::Error::Batch(BatchError::NameIsPath { name }) => {
            anyhow!("--name is a file name, not a path: `{name}`")
        }
        texelflow::Error::Batch(BatchError::UnknownExtension { name }) => anyhow!(
            "--name `{name}`: unknown output extension (use .png, .jpg, .webp, .tif, .bmp, or {{ext}})"
        ),
        texelflow::Error::Batch(BatchError::OutputIsAnInput { input, output }) => anyhow!(
            "the output of `{}` would be `{}`, which is one of the inputs; choose another --name or --out-dir",
            input.display(),
            output.display()
        ),
        texelflow::Error::Batch(BatchError::SameOutput { output }) => anyhow!(
            "two inputs would both write `{}`; use {{name}} or {{ext}} in --name",
            output.display()
        ),
        e => e.into(),
    }
}

/// Runs the batch (`texelflow::batch::run_batch`); each of `devices` opens a device (several:
/// `--devices`): each runs on a thread of its own while the workers decode their first images,
/// once.
pub fn run(
    b: &Batch<'_>,
    devices: &[&(dyn Fn() -> Backend + Sync)],
    pipeline: &Pipeline,
) -> Result<Summary> {
    let options = BatchOptions {
        name: b.name.to_string(),
        recursive: b.recursive,
        jobs: b.jobs,
        gpu_jobs: b.gpu_jobs,
        existing: b.existing,
        save: b.save.clone(),
        fallback: b.fallback,
        allow_truncated: b.allow_truncated,
        device_decode: b.device_decode,
        gpu_entropy: crate::gpu_entropy(),
        device_encode: b.device_encode,
        stream: crate::bands::stream_policy(),
        timings: b.timings,
        run: crate::run_options(),
    };
    let jobs = texelflow::batch::plan(b.inputs, b.out_dir, &options).map_err(in_cli_words)?;
    let bar = Bar(ProgressBar::with_draw_target(
        Some(jobs.len() as u64),
        if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    ));
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} files  {msg}  eta {eta}")
    {
        bar.0.set_style(style);
    }
    // A batch ends the process: the OS reclaims the device (its kept staging buffers, up to
    // 2 GiB pinned) faster than wgpu's orderly teardown would, so a handle to it is kept here
    // and forgotten.
    let kept: Vec<OnceLock<Backend>> = devices.iter().map(|_| OnceLock::new()).collect();
    let opens: Vec<_> = devices
        .iter()
        .zip(&kept)
        .map(|(open, keep)| {
            move || {
                let be = open();
                let _ = keep.set(be.clone());
                be
            }
        })
        .collect();
    let opens: Vec<&(dyn Fn() -> Backend + Sync)> = opens
        .iter()
        .map(|o| o as &(dyn Fn() -> Backend + Sync))
        .collect();
    let s = texelflow::batch::run_jobs(pipeline, &opens, &jobs, &options, &bar);
    std::mem::forget(kept);
    bar.0.finish_and_clear();
    let s = s.map_err(in_cli_words)?;
    Ok(Summary {
        done: s.done,
        skipped: s.skipped,
        failed: s
            .failed
            .into_iter()
            .map(|f| {
                let why = match &f.error {
                    texelflow::Error::OutputExists { .. } => format!(
                        "`{}` exists; use --overwrite or --skip-existing",
                        f.output.display()
                    ),
                    _ => f.reason(),
                };
                (f.input, why)
            })
            .collect(),
        times: s.times,
        wall: s.wall,
        notes: s.notes,
        device_times: s.device_times.first().copied().flatten(),
        per_device: s.per_device,
    })
}
