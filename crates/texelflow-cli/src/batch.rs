//! `texelflow apply IN... --out-dir DIR`: many images through one pipeline in one process (one
//! GPU initialisation, kernels compiled once), several at a time. A file that fails (missing,
//! corrupt, not an image) is reported and the rest go on; the exit code says whether any failed.

use std::collections::HashSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use texelflow::{Backend, Image, Pipeline, RunOptions, Value};

/// Extensions of the image files a directory contributes.
const IMAGE_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "webp", "tif", "tiff", "bmp"];

/// What to do when an output file exists already.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Count the file as failed, naming the options (the default: nothing is replaced unasked).
    Refuse,
    Overwrite,
    Skip,
}

/// One input and where its output goes.
#[derive(Debug)]
pub struct Job {
    pub input: PathBuf,
    pub output: PathBuf,
}

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

/// How the run went.
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
}

/// A file done: `(bytes read, times, the run's notes)`, or `None` where it was skipped.
type Done = Option<(usize, PathTimes, Vec<String>)>;

/// Where one image's time went (wall clock of its worker, ms): decoding, the pipeline run and
/// its parts on the host (`HostTimes`: staging the upload, recording, waiting for the GPU,
/// copying the result out), the kernels alone on the GPU, encoding.
#[derive(Clone, Copy, Debug, Default)]
pub struct PathTimes {
    /// Whether the image was decoded on the GPU.
    pub on_device: bool,
    /// Whether a JPEG's entropy decode ran on the GPU too (else on the host's CPU threads).
    pub entropy_on_device: bool,
    /// Whether its JPEG output was encoded on the GPU (`io::jpeg_file`).
    pub encoded_on_device: bool,
    pub decode: f64,
    pub run: f64,
    pub host: texelflow::HostTimes,
    pub gpu: f64,
    pub encode: f64,
}

impl PathTimes {
    /// Field by field sum.
    pub fn add(&mut self, t: &PathTimes) {
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

/// Files under `inputs` (files as given; directories: their image files, descending with
/// `recursive`; a last component with `*` or `?`: the matching names of its folder), each with
/// the folder it was found under (outputs keep the path below it).
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
                bail!("`{}` matches no file", input.display());
            }
            matched.sort();
            files.extend(matched.into_iter().map(|p| (p, dir.to_path_buf())));
        } else if input.is_dir() {
            let mut found = Vec::new();
            walk(input, recursive, &mut found, &mut HashSet::new())?;
            found.sort();
            files.extend(found.into_iter().map(|p| (p, input.clone())));
        } else {
            // missing files are reported per file, like corrupt ones
            files.push((
                input.clone(),
                input.parent().map(Path::to_path_buf).unwrap_or_default(),
            ));
        }
    }
    Ok(files)
}

fn read_dir(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the folder `{}`", dir.display()))?;
    Ok(entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
}

/// A file's identity on its file system (device and inode on Unix; elsewhere its canonical
/// path), the same through any link or `..` that reaches it.
fn identity(p: &Path) -> Option<FileId> {
    let m = std::fs::metadata(p).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = &m;
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
/// the file name from the template.
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

/// Runs the batch; `parse` builds the pipeline (once; its extra images are loaded once).
/// `backend` opens the device: it runs on a thread of its own while the workers decode their
/// first images (GPU start-up overlapped with decoding), once.
pub fn run(
    b: &Batch<'_>,
    backend: &(dyn Fn() -> Backend + Sync),
    pipeline: &Pipeline,
) -> Result<Summary> {
    if b.name.contains(['/', '\\']) {
        bail!("--name is a file name, not a path: `{}`", b.name);
    }
    image::ImageFormat::from_path(
        b.name
            .replace("{ext}", "png")
            .replace("{stem}", "x")
            .replace("{name}", "x.png"),
    )
    .with_context(|| {
        format!(
            "--name `{}`: unknown output extension (use .png, .jpg, .webp, .tif, .bmp, or {{ext}})",
            b.name
        )
    })?;
    let files = collect(b.inputs, b.recursive)?;
    if files.is_empty() {
        bail!("no image files in the inputs given");
    }
    let jobs: Vec<Job> = files
        .iter()
        .map(|(input, base)| Job {
            input: input.clone(),
            output: output_path(input, base, b.out_dir, b.name),
        })
        .collect();
    // an output that is one of the inputs (by name, through a link or `..`) would replace it,
    // whatever --overwrite says: refuse before any work
    let inputs: HashSet<FileId> = jobs.iter().filter_map(|j| identity(&j.input)).collect();
    if let Some(j) = jobs
        .iter()
        .find(|j| identity(&j.output).is_some_and(|id| inputs.contains(&id)))
    {
        bail!(
            "the output of `{}` would be `{}`, which is one of the inputs; choose another --name or --out-dir",
            j.input.display(),
            j.output.display()
        );
    }
    // two inputs writing to one output would race: refuse before any work
    let mut outs: Vec<&PathBuf> = jobs.iter().map(|j| &j.output).collect();
    outs.sort();
    if let Some(w) = outs.windows(2).find(|w| w[0] == w[1]) {
        bail!(
            "two inputs would both write `{}`; use {{name}} or {{ext}} in --name",
            w[0].display()
        );
    }
    // the output folders, created and tried before any work: one line for a folder that cannot
    // be made or written (not one error per file after the work)
    let mut folders: Vec<&Path> = jobs
        .iter()
        .filter_map(|j| j.output.parent())
        .filter(|d| !d.as_os_str().is_empty())
        .collect();
    folders.sort();
    folders.dedup();
    for dir in folders {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create the output folder `{}`", dir.display()))?;
        texelflow::io::output::Output::create(
            &dir.join(".texelflow-write-check"),
            texelflow::io::output::OutputOptions::default(),
        )
        .map_err(|e| {
            anyhow::anyhow!("cannot write in the output folder `{}`: {e}", dir.display())
        })?;
    }
    let bar = ProgressBar::with_draw_target(
        Some(jobs.len() as u64),
        if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        },
    );
    if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} files  {msg}  eta {eta}")
    {
        bar.set_style(style);
    }
    let next = AtomicUsize::new(0);
    let summary = Mutex::new(Summary::default());
    let bytes = AtomicUsize::new(0);
    let start = std::time::Instant::now();
    let opts = RunOptions {
        timings: b.timings,
        ..crate::run_options()
    };
    let device: std::sync::OnceLock<Backend> = std::sync::OnceLock::new();
    let device_ref = &device;
    let device_times = std::sync::OnceLock::new();
    let device_times_ref = &device_times;
    let opts_ref = &opts;
    // Opening the device also compiles the pipeline's kernels, on a small RGBA8 image (the
    // format decoders give), so the first images do not each wait for the compiler; and the
    // JPEG encode's where the outputs are JPEGs, the decode's for grey and colour files. The
    // warm-up runs on threads of their own: the compiles overlap (a machine's first run
    // compiles every kernel in the driver: 1.6 s for one 4K image on the H200, session 22).
    let jpeg_out = jobs.iter().any(|j| texelflow::io::is_jpeg_path(&j.output));
    // a batch whose JPEGs shrink on load decodes them on the host (at a DCT scale)
    let device_decode = b.device_decode
        && jobs
            .first()
            .is_none_or(|j| crate::shrink_on_load_size(pipeline, &j.input).is_none());
    let open = move || {
        device_ref.get_or_init(|| {
            let be = backend();
            let opened = start.elapsed();
            let probe = Image::from_u8(
                64,
                64,
                texelflow::PixelFormat::Rgba8,
                vec![128; 64 * 64 * 4],
            )
            .ok();
            let (be_ref, probe) = (&be, probe.as_ref());
            std::thread::scope(|s| {
                if let Some(probe) = probe {
                    s.spawn(move || pipeline.run_with(be_ref, probe, opts_ref).is_ok());
                    let tail = jpeg_out
                        .then(|| {
                            crate::device_jpeg(b.device_encode, be_ref, Path::new("o.jpg"), &b.save)
                        })
                        .flatten();
                    if let Some(tail) = tail {
                        s.spawn(move || {
                            pipeline.try_run_then(be_ref, probe, tail, opts_ref).is_ok()
                        });
                    }
                }
                // the entropy decode's kernels (unless `--host-entropy`), on a small file of
                // each kind
                if device_decode && crate::gpu_entropy() {
                    for format in [texelflow::PixelFormat::Rgba8, texelflow::PixelFormat::Gray8] {
                        s.spawn(move || {
                            let bytes = Image::from_u8(
                                16,
                                16,
                                format,
                                vec![128; 16 * 16 * format.channels()],
                            )
                            .and_then(|i| i.to_jpeg_bytes(80));
                            let decode = bytes.ok().and_then(|b| {
                                texelflow::io::jpeg_coef::JpegDecode::from_file(b, 1, 1 << 20)
                            });
                            decode.is_some_and(|d| {
                                pipeline
                                    .try_run_produced(be_ref, Box::new(d), opts_ref)
                                    .is_ok()
                            })
                        });
                    }
                }
                if device_decode {
                    for grey in [false, true] {
                        s.spawn(move || {
                            let blank = texelflow::io::jpeg_coef::JpegDecode::blank(grey);
                            pipeline
                                .try_run_produced(be_ref, Box::new(blank), opts_ref)
                                .is_ok()
                        });
                    }
                }
            });
            let _ = device_times_ref.set((opened, start.elapsed()));
            be
        })
    };
    // Decoded images waiting for the GPU: workers decode ahead while the device opens and its
    // kernels compile (the device took ~0.26 s to open and compile, a 4K decode ~0.1 s, so
    // workers idled for a fifth of a 64-photo batch), at most two images per worker ahead.
    let decoded: Mutex<std::collections::VecDeque<Decoded<'_>>> =
        Mutex::new(std::collections::VecDeque::new());
    let workers = b.jobs.max(1).min(jobs.len());
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
                    if b.timings {
                        sum.times.push((job.input.clone(), t));
                    }
                }
                Ok(None) => sum.skipped += 1,
                // another writer made the output meanwhile (the final rename does not replace)
                Err(e) if exists_error(&e) && b.existing == Existing::Skip => sum.skipped += 1,
                Err(e) if exists_error(&e) => sum.failed.push((
                    job.input.clone(),
                    format!(
                        "`{}` exists; use --overwrite or --skip-existing",
                        job.output.display()
                    ),
                )),
                Err(e) => sum.failed.push((job.input.clone(), format!("{e:#}"))),
            }
        }
        let mb = bytes.load(Ordering::Relaxed) as f64 / 1e6;
        bar.set_message(format!(
            "{:.1} MB/s",
            mb / start.elapsed().as_secs_f64().max(1e-3)
        ));
        bar.inc(1);
    };
    let pop = || decoded.lock().ok().and_then(|mut q| q.pop_front());
    let slots = Slots::new(b.gpu_jobs.max(1));
    let one_large = Mutex::new(());
    std::thread::scope(|s| {
        s.spawn(open);
        for _ in 0..workers {
            s.spawn(|| loop {
                // GPU work first once the device is open; else decode ahead; else wait for it
                if device.get().is_some() {
                    if let Some((slot, d)) = slots.try_take().and_then(|s| pop().map(|d| (s, d))) {
                        record(d.job, finish(d, open(), pipeline, &opts, b, slot));
                        continue;
                    }
                }
                let room = decoded
                    .lock()
                    .map(|q| q.len() < 2 * workers)
                    .unwrap_or(false);
                if room {
                    if let Some(job) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                        // a large image streams through in bands, one such image at a time (each
                        // has its own decoder and encoder threads); the rest are decoded whole.
                        // Large as decoded: a JPEG before a leading shrink at its DCT scale
                        let min_size = crate::shrink_on_load_size(pipeline, &job.input);
                        if crate::bands::wanted(&job.input, min_size).is_some() {
                            if let Some(outcome) = streamed(job, b, open(), pipeline, &one_large) {
                                record(job, outcome);
                                continue;
                            }
                        }
                        match prepare(job, b.existing, pipeline, b.device_decode) {
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
                        let slot = slots.take();
                        record(d.job, finish(d, open(), pipeline, &opts, b, slot))
                    }
                    None if next.load(Ordering::Relaxed) >= jobs.len() => break,
                    None => std::thread::yield_now(),
                }
            });
        }
    });
    // A batch ends the process: the OS reclaims the device (its kept staging buffers, up to
    // 2 GiB pinned) faster than wgpu's orderly teardown would.
    std::mem::forget(device);
    bar.finish_and_clear();
    let mut s = summary
        .into_inner()
        .map_err(|_| anyhow::anyhow!("a worker panicked"))?;
    s.wall = start.elapsed();
    s.device_times = device_times.into_inner();
    Ok(s)
}

/// A large image of the batch streamed in bands (`bands::try_apply`), one at a time (`lock`);
/// `None` where the pipeline cannot run in bands (the image is then decoded whole).
fn streamed(
    job: &Job,
    b: &Batch<'_>,
    backend: &Backend,
    pipeline: &Pipeline,
    lock: &Mutex<()>,
) -> Option<Result<Done>> {
    let run = || -> Result<Option<Done>> {
        if !writable(job, b.existing)? {
            return Ok(Some(None));
        }
        if let Some(dir) = job.output.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create `{}`", dir.display()))?;
        }
        let _one = lock
            .lock()
            .map_err(|_| anyhow::anyhow!("a streamed image's worker panicked"))?;
        let t = std::time::Instant::now();
        let a = crate::bands::Apply {
            cli_fallback: b.fallback,
            allow_truncated: b.allow_truncated,
            save: b.save.clone(),
            timings: false,
        };
        if !crate::bands::try_apply(&a, backend, &job.input, &job.output, pipeline)? {
            return Ok(None);
        }
        let bytes = std::fs::metadata(&job.input)
            .map(|m| m.len() as usize)
            .unwrap_or(0);
        Ok(Some(Some((
            bytes,
            PathTimes {
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

/// `finish` of a JPEG whose entropy decode on the GPU found `status` (`DAMAGE_*` bits): loaded
/// again with libjpeg-turbo's entropy decode, as `--host-entropy` loads it (its error is the
/// file's), and run again; a note says why.
fn again_on_host(
    d: Decoded<'_>,
    status: u32,
    backend: &Backend,
    pipeline: &Pipeline,
    opts: &RunOptions,
    b: &Batch,
    slot: Slot<'_>,
) -> Result<Done> {
    let t = std::time::Instant::now();
    let (input, meta, why) = match crate::load_for_device_with(&d.job.input, false)? {
        texelflow::io::ForDevice::Jpeg { decode, metadata } => {
            (Input::Jpeg(decode), metadata, None)
        }
        texelflow::io::ForDevice::Host { loaded, why } => {
            (Input::Pixels(loaded.image), loaded.metadata, why)
        }
    };
    let note = format!(
        "`{}`: the GPU's entropy decode found {}; decoded again with libjpeg-turbo's{}",
        d.job.input.display(),
        texelflow::io::jpeg_coef::damage_why(status),
        why.map(|w| format!(" ({w})")).unwrap_or_default()
    );
    let again = Decoded {
        input,
        why_host: Some(note),
        meta,
        decode_ms: d.decode_ms + t.elapsed().as_secs_f64() * 1e3,
        ..d
    };
    finish(again, backend, pipeline, opts, b, slot)
}

/// A decoded input waiting for the GPU.
struct Decoded<'j> {
    job: &'j Job,
    input: Input,
    /// Why a JPEG was decoded on the host, where `device_decode` asked for the GPU.
    why_host: Option<String>,
    meta: texelflow::SaveOptions,
    bytes: usize,
    decode_ms: f64,
}

/// A counting semaphore: at most `n` workers run their pipeline on the device at once.
struct Slots {
    free: Mutex<usize>,
    freed: std::sync::Condvar,
}

/// A slot taken from `Slots`, given back when dropped.
struct Slot<'a>(&'a Slots);

impl Slots {
    fn new(n: usize) -> Self {
        Self {
            free: Mutex::new(n),
            freed: std::sync::Condvar::new(),
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

/// A file's pixels, or a JPEG's coefficients for the GPU half of its decode.
enum Input {
    Pixels(Image),
    Jpeg(texelflow::io::jpeg_coef::JpegDecode),
}

/// Whether `job` is to be written (`false`: skipped, its output exists); an error where its
/// output is its input or exists and may not be replaced.
fn writable(job: &Job, existing: Existing) -> Result<bool> {
    if crate::same_file(&job.input, &job.output) {
        bail!(
            "refusing to overwrite the input (`{}` is also its output)",
            job.output.display()
        );
    }
    // only a regular file is replaced (`io::output`); an existing one as --overwrite and
    // --skip-existing say (the final rename checks again: no race between two batches)
    let options = texelflow::io::output::OutputOptions {
        no_clobber: existing != Existing::Overwrite,
        special_files: false,
    };
    match texelflow::io::output::check_output(&job.output, options) {
        Ok(_) => Ok(true),
        Err(texelflow::Error::OutputExists { .. }) if existing == Existing::Skip => Ok(false),
        Err(texelflow::Error::OutputExists { .. }) => bail!(
            "`{}` exists; use --overwrite or --skip-existing",
            job.output.display()
        ),
        Err(e) => Err(e.into()),
    }
}

/// Whether `e` is an output that exists where it may not be replaced.
fn exists_error(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        matches!(
            c.downcast_ref::<texelflow::Error>(),
            Some(texelflow::Error::OutputExists { .. })
        )
    })
}

/// A file's checks and decoding: `None` when it is skipped (its output exists). A JPEG before
/// a leading shrink is decoded at a DCT scale, as for one image (shrink-on-load, issue 30);
/// else, with `device_decode`, a JPEG is only entropy-decoded (`Image::load_for_device`).
fn prepare<'j>(
    job: &'j Job,
    existing: Existing,
    pipeline: &Pipeline,
    device_decode: bool,
) -> Result<Option<Decoded<'j>>> {
    if !writable(job, existing)? {
        return Ok(None);
    }
    let bytes = std::fs::metadata(&job.input)
        .map(|m| m.len() as usize)
        .unwrap_or(0);
    let t = std::time::Instant::now();
    let min_size = crate::shrink_on_load_size(pipeline, &job.input);
    let (input, meta, why_host) = if device_decode && min_size.is_none() {
        match crate::load_for_device(&job.input)? {
            texelflow::io::ForDevice::Jpeg { decode, metadata } => {
                (Input::Jpeg(decode), metadata, None)
            }
            texelflow::io::ForDevice::Host { loaded, why } => {
                (Input::Pixels(loaded.image), loaded.metadata, why)
            }
        }
    } else {
        let (img, meta) = crate::load_image_at_least(&job.input, min_size)?;
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

/// A decoded file through the pipeline and into its output: `(bytes read, times, the run's notes)`.
/// A JPEG output on the GPU is encoded there too (`device_jpeg`): only the file's bytes come
/// back; an image with transparency is then run again and saved as any other.
fn finish(
    d: Decoded<'_>,
    backend: &Backend,
    pipeline: &Pipeline,
    opts: &RunOptions,
    b: &Batch,
    slot: Slot<'_>,
) -> Result<Done> {
    let ms = |t: std::time::Instant| t.elapsed().as_secs_f64() * 1e3;
    let t = std::time::Instant::now();
    let on_device = matches!(d.input, Input::Jpeg(_));
    let entropy_on_device = matches!(&d.input, Input::Jpeg(j) if j.entropy_on_device());
    let fallback = b.fallback;
    let tail = || crate::device_jpeg(b.device_encode, backend, &d.job.output, &b.save);
    // on the CPU reference after a GPU failure (--fallback cpu), decoded on the host
    let on_cpu = |e: texelflow::Error| -> Result<texelflow::RunResult> {
        if fallback && e.is_gpu_failure() && matches!(backend, Backend::Gpu(_)) {
            eprintln!("texelflow: note: {e}; running again on the CPU reference (--fallback cpu)");
            let (img, _) = crate::load_image(&d.job.input)?;
            return Ok(pipeline.run_with(&Backend::Cpu, &img, opts)?);
        }
        Err(e.into())
    };
    let mut result = match &d.input {
        Input::Pixels(img) => match tail().map(|f| pipeline.try_run_then(backend, img, f, opts)) {
            Some(Ok(Some(r))) => r,
            Some(Err(e)) => on_cpu(e)?,
            _ => crate::run_with_fallback(fallback, backend, pipeline, img, opts)?,
        },
        Input::Jpeg(decode) => {
            let produced = match tail() {
                Some(f) => {
                    match pipeline.try_run_produced_then(backend, Box::new(decode.clone()), f, opts)
                    {
                        Ok(None) => {
                            pipeline.try_run_produced(backend, Box::new(decode.clone()), opts)
                        }
                        other => other,
                    }
                }
                None => pipeline.try_run_produced(backend, Box::new(decode.clone()), opts),
            };
            match produced {
                Ok(Some(r)) => r,
                // the GPU's entropy decode found the file damaged: decoded again as with
                // --host-entropy (libjpeg-turbo's entropy decode, then the host's policy for
                // damaged files: the same error, or the same image)
                Err(texelflow::Error::ProducerRejected { status }) => {
                    return again_on_host(d, status, backend, pipeline, opts, b, slot);
                }
                // too large for one run (tiles, bands): decoded on the host like any other file
                Ok(None) => {
                    let (img, _) = crate::load_image(&d.job.input)?;
                    crate::run_with_fallback(fallback, backend, pipeline, &img, opts)?
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
        .context("pipeline produced no output")?;
    if let Some(dir) = d.job.output.parent() {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create `{}`", dir.display()))?;
    }
    let t = std::time::Instant::now();
    // the input's colour profile and EXIF travel to the output (JPEG and PNG)
    let save = texelflow::SaveOptions {
        icc_profile: d.meta.icc_profile.clone(),
        exif: d.meta.exif.clone(),
        ..b.save.clone()
    };
    let mut notes = std::mem::take(&mut result.notes);
    let mut encoded_on_device = false;
    let out = match out {
        Value::Data(texelflow::Data::Bytes(stream)) => {
            encoded_on_device = crate::save_stream(&d.job.output, &stream, &save)?;
            if encoded_on_device {
                None
            } else {
                // transparency: JPEG has none, so the host composites over the background
                let r = match &d.input {
                    Input::Pixels(img) => {
                        crate::run_with_fallback(fallback, backend, pipeline, img, opts)?
                    }
                    Input::Jpeg(_) => {
                        let (img, _) = crate::load_image(&d.job.input)?;
                        crate::run_with_fallback(fallback, backend, pipeline, &img, opts)?
                    }
                };
                let mut r = r;
                Some(r.take("output").context("pipeline produced no output")?)
            }
        }
        v => Some(v),
    };
    if let Some(out) = out {
        let Value::Image(out) = out else {
            bail!("the pipeline ends in data, not an image")
        };
        let alpha = crate::alpha_note(&out, &d.job.output, save.background);
        out.save_with(&d.job.output, &save)?;
        notes.extend(alpha);
    }
    notes.extend(d.why_host);
    Ok(Some((
        d.bytes,
        PathTimes {
            on_device,
            entropy_on_device,
            encoded_on_device,
            decode: d.decode_ms,
            run,
            host: result.host,
            gpu,
            encode: ms(t),
        },
        notes,
    )))
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
