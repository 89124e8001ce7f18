//! Video through the `ffmpeg` program (feature `video`, issue 18): `process_video` runs a
//! pipeline on every frame of a video file and encodes the results.
//!
//! `ffprobe` reads the input's size, frame rate, frame count and streams; one `ffmpeg` decodes
//! the first video stream to raw frames on a pipe; the pipeline runs on each frame (one device,
//! kernels compiled once, several frames in flight through `graph::stream`, results in order;
//! temporal filters such as `low_pass` keep their state from frame to frame through a
//! `Sequence`); a second `ffmpeg` encodes the results from a pipe and takes the audio, metadata
//! and chapters from the original file untouched (`-map 1:a? -c:a copy`). Frame `k` of the
//! output is stamped `k / rate`, so a constant-rate input keeps its frame count, timestamps
//! and duration. The output is written under a temporary name beside the final one and renamed
//! on success: a failure or a cancellation leaves no file under the final name, and the input
//! is never replaced. Where input and output are 4:2:0, frames cross the pipes as I420 and are
//! converted on the GPU (`TransferMode`).
//!
//! With `VideoOptions::raw`, `-` as the input or output is raw RGBA8 frames on stdin/stdout;
//! with `VideoOptions::data`, a pipeline ending in data writes one JSON line (or CSV row) per
//! frame and no video.
//!
//! The library prints nothing and reads no environment variable: notes and progress come
//! through the `on_event` callback of `process_video_with` (`VideoEvent`), a cancellation
//! through `VideoOptions::cancel`. Every failure is one line in `Error::Video` (or the
//! pipeline's own `Error`, for a pipeline that cannot run at the video's size); its wording
//! names the `texelflow apply` flags that the options stand for.
//!
//! ```no_run
//! use texelflow::video::{process_video, VideoOptions};
//! use texelflow::{Backend, GpuOptions, Pipeline, RunOptions};
//! # fn main() -> texelflow::Result<()> {
//! let (backend, _note) = Backend::auto(&GpuOptions::default());
//! let pipeline = Pipeline::parse("gaussian_blur(sigma=2)", &mut |p: &str| texelflow::Image::open(p))?;
//! let report = process_video(
//!     &backend,
//!     &pipeline,
//!     "in.mp4".as_ref(),
//!     "out.mp4".as_ref(),
//!     &VideoOptions::default(),
//!     &RunOptions::default(),
//! )?;
//! println!("{} frames", report.frames);
//! # Ok(()) }
//! ```

use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::filters::yuv::{i420_len, pack_i420, RgbaToYuv420, Yuv420ToRgba, YuvMatrix, YuvRange};
use crate::graph::{Backend, Pipeline, RunOptions, Sequence};
use crate::image::{Image, ImageDesc, PixelFormat};
use crate::limits::Limits;
use crate::value::Value;

/// `Error::Video` of a formatted message.
macro_rules! verr {
    ($($t:tt)*) => {
        $crate::error::Error::Video(format!($($t)*))
    };
}

/// Returns `Err(verr!(...))`.
macro_rules! vbail {
    ($($t:tt)*) => {
        return Err(verr!($($t)*))
    };
}

mod ffmpeg;
mod sink;

use ffmpeg::{
    command, default_codec, default_pix_fmt, encoders, ext, first_line, software, subsampling,
    subtitle_plan, temporary, widen_pipe, EncodePlan, Proc, Transfer,
};
use sink::{abort, pad, Frame, Frames, Out, Sink};

/// Extensions taken as video (inputs and outputs); anything else goes the image way.
pub const VIDEO_EXTENSIONS: &[&str] = &[
    "mp4", "m4v", "mov", "mkv", "webm", "avi", "mpg", "mpeg", "ts", "mts", "m2ts", "flv", "wmv",
    "ogv", "3gp", "nut", "y4m", "gif",
];

/// Containers that hold no audio stream: the original's audio is not mapped into them.
const NO_AUDIO: &[&str] = &["gif", "y4m"];

/// Image extensions: a video cannot be written to one of these.
const IMAGE_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "webp", "tif", "tiff", "bmp"];

/// A failure as one line: `what: why` (what anyhow's `context` printed in the CLI).
trait Context<T> {
    fn with_context(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T, E: std::fmt::Display> Context<T> for std::result::Result<T, E> {
    fn with_context(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|e| verr!("{}: {e}", what()))
    }
}

/// Whether `path` has a video extension (`VIDEO_EXTENSIONS`, any case).
pub fn is_video_path(path: &Path) -> bool {
    VIDEO_EXTENSIONS.contains(&ext(path).as_str())
}

/// Whether `apply IN OUT` is a video job: raw frames, or a video extension on either side.
pub fn is_video_job(input: &Path, output: Option<&Path>, raw: bool) -> bool {
    raw || is_video_path(input) || output.is_some_and(is_video_path)
}

/// A positive frame rate, `N`, `N.M` or `N/D` (at most 1000), as a number.
pub fn parse_rate(text: &str) -> Option<f64> {
    let v = match text.split_once('/') {
        Some((n, d)) => n.trim().parse::<f64>().ok()? / d.trim().parse::<f64>().ok()?,
        None => text.trim().parse::<f64>().ok()?,
    };
    (v.is_finite() && v > 0.0 && v <= 1000.0).then_some(v)
}

/// How frames cross the pipes to and from ffmpeg.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TransferMode {
    /// I420 where input and output are 4:2:0 files and the device is not a software one (there
    /// ffmpeg's SIMD conversion is cheaper than emulated kernels), else RGBA.
    #[default]
    Auto,
    /// RGBA8, 4 bytes a pixel, converted by ffmpeg.
    Rgba,
    /// I420 (1.5 bytes a pixel), converted on the device in the input's matrix and range; video
    /// files on both sides only.
    Yuv420p,
}

impl TransferMode {
    /// `auto`, `rgba` or `yuv420p`, as `--transfer` takes them.
    pub fn parse(text: &str) -> Option<TransferMode> {
        match text {
            "auto" => Some(TransferMode::Auto),
            "rgba" => Some(TransferMode::Rgba),
            "yuv420p" => Some(TransferMode::Yuv420p),
            _ => None,
        }
    }
}

/// What a video job may be told besides its input, output and pipeline: what `texelflow apply`
/// takes as flags (named beside each field).
#[derive(Clone, Debug)]
pub struct VideoOptions {
    /// `-f rawvideo`: `-` as input or output is raw RGBA8 frames on stdin/stdout.
    pub raw: bool,
    /// `--size WxH`: the size of raw input frames.
    pub size: Option<(u32, u32)>,
    /// `--codec`: the video encoder (default by the output's extension: libx264 for
    /// .mp4/.mkv/.mov, libvpx-vp9 for .webm, else ffmpeg's choice).
    pub codec: Option<String>,
    /// `--crf`: the encoder's constant quality.
    pub crf: Option<u8>,
    /// `--pix-fmt`: the encoded pixel format (default yuv420p for the usual lossy codecs, else
    /// ffmpeg's choice).
    pub pix_fmt: Option<String>,
    /// `--fps`: the output frame rate (`25`, `29.97`, `30000/1001`); frames are dropped or
    /// repeated by ffmpeg to keep the duration.
    pub fps: Option<String>,
    /// `--no-clobber`: fail where the output exists.
    pub no_clobber: bool,
    /// `--jobs`: frames in flight (at least 1; default 3).
    pub jobs: usize,
    /// `--transfer`: how frames cross the pipes.
    pub transfer: TransferMode,
    /// `--data`: the pipeline ends in data and the output is where its records go, one per
    /// frame (JSON lines; CSV rows for `.csv`; `-`: stdout); no video is written.
    pub data: bool,
    /// The size asked of the pipes to and from ffmpeg, bytes (default 1 MiB; Linux only; the
    /// CLI's `TEXELFLOW_PIPE_BYTES`).
    pub pipe_bytes: Option<i32>,
    /// Set (from another thread, a Ctrl-C handler) to stop taking frames: the job stops both
    /// children, removes the partial file and fails with "interrupted after N frames".
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Default for VideoOptions {
    fn default() -> Self {
        VideoOptions {
            raw: false,
            size: None,
            codec: None,
            crf: None,
            pix_fmt: None,
            fps: None,
            no_clobber: false,
            jobs: 3,
            transfer: TransferMode::Auto,
            data: false,
            pipe_bytes: None,
            cancel: None,
        }
    }
}

/// What `ffprobe` says about an input (`probe`).
#[derive(Debug, Clone)]
pub struct Probe {
    /// Displayed width (after rotation metadata, which ffmpeg applies while decoding).
    pub width: u32,
    /// Displayed height.
    pub height: u32,
    /// Frame rate as ffmpeg writes it (`30000/1001`).
    pub rate: String,
    /// The frame rate as a number.
    pub fps: f64,
    /// Frames the container lists, where it does.
    pub frames: Option<u64>,
    /// Duration in seconds, where known.
    pub duration: Option<f64>,
    /// Whether the input has an audio stream.
    pub audio: bool,
    /// The audio streams' codecs.
    pub audio_codecs: Vec<String>,
    /// The subtitle streams' codecs.
    pub subtitle_codecs: Vec<String>,
    /// The video stream's pixel format as ffprobe names it ("" if unknown).
    pub pix_fmt: String,
    /// The video stream's colour matrix ("" if unknown).
    pub color_space: String,
    /// The video stream's colour range ("" if unknown).
    pub color_range: String,
}

/// What `ffprobe` says about the video file `path`: its first video stream (cover art does
/// not count), its frame rate, duration and other streams.
pub fn probe(path: &Path) -> Result<Probe> {
    ffmpeg::probe(path)
}

/// What a video job reports as it goes (`process_video_with`'s `on_event`), in this order:
/// notes of the plan, `Started`, a `Frame` per frame written, `Finished`, the notes of the run.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum VideoEvent<'a> {
    /// Something worth saying that is not a failure (frames padded, audio re-encoded,
    /// subtitles left out, a decoder's complaint about a complete file, a pipeline's note).
    Note(&'a str),
    /// Decoding starts; `expected`: the frames to come, where known.
    Started {
        /// Frames to come (the duration at the output rate), where known.
        expected: Option<u64>,
    },
    /// One more frame was written.
    Frame {
        /// Frames written so far.
        frames: u64,
        /// Frames written per second so far.
        fps: f64,
    },
    /// The last frame went through (or the job stopped taking frames).
    Finished,
}

/// What a video job did.
#[derive(Clone, Debug)]
pub struct VideoReport {
    /// Frames processed and written.
    pub frames: u64,
    /// Frames that were expected (the duration at the output rate), where known.
    pub expected_frames: Option<u64>,
    /// The input frames' width and height.
    pub input_size: (u32, u32),
    /// The output frames' size as the pipeline made them; `None` with `VideoOptions::data`.
    pub output_size: Option<(u32, u32)>,
    /// The encoded frames' size: `output_size` padded to what the pixel format subsamples.
    pub encoded_size: Option<(u32, u32)>,
    /// The output frame rate as given to ffmpeg (`30000/1001`).
    pub rate: String,
    /// The output frame rate as a number.
    pub fps: f64,
    /// How frames crossed the pipes: `rgba`, `yuv420p` or `yuvj420p`.
    pub transfer: &'static str,
    /// The video encoder, where one was chosen (else ffmpeg's default for the container).
    pub codec: Option<String>,
    /// The encoded pixel format, where one was chosen.
    pub pix_fmt: Option<String>,
    /// Every note, also given as `VideoEvent::Note`.
    pub notes: Vec<String>,
    /// Wall-clock seconds from the first frame to the end.
    pub seconds: f64,
}

/// Runs `pipeline` on every frame of the video `input` and writes the results to `output` (see
/// the module docs); a pipeline ending in data needs `VideoOptions::data`. `backend` runs every
/// frame. Nothing is printed: `process_video_with` takes a callback for notes and progress.
pub fn process_video(
    backend: &Backend,
    pipeline: &Pipeline,
    input: &Path,
    output: &Path,
    options: &VideoOptions,
    run: &RunOptions,
) -> Result<VideoReport> {
    process_video_with(backend, pipeline, input, output, options, run, &mut |_| {})
}

/// `process_video`, with `on_event` told of notes and progress as they come.
pub fn process_video_with(
    backend: &Backend,
    pipeline: &Pipeline,
    input: &Path,
    output: &Path,
    options: &VideoOptions,
    run: &RunOptions,
    on_event: &mut (dyn FnMut(VideoEvent<'_>) + Send),
) -> Result<VideoReport> {
    let job = VideoJob::new(input, output, options)?;
    let info = job.probe(&run.limits)?;
    job.run(backend, pipeline, &info, run, on_event)
}

/// A video job in its steps, for a caller that opens the device while the input is probed (the
/// CLI): `new` checks the options (and that ffmpeg has the encoder), `probe` reads the input,
/// `run` runs. `process_video` is the three in a row.
pub struct VideoJob<'a> {
    input: &'a Path,
    output: &'a Path,
    options: &'a VideoOptions,
    stdin_in: bool,
    stdout_out: bool,
    data_stdout: bool,
    /// `--fps` as given, once checked.
    rate_arg: Option<String>,
    codec: Option<String>,
}

impl<'a> VideoJob<'a> {
    /// Checks the options against each other and the paths (an image extension, the input as
    /// the output, `no_clobber`, the frame rate, the encoder); nothing is started but
    /// `ffmpeg -encoders`.
    pub fn new(input: &'a Path, output: &'a Path, o: &'a VideoOptions) -> Result<VideoJob<'a>> {
        let stdin_in = input.as_os_str() == "-";
        // `-` as the output: raw frames on stdout, or with --data, JSON lines there
        let stdout_out = !o.data && output.as_os_str() == "-";
        let data_stdout = o.data && output.as_os_str() == "-";
        if (stdin_in || stdout_out) && !o.raw {
            vbail!("`-` as input or output reads or writes raw RGBA frames: add `-f rawvideo` (and `--size WxH` for raw input)");
        }
        if o.raw && !stdin_in && !stdout_out {
            vbail!(
                "-f rawvideo concerns `-` (stdin or stdout): give `-` as the input or the output"
            );
        }
        if !stdout_out && !data_stdout {
            let e = ext(output);
            if !o.data && IMAGE_EXTENSIONS.contains(&e.as_str()) {
                // a GIF input is what sent us here: say so rather than blame the output
                // (issue 29 item 13)
                if !stdin_in && ext(input) == "gif" {
                    vbail!("`{}` is read as a video (a GIF may hold many frames), so its output must be a video (.gif, .mp4, .webm, ...); for one frame as an image, take it out first: ffmpeg -i {} -frames:v 1 frame.png", input.display(), input.display());
                }
                vbail!("`{}` is an image; a video goes to a video file (.mp4, .mkv, .webm, .mov, .avi) or to `-` with -f rawvideo", output.display());
            }
            if !stdin_in && crate::io::same_file(input, output) {
                vbail!(
                    "refusing to overwrite the input `{}`; choose another output path",
                    input.display()
                );
            }
            // only a regular file is ever replaced; data lines may go into a FIFO or device
            crate::io::output::check_output(
                output,
                crate::io::output::OutputOptions {
                    no_clobber: o.no_clobber,
                    special_files: o.data,
                },
            )?;
        }
        if !stdin_in && IMAGE_EXTENSIONS.contains(&ext(input).as_str()) {
            vbail!(
                "`{}` is an image; a video output needs a video input (or `-` with -f rawvideo)",
                input.display()
            );
        }
        let rate_arg = match &o.fps {
            Some(r) => {
                parse_rate(r).ok_or_else(|| {
                    verr!("--fps `{r}`: give a positive frame rate such as 25, 29.97 or 30000/1001")
                })?;
                Some(r.clone())
            }
            None => None,
        };
        let codec = o
            .codec
            .clone()
            .or_else(|| default_codec(&ext(output)).map(str::to_string));
        if !stdout_out && !o.data {
            // one clear line for a codec this ffmpeg lacks (also says when ffmpeg is missing)
            if let Some(c) = &codec {
                if !encoders()?.iter().any(|e| e == c) {
                    vbail!("unknown codec `{c}`: this ffmpeg has no such encoder (`ffmpeg -encoders` lists them; e.g. libx264, libx265, libvpx-vp9, ffv1)");
                }
            }
        }
        Ok(VideoJob {
            input,
            output,
            options: o,
            stdin_in,
            stdout_out,
            data_stdout,
            rate_arg,
            codec,
        })
    }

    /// The input's description: `ffprobe`'s, or for raw frames on stdin, `VideoOptions::size`
    /// at `fps` (default 25).
    pub fn probe(&self, limits: &Limits) -> Result<Probe> {
        if !self.stdin_in {
            return probe(self.input);
        }
        let (w, h) = self
            .options
            .size
            .ok_or_else(|| verr!("raw input needs --size WxH (RGBA8 frames)"))?;
        // the frames are allocated at this size: bounded like any image
        limits.check_pixels("a raw frame", w, h)?;
        let rate = self.rate_arg.clone().unwrap_or_else(|| "25".into());
        let fps = parse_rate(&rate).unwrap_or(25.0);
        Ok(Probe {
            width: w,
            height: h,
            rate,
            fps,
            frames: None,
            duration: None,
            audio: false,
            audio_codecs: Vec::new(),
            subtitle_codecs: Vec::new(),
            pix_fmt: "rgba".into(),
            color_space: String::new(),
            color_range: String::new(),
        })
    }

    /// Runs the job on `backend`: `info` is what `probe` said of the input.
    pub fn run(
        &self,
        be: &Backend,
        pipeline: &Pipeline,
        info: &Probe,
        run: &RunOptions,
        on_event: &mut (dyn FnMut(VideoEvent<'_>) + Send),
    ) -> Result<VideoReport> {
        self.run_on(std::slice::from_ref(be), pipeline, info, run, on_event)
    }

    /// `run` with the frames spread over `devices` (issue 34, `--devices`): frame k runs on
    /// device k mod n, and the frames reach the output in order, so the file is the one a
    /// single device writes. A pipeline that keeps state from frame to frame (temporal
    /// filters) keeps it on one device: it runs on the first, with a note.
    pub fn run_on(
        &self,
        devices: &[Backend],
        pipeline: &Pipeline,
        info: &Probe,
        run: &RunOptions,
        on_event: &mut (dyn FnMut(VideoEvent<'_>) + Send),
    ) -> Result<VideoReport> {
        let Some(be) = devices.first() else {
            return Err(verr!("no device to run the video on"));
        };
        let o = self.options;
        let (stdin_in, stdout_out, data_stdout) =
            (self.stdin_in, self.stdout_out, self.data_stdout);
        let mut notes: Vec<String> = Vec::new();
        let mut note = |n: String, on_event: &mut (dyn FnMut(VideoEvent<'_>) + Send)| {
            on_event(VideoEvent::Note(&n));
            notes.push(n);
        };
        let mut pipeline = pipeline.clone();
        // frames of a format without alpha (yuv420p, the usual case) are opaque: premultiplying
        // them around averaging filters would change nothing and cost two passes a frame
        let alpha = [
            "yuva", "rgba", "bgra", "argb", "abgr", "gbrap", "ya8", "ya16", "pal8",
        ]
        .iter()
        .any(|p| info.pix_fmt.starts_with(p));
        pipeline.set_straight_alpha(!alpha);
        // the first frame (RGBA), and the frames in flight, at least 1.5 bytes a pixel each
        // (I420) three per job (read, converted, waiting for the sink): refused from the
        // header's size before the first frame is allocated (issue 29 item 7)
        let jobs = o.jobs.max(1);
        let pixels = info.width as u64 * info.height as u64;
        run.limits.check_memory(
            &format!("the video frames in flight (--jobs {jobs})"),
            (pixels * 4).saturating_add((pixels * 3 / 2).saturating_mul(3 * jobs as u64)),
        )?;
        let first = Image::zeroed(ImageDesc::new(info.width, info.height, PixelFormat::Rgba8));
        // One run on a black frame of the input's size before any decoding: a pipeline that
        // ends in data or fails at this size says so in one line, the kernels compile here
        // once, and the output's size is known before the encoder starts.
        let (ow, oh) = match (pipeline.run_with(be, &first, run)?.take("output").ok_or_else(|| verr!("the pipeline gave no output"))?, o.data) {
            (Value::Image(i), false) => (i.width(), i.height()),
            (Value::Data(_), true) => (1, 1),
            (Value::Data(_), false) => vbail!("the pipeline ends in data, not an image: write it per frame with `--data FILE.jsonl` (or `--data -`) instead of OUT"),
            (Value::Image(_), true) => vbail!("the pipeline ends in an image, not data; --data needs a pipeline ending in data (e.g. `... | reduce`), and a video needs IN OUT"),
        };
        let codec = self.codec.clone();
        let out_pix_fmt = o
            .pix_fmt
            .clone()
            .or_else(|| default_pix_fmt(codec.as_deref(), &ext(self.output)).map(str::to_string));

        // I420 across both pipes where input and output are 4:2:0 (1.5 bytes a pixel,
        // converted on the GPU in the input's matrix and range), else RGBA with ffmpeg
        // converting
        let is420 = |p: &str| matches!(p, "yuv420p" | "yuvj420p");
        let files = !stdin_in && !stdout_out;
        // with --data nothing is encoded: I420 wherever the input is 4:2:0
        let out420 = o.data || out_pix_fmt.as_deref().is_some_and(is420);
        let yuv = || {
            let matrix = if info.color_space == "bt709" {
                YuvMatrix::Bt709
            } else {
                YuvMatrix::Bt601
            }; // untagged: BT.601, as ffmpeg assumes
            let full = info.color_range == "pc" || info.pix_fmt == "yuvj420p";
            let pix_fmt = if info.pix_fmt == "yuvj420p" {
                "yuvj420p"
            } else {
                "yuv420p"
            };
            Transfer::Yuv420 {
                matrix,
                range: if full {
                    YuvRange::Full
                } else {
                    YuvRange::Limited
                },
                pix_fmt,
            }
        };
        let transfer = match o.transfer {
            TransferMode::Rgba => Transfer::Rgba,
            TransferMode::Yuv420p if files => yuv(),
            TransferMode::Yuv420p => vbail!("--transfer yuv420p needs video files on both sides (raw frames on stdin/stdout are RGBA)"),
            // On the CPU reference or a software adapter (lavapipe), ffmpeg's SIMD conversion
            // is cheaper than emulated kernels: a 720p clip took twice as long with I420 frames
            // as with RGBA ones on lavapipe.
            TransferMode::Auto if files && is420(&info.pix_fmt) && out420 && !software(be) => {
                yuv()
            }
            TransferMode::Auto => Transfer::Rgba,
        };
        // the frame size on the encoder's pipe: even where the pixel format subsamples chroma
        let even = if stdout_out || o.data {
            (1, 1)
        } else {
            subsampling(out_pix_fmt.as_deref().unwrap_or(""))
        };
        let (pw, ph) = (ow.div_ceil(even.0) * even.0, oh.div_ceil(even.1) * even.1);
        if (pw, ph) != (ow, oh) {
            note(format!("{ow}x{oh} frames padded to {pw}x{ph} by repeating the last column/row: {} needs sides that are multiples of {}x{}", out_pix_fmt.as_deref().unwrap_or(""), even.0, even.1), on_event);
        }
        // frames are allocated per frame in flight (read, converted, waiting for the sink):
        // bounded by the memory limit, whatever `jobs` asks
        let frame_bytes =
            transfer.frame_bytes(info.width, info.height) as u64 + pw as u64 * ph as u64 * 4;
        run.limits.check_memory(
            &format!("the video frames in flight (--jobs {jobs})"),
            frame_bytes.saturating_mul(3 * jobs as u64),
        )?;
        let full = match transfer {
            Transfer::Rgba => pipeline.clone(),
            Transfer::Yuv420 { matrix, range, .. } => {
                let mut p = Pipeline::new().then(Yuv420ToRgba {
                    height: info.height,
                    matrix,
                    range,
                });
                p.extend(&pipeline);
                if o.data {
                    p
                } else {
                    p.then(RgbaToYuv420 {
                        width: pw,
                        height: ph,
                        matrix,
                        range,
                    })
                }
            }
        };

        let out_rate = self.rate_arg.clone().unwrap_or_else(|| info.rate.clone());
        // the decoder (or stdin)
        let mut decoder = None;
        let src: Box<dyn Read + Send> = if stdin_in {
            Box::new(std::io::stdin())
        } else {
            let mut c = command("ffmpeg");
            c.args(["-hide_banner", "-nostdin", "-v", "error", "-i"])
                .arg(self.input)
                .args(["-map", "0:v:0"]);
            // frames at exactly the rate the encoder stamps them with: a constant-rate input
            // passes as it is; a variable-rate one (or --fps) gets frames repeated or dropped
            // by ffmpeg, which keeps the duration and the sync with the audio
            c.args(["-vf", &format!("fps={out_rate}")]);
            c.args(["-f", "rawvideo", "-pix_fmt", transfer.pix_fmt(), "pipe:1"])
                .stdin(Stdio::null())
                .stdout(Stdio::piped());
            let mut p = Proc::spawn(c, "ffmpeg")?;
            let out = p
                .child
                .stdout
                .take()
                .ok_or_else(|| verr!("ffmpeg's stdout is not a pipe"))?;
            widen_pipe(&out, o.pipe_bytes);
            decoder = Some(p);
            Box::new(out)
        };
        let out_fps = parse_rate(&out_rate).unwrap_or(info.fps);
        // frames to come: the duration at the output rate (the container's count, where it has
        // no duration, counts a variable-rate input's frames before the rate is made constant)
        let expected = match (&self.rate_arg, info.duration, info.frames) {
            (_, Some(d), _) => Some((d * out_fps).round() as u64),
            (None, None, Some(n)) => Some(n),
            _ => None,
        };

        let out_ext = ext(self.output);
        let out_options = crate::io::output::OutputOptions {
            no_clobber: o.no_clobber,
            special_files: o.data,
        };
        // the encoded file: ffmpeg writes the temporary (by its extension it picks the container)
        let encoded = if !stdout_out && !o.data {
            Some(crate::io::output::Output::create_with_ext(
                self.output,
                out_options,
                &out_ext,
            )?)
        } else {
            None
        };
        let plan = EncodePlan {
            output: self.output.to_path_buf(),
            tmp: encoded
                .as_ref()
                .and_then(|e| e.write_path())
                .map_or_else(|| temporary(self.output), Path::to_path_buf),
            rate: out_rate.clone(),
            size: (pw, ph),
            transfer,
            // I420 frames keep the input's colours: tagged as the input was (RGBA frames are
            // converted by ffmpeg with its defaults and stay untagged)
            colour: match transfer {
                Transfer::Yuv420 { .. } => [
                    ("-colorspace", &info.color_space),
                    ("-color_range", &info.color_range),
                ]
                .into_iter()
                .filter(|(_, v)| {
                    matches!(v.as_str(), "bt709" | "smpte170m" | "bt470bg" | "tv" | "pc")
                })
                .map(|(k, v)| (k, v.clone()))
                .collect(),
                Transfer::Rgba => Vec::new(),
            },
            source: (!stdin_in).then(|| self.input.to_path_buf()),
            audio: if !info.audio || NO_AUDIO.contains(&out_ext.as_str()) {
                None
            } else if out_ext == "webm"
                && info
                    .audio_codecs
                    .iter()
                    .any(|c| c != "opus" && c != "vorbis")
            {
                // WebM holds Opus or Vorbis only: the one case where the audio cannot be copied
                note(format!("the audio ({}) is re-encoded as Opus: WebM holds only Opus or Vorbis audio", info.audio_codecs.join(", ")), on_event);
                Some("libopus")
            } else {
                Some("copy")
            },
            subtitles: subtitle_plan(&out_ext, &info.subtitle_codecs, &mut |n| note(n, on_event)),
            pix_fmt: out_pix_fmt.clone(),
            codec: codec.clone(),
            crf: o.crf,
            pipe_bytes: o.pipe_bytes,
        };
        let mut sink = if o.data {
            // a temporary renamed into place, or a FIFO, device or stdout written directly
            let out = crate::io::output::Output::create(self.output, out_options)?;
            // `.csv`: one row per frame under a header; otherwise JSON lines
            let csv = (!data_stdout && out_ext == "csv").then(Vec::new);
            Sink::Lines {
                out: Some(std::io::BufWriter::new(out)),
                fps: out_fps,
                csv,
                what: if data_stdout {
                    "stdout".into()
                } else {
                    format!("`{}`", self.output.display())
                },
            }
        } else if stdout_out {
            Sink::Stdout
        } else {
            Sink::Encode {
                plan: &plan,
                running: None,
            }
        };

        on_event(VideoEvent::Started { expected });
        let stop = AtomicBool::new(false);
        let read_error = Mutex::new(None);
        let cancel = o.cancel.as_deref();
        let frames = Frames {
            src,
            bytes: transfer.frame_bytes(info.width, info.height),
            stop: &stop,
            error: &read_error,
            cancel,
        };
        let (w, h) = (info.width, info.height);
        let mut failure: Option<Error> = None;
        let mut written = 0u64;
        let started = std::time::Instant::now();
        let mut run_notes: Vec<String> = Vec::new();
        // Temporal filters (low_pass, motion_detector, ...) carry state from frame to frame:
        // their frames are submitted in order (still several in flight); other pipelines need
        // no order.
        let sequence = pipeline.graph(&first)?.0.has_state().then(Sequence::new);
        let devices = if sequence.is_some() && devices.len() > 1 {
            note(
                "the pipeline keeps state from frame to frame: its frames run on the first device only".into(),
                on_event,
            );
            &devices[..1]
        } else {
            // every other device compiles its kernels on the black frame too, before the
            // decoder starts
            for d in &devices[1..] {
                pipeline.run_with(d, &first, run)?;
            }
            devices
        };
        drop(first);
        let work = |(k, bytes): (usize, Vec<u8>)| -> Result<(Out, Vec<String>)> {
            let be = &devices[k % devices.len()];
            let img = match transfer {
                Transfer::Rgba => Image::from_u8(w, h, PixelFormat::Rgba8, bytes),
                Transfer::Yuv420 { .. } => pack_i420(w, h, bytes),
            };
            let mut r = match (&sequence, img) {
                (None, img) => full.run_with(be, &img?, run)?,
                (Some(seq), Ok(img)) => full.run_frame_with(be, &img, run, seq, k as u64)?,
                (Some(seq), Err(e)) => {
                    seq.skip(k as u64)?;
                    return Err(e);
                }
            };
            let out = match r.take("output") {
                Some(Value::Image(out)) => out,
                Some(Value::Data(d)) => {
                    return Ok((Out::Data(Box::new(d)), std::mem::take(&mut r.notes)))
                }
                None => return Err(Error::invalid("the pipeline produced no output")),
            };
            let frame = match transfer {
                Transfer::Yuv420 { .. } => Frame {
                    img: out,
                    len: i420_len(pw, ph),
                },
                Transfer::Rgba => {
                    if (out.width(), out.height()) != (ow, oh) {
                        return Err(Error::invalid(format!(
                            "a frame came out {}x{}, the first {ow}x{oh}",
                            out.width(),
                            out.height()
                        )));
                    }
                    let out = if out.format() == PixelFormat::Rgba8 {
                        out
                    } else {
                        out.convert(PixelFormat::Rgba8)
                    };
                    let img = if (pw, ph) == (ow, oh) {
                        out
                    } else {
                        Image::from_u8(pw, ph, PixelFormat::Rgba8, pad(&out, pw, ph).into_owned())?
                    };
                    Frame {
                        img,
                        len: pw as usize * ph as usize * 4,
                    }
                }
            };
            Ok((Out::Frame(frame), std::mem::take(&mut r.notes)))
        };
        crate::graph::stream(
            frames.enumerate(),
            work,
            jobs,
            |k, result: Result<(Out, Vec<String>)>| {
                if failure.is_some() {
                    return;
                }
                let done = result
                    .map_err(|e| verr!("frame {k}: {e}"))
                    .and_then(|(img, n)| {
                        for note in n {
                            if !run_notes.contains(&note) {
                                run_notes.push(note);
                            }
                        }
                        sink.put(k, &img)
                    });
                match done {
                    Ok(()) => {
                        written += 1;
                        on_event(VideoEvent::Frame {
                            frames: written,
                            fps: written as f64 / started.elapsed().as_secs_f64().max(1e-3),
                        });
                    }
                    Err(e) => {
                        failure = Some(e);
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            },
        );
        on_event(VideoEvent::Finished);
        for n in run_notes {
            note(n, on_event);
        }

        // what went wrong first: a frame, a cancellation, reading frames, the decoder
        if let Some(e) = failure {
            return Err(abort(&mut sink, &mut decoder, e));
        }
        if cancel.is_some_and(|c| c.load(Ordering::SeqCst)) {
            let what = if stdout_out || data_stdout {
                String::new()
            } else {
                format!("; `{}` not written", self.output.display())
            };
            return Err(abort(
                &mut sink,
                &mut decoder,
                verr!("interrupted after {written} frames{what}"),
            ));
        }
        if let Some(d) = decoder.as_mut() {
            if let Err(why) = d.wait() {
                return Err(abort(
                    &mut sink,
                    &mut None,
                    verr!("decoding `{}` failed: {why}", self.input.display()),
                ));
            }
            // ffmpeg ends a truncated or damaged file with status 0 after error lines: fail
            // when frames are missing too (isolated glitches in a complete file only get a note)
            let lines = d.tail.lines();
            if !lines.is_empty() {
                let why = first_line(&lines, "");
                match expected {
                    Some(e) if written + 1 >= e => note(
                        format!(
                            "ffmpeg reported while decoding `{}`: {why}",
                            self.input.display()
                        ),
                        on_event,
                    ),
                    _ => {
                        let of = expected.map(|e| format!(" of {e}")).unwrap_or_default();
                        return Err(abort(&mut sink, &mut None, verr!("`{}` is corrupt or truncated: {why} ({written}{of} frames decoded; nothing written)", self.input.display())));
                    }
                }
            }
        }
        if let Some(why) = read_error.lock().ok().and_then(|mut e| e.take()) {
            return Err(abort(
                &mut sink,
                &mut decoder,
                verr!("`{}`: {why}", self.input.display()),
            ));
        }
        if written == 0 {
            // a rate below one frame per clip length keeps nothing: say that, not "decoded"
            // (issue 29 item 13)
            let why = match (&self.rate_arg, info.duration) {
                (Some(r), Some(d)) if d > 0.0 && d * out_fps < 1.0 => format!(
                    "--fps {r} keeps no frame of `{}`: it lasts {d:.3} s, so a rate of at \
                     least {:.3} fps keeps one",
                    self.input.display(),
                    1.0 / d
                ),
                _ => format!("no frames could be decoded from `{}`", self.input.display()),
            };
            return Err(abort(&mut sink, &mut decoder, verr!("{why}")));
        }
        if let Err(e) = sink.finish() {
            sink.abort();
            return Err(e);
        }
        if let Some(encoded) = encoded {
            encoded.commit().map_err(|e| match e {
                crate::Error::OutputExists { .. } => e,
                e => verr!(
                    "cannot move the finished video into place as `{}`: {e}",
                    self.output.display()
                ),
            })?;
        }
        Ok(VideoReport {
            frames: written,
            expected_frames: expected,
            input_size: (info.width, info.height),
            output_size: (!o.data).then_some((ow, oh)),
            encoded_size: (!o.data).then_some((pw, ph)),
            rate: out_rate,
            fps: out_fps,
            transfer: transfer.pix_fmt(),
            codec,
            pix_fmt: out_pix_fmt,
            notes,
            seconds: started.elapsed().as_secs_f64(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse() {
        assert_eq!(parse_rate("25"), Some(25.0));
        assert!(parse_rate("30000/1001").is_some_and(|r| (r - 29.97).abs() < 0.01));
        assert_eq!(parse_rate("0/0"), None);
        assert_eq!(parse_rate("-3"), None);
        assert_eq!(parse_rate("x"), None);
    }

    #[test]
    fn padding_repeats_the_edge() -> Result<()> {
        let img = Image::from_u8(3, 1, PixelFormat::Rgba8, (0..12).collect())?;
        let p = pad(&img, 4, 2);
        assert_eq!(p.len(), 4 * 2 * 4);
        assert_eq!(&p[12..16], &[8, 9, 10, 11]);
        assert_eq!(&p[16..32], &p[0..16]);
        Ok(())
    }

    #[test]
    fn subsampling_by_name() {
        assert_eq!(subsampling("yuv420p"), (2, 2));
        assert_eq!(subsampling("yuv422p10le"), (2, 1));
        assert_eq!(subsampling("yuv444p"), (1, 1));
        assert_eq!(subsampling("rgb24"), (1, 1));
    }

    #[test]
    fn ffmpeg_lines_lose_their_prefix() {
        let l = vec![
            "".into(),
            "[libx264 @ 0x55d] width not divisible by 2 (3x1).".into(),
        ];
        assert_eq!(first_line(&l, "x"), "width not divisible by 2 (3x1)");
    }
}
