//! Many image files through one pipeline in one process (issue 30): the files listed
//! (`collect`: folders, `recursive`, `*`/`?` names), each output named by a template
//! (`output_path`) and written through `io::output` (atomic, regular files only), several
//! images in flight: workers decode ahead while a device opens and its kernels compile, at most
//! `gpu_jobs` images run on each device at once while the other workers decode and encode. A
//! file that fails (missing, corrupt, not an image) is reported in the summary and the rest go
//! on. The CLI's `texelflow apply IN... --out-dir DIR` and Python's `Pipeline.apply_batch` are
//! its callers.
//!
//! A batch runs over a list of devices (`run_batch`'s `devices`): one pipeline, images taken by
//! whichever device has a free slot from one shared queue, each device with its own `gpu_jobs`
//! slots. A list of one is the plain batch.
//!
//! The library prints nothing: what the user should hear while the batch runs (a damaged
//! file's warnings, a run retried on the CPU) and the progress go through [`BatchProgress`];
//! what they should read after it, through [`BatchSummary`].
//!
//! ```no_run
//! use texelflow::batch::{run_batch_on, BatchOptions};
//! use texelflow::{Backend, GpuOptions, Image, Pipeline};
//! # fn main() -> texelflow::Result<()> {
//! let (backend, _note) = Backend::auto(&GpuOptions::default());
//! let pipe = Pipeline::parse("gaussian_blur(sigma=2)", &mut |p: &str| Image::open(p))?;
//! let inputs = vec![std::path::PathBuf::from("photos")];
//! let s = run_batch_on(&pipe, &[backend], &inputs, "out".as_ref(), &BatchOptions::default(), &())?;
//! println!("{} written, {} skipped, {} failed", s.done, s.skipped, s.failed.len());
//! # Ok(()) }
//! ```

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::error::{BatchError, Error, Result};
use crate::graph::{Backend, HostTimes, Pipeline, RunOptions, RunResult};
use crate::image::{Image, PixelFormat};
use crate::io::output::{check_output, Output, OutputOptions};
use crate::io::{LoadOptions, SaveOptions};
use crate::value::{Data, Value};

/// Extensions of the image files a folder contributes.
pub const IMAGE_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "webp", "tif", "tiff", "bmp"];

/// The output name template by default: the input's name and format.
pub const DEFAULT_NAME: &str = "{stem}.{ext}";

/// What to do when an output file exists already.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Existing {
    /// Count the file as failed (`Error::OutputExists`): nothing is replaced unasked.
    #[default]
    Refuse,
    /// Replace it (a regular file only, atomically).
    Overwrite,
    /// Leave it and count the file as skipped.
    Skip,
}

/// When an image is streamed in bands (`Pipeline::stream_file`) rather than decoded whole.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StreamPolicy {
    /// From `io::STREAM_FROM_PIXELS` pixels as decoded, where the pipeline allows it.
    #[default]
    Auto,
    /// Every image the pipeline can run in bands.
    Always,
    /// None.
    Never,
}

/// How a batch runs.
#[derive(Clone, Debug)]
pub struct BatchOptions {
    /// Output file name: `{stem}` (input name without extension), `{name}`, `{ext}` (input
    /// extension); the output format is the name's extension.
    pub name: String,
    /// Folders given as inputs are descended into.
    pub recursive: bool,
    /// Worker threads (decode, run, encode); at least 1.
    pub jobs: usize,
    /// Images whose pipeline runs (record, submit, wait, read back) at once on each device; the
    /// other workers decode and encode meanwhile. At least 1.
    pub gpu_jobs: usize,
    /// What to do with an output that exists.
    pub existing: Existing,
    /// How outputs are encoded (quality, subsampling, background); each output carries its
    /// input's ICC profile and EXIF. `no_clobber` is set from `existing`.
    pub save: SaveOptions,
    /// An image whose GPU run fails (`Error::is_gpu_failure`) runs again on the CPU reference
    /// (`BatchEvent::Fallback` says so).
    pub fallback: bool,
    /// Damaged files are decoded as far as they go (`LoadOptions::allow_truncated`).
    pub allow_truncated: bool,
    /// JPEGs are only entropy-decoded on the host, the rest of their decode running on the GPU
    /// as the graph's first node (`Image::load_for_device`); on the CPU reference it changes
    /// nothing but where the decode's twin runs.
    pub device_decode: bool,
    /// With `device_decode`: the entropy decode on the GPU too (else libjpeg-turbo's on CPU
    /// threads).
    pub gpu_entropy: bool,
    /// JPEG outputs are encoded on the GPU as the graph's last node, only the file's bytes read
    /// back (`io::jpeg_file`).
    pub device_encode: bool,
    /// Which images stream in bands.
    pub stream: StreamPolicy,
    /// Per-file times (`BatchSummary::times`) and per-node GPU times.
    pub timings: bool,
    /// Every run's options (tiling, schedules, limits, shrink-on-load).
    pub run: RunOptions,
}

impl Default for BatchOptions {
    fn default() -> Self {
        Self {
            name: DEFAULT_NAME.to_string(),
            recursive: false,
            jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
            // measured on an H200 machine, 16 cores (docs/perf-notes.md, session 21): 1 34.4,
            // 2 54.2, 4 65.4, 8 65.4, 16 58.2 images/s
            gpu_jobs: 4,
            existing: Existing::Refuse,
            save: SaveOptions::default(),
            fallback: false,
            allow_truncated: false,
            device_decode: true,
            gpu_entropy: true,
            device_encode: true,
            stream: StreamPolicy::Auto,
            timings: false,
            run: RunOptions::default(),
        }
    }
}

/// A file that failed: the input, where its output was to go, and why.
#[derive(Debug)]
pub struct BatchFailure {
    /// The input file.
    pub input: PathBuf,
    /// Its output path.
    pub output: PathBuf,
    /// Why (`Error::OutputExists` for an output that exists where `Existing::Refuse`).
    pub error: Error,
}

impl BatchFailure {
    /// The error and its causes on one line (`a: b: c`).
    pub fn reason(&self) -> String {
        let mut s = self.error.to_string();
        let mut cause = std::error::Error::source(&self.error);
        while let Some(c) = cause {
            s.push_str(": ");
            s.push_str(&c.to_string());
            cause = c.source();
        }
        s
    }
}

/// How a batch went.
#[derive(Debug, Default)]
pub struct BatchSummary {
    /// Files written.
    pub done: usize,
    /// Files skipped (their output exists, `Existing::Skip`).
    pub skipped: usize,
    /// Files that failed, in completion order.
    pub failed: Vec<BatchFailure>,
    /// With `timings`: each written file's times, in completion order.
    pub times: Vec<(PathBuf, FileTimes)>,
    /// Wall time of the whole batch.
    pub wall: Duration,
    /// The runs' notes (`RunResult::notes`), each once however many files it concerned.
    pub notes: Vec<String>,
    /// Per device of the list, from the batch's start: when it was open, and when its warm-up
    /// compiles ended (`None`: never opened, no file needed it).
    pub device_times: Vec<Option<(Duration, Duration)>>,
    /// Per device of the list: the files it ran.
    pub per_device: Vec<usize>,
    /// Bytes of the input files written.
    pub bytes_read: usize,
}

/// Where one image's time went (wall clock of its worker, ms): decoding, the pipeline run and
/// its parts on the host (`HostTimes`: staging the upload, recording, waiting for the GPU,
/// copying the result out), the kernels alone on the GPU, encoding.
#[derive(Clone, Copy, Debug, Default)]
pub struct FileTimes {
    /// Whether the image was decoded on the GPU.
    pub on_device: bool,
    /// Whether a JPEG's entropy decode ran on the GPU too (else on the host's CPU threads).
    pub entropy_on_device: bool,
    /// Whether its JPEG output was encoded on the GPU (`io::jpeg_file`).
    pub encoded_on_device: bool,
    /// Decoding, ms.
    pub decode: f64,
    /// The pipeline's run, ms.
    pub run: f64,
    /// The run's parts on the host.
    pub host: HostTimes,
    /// The kernels on the GPU (with `timings`), ms.
    pub gpu: f64,
    /// Encoding and writing, ms.
    pub encode: f64,
    /// The device (index into the batch's list) it ran on.
    pub device: usize,
}

impl FileTimes {
    /// Field by field sum.
    pub fn add(&mut self, t: &FileTimes) {
        self.on_device |= t.on_device;
        self.entropy_on_device |= t.entropy_on_device;
        self.encoded_on_device |= t.encoded_on_device;
        self.decode += t.decode;
        self.run += t.run;
        self.host.upload_ms += t.host.upload_ms;
        self.host.record_ms += t.host.record_ms;
        self.host.wait_ms += t.host.wait_ms;
        self.host.readback_ms += t.host.readback_ms;
        self.gpu += t.gpu;
        self.encode += t.encode;
    }
}

/// What a batch says while it runs, for its caller to show at once.
#[derive(Debug)]
#[non_exhaustive]
pub enum BatchEvent<'a> {
    /// What was wrong with an input that was decoded all the same (`allow_truncated`).
    Warning {
        /// The input.
        input: &'a Path,
        /// One line.
        message: &'a str,
    },
    /// An image's GPU run failed and runs again on the CPU reference (`fallback`).
    Fallback {
        /// The input.
        input: &'a Path,
        /// The GPU's failure.
        error: &'a Error,
    },
    /// A note of a streamed image's run (each file's whole-image notes are in the summary).
    Note {
        /// The input.
        input: &'a Path,
        /// One line.
        message: &'a str,
    },
}

/// The caller's view of a running batch: called from its worker threads. Every method has a
/// default that does nothing; `()` is the caller that wants nothing.
pub trait BatchProgress: Sync {
    /// The files are listed and checked: `files` will follow.
    fn start(&self, _files: usize) {}
    /// One file ended (written, skipped or failed); `bytes_read` of input files written so
    /// far, `elapsed` since the batch began.
    fn file_done(&self, _input: &Path, _bytes_read: usize, _elapsed: Duration) {}
    /// Something to tell the user now.
    fn event(&self, _event: BatchEvent<'_>) {}
}

impl BatchProgress for () {}

/// Files under `inputs` (files as given; folders: their image files, descending with
/// `recursive`; a last component with `*` or `?`: the matching names of its folder), each with
/// the folder it was found under (outputs keep the path below it). A missing file is listed
/// (it fails on its turn, like a corrupt one).
pub fn collect(inputs: &[PathBuf], recursive: bool) -> Result<Vec<(PathBuf, PathBuf)>> {
    let mut files = Vec::new();
    for input in inputs {
        let name = input.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.contains(['*', '?']) {
            let dir = input
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let mut matched: Vec<PathBuf> = read_dir(dir)?
                .into_iter()
                .filter(|p| {
                    p.is_file()
                        && p.file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| wildcard(name, n))
                })
                .collect();
            if matched.is_empty() {
                return Err(Error::Batch(BatchError::NoMatch {
                    pattern: input.clone(),
                }));
            }
            matched.sort();
            files.extend(matched.into_iter().map(|p| (p, dir.to_path_buf())));
        } else if input.is_dir() {
            let mut found = Vec::new();
            walk(input, recursive, &mut found, &mut HashSet::new())?;
            found.sort();
            files.extend(found.into_iter().map(|p| (p, input.clone())));
        } else {
            files.push((
                input.clone(),
                input.parent().map(Path::to_path_buf).unwrap_or_default(),
            ));
        }
    }
    Ok(files)
}

fn read_dir(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        Error::Batch(BatchError::ReadFolder {
            dir: dir.to_path_buf(),
            message: e.to_string(),
        })
    })?;
    Ok(entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
}

/// A file's identity on its file system (device and inode on Unix; elsewhere its canonical
/// path), the same through any link or `..` that reaches it.
fn identity(p: &Path) -> Option<FileId> {
    let m = std::fs::metadata(p).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(FileId::Inode(m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        p.canonicalize().ok().map(FileId::Path)
    }
}

/// What `identity` gives.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum FileId {
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg(not(unix))]
    Path(PathBuf),
}

/// The image files under `dir` (and its folders, with `recursive`), visiting each folder once:
/// a link back up the tree (`sub/up -> ..`) or to itself is not followed again.
fn walk(
    dir: &Path,
    recursive: bool,
    out: &mut Vec<PathBuf>,
    seen: &mut HashSet<FileId>,
) -> Result<()> {
    if let Some(id) = identity(dir) {
        if !seen.insert(id) {
            return Ok(());
        }
    }
    for p in read_dir(dir)? {
        if p.is_dir() {
            if recursive {
                walk(&p, recursive, out, seen)?;
            }
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| IMAGE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        {
            out.push(p);
        }
    }
    Ok(())
}

/// `*` any run of characters, `?` one character.
fn wildcard(pattern: &str, name: &str) -> bool {
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    // positions in the pattern reachable after each prefix of the name
    let mut reach = vec![false; p.len() + 1];
    reach[0] = true;
    let close = |reach: &mut Vec<bool>| {
        for i in 0..p.len() {
            if reach[i] && p[i] == '*' {
                reach[i + 1] = true;
            }
        }
    };
    close(&mut reach);
    for &c in &n {
        let mut next = vec![false; p.len() + 1];
        for i in 0..p.len() {
            if reach[i] && (p[i] == '*' || p[i] == '?' || p[i] == c) {
                next[if p[i] == '*' { i } else { i + 1 }] = true;
            }
        }
        close(&mut next);
        reach = next;
    }
    reach[p.len()]
}

/// The output path of `input` found under `base`: the same relative folder under `out_dir`,
/// the file name from the template (`{stem}`, `{name}`, `{ext}`).
pub fn output_path(input: &Path, base: &Path, out_dir: &Path, template: &str) -> PathBuf {
    let stem = input.file_stem().and_then(|s| s.to_str()).unwrap_or("out");
    let ext = input.extension().and_then(|s| s.to_str()).unwrap_or("png");
    let name = input.file_name().and_then(|s| s.to_str()).unwrap_or("out");
    let file = template
        .replace("{stem}", stem)
        .replace("{ext}", ext)
        .replace("{name}", name);
    let rel = input
        .parent()
        .and_then(|p| p.strip_prefix(base).ok())
        .unwrap_or(Path::new(""));
    out_dir.join(rel).join(file)
}

/// One input and where its output goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The input file.
    pub input: PathBuf,
    /// Its output.
    pub output: PathBuf,
}

/// The batch's files and outputs, checked before any work: the template names a file of a
/// known format, no output is an input or another input's output, and every output folder
/// can be created and written in (created here).
pub fn plan(inputs: &[PathBuf], out_dir: &Path, options: &BatchOptions) -> Result<Vec<Job>> {
    let name = options.name.as_str();
    if name.contains(['/', '\\']) {
        return Err(Error::Batch(BatchError::NameIsPath {
            name: name.to_string(),
        }));
    }
    let probe = name
        .replace("{ext}", "png")
        .replace("{stem}", "x")
        .replace("{name}", "x.png");
    if image::ImageFormat::from_path(probe).is_err() {
        return Err(Error::Batch(BatchError::UnknownExtension {
            name: name.to_string(),
        }));
    }
    let files = collect(inputs, options.recursive)?;
    if files.is_empty() {
        return Err(Error::Batch(BatchError::NoFiles));
    }
    let jobs: Vec<Job> = files
        .iter()
        .map(|(input, base)| Job {
            input: input.clone(),
            output: output_path(input, base, out_dir, name),
        })
        .collect();
    // an output that is one of the inputs (by name, through a link or `..`) would replace it,
    // whatever `existing` says: refused before any work
    let ids: HashSet<FileId> = jobs.iter().filter_map(|j| identity(&j.input)).collect();
    if let Some(j) = jobs
        .iter()
        .find(|j| identity(&j.output).is_some_and(|id| ids.contains(&id)))
    {
        return Err(Error::Batch(BatchError::OutputIsAnInput {
            input: j.input.clone(),
            output: j.output.clone(),
        }));
    }
    // two inputs writing to one output would race: refused before any work
    let mut outs: Vec<&PathBuf> = jobs.iter().map(|j| &j.output).collect();
    outs.sort();
    if let Some(w) = outs.windows(2).find(|w| w[0] == w[1]) {
        return Err(Error::Batch(BatchError::SameOutput {
            output: w[0].clone(),
        }));
    }
    // the output folders, created and tried before any work: one error for a folder that
    // cannot be made or written (not one per file after the work)
    let mut folders: Vec<&Path> = jobs
        .iter()
        .filter_map(|j| j.output.parent())
        .filter(|d| !d.as_os_str().is_empty())
        .collect();
    folders.sort();
    folders.dedup();
    for dir in folders {
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::Batch(BatchError::CreateFolder {
                dir: dir.to_path_buf(),
                message: e.to_string(),
            })
        })?;
        Output::create(
            &dir.join(".texelflow-write-check"),
            OutputOptions::default(),
        )
        .map_err(|e| {
            Error::Batch(BatchError::WriteFolder {
                dir: dir.to_path_buf(),
                message: e.to_string(),
            })
        })?;
    }
    Ok(jobs)
}

/// `run_batch` on devices already open.
pub fn run_batch_on(
    pipeline: &Pipeline,
    devices: &[Backend],
    inputs: &[PathBuf],
    out_dir: &Path,
    options: &BatchOptions,
    progress: &dyn BatchProgress,
) -> Result<BatchSummary> {
    let openers: Vec<Box<dyn Fn() -> Backend + Sync + '_>> = devices
        .iter()
        .map(|b| Box::new(move || b.clone()) as Box<dyn Fn() -> Backend + Sync>)
        .collect();
    let refs: Vec<&(dyn Fn() -> Backend + Sync)> = openers.iter().map(|b| &**b).collect();
    run_batch(pipeline, &refs, inputs, out_dir, options, progress)
}

/// Runs `pipeline` over the image files of `inputs` into `out_dir` (`plan` checks them first;
/// its errors end the batch before any work). `devices` opens each device of the list (at
/// least one): each runs on a thread of its own while the workers decode their first images
/// (start-up overlapped with decoding), once, then compiles the pipeline's kernels on a small
/// image. Each file's failure is in the summary, not an error.
pub fn run_batch(
    pipeline: &Pipeline,
    devices: &[&(dyn Fn() -> Backend + Sync)],
    inputs: &[PathBuf],
    out_dir: &Path,
    options: &BatchOptions,
    progress: &dyn BatchProgress,
) -> Result<BatchSummary> {
    let jobs = plan(inputs, out_dir, options)?;
    run_jobs(pipeline, devices, &jobs, options, progress)
}

/// One device of the batch.
struct Device<'a> {
    open: &'a (dyn Fn() -> Backend + Sync),
    backend: OnceLock<Backend>,
    slots: Slots,
    times: OnceLock<(Duration, Duration)>,
    files: AtomicUsize,
}

/// What every worker shares.
struct Ctx<'a> {
    pipeline: &'a Pipeline,
    o: &'a BatchOptions,
    /// `o.save` with `no_clobber` from `o.existing`.
    save: SaveOptions,
    /// `o.run` with `o.timings`.
    opts: RunOptions,
    progress: &'a dyn BatchProgress,
    start: Instant,
}

/// A file done: `(bytes read, times, the run's notes)`, or `None` where it was skipped.
type Done = Option<(usize, FileTimes, Vec<String>)>;

/// `run_batch` on jobs already planned (`plan`).
pub fn run_jobs(
    pipeline: &Pipeline,
    devices: &[&(dyn Fn() -> Backend + Sync)],
    jobs: &[Job],
    options: &BatchOptions,
    progress: &dyn BatchProgress,
) -> Result<BatchSummary> {
    let start = Instant::now();
    if devices.is_empty() {
        return Err(Error::Batch(BatchError::NoDevices));
    }
    let cx = Ctx {
        pipeline,
        o: options,
        save: SaveOptions {
            // the final rename replaces nothing unless asked (concurrent batches)
            no_clobber: options.existing != Existing::Overwrite,
            ..options.save.clone()
        },
        opts: RunOptions {
            timings: options.timings,
            ..options.run.clone()
        },
        progress,
        start,
    };
    let cx = &cx;
    progress.start(jobs.len());
    let devs: Vec<Device<'_>> = devices
        .iter()
        .map(|&open| Device {
            open,
            backend: OnceLock::new(),
            slots: Slots::new(options.gpu_jobs.max(1)),
            times: OnceLock::new(),
            files: AtomicUsize::new(0),
        })
        .collect();
    let devs = &devs;
    let jpeg_out = jobs.iter().any(|j| crate::io::is_jpeg_path(&j.output));
    // a batch whose JPEGs shrink on load decodes them on the host (at a DCT scale)
    let device_decode = options.device_decode
        && jobs
            .first()
            .is_none_or(|j| cx.shrink_size(&j.input).is_none());
    let open = move |i: usize| -> &Backend { cx.open(&devs[i], jpeg_out, device_decode) };
    let next = AtomicUsize::new(0);
    let summary = Mutex::new(BatchSummary::default());
    let bytes = AtomicUsize::new(0);
    // Decoded images waiting for a device: workers decode ahead while the devices open and
    // their kernels compile (the device took ~0.26 s to open and compile, a 4K decode ~0.1 s,
    // so workers idled for a fifth of a 64-photo batch), at most two images per worker ahead.
    let decoded: Mutex<VecDeque<Decoded<'_>>> = Mutex::new(VecDeque::new());
    let workers = options.jobs.max(1).min(jobs.len());
    let record = |job: &Job, outcome: Result<Done>| {
        if let Ok(mut sum) = summary.lock() {
            match outcome {
                Ok(Some((n, t, notes))) => {
                    for note in notes {
                        if !sum.notes.contains(&note) {
                            sum.notes.push(note);
                        }
                    }
                    sum.done += 1;
                    bytes.fetch_add(n, Ordering::Relaxed);
                    if options.timings {
                        sum.times.push((job.input.clone(), t));
                    }
                }
                Ok(None) => sum.skipped += 1,
                // another writer made the output meanwhile (the final rename does not replace)
                Err(Error::OutputExists { .. }) if options.existing == Existing::Skip => {
                    sum.skipped += 1
                }
                Err(e) => sum.failed.push(BatchFailure {
                    input: job.input.clone(),
                    output: job.output.clone(),
                    error: e,
                }),
            }
        }
        progress.file_done(&job.input, bytes.load(Ordering::Relaxed), start.elapsed());
    };
    let pop = || decoded.lock().ok().and_then(|mut q| q.pop_front());
    let one_large = Mutex::new(());
    let n = devs.len();
    std::thread::scope(|s| {
        for i in 0..n {
            s.spawn(move || open(i));
        }
        for w in 0..workers {
            let (record, pop, decoded, next, one_large) =
                (&record, &pop, &decoded, &next, &one_large);
            // the device this worker waits for when every device is busy
            let home = w % n;
            s.spawn(move || loop {
                // GPU work first once a device is open (any with a free slot, its own first);
                // else decode ahead; else wait for its own device
                let mut ran = false;
                for k in 0..n {
                    let i = (home + k) % n;
                    let dev = &devs[i];
                    if dev.backend.get().is_none() {
                        continue;
                    }
                    if let Some(slot) = dev.slots.try_take() {
                        if let Some(d) = pop() {
                            dev.files.fetch_add(1, Ordering::Relaxed);
                            record(d.job, cx.finish(d, open(i), i, slot));
                            ran = true;
                        }
                        break;
                    }
                }
                if ran {
                    continue;
                }
                let room = decoded
                    .lock()
                    .map(|q| q.len() < 2 * workers)
                    .unwrap_or(false);
                if room {
                    if let Some(job) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                        // a large image streams through in bands, one such image at a time
                        // (each has its own decoder and encoder threads); the rest are decoded
                        // whole. Large as decoded: a JPEG before a leading shrink at its DCT
                        // scale
                        if cx.wants_stream(&job.input) {
                            if let Some(outcome) = cx.streamed(job, open(home), one_large) {
                                devs[home].files.fetch_add(1, Ordering::Relaxed);
                                record(job, outcome);
                                continue;
                            }
                        }
                        match cx.prepare(job, device_decode) {
                            Ok(Some(d)) => {
                                if let Ok(mut q) = decoded.lock() {
                                    q.push_back(d);
                                }
                            }
                            other => record(job, other.map(|_| None)),
                        }
                        continue;
                    }
                }
                match pop() {
                    Some(d) => {
                        let slot = devs[home].slots.take();
                        devs[home].files.fetch_add(1, Ordering::Relaxed);
                        record(d.job, cx.finish(d, open(home), home, slot))
                    }
                    None if next.load(Ordering::Relaxed) >= jobs.len() => break,
                    None => std::thread::yield_now(),
                }
            });
        }
    });
    let mut s = summary
        .into_inner()
        .map_err(|_| Error::Batch(BatchError::WorkerPanicked))?;
    s.wall = start.elapsed();
    s.device_times = devs.iter().map(|d| d.times.get().copied()).collect();
    s.per_device = devs
        .iter()
        .map(|d| d.files.load(Ordering::Relaxed))
        .collect();
    s.bytes_read = bytes.load(Ordering::Relaxed);
    Ok(s)
}

impl Ctx<'_> {
    /// `dev` opened, once; opening it also compiles the pipeline's kernels on a small RGBA8
    /// image (the format decoders give), so the first images do not each wait for the
    /// compiler; and the JPEG encode's where the outputs are JPEGs, the decode's for grey and
    /// colour files. The warm-up runs on threads of their own: the compiles overlap (a
    /// machine's first run compiles every kernel in the driver: 1.6 s for one 4K image on the
    /// H200, session 22).
    fn open<'d>(&self, dev: &'d Device<'_>, jpeg_out: bool, device_decode: bool) -> &'d Backend {
        dev.backend.get_or_init(|| {
            let be = (dev.open)();
            let opened = self.start.elapsed();
            let probe = Image::from_u8(64, 64, PixelFormat::Rgba8, vec![128; 64 * 64 * 4]).ok();
            let (be_ref, probe) = (&be, probe.as_ref());
            let (pipeline, opts) = (self.pipeline, &self.opts);
            std::thread::scope(|s| {
                if let Some(probe) = probe {
                    s.spawn(move || pipeline.run_with(be_ref, probe, opts).is_ok());
                    let tail = jpeg_out
                        .then(|| self.device_jpeg(be_ref, Path::new("o.jpg")))
                        .flatten();
                    if let Some(tail) = tail {
                        s.spawn(move || pipeline.try_run_then(be_ref, probe, tail, opts).is_ok());
                    }
                }
                #[cfg(feature = "turbojpeg")]
                self.warm_decode(s, be_ref, device_decode);
                #[cfg(not(feature = "turbojpeg"))]
                let _ = device_decode;
            });
            let _ = dev.times.set((opened, self.start.elapsed()));
            be
        })
    }

    /// The GPU decode's kernels: the entropy decode's (unless `gpu_entropy` is off) on a small
    /// file of each kind, and the colour conversion's for grey and colour.
    #[cfg(feature = "turbojpeg")]
    fn warm_decode<'s, 'e>(
        &'e self,
        s: &'s std::thread::Scope<'s, 'e>,
        be: &'e Backend,
        device_decode: bool,
    ) {
        use crate::io::jpeg_coef::JpegDecode;
        if !device_decode {
            return;
        }
        let (pipeline, opts) = (self.pipeline, &self.opts);
        if self.o.gpu_entropy {
            for format in [PixelFormat::Rgba8, PixelFormat::Gray8] {
                s.spawn(move || {
                    let bytes =
                        Image::from_u8(16, 16, format, vec![128; 16 * 16 * format.channels()])
                            .and_then(|i| i.to_jpeg_bytes(80));
                    let decode = bytes
                        .ok()
                        .and_then(|b| JpegDecode::from_file(b, 1, 1 << 20));
                    decode.is_some_and(|d| pipeline.try_run_produced(be, Box::new(d), opts).is_ok())
                });
            }
        }
        for grey in [false, true] {
            s.spawn(move || {
                let blank = JpegDecode::blank(grey);
                pipeline.try_run_produced(be, Box::new(blank), opts).is_ok()
            });
        }
    }

    /// The `LoadOptions::min_size` of `path` through the pipeline (shrink-on-load; `None`:
    /// full size).
    fn shrink_size(&self, path: &Path) -> Option<(u32, u32)> {
        crate::io::shrink_on_load(self.pipeline, path, &LoadOptions::default(), &self.opts).min_size
    }

    /// The load options of the batch's decodes.
    fn load_options(&self, min_size: Option<(u32, u32)>) -> LoadOptions {
        LoadOptions {
            limits: Some(self.o.run.limits),
            allow_truncated: self.o.allow_truncated,
            min_size,
        }
    }

    /// Whether `input` is to be streamed in bands (`stream`: large as decoded, or always).
    fn wants_stream(&self, input: &Path) -> bool {
        if self.o.stream == StreamPolicy::Never {
            return false;
        }
        let load = LoadOptions {
            min_size: self.shrink_size(input),
            ..Default::default()
        };
        crate::io::rows::probe_load(input, &load).is_ok_and(|desc| {
            self.o.stream == StreamPolicy::Always || crate::io::streams_by_default(desc)
        })
    }

    /// `path` decoded (at least `min_size`), its warnings told.
    fn load(&self, path: &Path, min_size: Option<(u32, u32)>) -> Result<(Image, SaveOptions)> {
        let l = Image::load(path, &self.load_options(min_size))?;
        self.warn(path, &l.warnings);
        Ok((l.image, l.metadata))
    }

    fn warn(&self, input: &Path, warnings: &[String]) {
        for w in warnings {
            self.progress
                .event(BatchEvent::Warning { input, message: w });
        }
    }

    /// Runs the pipeline on `be`; with `fallback`, a GPU failure runs it again on the CPU
    /// reference.
    fn run_with_fallback(&self, input: &Path, be: &Backend, img: &Image) -> Result<RunResult> {
        match self.pipeline.run_with(be, img, &self.opts) {
            Err(e) if self.gpu_fallback(&e, be) => {
                self.progress
                    .event(BatchEvent::Fallback { input, error: &e });
                self.pipeline.run_with(&Backend::Cpu, img, &self.opts)
            }
            other => other,
        }
    }

    fn gpu_fallback(&self, e: &Error, be: &Backend) -> bool {
        self.o.fallback && e.is_gpu_failure() && matches!(be, Backend::Gpu(_))
    }

    /// The GPU's JPEG encode as a graph's last node (`io::jpeg_file`), for a JPEG `output` on a
    /// GPU with `device_encode`: the run then reads back only the file's bytes.
    #[cfg(feature = "turbojpeg")]
    fn device_jpeg(&self, be: &Backend, output: &Path) -> Option<Box<dyn crate::extend::Filter>> {
        if !self.o.device_encode
            || !crate::io::is_jpeg_path(output)
            || !matches!(be, Backend::Gpu(_))
        {
            return None;
        }
        let node = crate::io::jpeg_file::for_save(&self.save).ok()?;
        Some(Box::new(node))
    }

    #[cfg(not(feature = "turbojpeg"))]
    fn device_jpeg(&self, _: &Backend, _: &Path) -> Option<Box<dyn crate::extend::Filter>> {
        None
    }

    /// A large image streamed in bands (`Pipeline::stream_file`), one at a time (`lock`);
    /// `None` where the pipeline cannot run in bands (the image is then decoded whole).
    fn streamed(&self, job: &Job, be: &Backend, lock: &Mutex<()>) -> Option<Result<Done>> {
        let run = || -> Result<Option<Done>> {
            if !self.writable(job)? {
                return Ok(Some(None));
            }
            create_folder(&job.output)?;
            let _one = lock
                .lock()
                .map_err(|_| Error::Batch(BatchError::WorkerPanicked))?;
            let t = Instant::now();
            let load = self.load_options(None);
            let stream = |be: &Backend| {
                self.pipeline.stream_file(
                    be,
                    &job.input,
                    &job.output,
                    &load,
                    &self.save,
                    &self.opts,
                )
            };
            let report = match stream(be) {
                Err(e) if self.gpu_fallback(&e, be) => {
                    self.progress.event(BatchEvent::Fallback {
                        input: &job.input,
                        error: &e,
                    });
                    stream(&Backend::Cpu)?
                }
                other => other?,
            };
            let Some(report) = report else {
                return Ok(None);
            };
            self.warn(&job.input, &report.warnings);
            for n in &report.notes {
                self.progress.event(BatchEvent::Note {
                    input: &job.input,
                    message: n,
                });
            }
            let bytes = std::fs::metadata(&job.input).map_or(0, |m| m.len() as usize);
            Ok(Some(Some((
                bytes,
                FileTimes {
                    run: t.elapsed().as_secs_f64() * 1e3,
                    ..Default::default()
                },
                Vec::new(),
            ))))
        };
        match run() {
            Ok(None) => None,
            Ok(Some(done)) => Some(Ok(done)),
            Err(e) => Some(Err(e)),
        }
    }

    /// Whether `job` is to be written (`false`: skipped, its output exists); an error where its
    /// output is its input or exists and may not be replaced.
    fn writable(&self, job: &Job) -> Result<bool> {
        if crate::io::same_file(&job.input, &job.output) {
            return Err(Error::Batch(BatchError::InputIsOutput {
                path: job.output.clone(),
            }));
        }
        // only a regular file is replaced (`io::output`); an existing one as `existing` says
        // (the final rename checks again: no race between two batches)
        let options = OutputOptions {
            no_clobber: self.o.existing != Existing::Overwrite,
            special_files: false,
        };
        match check_output(&job.output, options) {
            Ok(_) => Ok(true),
            Err(Error::OutputExists { .. }) if self.o.existing == Existing::Skip => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// A file's checks and decoding: `None` when it is skipped (its output exists). A JPEG
    /// before a leading shrink is decoded at a DCT scale, as for one image (shrink-on-load,
    /// issue 30); else, with `device_decode`, a JPEG is only entropy-decoded
    /// (`Image::load_for_device`).
    fn prepare<'j>(&self, job: &'j Job, device_decode: bool) -> Result<Option<Decoded<'j>>> {
        if !self.writable(job)? {
            return Ok(None);
        }
        let bytes = std::fs::metadata(&job.input).map_or(0, |m| m.len() as usize);
        let t = Instant::now();
        let min_size = self.shrink_size(&job.input);
        let (input, meta, why_host) = if device_decode && min_size.is_none() {
            self.load_for_device(&job.input, self.o.gpu_entropy)?
        } else {
            let (img, meta) = self.load(&job.input, min_size)?;
            (Input::Pixels(img), meta, None)
        };
        Ok(Some(Decoded {
            job,
            input,
            why_host,
            meta,
            bytes,
            decode_ms: t.elapsed().as_secs_f64() * 1e3,
        }))
    }

    /// `Image::load_for_device_with`: a JPEG's coefficients, or pixels decoded on the host
    /// (and why, for a JPEG).
    fn load_for_device(
        &self,
        path: &Path,
        gpu_entropy: bool,
    ) -> Result<(Input, SaveOptions, Option<String>)> {
        let f = Image::load_for_device_with(path, &self.load_options(None), gpu_entropy)?;
        Ok(match f {
            #[cfg(feature = "turbojpeg")]
            crate::io::ForDevice::Jpeg { decode, metadata } => {
                (Input::Jpeg(decode), metadata, None)
            }
            crate::io::ForDevice::Host { loaded, why } => {
                self.warn(path, &loaded.warnings);
                (Input::Pixels(loaded.image), loaded.metadata, why)
            }
        })
    }

    /// A decoded file through the pipeline on `be` and into its output. A JPEG output on the
    /// GPU is encoded there too (`device_jpeg`): only the file's bytes come back; an image with
    /// transparency is then run again and saved as any other.
    fn finish(&self, d: Decoded<'_>, be: &Backend, device: usize, slot: Slot<'_>) -> Result<Done> {
        let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let on_device = d.input.on_device();
        let entropy_on_device = d.input.entropy_on_device();
        let input = d.job.input.as_path();
        let tail = || self.device_jpeg(be, &d.job.output);
        // on the CPU reference after a GPU failure (`fallback`), decoded on the host
        let on_cpu = |e: Error| -> Result<RunResult> {
            if self.gpu_fallback(&e, be) {
                self.progress
                    .event(BatchEvent::Fallback { input, error: &e });
                let (img, _) = self.load(input, None)?;
                return self.pipeline.run_with(&Backend::Cpu, &img, &self.opts);
            }
            Err(e)
        };
        let mut result = match &d.input {
            Input::Pixels(img) => {
                match tail().map(|f| self.pipeline.try_run_then(be, img, f, &self.opts)) {
                    Some(Ok(Some(r))) => r,
                    Some(Err(e)) => on_cpu(e)?,
                    _ => self.run_with_fallback(input, be, img)?,
                }
            }
            #[cfg(feature = "turbojpeg")]
            Input::Jpeg(decode) => {
                let (pipeline, opts) = (self.pipeline, &self.opts);
                let produced = match tail() {
                    Some(f) => {
                        match pipeline.try_run_produced_then(be, Box::new(decode.clone()), f, opts)
                        {
                            Ok(None) => {
                                pipeline.try_run_produced(be, Box::new(decode.clone()), opts)
                            }
                            other => other,
                        }
                    }
                    None => pipeline.try_run_produced(be, Box::new(decode.clone()), opts),
                };
                match produced {
                    Ok(Some(r)) => r,
                    // the GPU's entropy decode found the file damaged: decoded again with
                    // libjpeg-turbo's entropy decode, then the host's policy for damaged
                    // files (the same error, or the same image)
                    Err(Error::ProducerRejected { status }) => {
                        return self.again_on_host(d, status, be, device, slot);
                    }
                    // too large for one run (tiles, bands): decoded on the host like any other
                    Ok(None) => {
                        let (img, _) = self.load(input, None)?;
                        self.run_with_fallback(input, be, &img)?
                    }
                    Err(e) => on_cpu(e)?,
                }
            }
        };
        let run = ms(t);
        drop(slot);
        let gpu = result.timings.iter().map(|n| n.ms).sum();
        let out = result
            .take("output")
            .ok_or(Error::Batch(BatchError::NoOutput))?;
        create_folder(&d.job.output)?;
        let t = Instant::now();
        // the input's colour profile and EXIF travel to the output (JPEG and PNG)
        let save = SaveOptions {
            icc_profile: d.meta.icc_profile.clone(),
            exif: d.meta.exif.clone(),
            ..self.save.clone()
        };
        let mut notes = std::mem::take(&mut result.notes);
        let mut encoded_on_device = false;
        let out = match out {
            Value::Data(Data::Bytes(stream)) => {
                encoded_on_device = save_stream(&d.job.output, &stream, &save)?;
                if encoded_on_device {
                    None
                } else {
                    // transparency: JPEG has none, so the host composites over the background
                    let mut r = match &d.input {
                        Input::Pixels(img) => self.run_with_fallback(input, be, img)?,
                        #[cfg(feature = "turbojpeg")]
                        Input::Jpeg(_) => {
                            let (img, _) = self.load(input, None)?;
                            self.run_with_fallback(input, be, &img)?
                        }
                    };
                    Some(r.take("output").ok_or(Error::Batch(BatchError::NoOutput))?)
                }
            }
            v => Some(v),
        };
        if let Some(out) = out {
            let Value::Image(out) = out else {
                return Err(Error::Batch(BatchError::EndsInData));
            };
            let alpha = alpha_note(&out, &d.job.output, save.background);
            out.save_with(&d.job.output, &save)?;
            notes.extend(alpha);
        }
        notes.extend(d.why_host);
        Ok(Some((
            d.bytes,
            FileTimes {
                on_device,
                entropy_on_device,
                encoded_on_device,
                decode: d.decode_ms,
                run,
                host: result.host,
                gpu,
                encode: ms(t),
                device,
            },
            notes,
        )))
    }

    /// `finish` of a JPEG whose entropy decode on the GPU found `status` (`DAMAGE_*` bits):
    /// loaded again with libjpeg-turbo's entropy decode (its error is the file's), and run
    /// again; a note says why.
    #[cfg(feature = "turbojpeg")]
    fn again_on_host(
        &self,
        d: Decoded<'_>,
        status: u32,
        be: &Backend,
        device: usize,
        slot: Slot<'_>,
    ) -> Result<Done> {
        let t = Instant::now();
        let (input, meta, why) = self.load_for_device(&d.job.input, false)?;
        let note = format!(
            "`{}`: the GPU's entropy decode found {}; decoded again with libjpeg-turbo's{}",
            d.job.input.display(),
            crate::io::jpeg_coef::damage_why(status),
            why.map(|w| format!(" ({w})")).unwrap_or_default()
        );
        let again = Decoded {
            input,
            why_host: Some(note),
            meta,
            decode_ms: d.decode_ms + t.elapsed().as_secs_f64() * 1e3,
            ..d
        };
        self.finish(again, be, device, slot)
    }
}

/// The folder of `output`, created.
fn create_folder(output: &Path) -> Result<()> {
    if let Some(dir) = output.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| {
            Error::Batch(BatchError::CreateFolder {
                dir: dir.to_path_buf(),
                message: e.to_string(),
            })
        })?;
    }
    Ok(())
}

/// Writes a JPEG the GPU coded; `false` where the image had transparency.
#[cfg(feature = "turbojpeg")]
fn save_stream(path: &Path, stream: &crate::value::Bytes, save: &SaveOptions) -> Result<bool> {
    crate::io::jpeg_file::save(path, stream, save)
}

#[cfg(not(feature = "turbojpeg"))]
fn save_stream(path: &Path, _: &crate::value::Bytes, _: &SaveOptions) -> Result<bool> {
    Err(Error::ImageIo {
        path: path.to_path_buf(),
        message: "a JPEG stream without the JPEG codec".to_string(),
    })
}

/// The note for an image with transparent pixels going to a format without alpha: what
/// happens to them (composited over the background).
fn alpha_note(img: &Image, output: &Path, background: [u8; 3]) -> Option<String> {
    let no_alpha =
        image::ImageFormat::from_path(output).is_ok_and(|f| !crate::io::format_has_alpha(f));
    let [r, g, b] = background;
    (no_alpha && img.has_transparency()).then(|| format!("JPEG has no alpha: transparent pixels were composited over rgb({r}, {g}, {b}) (--background)"))
}

/// A decoded input waiting for a device.
struct Decoded<'j> {
    job: &'j Job,
    input: Input,
    /// Why a JPEG was decoded on the host, where `device_decode` asked for the GPU.
    why_host: Option<String>,
    meta: SaveOptions,
    bytes: usize,
    decode_ms: f64,
}

/// A file's pixels, or a JPEG's coefficients for the GPU half of its decode.
enum Input {
    Pixels(Image),
    #[cfg(feature = "turbojpeg")]
    Jpeg(crate::io::jpeg_coef::JpegDecode),
}

impl Input {
    fn on_device(&self) -> bool {
        match self {
            Input::Pixels(_) => false,
            #[cfg(feature = "turbojpeg")]
            Input::Jpeg(_) => true,
        }
    }

    fn entropy_on_device(&self) -> bool {
        match self {
            Input::Pixels(_) => false,
            #[cfg(feature = "turbojpeg")]
            Input::Jpeg(j) => j.entropy_on_device(),
        }
    }
}

/// A counting semaphore: at most `n` workers run their pipeline on a device at once.
struct Slots {
    free: Mutex<usize>,
    freed: Condvar,
}

/// A slot taken from `Slots`, given back when dropped.
struct Slot<'a>(&'a Slots);

impl Slots {
    fn new(n: usize) -> Self {
        Self {
            free: Mutex::new(n),
            freed: Condvar::new(),
        }
    }
    /// A slot where one is free now.
    fn try_take(&self) -> Option<Slot<'_>> {
        let mut free = self.free.lock().ok()?;
        if *free == 0 {
            return None;
        }
        *free -= 1;
        Some(Slot(self))
    }
    /// A slot, waiting for one.
    fn take(&self) -> Slot<'_> {
        if let Ok(mut free) = self.free.lock() {
            while *free == 0 {
                free = match self.freed.wait(free) {
                    Ok(f) => f,
                    Err(_) => return Slot(self),
                };
            }
            *free -= 1;
        }
        Slot(self)
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        if let Ok(mut free) = self.0.free.lock() {
            *free += 1;
        }
        self.0.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_match_whole_names() {
        assert!(wildcard("*.jpg", "a.jpg"));
        assert!(wildcard("img_??.png", "img_07.png"));
        assert!(!wildcard("img_??.png", "img_7.png"));
        assert!(!wildcard("*.jpg", "a.jpeg"));
        assert!(wildcard("*", ""));
        assert!(wildcard("a*b*c", "aXXbYc"));
    }

    #[test]
    fn output_names_follow_the_template_and_keep_subfolders() {
        let p = output_path(
            Path::new("in/sub/photo.jpg"),
            Path::new("in"),
            Path::new("out"),
            "{stem}_edges.png",
        );
        assert_eq!(p, PathBuf::from("out/sub/photo_edges.png"));
        assert_eq!(
            output_path(
                Path::new("a.tif"),
                Path::new(""),
                Path::new("o"),
                "{stem}.{ext}"
            ),
            PathBuf::from("o/a.tif")
        );
    }
}
