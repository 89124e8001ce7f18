//! `texelflow`: the command-line front end. Thin by design: parsing, file I/O and
//! printing; every filter, parameter and check comes from the library's registry.

/// `println!` for standard output that ends the process quietly (status 0, as ripgrep does) when
/// the reader has gone (`texelflow list | head`), instead of panicking on the broken pipe.
macro_rules! outln {
    ($($t:tt)*) => { $crate::write_stdout(format_args!("{}\n", format_args!($($t)*))) };
}
/// `print!` with `outln!`'s handling of a closed pipe.
macro_rules! out {
    ($($t:tt)*) => { $crate::write_stdout(format_args!($($t)*)) };
}

mod analyze;
mod assess;
mod bands;
mod batch;
mod bench;
mod catalogue;
mod plot;
mod report;
mod video;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use texelflow::{Backend, GpuOptions, Image, Pipeline, RunOptions, Value};

#[derive(Parser)]
#[command(
    name = "texelflow",
    version,
    disable_help_subcommand = true,
    about = "GPU image processing: GPUImage's filters on wgpu compute shaders, with a CPU reference"
)]
struct Cli {
    /// GPU backend(s): vulkan, metal, dx12, gl (default: WGPU_BACKEND, else the best available)
    #[arg(long, global = true)]
    backend: Option<String>,
    /// The GPU to run on: an index as `texelflow info` lists them, a PCI bus id (0000:65:00.0),
    /// a UUID (GPU-..., as nvidia-smi -L prints it) or part of the adapter's name (default:
    /// WGPU_ADAPTER_NAME, else CUDA_VISIBLE_DEVICES's first GPU, else the best, discrete first;
    /// a software rasterizer only when asked for). `--adapter` is the same option
    #[arg(
        long,
        global = true,
        visible_alias = "adapter",
        value_name = "SELECTOR"
    )]
    device: Option<String>,
    /// Spread a batch (`apply IN... --out-dir DIR`) over several GPUs, one pipeline each, the
    /// images taken from one queue: `all` (every hardware GPU; under CUDA_VISIBLE_DEVICES, the
    /// ones it lists) or a comma list of selectors as `--device` takes them (`0,1`). The outputs
    /// equal one GPU's; a video's frames are spread too. Other commands run on the list's first GPU
    #[arg(long, global = true, value_name = "all|LIST", conflicts_with_all = ["device", "cpu"])]
    devices: Option<String>,
    /// Run on the CPU reference implementation instead of a GPU
    #[arg(long, global = true)]
    cpu: bool,
    /// Run on a GPU even where the whole work is so small that the CPU reference ends before a
    /// GPU could start (by default such a run takes the CPU reference: `--timings` says so)
    #[arg(long, global = true, conflicts_with = "cpu")]
    gpu: bool,
    /// Decode JPEGs wholly on the host (default: on a GPU only their entropy decoding is on
    /// the host; the IDCT, upsampling and colour conversion run on the GPU)
    #[arg(long, global = true)]
    host_decode: bool,
    /// Encode JPEG outputs wholly on the host (default: in a batch on a GPU the colour
    /// conversion, DCT, quantisation and Huffman coding run on the GPU and only the file's
    /// bytes come back; optimised tables, progressive files and images with transparency are
    /// encoded on the host either way)
    #[arg(long, global = true)]
    host_encode: bool,
    /// Entropy-decode JPEGs with libjpeg-turbo on CPU threads (default: in a batch on a GPU,
    /// a baseline JPEG's Huffman decode runs on the GPU too and only the file's bytes are
    /// uploaded; a file whose entropy-coded data it finds damaged is decoded again on the host,
    /// with the same result, error or warning as here)
    #[arg(long, global = true)]
    host_entropy: bool,
    /// When the GPU fails during a run (out of GPU memory, device lost, an image too large for
    /// it): `cpu` runs the pipeline again on the CPU reference, with a note; `none` (default): an error
    #[arg(long, global = true, default_value = "none", value_parser = ["none", "cpu"])]
    fallback: String,
    /// Most pixels of one image, loaded or made by a filter: a count (400M, 1e9) or WxH
    /// (default 2^30, a 32768x32768 image)
    #[arg(long, global = true, value_name = "PIXELS", value_parser = texelflow::limits::parse_pixels)]
    max_pixels: Option<u64>,
    /// Most host memory a load or run may be estimated to need (e.g. 8G, 512M; default: the
    /// machine's physical memory; docs/cli.md "Limits and bad input" has the formula)
    #[arg(long, global = true, value_name = "BYTES", value_parser = texelflow::limits::parse_bytes)]
    max_memory: Option<u64>,
    /// Most GPU memory one run may take (e.g. 2G, 256M; default: the device's own limits): a
    /// larger image runs in tiles with halos where its pipeline allows it, else is an error
    #[arg(long, global = true, value_name = "BYTES", value_parser = texelflow::limits::parse_bytes)]
    max_gpu_memory: Option<u64>,
    /// Filter colour as stored: no premultiplied alpha around the filters that average colours
    /// (blurs, resize, warps). For images known to be opaque (it saves two per-pixel passes), or
    /// to match tools that filter straight colour (OpenCV)
    #[arg(long, global = true)]
    straight_alpha: bool,
    /// Accept a truncated or damaged input (JPEG: the missing rows grey; PNG and TIFF: the
    /// rows past the damage transparent black; with a warning) instead of failing
    #[arg(long, global = true)]
    allow_truncated: bool,
    /// Decode the whole input even where the pipeline begins with a shrink by 2 or more (by
    /// default a JPEG is then decoded at the DCT scale 1/2, 1/4 or 1/8 that keeps the size the
    /// resize needs, and the resize runs from there: faster, within a small difference)
    #[arg(long, global = true)]
    no_shrink_on_load: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Apply a pipeline of filters to an image, `apply in.jpg out.png -p SPEC`, or to many:
    /// `apply photos/ more/*.jpg --out-dir edges --name "{stem}_edges.png" -p SPEC`
    ///
    /// Images of 64 megapixels or more stream through in bands of rows where the pipeline can
    /// run in tiles (PNG and TIFF decoded and encoded as they go; docs/cli.md "Large
    /// images"): TEXELFLOW_STREAM=1 streams any image, TEXELFLOW_STREAM=0 none.
    Apply {
        /// IN OUT; with --out-dir, every argument is an input: a file, a folder (its images) or
        /// a name pattern with * and ? (`photos/*.jpg`)
        #[arg(required = true, num_args = 1..)]
        paths: Vec<PathBuf>,
        /// Batch mode: write each input's result into this folder (created if missing)
        #[arg(long)]
        out_dir: Option<PathBuf>,
        /// Batch mode: output file name; {stem} is the input's name without extension, {ext}
        /// its extension, {name} its whole name
        #[arg(long, default_value = "{stem}.{ext}")]
        name: String,
        /// Batch mode: also the images in folders below the folders given (kept below --out-dir)
        #[arg(long)]
        recursive: bool,
        /// Batch mode: images in flight at once (default: the number of cores); video: frames in
        /// flight (default 3)
        #[arg(long)]
        jobs: Option<usize>,
        /// Batch mode: images whose pipeline runs on the GPU at once, the other workers decoding
        /// and encoding meanwhile (default 4; with --cpu, --jobs)
        #[arg(long, value_name = "N")]
        gpu_jobs: Option<usize>,
        /// Replace outputs that exist (default: an existing output is refused before any work,
        /// for IN OUT as for a batch; only a regular file is ever replaced)
        #[arg(long, conflicts_with = "skip_existing")]
        overwrite: bool,
        /// Batch mode: leave outputs that exist as they are and count them as skipped
        #[arg(long)]
        skip_existing: bool,
        /// JPEG quality, 1-100 (other formats are written lossless)
        #[arg(long, default_value_t = 90, value_parser = clap::value_parser!(u8).range(1..=100))]
        quality: u8,
        /// JPEG chroma subsampling of colour images: 444, 422 or 420 (default: 444 at quality 90
        /// and above, else 420; grey images are written as one channel)
        #[arg(long, value_parser = parse_subsampling)]
        jpeg_subsampling: Option<texelflow::Subsampling>,
        /// PNG compression effort: fast, default or best (all lossless)
        #[arg(long, default_value = "fast", value_parser = parse_png_compression)]
        png_compression: texelflow::PngCompression,
        /// The colour transparent pixels are composited over in a format without alpha (JPEG):
        /// white, black, grey, #rrggbb or r,g,b (0-255)
        #[arg(long, default_value = "white", value_parser = parse_color)]
        background: [u8; 3],
        /// Filters separated by `|`, e.g. `brightness(0.1) | alpha_blend(with=top.png, mix=0.3)`
        #[arg(long, short)]
        pipeline: String,
        /// Print per-node GPU times
        #[arg(long)]
        timings: bool,
        /// Fail instead of replacing an existing OUTPUT: the default for OUT (see --overwrite);
        /// with --data, refuse an existing data file too (checked again at the final rename)
        #[arg(long, conflicts_with = "overwrite")]
        no_clobber: bool,
        /// For a pipeline that ends in data (e.g. `fast_corner_detection | corner_points`): write
        /// it as JSON to this file (replaced if it exists), `-` (standard output), or a FIFO or
        /// device (`/dev/stdout`), written into directly; OUT is then not needed. Images and
        /// videos go to regular files only (a FIFO, device or folder as OUT is refused)
        #[arg(long, conflicts_with = "out_dir")]
        data: Option<PathBuf>,
        /// Video: the encoder (default by extension: libx264 for .mp4/.mkv/.mov, libvpx-vp9 for
        /// .webm; `ffmpeg -encoders` lists them, e.g. libx265, ffv1 for lossless)
        #[arg(long, help_heading = "Video (through ffmpeg)")]
        codec: Option<String>,
        /// Video: constant quality, lower is better (libx264: 0-51, default 23; libvpx-vp9: 0-63)
        #[arg(long, help_heading = "Video (through ffmpeg)", value_parser = clap::value_parser!(u8).range(0..=63))]
        crf: Option<u8>,
        /// Video: encoded pixel format (default yuv420p for lossy codecs; odd sizes are padded to even)
        #[arg(long, help_heading = "Video (through ffmpeg)")]
        pix_fmt: Option<String>,
        /// Video: output frame rate (25, 29.97, 30000/1001; frames dropped or repeated to keep the
        /// duration; default: the input's); for raw input, its rate (default 25)
        #[arg(long, help_heading = "Video (through ffmpeg)")]
        fps: Option<String>,
        /// Video: `rawvideo` makes `-` as IN or OUT raw RGBA8 frames on stdin/stdout
        #[arg(long, short = 'f', help_heading = "Video (through ffmpeg)", value_parser = ["rawvideo"])]
        format: Option<String>,
        /// Video: size of raw input frames, WxH
        #[arg(long, help_heading = "Video (through ffmpeg)", value_parser = parse_size)]
        size: Option<(u32, u32)>,
        /// Video: how frames cross the pipes to and from ffmpeg: auto (yuv420p, converted on the
        /// GPU, where input and output are 4:2:0 and the GPU is not a software one; else rgba),
        /// rgba, yuv420p
        #[arg(long, help_heading = "Video (through ffmpeg)", default_value = "auto", value_parser = ["auto", "rgba", "yuv420p"])]
        transfer: String,
    },
    /// Histogram summary, per-channel min/max/mean, mean luminance and mean saturation
    Analyze {
        input: PathBuf,
        /// Machine-readable output (includes the full histograms)
        #[arg(long)]
        json: bool,
        /// Also draw the R, G, B and luma histograms as a chart (PNG, or any format by extension)
        #[arg(long, value_name = "FILE")]
        plot: Option<PathBuf>,
        /// Size of the chart
        #[arg(
            long,
            value_name = "WxH",
            default_value = "1024x600",
            requires = "plot"
        )]
        plot_size: String,
    },
    /// Rank photos by a 0-100 quality score (sharpness, exposure, contrast, colourfulness, noise)
    /// and group near-duplicates by colour fingerprint; one GPU device for the whole folder
    ///
    /// The score is 100 × Π s_i^w_i (a weighted geometric mean: one failing aspect sinks the
    /// photo) over sub-scores in [0, 1], on 8-bit BT.601 luma Y; clamp is to [0, 1]:
    ///
    /// - sharpness (w 0.35): mean of clamp(log10(1 + var(Laplacian)) / 3) and
    ///   clamp(log10(1 + Tenengrad) / 4);
    ///
    /// - exposure (w 0.30): clamp(1 - |mean Y - 118| / 118) × clamp(1 - 3 (shadows +
    ///   highlights)), shadows = share of Y <= 2, highlights = share of Y >= 253;
    ///
    /// - contrast (w 0.15): mean of clamp(σ_Y / 50) and clamp((p99 - p1) / 180);
    ///
    /// - colourfulness (w 0.10): clamp(0.5 + M / 80), M of Hasler and Süsstrunk (2003);
    ///
    /// - noise (w 0.10): clamp(1 - σ_noise / 12), σ_noise of Immerkaer (1996).
    ///
    /// The measures are `photo_metrics` sums (`texelflow help photo_metrics`); the library's
    /// `texelflow::assess` documents each. A file that cannot be assessed is reported once,
    /// listed in the report with its reason, and makes the exit status 1 (as `apply --out-dir`).
    Assess {
        /// Image files, folders, or name patterns (*.jpg)
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Descend into sub-folders
        #[arg(long, short = 'r')]
        recursive: bool,
        /// Machine-readable output (every measure, sub-score and the groups)
        #[arg(long)]
        json: bool,
        /// List the near-duplicate groups
        #[arg(long)]
        dupes: bool,
        /// Fingerprint similarity (0-1) at or above which two photos are near-duplicates
        #[arg(long, default_value_t = texelflow::assess::DUPLICATE_THRESHOLD)]
        dupe_threshold: f64,
        /// Write an HTML page with thumbnails, scores and the groups
        #[arg(long, value_name = "FILE.html")]
        report: Option<PathBuf>,
        /// Analyse a copy shrunk so that its longest side is at most this (the article's
        /// downsampled analysis; default: full size). A JPEG is decoded at the DCT scale (1/2,
        /// 1/4, 1/8) that keeps that size, unless --no-shrink-on-load
        #[arg(long, value_name = "PIXELS")]
        max_side: Option<u32>,
        /// Photos in flight (decoding overlaps the GPU); default: the number of cores
        #[arg(long)]
        jobs: Option<usize>,
    },
    /// List every filter
    List {
        /// Markdown table (as in docs/filters.md)
        #[arg(long)]
        markdown: bool,
        /// Every filter's example command (as `help` shows it), `name<TAB>command` a line
        #[arg(long, conflicts_with = "markdown")]
        examples: bool,
    },
    /// Parameters and notes of one filter or command (`help gaussian_blur`, `help apply`); with
    /// no name, the commands and how to find a filter
    Help { name: Option<String> },
    /// The GPU adapter, backend, limits and features
    Info,
    /// Write the identity 512x512 lookup image, to grade in a photo editor and use with `lookup(lut=...)`
    LutIdentity {
        output: PathBuf,
        /// Replace OUTPUT if it exists (default: refuse)
        #[arg(long)]
        force: bool,
    },
    /// Time filters on the GPU with rotating buffers, against a copy kernel
    Bench(bench::BenchArgs),
}

/// When `main` began (for `--timings`).
fn process_start() -> std::time::Instant {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    *START.get_or_init(std::time::Instant::now)
}

fn main() {
    process_start();
    // Mesa's Vulkan drivers print "XDG_RUNTIME_DIR is invalid" twice when it is unset
    // (headless servers, CI); compute needs no display, so point it somewhere harmless.
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        std::env::set_var("XDG_RUNTIME_DIR", std::env::temp_dir());
    }
    keep_large_allocations();
    let cli = Cli::parse();
    ALLOW_TRUNCATED.store(cli.allow_truncated, std::sync::atomic::Ordering::Relaxed);
    GPU_ENTROPY.store(!cli.host_entropy, std::sync::atomic::Ordering::Relaxed);
    let _ = RUN_OPTIONS.set(run_options_of(&cli));
    interrupted();
    if let Err(e) = run(cli) {
        let ours = || {
            e.chain()
                .filter_map(|c| c.downcast_ref::<texelflow::Error>())
        };
        // a reader that went away (`... | head`): a quiet end, as for printed text
        if ours().any(|t| matches!(t, texelflow::Error::OutputClosed { .. })) {
            std::process::exit(0);
        }
        if let Some(texelflow::Error::OutputExists { path }) =
            ours().find(|t| matches!(t, texelflow::Error::OutputExists { .. }))
        {
            eprintln!(
                "error: `{}` exists; use --overwrite to replace it",
                path.display()
            );
            std::process::exit(1);
        }
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}

/// Set by Ctrl-C (SIGINT, SIGTERM, SIGHUP; one handler per process, installed first thing).
/// While a video job runs (`VIDEO_RUNNING`) the first one only sets it: the job stops taking
/// frames, stops ffmpeg and removes its partial file. Otherwise (and on a second one) the
/// temporary files of outputs being written are removed and the process ends with status 130.
pub(crate) fn interrupted() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    use std::sync::atomic::{AtomicBool, Ordering};
    static FLAG: std::sync::OnceLock<std::sync::Arc<AtomicBool>> = std::sync::OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = std::sync::Arc::new(AtomicBool::new(false));
        let set = flag.clone();
        let _ = ctrlc::set_handler(move || {
            let again = set.swap(true, Ordering::SeqCst);
            if VIDEO_RUNNING.load(Ordering::SeqCst) && !again {
                return;
            }
            texelflow::io::output::remove_temporaries();
            std::process::exit(130);
        });
        flag
    })
    .clone()
}

/// Whether a video job is running (it cleans up after itself on Ctrl-C; see `interrupted`).
pub(crate) static VIDEO_RUNNING: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Checks an output before any work (`io::output::check_output`): a missing folder, a folder,
/// socket or device (images), or an existing file where it may not be replaced is one line now
/// rather than after the work.
pub(crate) fn check_output(path: &Path, no_clobber: bool, special_files: bool) -> Result<()> {
    texelflow::io::output::check_output(
        path,
        texelflow::io::output::OutputOptions {
            no_clobber,
            special_files,
        },
    )?;
    Ok(())
}

/// glibc serves allocations above 32 MiB (a 4K RGBA image is 33 MB) with fresh mmaps that are
/// unmapped on free, so every decoded image, read-back result and encode buffer of a batch
/// page-faults its memory in again (tens of ms per 4K image, and worse with 16 threads faulting
/// at once). Raising the thresholds keeps freed images in the heap for the next one: a batch of
/// 64 4K JPEGs on the H200 machine took 1.02 s instead of 1.12 (docs/perf-notes.md).
fn keep_large_allocations() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 30);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
}

/// Writes to standard output; a closed pipe ends the process quietly (see `outln!`).
pub(crate) fn write_stdout(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: writing to standard output: {e}");
        std::process::exit(1);
    }
}

/// A `TEXELFLOW_*` (or `WGPU_*`) environment variable, where set and not empty.
fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// A numeric environment variable; one that does not parse is ignored with a note.
fn env_number<T: std::str::FromStr>(name: &str) -> Option<T> {
    let v = env_var(name)?;
    match v.trim().parse() {
        Ok(n) => Some(n),
        Err(_) => {
            eprintln!("texelflow: note: {name}={v} is not a number; ignored");
            None
        }
    }
}

/// The GPU options of the flags and the environment (the one place the CLI reads them):
/// `--backend` / `WGPU_BACKEND`, `--device` (`--adapter`) / `WGPU_ADAPTER_NAME`,
/// `CUDA_VISIBLE_DEVICES` (where no device is asked for: its first GPU; set but empty or `-1`:
/// no NVIDIA GPU), `--gpu` (a software rasterizer may run it), `TEXELFLOW_NO_SUBGROUPS` (the
/// reductions' workgroup form on any device), `TEXELFLOW_SHADER_CHECKS=all` (wgpu's full
/// shader runtime checks).
fn gpu_options(cli: &Cli) -> GpuOptions {
    GpuOptions {
        backend: cli.backend.clone().or_else(|| env_var("WGPU_BACKEND")),
        // `--devices LIST`: commands other than a batch run on its first GPU (`all`: the usual
        // choice, which is all's first where nothing else is asked)
        adapter: cli
            .device
            .clone()
            .or_else(|| {
                cli.devices
                    .as_deref()
                    .filter(|d| !d.trim().eq_ignore_ascii_case("all"))
                    .and_then(|d| d.split(',').next())
                    .map(|d| d.trim().to_string())
            })
            .or_else(|| env_var("WGPU_ADAPTER_NAME")),
        device: None,
        // set but empty means something (no GPU): `env_var` would drop it
        cuda_visible_devices: std::env::var("CUDA_VISIBLE_DEVICES").ok(),
        allow_software: cli.gpu,
        no_subgroups: env_var("TEXELFLOW_NO_SUBGROUPS").is_some(),
        full_shader_checks: env_var("TEXELFLOW_SHADER_CHECKS").as_deref() == Some("all"),
        semaphore_export: false,
    }
}

/// Every run's options, from the flags and the environment (`run_options_of`).
static RUN_OPTIONS: std::sync::OnceLock<RunOptions> = std::sync::OnceLock::new();

/// The options every run of this process takes (set once in `main`).
pub(crate) fn run_options() -> RunOptions {
    RUN_OPTIONS.get().cloned().unwrap_or_default()
}

/// The limits of `--max-pixels` and `--max-memory` (the defaults where not given), for every
/// load and run of this process.
pub(crate) fn limits() -> texelflow::Limits {
    run_options().limits
}

fn limits_of(cli: &Cli) -> texelflow::Limits {
    let d = texelflow::Limits::default();
    texelflow::Limits {
        max_pixels: cli.max_pixels.unwrap_or(d.max_pixels),
        max_memory: cli.max_memory.unwrap_or(d.max_memory),
        ..d
    }
}

/// The run options of the flags and the environment (the one place the CLI reads them):
/// `--max-gpu-memory`; `TEXELFLOW_TILE=N` (square tiles of N pixels wherever the pipeline can
/// run in tiles), `TEXELFLOW_STREAM_ROWS=N` (rows per band), `TEXELFLOW_SCHEDULE=filter=variant,...`
/// (schedule overrides), `TEXELFLOW_MAX_FUSED=N`, `TEXELFLOW_UPLOAD_STRIPS=N` and
/// `TEXELFLOW_INJECT_GPU_FAULT=<node label>` (tests of failure handling).
fn run_options_of(cli: &Cli) -> RunOptions {
    RunOptions {
        tiling: texelflow::TilePolicy {
            max_gpu_memory: cli.max_gpu_memory,
            tile: env_number::<u32>("TEXELFLOW_TILE").filter(|&t| t > 0),
            band_rows: env_number::<u32>("TEXELFLOW_STREAM_ROWS").filter(|&r| r > 0),
            ..Default::default()
        },
        schedules: env_var("TEXELFLOW_SCHEDULE")
            .map(|s| texelflow::extend::parse_schedules(&s))
            .unwrap_or_default(),
        max_fused: env_number::<usize>("TEXELFLOW_MAX_FUSED").filter(|&n| n > 0),
        upload_strips: env_number::<u32>("TEXELFLOW_UPLOAD_STRIPS"),
        inject_gpu_fault: env_var("TEXELFLOW_INJECT_GPU_FAULT"),
        limits: limits_of(cli),
        shrink_on_load: !cli.no_shrink_on_load,
        ..RunOptions::default()
    }
}

/// Opens the GPU the flags ask for, or fails (no fallback), with a note on stderr when the
/// adapter is a software rasterizer.
fn open_gpu(cli: &Cli) -> Result<std::sync::Arc<texelflow::Gpu>> {
    let mut opts = gpu_options(cli);
    // `--devices all` outside a batch: the first GPU of the list, by the list's rule (no
    // software rasterizer unless --gpu)
    if let Some(list) = cli
        .devices
        .as_deref()
        .filter(|d| d.trim().eq_ignore_ascii_case("all"))
    {
        let adapters = texelflow::Gpu::adapters(&opts)?;
        let first = texelflow::device::choose_devices(&adapters, &opts, list)?[0];
        opts.device = Some(texelflow::DeviceSelector::Index(first));
    }
    let gpu = texelflow::Gpu::new(&opts)?;
    software_note(&gpu);
    Ok(gpu)
}

/// One line on stderr when the adapter is a software rasterizer (llvmpipe, lavapipe, WARP,
/// SwiftShader): a "GPU" that runs on the CPU, often slower than the CPU reference (`--cpu`).
fn software_note(gpu: &texelflow::Gpu) {
    let i = gpu.info();
    if i.device_type == "Cpu" {
        eprintln!("texelflow: note: `{}` is a software rasterizer (it runs on the CPU, often slower than --cpu)", i.name);
    }
}

/// Whether a backend or a device was asked for, by flag or by its variable (`WGPU_BACKEND`,
/// `WGPU_ADAPTER_NAME`): then it is opened or the run fails, never replaced by the CPU.
fn explicit_device(cli: &Cli) -> bool {
    let o = gpu_options(cli);
    o.backend.is_some() || o.adapter.is_some() || cli.devices.is_some()
}

/// `--devices`: an opener per GPU of the list, each opening its device on the batch's thread
/// for it (a device that then fails to open says so, and its share runs on the CPU reference).
fn device_openers(cli: &Cli, list: &str) -> Result<Vec<Box<dyn Fn() -> Backend + Sync>>> {
    let opts = gpu_options(cli);
    let adapters = texelflow::Gpu::adapters(&opts)?;
    let chosen = texelflow::device::choose_devices(&adapters, &opts, list)?;
    Ok(chosen
        .into_iter()
        .map(|index| {
            let o = GpuOptions {
                device: Some(texelflow::DeviceSelector::Index(index)),
                ..opts.clone()
            };
            Box::new(move || match texelflow::Gpu::new(&o) {
                Ok(g) => {
                    software_note(&g);
                    Backend::Gpu(g)
                }
                Err(e) => {
                    eprintln!(
                        "texelflow: device {index}: {e}; its share runs on the CPU reference"
                    );
                    Backend::Cpu
                }
            }) as Box<dyn Fn() -> Backend + Sync>
        })
        .collect())
}

/// The backend the flags ask for. `--cpu`: the reference. `--backend` or `--device` given: that
/// GPU, or an error when it cannot be opened. Neither: `CUDA_VISIBLE_DEVICES`'s GPU or the best
/// one (`Backend::auto`); the CPU reference with one line on stderr where there is none, where
/// the only one is a software rasterizer (`--gpu` runs on it) or CUDA_VISIBLE_DEVICES hides
/// NVIDIA's.
fn backend(cli: &Cli) -> Result<Backend> {
    if cli.cpu {
        return Ok(Backend::Cpu);
    }
    if explicit_device(cli) {
        return Ok(Backend::Gpu(open_gpu(cli)?));
    }
    let (b, choice) = Backend::auto_choice(&gpu_options(cli));
    match (&b, choice) {
        (_, Err(e)) => {
            eprintln!("texelflow: {e}; running on the CPU reference implementation instead")
        }
        (Backend::Cpu, Ok(c)) => match c.reason {
            texelflow::device::ChoiceReason::OnlySoftware(_) => eprintln!(
                "texelflow: note: {}; --gpu or --device runs on it",
                c.reason
            ),
            r => eprintln!("texelflow: note: {r}"),
        },
        (Backend::Gpu(g), Ok(_)) => software_note(g),
    }
    Ok(b)
}

/// `info`'s list: every adapter the backends allow, in texelflow's order (the index `--device`
/// takes), with its ids, the one a plain run takes marked `*`, and why.
fn print_adapters(cli: &Cli) -> Result<()> {
    use texelflow::device::{choose_adapter, ChoiceReason};
    let opts = gpu_options(cli);
    let adapters = texelflow::Gpu::adapters(&opts)?;
    let choice = choose_adapter(&adapters, &opts, true);
    let chosen = match (&choice, cli.cpu) {
        (Ok(c), false) => c.index,
        _ => None,
    };
    outln!(
        "adapters (index: hardware GPUs by PCI bus id, then the rest; `--device INDEX` picks one):"
    );
    let rows: Vec<[String; 7]> = adapters
        .iter()
        .map(|a| {
            [
                a.index.to_string(),
                a.name.clone(),
                a.device_type.clone(),
                a.backend.clone(),
                a.driver.clone(),
                a.pci_bus_id.clone().unwrap_or_else(|| "-".into()),
                a.uuid_string().unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    let head = [
        "index",
        "name",
        "type",
        "backend",
        "driver",
        "pci bus id",
        "uuid",
    ]
    .map(String::from);
    let mut widths = head.clone().map(|h| h.chars().count());
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |mark: &str, r: &[String; 7]| {
        let cells: Vec<String> = r
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        format!("{mark} {}", cells.join("  "))
            .trim_end()
            .to_string()
    };
    outln!("{}", line(" ", &head));
    for (a, r) in adapters.iter().zip(&rows) {
        outln!(
            "{}",
            line(if Some(a.index) == chosen { "*" } else { " " }, r)
        );
    }
    if adapters.is_empty() {
        outln!("  none");
    }
    let took = match (&choice, cli.cpu) {
        (_, true) => "the CPU reference (--cpu)".to_string(),
        (Err(e), _) => format!("the CPU reference ({e})"),
        (Ok(c), _) => match (c.index, &c.reason) {
            (None, ChoiceReason::OnlySoftware(_)) => {
                format!("{}; --gpu or --device runs on it", c.reason)
            }
            (None, r) => r.to_string(),
            (Some(i), r) => format!("{i}: {r}"),
        },
    };
    outln!("a plain run takes: {took}");
    Ok(())
}

/// The small-work rule (`texelflow::graph::cpu_is_quicker`) for `jobs` (each input and its
/// output path) through `pipe`: `Ok` with why the CPU reference runs them, `Err` with why a GPU
/// does, `None` where the rule could not estimate the work (a GPU). It applies
/// only where no device was asked for (`--cpu`, `--gpu`, `--backend`, `--device` or their
/// variables). The estimate stops as soon as the work is too large, so a long batch probes the
/// headers of a few files only.
fn small_work(
    cli: &Cli,
    pipe: &Pipeline,
    jobs: &[(&Path, &Path)],
) -> Option<std::result::Result<String, String>> {
    use texelflow::graph::{cpu_is_quicker, CpuCost, JPEG_DECODE_SAVED_NS, JPEG_ENCODE_SAVED_NS};
    if cli.cpu || cli.gpu || explicit_device(cli) {
        return None;
    }
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let cost = CpuCost::measure(pipe, &run_options())?;
    let mut core_ms = 0.0;
    for (images, (input, output)) in jobs.iter().enumerate() {
        let min_size = shrink_on_load_size(pipe, input);
        let load = texelflow::LoadOptions {
            min_size,
            ..Default::default()
        };
        let desc = texelflow::io::rows::probe_load(input, &load).ok()?;
        core_ms += cost.core_ms(pipe, desc)?;
        // what a GPU run would save of the codecs' time
        if texelflow::io::is_jpeg_path(input)
            && min_size.is_none()
            && !cli.host_decode
            && !cli.allow_truncated
        {
            core_ms += desc.pixels() as f64 * JPEG_DECODE_SAVED_NS / 1e6;
        }
        if texelflow::io::is_jpeg_path(output) && !cli.host_encode {
            let px = texelflow::graph::output_pixels(pipe, desc)?;
            core_ms += px as f64 * JPEG_ENCODE_SAVED_NS / 1e6;
        }
        if !cpu_is_quicker(core_ms, images + 1, cores) {
            return Some(Err(format!(
                "on a GPU: the first {} of {} images alone are ~{core_ms:.0} ms of one core on the CPU reference ({cores} cores; the small-work rule)",
                images + 1,
                jobs.len()
            )));
        }
    }
    Some(Ok(format!(
        "on the CPU reference: the whole work, ~{core_ms:.0} ms of one core on {cores} cores, ends before a GPU would start (--gpu runs it on one)"
    )))
}

/// `backend` as a function that cannot fail, for the paths that open the device on a thread of
/// its own (batches, video): an explicit request is opened (or refused) here, first.
fn backend_opener(cli: &Cli) -> Result<Box<dyn Fn() -> Backend + Sync + '_>> {
    if cli.cpu || explicit_device(cli) {
        let b = backend(cli)?;
        return Ok(Box::new(move || b.clone()));
    }
    Ok(Box::new(move || backend(cli).unwrap_or(Backend::Cpu)))
}

/// Runs `pipe` on `be`; with `--fallback cpu`, a GPU failure (`Error::is_gpu_failure`) runs it
/// again on the CPU reference with a note.
pub(crate) fn run_with_fallback(
    fallback: bool,
    be: &Backend,
    pipe: &Pipeline,
    img: &Image,
    opts: &RunOptions,
) -> Result<texelflow::RunResult> {
    match pipe.run_with(be, img, opts) {
        Err(e) if fallback && e.is_gpu_failure() && matches!(be, Backend::Gpu(_)) => {
            eprintln!("texelflow: note: {e}; running again on the CPU reference (--fallback cpu)");
            Ok(pipe.run_with(&Backend::Cpu, img, opts)?)
        }
        other => Ok(other?),
    }
}

/// The GPU's JPEG encode as a graph's last node (`io::jpeg_file`, issue 30), for a JPEG
/// `output` on a GPU unless `--cpu` or `--host-encode` (`device_encode` false): the run then
/// reads back only the file's bytes (`save_stream` writes them).
#[cfg(feature = "turbojpeg")]
pub(crate) fn device_jpeg(
    device_encode: bool,
    backend: &Backend,
    output: &Path,
    save: &texelflow::SaveOptions,
) -> Option<Box<dyn texelflow::extend::Filter>> {
    if !device_encode || !texelflow::io::is_jpeg_path(output) || !matches!(backend, Backend::Gpu(_))
    {
        return None;
    }
    let node = texelflow::io::jpeg_file::for_save(save).ok()?;
    Some(Box::new(node))
}

#[cfg(not(feature = "turbojpeg"))]
pub(crate) fn device_jpeg(
    _: bool,
    _: &Backend,
    _: &Path,
    _: &texelflow::SaveOptions,
) -> Option<Box<dyn texelflow::extend::Filter>> {
    None
}

/// Writes a JPEG the GPU coded (`device_jpeg`); `false` where the image had transparency.
#[cfg(feature = "turbojpeg")]
pub(crate) fn save_stream(
    path: &Path,
    stream: &texelflow::value::Bytes,
    save: &texelflow::SaveOptions,
) -> Result<bool> {
    Ok(texelflow::io::jpeg_file::save(path, stream, save)?)
}

#[cfg(not(feature = "turbojpeg"))]
pub(crate) fn save_stream(
    _: &Path,
    _: &texelflow::value::Bytes,
    _: &texelflow::SaveOptions,
) -> Result<bool> {
    bail!("a JPEG stream without the JPEG codec")
}

/// `--allow-truncated`, for every image the process opens.
static ALLOW_TRUNCATED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// Whether JPEGs are entropy-decoded on the GPU (no `--host-entropy`).
pub(crate) fn gpu_entropy() -> bool {
    GPU_ENTROPY.load(std::sync::atomic::Ordering::Relaxed)
}

/// Not `--host-entropy`, for `load_for_device`.
static GPU_ENTROPY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Opens an input image with `--allow-truncated` as given, printing its warnings.
pub(crate) fn load_image(path: &Path) -> texelflow::Result<(Image, texelflow::SaveOptions)> {
    load_image_at_least(path, None)
}

/// The `LoadOptions::min_size` of `path` through `pipe` (shrink-on-load; `None`: full size).
pub(crate) fn shrink_on_load_size(pipe: &Pipeline, path: &Path) -> Option<(u32, u32)> {
    texelflow::io::shrink_on_load(pipe, path, &Default::default(), &run_options()).min_size
}

/// `load_image`, a JPEG decoded at a DCT scale that keeps at least `min_size`
/// (shrink-on-load, `LoadOptions::min_size`).
pub(crate) fn load_image_at_least(
    path: &Path,
    min_size: Option<(u32, u32)>,
) -> texelflow::Result<(Image, texelflow::SaveOptions)> {
    let allow_truncated = ALLOW_TRUNCATED.load(std::sync::atomic::Ordering::Relaxed);
    let l = Image::load(
        path,
        &texelflow::LoadOptions {
            limits: Some(limits()),
            allow_truncated,
            min_size,
        },
    )?;
    for w in &l.warnings {
        eprintln!("texelflow: warning: `{}`: {w}", path.display());
    }
    Ok((l.image, l.metadata))
}

pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    texelflow::io::same_file(a, b)
}

fn run(cli: Cli) -> Result<()> {
    match &cli.command {
        Command::Apply {
            paths,
            out_dir: Some(out_dir),
            name,
            recursive,
            jobs,
            gpu_jobs,
            overwrite,
            skip_existing,
            quality,
            jpeg_subsampling,
            png_compression,
            background,
            pipeline,
            timings,
            no_clobber: _,
            data: _,
            ..
        } => {
            let mut pipe = Pipeline::parse(pipeline, &mut |p: &str| {
                load_image(Path::new(p)).map(|l| l.0)
            })?;
            pipe.set_straight_alpha(cli.straight_alpha);
            let existing = if *overwrite {
                batch::Existing::Overwrite
            } else if *skip_existing {
                batch::Existing::Skip
            } else {
                batch::Existing::Refuse
            };
            let jobs =
                jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
            let save = texelflow::SaveOptions {
                jpeg_quality: *quality,
                jpeg_subsampling: *jpeg_subsampling,
                png_compression: *png_compression,
                background: *background,
                // the final rename replaces nothing unless --overwrite (concurrent batches)
                no_clobber: !*overwrite,
                ..Default::default()
            };
            // the small-work rule: a batch that the CPU reference ends before a GPU would start
            let files = batch::collect(paths, *recursive).unwrap_or_default();
            let outputs: Vec<PathBuf> = files
                .iter()
                .map(|(input, base)| batch::output_path(input, base, out_dir, name))
                .collect();
            let pairs: Vec<(&Path, &Path)> = files
                .iter()
                .zip(&outputs)
                .map(|((input, _), output)| (input.as_path(), output.as_path()))
                .collect();
            let small = small_work(&cli, &pipe, &pairs);
            if let (true, Some(Ok(why) | Err(why))) = (*timings, &small) {
                eprintln!("texelflow: {why}");
            }
            let small = small.and_then(Result::ok);
            let on_cpu = cli.cpu || small.is_some();
            let b = batch::Batch {
                inputs: paths,
                out_dir,
                name,
                recursive: *recursive,
                jobs,
                existing,
                timings: *timings,
                save,
                fallback: cli.fallback == "cpu",
                allow_truncated: cli.allow_truncated,
                device_decode: !on_cpu && !cli.host_decode && !cli.allow_truncated,
                device_encode: !on_cpu && !cli.host_encode,
                // measured on an H200 machine, 16 cores (docs/perf-notes.md, session 21): 1 34.4,
                // 2 54.2, 4 65.4, 8 65.4, 16 58.2 images/s; the CPU reference is not limited
                gpu_jobs: gpu_jobs.unwrap_or(if on_cpu { jobs } else { 4 }),
            };
            let openers: Vec<Box<dyn Fn() -> Backend + Sync + '_>> = match &cli.devices {
                Some(list) => device_openers(&cli, list)?,
                None if small.is_some() => vec![Box::new(|| Backend::Cpu)],
                None => vec![backend_opener(&cli)?],
            };
            let openers: Vec<&(dyn Fn() -> Backend + Sync)> =
                openers.iter().map(|o| &**o).collect();
            let batch_start = std::time::Instant::now();
            let s = batch::run(&b, &openers, &pipe)?;
            for note in &s.notes {
                eprintln!("texelflow: note: {note}");
            }
            if *timings && !s.times.is_empty() {
                eprintln!("{:<40} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6} {:>7}   (ms; run = upload + record + wait + readback; enc, on: where the image was encoded, decoded: gpu, cpu+gpu (the entropy decode on the CPU), host; a note says why one the GPU could decode was not)", "file", "decode", "run", "upload", "record", "wait", "readback", "gpu", "encode", "enc", "on");
                let mut sum = batch::PathTimes::default();
                let row = |name: &str, t: &batch::PathTimes| {
                    format!("{name:<40} {:>8.1} {:>8.1} {:>8.1} {:>8.1} {:>8.1} {:>8.1} {:>8.3} {:>8.1} {:>6} {:>7}", t.decode, t.run, t.host.upload_ms, t.host.record_ms, t.host.wait_ms, t.host.readback_ms, t.gpu, t.encode, if t.encoded_on_device { "gpu" } else { "host" }, match (t.on_device, t.entropy_on_device) { (true, true) => "gpu", (true, false) => "cpu+gpu", _ => "host" })
                };
                for (path, t) in &s.times {
                    eprintln!("{}", row(&path.display().to_string(), t));
                    sum.add(t);
                }
                eprintln!(
                    "{}   (sums over {jobs} workers; wall {:.1} ms)",
                    row("total", &sum),
                    s.wall.as_secs_f64() * 1e3
                );
                let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
                eprintln!(
                    "process (wall ms): {:.1} before the batch (parse, list, checks), batch {:.1}, {:.1} since main began{}",
                    ms(batch_start.duration_since(process_start())),
                    ms(s.wall),
                    ms(process_start().elapsed()),
                    s.device_times.map_or(String::new(), |(open, ready)| format!(
                        " (the device open at {:.1}, its warm-up compiles done at {:.1})",
                        ms(open),
                        ms(ready)
                    ))
                );
                if s.per_device.len() > 1 {
                    let shares: Vec<String> = s
                        .per_device
                        .iter()
                        .enumerate()
                        .map(|(i, n)| format!("device {i} of the list: {n}"))
                        .collect();
                    eprintln!("files per device: {}", shares.join(", "));
                }
            }
            eprintln!(
                "texelflow: {} written, {} skipped, {} failed",
                s.done,
                s.skipped,
                s.failed.len()
            );
            for (path, why) in &s.failed {
                eprintln!("  {}: {why}", path.display());
            }
            if !s.failed.is_empty() {
                bail!(
                    "{} of {} files failed",
                    s.failed.len(),
                    s.done + s.skipped + s.failed.len()
                );
            }
            Ok(())
        }
        Command::Apply {
            paths,
            pipeline,
            timings,
            no_clobber,
            overwrite,
            quality,
            jpeg_subsampling,
            png_compression,
            background,
            data,
            codec,
            crf,
            pix_fmt,
            fps,
            format,
            size,
            transfer,
            jobs,
            ..
        } => {
            let (input, output) = match (paths.as_slice(), data) {
                ([input, output], _) => (input, Some(output)),
                ([input], Some(_)) => (input, None),
                _ => bail!("apply takes IN OUT, IN --data FILE (a pipeline ending in data), or inputs with --out-dir DIR (got {} paths)", paths.len()),
            };
            if video::wanted(input, output.map(PathBuf::as_path), format.is_some()) {
                let (output, per_frame_data) = match (output, data) {
                    (Some(out), None) => (out.as_path(), false),
                    (None, Some(d)) => (d.as_path(), true),
                    _ => bail!("video: give IN OUT for a video, or IN --data FILE.jsonl for a pipeline ending in data (one JSON line per frame), not both"),
                };
                let openers: Vec<Box<dyn Fn() -> Backend + Sync + '_>> = match &cli.devices {
                    Some(list) => device_openers(&cli, list)?,
                    None => vec![backend_opener(&cli)?],
                };
                let openers: Vec<&(dyn Fn() -> Backend + Sync)> =
                    openers.iter().map(|o| &**o).collect();
                let o = video::Options {
                    data: per_frame_data,
                    input,
                    output,
                    raw: format.is_some(),
                    size: *size,
                    codec: codec.clone(),
                    crf: *crf,
                    pix_fmt: pix_fmt.clone(),
                    fps: fps.clone(),
                    // a video OUT as an image's: refused if it exists unless --overwrite;
                    // --data FILE replaced unless --no-clobber
                    no_clobber: if per_frame_data {
                        *no_clobber
                    } else {
                        !*overwrite
                    },
                    // three frames in flight per device unless --jobs says
                    jobs: jobs.unwrap_or(3 * openers.len()),
                    transfer: transfer.clone(),
                };
                return match video::run(&o, &openers, pipeline) {
                    // with --fallback cpu a GPU failure runs the whole video again on the CPU
                    // reference (temporal filters' state starts from the first frame again);
                    // the partial output is gone already
                    Err(e)
                        if cli.fallback == "cpu"
                            && !cli.cpu
                            && e.downcast_ref::<texelflow::Error>()
                                .is_some_and(texelflow::Error::is_gpu_failure) =>
                    {
                        if input.as_os_str() == "-" {
                            return Err(
                                e.context("--fallback cpu cannot run raw frames from stdin again")
                            );
                        }
                        eprintln!("texelflow: note: {e:#}; running the video again on the CPU reference (--fallback cpu)");
                        video::run(&o, &[&|| Backend::Cpu], pipeline)
                    }
                    other => other,
                };
            }
            if let Some(output) = output {
                if same_file(input, output) {
                    bail!(
                        "refusing to overwrite the input `{}`; choose another output path",
                        input.display()
                    );
                }
                image::ImageFormat::from_path(output).with_context(|| {
                    format!(
                        "output `{}`: unknown extension (use .png, .jpg, .webp, .tif, .bmp)",
                        output.display()
                    )
                })?;
                // before any work: an existing OUT (unless --overwrite), a missing folder, a
                // FIFO, device or folder at the path
                check_output(output, !*overwrite, false)?;
            }
            if let Some(d) = data.as_deref().filter(|d| d.as_os_str() != "-") {
                if same_file(input, d) {
                    bail!("refusing to overwrite the input `{}` with data; choose another --data path", input.display());
                }
                check_output(d, *no_clobber, true)?;
            }
            // second images of the pipeline: read once, never the output itself
            let parse = || -> Result<Pipeline> {
                let mut load = |p: &str| {
                    let path = Path::new(p);
                    if output.is_some_and(|o| same_file(path, o)) {
                        return Err(texelflow::Error::ImageIo {
                            path: path.into(),
                            message: "is also the output path".into(),
                        });
                    }
                    load_image(path).map(|l| l.0)
                };
                let mut pipe = Pipeline::parse(pipeline, &mut load)?;
                pipe.set_straight_alpha(cli.straight_alpha);
                Ok(pipe)
            };
            // shrink-on-load (issue 30): the pipeline is parsed before the decode, which a
            // leading shrink lets run at a DCT scale; whether to stream and the checks before
            // the decode are of the size decoded
            let mut shrink_pipe = Some(parse()?);
            let min_size = shrink_pipe
                .as_ref()
                .and_then(|p| shrink_on_load_size(p, input));
            // the small-work rule: an image the CPU reference ends before a GPU would start
            let small_note = shrink_pipe.as_ref().and_then(|p| {
                small_work(
                    &cli,
                    p,
                    &[(input, output.map_or(Path::new(""), |o| o.as_path()))],
                )
            });
            let small = small_note.clone().and_then(Result::ok);
            // the small-work rule's choice, else the device the options ask for
            let chosen_backend = |cli: &Cli| match small {
                Some(_) => Ok(Backend::Cpu),
                None => backend(cli),
            };
            // large images stream through in bands of rows (PNG and TIFF decoded and encoded
            // as they go), where the pipeline allows it; where not, the device and pipeline
            // opened here serve the whole-image path
            let mut opened: Option<(Backend, Pipeline)> = None;
            if let (Some(output), None, Some(decoded)) =
                (output, data, bands::wanted(input, min_size))
            {
                let pipe = match shrink_pipe.take() {
                    Some(p) => p,
                    None => parse()?,
                };
                let save = texelflow::SaveOptions {
                    jpeg_quality: *quality,
                    jpeg_subsampling: *jpeg_subsampling,
                    png_compression: *png_compression,
                    background: *background,
                    no_clobber: !*overwrite,
                    ..Default::default()
                };
                let a = bands::Apply {
                    cli_fallback: cli.fallback == "cpu",
                    allow_truncated: cli.allow_truncated,
                    save,
                    timings: *timings,
                };
                let be = chosen_backend(&cli)?;
                if bands::try_apply(&a, &be, input, output, &pipe)? {
                    // the process ends here: the OS reclaims the device faster than wgpu's teardown
                    std::mem::forget(be);
                    return Ok(());
                }
                // not streamed: a run too large for the limits is refused from the header,
                // before the input is decoded (issue 29 item 7)
                pipe.check_run(&be, decoded, &run_options())?;
                opened = Some((be, pipe));
            }
            let (opened_be, opened_pipe) = opened.unzip();
            let opened_pipe = opened_pipe.or(shrink_pipe);
            let cli_ref = &cli;
            let t0 = std::time::Instant::now();
            // the GPU starts (hundreds of ms) while the image decodes
            let (be, decoded) = std::thread::scope(|s| {
                let gpu = s.spawn(move || {
                    (
                        opened_be.map_or_else(|| chosen_backend(cli_ref), Ok),
                        t0.elapsed(),
                    )
                });
                let decoded = load_image_at_least(input, min_size)
                    .map(|(img, meta)| (img, meta, t0.elapsed()));
                (gpu.join(), decoded)
            });
            let (be, init_time) = be.map_err(|_| anyhow::anyhow!("GPU initialisation panicked"))?;
            let be = be?;
            let (img, meta, decode_time) = decoded?;
            let pipe = match opened_pipe {
                Some(p) => p,
                None => parse()?,
            };
            let opts = RunOptions {
                timings: *timings,
                ..run_options()
            };
            let t_run = std::time::Instant::now();
            let save = texelflow::SaveOptions {
                jpeg_quality: *quality,
                jpeg_subsampling: *jpeg_subsampling,
                png_compression: *png_compression,
                icc_profile: meta.icc_profile,
                exif: meta.exif,
                background: *background,
                no_clobber: !*overwrite,
            };
            // a JPEG output encoded on the GPU too (issue 30): only the file's bytes come back
            let tail = output.and_then(|o| device_jpeg(!cli.host_encode, &be, o, &save));
            let mut result = match tail.map(|t| pipe.try_run_then(&be, &img, t, &opts)) {
                Some(Ok(Some(r))) => r,
                _ => run_with_fallback(cli.fallback == "cpu", &be, &pipe, &img, &opts)?,
            };
            let run_time = t_run.elapsed();
            for note in &result.notes {
                eprintln!("texelflow: note: {note}");
            }
            let out = result
                .take("output")
                .context("pipeline produced no output")?;
            let t_save = std::time::Instant::now();
            let mut encoded_on_device = false;
            let out = match (out, output) {
                (Value::Data(texelflow::Data::Bytes(stream)), Some(o)) => {
                    encoded_on_device = save_stream(o, &stream, &save)?;
                    if encoded_on_device {
                        None
                    } else {
                        // transparency: the host composites over the background
                        let mut r =
                            run_with_fallback(cli.fallback == "cpu", &be, &pipe, &img, &opts)?;
                        Some(r.take("output").context("pipeline produced no output")?)
                    }
                }
                (v, _) => Some(v),
            };
            match (out, output, data) {
                (None, _, _) => {}
                // the input's colour profile and EXIF travel to the output (JPEG and PNG)
                (Some(Value::Image(i)), Some(output), None) => {
                    if let Some(n) = alpha_note(&i, output, *background) {
                        eprintln!("texelflow: note: `{}`: {n}", output.display());
                    }
                    i.save_with(output, &save)?
                }
                (Some(Value::Image(_)), _, _) => bail!("the pipeline ends in an image, not data; --data needs a pipeline ending in data (e.g. `... | corner_points`), and an image needs IN OUT"),
                (Some(Value::Data(d)), None, Some(path)) => analyze::write_data_json(&d, path, *no_clobber)?,
                (Some(Value::Data(_)), Some(_), _) => bail!("the pipeline ends in data, not an image: write it with `--data FILE.json` (or `--data -`) instead of OUT, or end the pipeline with an image filter"),
                (Some(Value::Data(_)), None, None) => bail!("the pipeline ends in data: give --data FILE.json"),
            }
            if *timings {
                if let Some(Ok(why) | Err(why)) = &small_note {
                    eprintln!("texelflow: {why}");
                }
                print_timings(&be, &result.timings);
                let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
                eprintln!(
                    "path (wall ms): GPU start {:.1} and decode {:.1} overlapped, run {:.1} (upload {:.1}, record and compile {:.1}, wait for the GPU {:.1}, read back {:.1}), encode {:.1} (on the {}), total {:.1}; peak RSS {}",
                    ms(init_time),
                    ms(decode_time),
                    ms(run_time),
                    result.host.upload_ms,
                    result.host.record_ms,
                    result.host.wait_ms,
                    result.host.readback_ms,
                    ms(t_save.elapsed()),
                    if encoded_on_device { "GPU" } else { "host" },
                    ms(t0.elapsed()),
                    bands::peak_rss().map_or("unknown".into(), texelflow::limits::human_bytes)
                );
            }
            // the process ends here: the OS reclaims the device faster than wgpu's teardown
            std::mem::forget(be);
            Ok(())
        }
        Command::Analyze {
            input,
            json,
            plot,
            plot_size,
        } => {
            let plot = plot.as_deref().map(|p| (p, plot_size.as_str()));
            if let Some((p, _)) = plot {
                check_output(p, false, false)?;
            }
            analyze::run(&backend(&cli)?, input, *json, plot)
        }
        Command::Assess {
            paths,
            recursive,
            json,
            dupes,
            dupe_threshold,
            report,
            max_side,
            jobs,
        } => {
            anyhow::ensure!(
                (0.0..=1.0).contains(dupe_threshold),
                "--dupe-threshold {dupe_threshold} is outside [0, 1]"
            );
            anyhow::ensure!(
                max_side.is_none_or(|m| (16..=32768).contains(&m)),
                "--max-side must be in [16, 32768]"
            );
            let jobs = jobs
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
                .max(1);
            let o = assess::Options {
                inputs: paths,
                recursive: *recursive,
                json: *json,
                dupes: *dupes,
                dupe_threshold: *dupe_threshold,
                report: report.as_deref(),
                max_side: *max_side,
                jobs,
            };
            if let Some(r) = report.as_deref() {
                check_output(r, false, true)?;
            }
            assess::run(&backend(&cli)?, &o)
        }
        Command::List { markdown, examples } => {
            if *examples {
                out!("{}", catalogue::examples());
            } else if *markdown {
                out!("{}", catalogue::markdown_table());
            } else {
                out!("{}", catalogue::plain_list());
            }
            Ok(())
        }
        Command::Help { name } => {
            // `help apply`: a command's help; `help gaussian_blur`: a filter's
            let mut cmd = <Cli as clap::CommandFactory>::command();
            cmd.build();
            let Some(name) = name else {
                // issue 29 (new user): `help` alone is the usage, not an error
                outln!("{}", cmd.render_long_help());
                outln!(
                    "`texelflow help COMMAND` or `texelflow help FILTER` for one; \
                     `texelflow list` for every filter."
                );
                return Ok(());
            };
            if let Some(sub) = cmd.find_subcommand_mut(name) {
                out!("{}", sub.render_long_help());
                return Ok(());
            }
            out!("{}", catalogue::help(name)?);
            Ok(())
        }
        Command::Info => {
            print_adapters(&cli)?;
            let gpu = open_gpu(&cli)?;
            let i = gpu.info();
            outln!("");
            outln!("the device a GPU run opens (--gpu; --device picks another):");
            outln!("adapter:   {}", i.name);
            outln!("backend:   {}", i.backend);
            outln!("type:      {}", i.device_type);
            outln!("driver:    {} {}", i.driver, i.driver_info);
            outln!(
                "max storage binding: {} bytes (largest RGBA8 image: {} pixels)",
                i.max_storage_binding,
                i.max_storage_binding / 4
            );
            outln!("max buffer size:     {} bytes", i.max_buffer_size);
            outln!(
                "workgroup storage:   {} bytes, {} invocations",
                i.max_workgroup_storage,
                i.max_invocations_per_workgroup
            );
            outln!("timestamp period:    {} ns", i.timestamp_period_ns);
            outln!(
                "optional features:   {}",
                if i.features.is_empty() {
                    "none".to_string()
                } else {
                    i.features.join(", ")
                }
            );
            Ok(())
        }
        Command::LutIdentity { output, force } => {
            let exists =
                || anyhow::anyhow!("`{}` exists; use --force to replace it", output.display());
            match texelflow::io::output::check_output(
                output,
                texelflow::io::output::OutputOptions {
                    no_clobber: !force,
                    special_files: false,
                },
            ) {
                Err(texelflow::Error::OutputExists { .. }) => return Err(exists()),
                other => other?,
            };
            // without --force, the final rename replaces nothing either (a racing writer)
            let save = texelflow::SaveOptions {
                no_clobber: !force,
                ..Default::default()
            };
            match identity_lut()?.save_with(output, &save) {
                Err(texelflow::Error::OutputExists { .. }) => Err(exists()),
                other => Ok(other?),
            }
        }
        Command::Bench(args) => bench::run(&cli, args),
    }
}

/// The note for an image with transparent pixels going to a format without alpha: what
/// happens to them (composited over the background).
pub(crate) fn alpha_note(img: &Image, output: &Path, background: [u8; 3]) -> Option<String> {
    let no_alpha =
        image::ImageFormat::from_path(output).is_ok_and(|f| !texelflow::io::format_has_alpha(f));
    let [r, g, b] = background;
    (no_alpha && img.has_transparency()).then(|| format!("JPEG has no alpha: transparent pixels were composited over rgb({r}, {g}, {b}) (--background)"))
}

/// `white`, `black`, `grey`/`gray`, `#rrggbb`, `rrggbb` or `r,g,b` (0-255).
fn parse_color(text: &str) -> std::result::Result<[u8; 3], String> {
    let t = text.trim().to_ascii_lowercase();
    let bad = || format!("`{text}`: give white, black, grey, #rrggbb or r,g,b");
    match t.as_str() {
        "white" => return Ok([255; 3]),
        "black" => return Ok([0; 3]),
        "grey" | "gray" => return Ok([128; 3]),
        _ => {}
    }
    if let Some((r, rest)) = t.split_once(',') {
        let (g, b) = rest.split_once(',').ok_or_else(bad)?;
        let c = |v: &str| v.trim().parse::<u8>().map_err(|_| bad());
        return Ok([c(r)?, c(g)?, c(b)?]);
    }
    let hex = t.trim_start_matches('#');
    if hex.len() == 6 && hex.is_ascii() {
        let c = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| bad());
        return Ok([c(0)?, c(2)?, c(4)?]);
    }
    Err(bad())
}

fn parse_size(text: &str) -> std::result::Result<(u32, u32), String> {
    let bad = || format!("`{text}`: give WIDTHxHEIGHT, e.g. 640x480");
    let (w, h) = text.split_once(['x', 'X']).ok_or_else(bad)?;
    let (w, h): (u32, u32) = (
        w.trim().parse().map_err(|_| bad())?,
        h.trim().parse().map_err(|_| bad())?,
    );
    if w == 0 || h == 0 || w > 32768 || h > 32768 {
        return Err(format!("`{text}`: each side must be 1 to 32768"));
    }
    Ok((w, h))
}

fn parse_subsampling(text: &str) -> std::result::Result<texelflow::Subsampling, String> {
    texelflow::Subsampling::parse(text).ok_or_else(|| format!("`{text}`: use 444, 422 or 420"))
}

fn parse_png_compression(text: &str) -> std::result::Result<texelflow::PngCompression, String> {
    texelflow::PngCompression::parse(text)
        .ok_or_else(|| format!("`{text}`: use fast, default or best"))
}

fn print_timings(be: &Backend, t: &[texelflow::NodeTiming]) {
    if t.is_empty() {
        eprintln!("timings: not available on {}", be.describe());
        return;
    }
    let total: f64 = t.iter().map(|x| x.ms).sum();
    let w = t.iter().map(|x| x.label.len()).max().unwrap_or(4).max(5);
    eprintln!(
        "{:<w$}  {:>9}  {:>6}   ({})",
        "node",
        "ms",
        "share",
        be.describe()
    );
    for x in t {
        eprintln!(
            "{:<w$}  {:>9.3}  {:>5.1}%",
            x.label,
            x.ms,
            if total > 0.0 {
                100.0 * x.ms / total
            } else {
                0.0
            }
        );
    }
    eprintln!("{:<w$}  {:>9.3}", "total", total);
}

/// The identity LUT, from the `lookup` filter's module.
fn identity_lut() -> Result<Image> {
    Ok(texelflow::filters::lookup::identity_lut())
}
