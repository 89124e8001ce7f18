//! `texelflow apply in.mp4 out.mp4 -p SPEC`: video through the `ffmpeg` program (issue 18).
//!
//! `ffprobe` reads the input's size, frame rate, frame count and streams; one `ffmpeg` decodes
//! the first video stream to raw RGBA frames on a pipe; the pipeline runs on each frame (one
//! device, kernels compiled once, several frames in flight through `texelflow::graph::stream`,
//! results in order); a second `ffmpeg` encodes the results from a pipe and takes the audio,
//! metadata and chapters from the original file untouched (`-map 1:a? -c:a copy`). Frame `k` of
//! the output is stamped `k / rate`, so a constant-rate input keeps its frame count, timestamps
//! and duration. The output is written under a temporary name beside the final one and renamed
//! on success: a failure or Ctrl-C leaves no file under the final name. `-f rawvideo` reads or
//! writes raw RGBA frames on stdin/stdout (`-`) instead, so any source can be piped in. With
//! `--data`, a pipeline ending in data writes one JSON line per frame and no video.
//!
//! The children run in a process group of their own, so Ctrl-C reaches only texelflow, which
//! stops taking frames, stops both children and removes the partial file.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::{anyhow, bail, Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use texelflow::filters::yuv::{
    i420_len, pack_i420, RgbaToYuv420, Yuv420ToRgba, YuvMatrix, YuvRange,
};
use texelflow::{Backend, Image, Pipeline, PixelFormat, Value};

/// Extensions taken as video (inputs and outputs); anything else goes the image way.
pub const VIDEO_EXTENSIONS: &[&str] = &[
    "mp4", "m4v", "mov", "mkv", "webm", "avi", "mpg", "mpeg", "ts", "mts", "m2ts", "flv", "wmv",
    "ogv", "3gp", "nut", "y4m", "gif",
];

/// Containers that hold no audio stream: the original's audio is not mapped into them.
const NO_AUDIO: &[&str] = &["gif", "y4m"];

/// Image extensions: a video cannot be written to one of these.
const IMAGE_EXTENSIONS: &[&str] = &["png", "jpg", "jpeg", "webp", "tif", "tiff", "bmp"];

/// Set by the Ctrl-C (SIGINT, SIGTERM, SIGHUP) handler; the frame reader stops on it.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

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

fn ext(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// Whether `apply IN OUT` is a video job: raw frames, or a video extension on either side.
pub fn wanted(input: &Path, output: Option<&Path>, raw: bool) -> bool {
    raw || VIDEO_EXTENSIONS.contains(&ext(input).as_str())
        || output.is_some_and(|o| VIDEO_EXTENSIONS.contains(&ext(o).as_str()))
}

/// The encoder used where `--codec` is not given.
fn default_codec(ext: &str) -> Option<&'static str> {
    match ext {
        "mp4" | "m4v" | "mov" | "mkv" | "flv" | "ts" | "mts" | "m2ts" | "3gp" => Some("libx264"),
        "webm" => Some("libvpx-vp9"),
        _ => None, // the container's own default (ffmpeg's choice)
    }
}

/// The pixel format used where `--pix-fmt` is not given: 4:2:0, which players expect, for the
/// usual lossy codecs (libx264 would otherwise pick 4:4:4 from RGBA input, which many players
/// cannot play); lossless and RGB codecs (ffv1, libx264rgb, png, ...) keep ffmpeg's choice.
fn default_pix_fmt(codec: Option<&str>, ext: &str) -> Option<&'static str> {
    const LOSSY: &[&str] = &[
        "libx264",
        "libx265",
        "libvpx",
        "libvpx-vp9",
        "libaom-av1",
        "libsvtav1",
        "librav1e",
        "mpeg4",
        "mpeg2video",
        "h264",
        "hevc",
    ];
    match codec {
        Some(c)
            if LOSSY.contains(&c)
                || c.starts_with("h264_")
                || c.starts_with("hevc_")
                || c.starts_with("av1_") =>
        {
            Some("yuv420p")
        }
        None if default_codec(ext).is_some() => Some("yuv420p"),
        _ => None,
    }
}

/// Chroma subsampling of a pixel format by name: (width, height) must be multiples of these.
fn subsampling(pix_fmt: &str) -> (u32, u32) {
    if pix_fmt.contains("420")
        || pix_fmt.starts_with("nv12")
        || pix_fmt.starts_with("nv21")
        || pix_fmt.contains("p010")
    {
        (2, 2)
    } else if pix_fmt.contains("422")
        || pix_fmt.contains("yuyv")
        || pix_fmt.contains("uyvy")
        || pix_fmt.starts_with("nv16")
    {
        (2, 1)
    } else if pix_fmt.contains("411") {
        (4, 1)
    } else {
        (1, 1)
    }
}

fn not_found(tool: &str) -> anyhow::Error {
    anyhow!("{tool} not found: install it (apt install ffmpeg, brew install ffmpeg, or a build from ffmpeg.org) and put `{tool}` on PATH; video goes through the ffmpeg program")
}

/// `Command::new(tool)` with the child in a process group of its own: a terminal's Ctrl-C
/// reaches only texelflow, which then stops the children itself and removes the partial file.
fn command(tool: &str) -> Command {
    let mut c = Command::new(tool);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        c.process_group(0);
    }
    c
}

fn spawn_error(tool: &str, e: std::io::Error) -> anyhow::Error {
    if e.kind() == std::io::ErrorKind::NotFound {
        not_found(tool)
    } else {
        anyhow!("cannot start {tool}: {e}")
    }
}

/// ffmpeg's message, one line: the first line it printed at `-v error`, without the
/// `[component @ 0x...]` prefix; `fallback` where it printed nothing.
fn first_line(lines: &[String], fallback: &str) -> String {
    let line = lines.iter().map(|l| l.trim()).find(|l| !l.is_empty());
    match line {
        Some(l) => {
            let l = if l.starts_with('[') {
                l.split_once("] ").map_or(l, |(_, rest)| rest)
            } else {
                l
            };
            l.trim_end_matches('.').to_string()
        }
        None => fallback.to_string(),
    }
}

/// What `ffprobe` says about an input.
#[derive(Debug, Clone)]
pub struct Probe {
    /// Displayed size (after rotation metadata, which ffmpeg applies while decoding).
    pub width: u32,
    pub height: u32,
    /// Frame rate as ffmpeg writes it (`30000/1001`).
    pub rate: String,
    pub fps: f64,
    /// Frames the container lists, where it does.
    pub frames: Option<u64>,
    pub duration: Option<f64>,
    pub audio: bool,
    /// The audio streams' codecs.
    pub audio_codecs: Vec<String>,
    /// The subtitle streams' codecs.
    pub subtitle_codecs: Vec<String>,
    /// The video stream's pixel format, colour matrix and range as ffprobe names them ("" if unknown).
    pub pix_fmt: String,
    pub color_space: String,
    pub color_range: String,
}

/// A positive frame rate, `N`, `N.M` or `N/D`, as a number.
pub fn parse_rate(text: &str) -> Option<f64> {
    let v = match text.split_once('/') {
        Some((n, d)) => n.trim().parse::<f64>().ok()? / d.trim().parse::<f64>().ok()?,
        None => text.trim().parse::<f64>().ok()?,
    };
    (v.is_finite() && v > 0.0 && v <= 1000.0).then_some(v)
}

fn probe(path: &Path) -> Result<Probe> {
    let out = command("ffprobe")
        .args([
            "-v",
            "error",
            "-print_format",
            "json",
            "-show_format",
            "-show_streams",
        ])
        .arg(path)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| spawn_error("ffprobe", e))?;
    if !out.status.success() {
        let lines: Vec<String> = String::from_utf8_lossy(&out.stderr)
            .lines()
            .map(str::to_string)
            .collect();
        let why = first_line(&lines, "ffprobe failed");
        // ffprobe's line starts with the path; say it once
        let why = why
            .strip_prefix(&format!("{}: ", path.display()))
            .unwrap_or(&why)
            .to_string();
        bail!(
            "cannot read `{}` as video (corrupt, truncated or not a video): {why}",
            path.display()
        );
    }
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).with_context(|| {
        format!(
            "cannot read `{}` as video: ffprobe's answer is not JSON",
            path.display()
        )
    })?;
    let streams = v["streams"].as_array().cloned().unwrap_or_default();
    // cover art in an audio file is a "video" stream of one picture: not a video
    let video = streams
        .iter()
        .find(|s| {
            s["codec_type"] == "video" && s["disposition"]["attached_pic"].as_i64() != Some(1)
        })
        .ok_or_else(|| anyhow!("`{}` has no video stream", path.display()))?;
    let (w, h) = (
        video["width"].as_u64().unwrap_or(0),
        video["height"].as_u64().unwrap_or(0),
    );
    if w == 0 || h == 0 || w > 32768 || h > 32768 {
        bail!(
            "cannot read `{}` as video: its video stream has no usable size ({w}x{h})",
            path.display()
        );
    }
    // The nominal rate (r_frame_rate, e.g. 30000/1001) where the average agrees with it within
    // 1%, so a constant-rate clip passes frame for frame; else the average (a variable-rate
    // clip's r_frame_rate can be a timebase such as 90000).
    let (avg, nominal) = (
        video["avg_frame_rate"].as_str().unwrap_or(""),
        video["r_frame_rate"].as_str().unwrap_or(""),
    );
    let rate = match (parse_rate(avg), parse_rate(nominal)) {
        (Some(a), Some(n)) if (a - n).abs() <= 0.01 * a => nominal,
        (Some(_), _) => avg,
        (None, Some(_)) => nominal,
        (None, None) => bail!("cannot read `{}` as video: no frame rate", path.display()),
    }
    .to_string();
    let fps = parse_rate(&rate).unwrap_or(25.0);
    // ffmpeg turns frames upright while decoding: a quarter turn swaps the sides
    let rotation = video["side_data_list"]
        .as_array()
        .and_then(|l| l.iter().find_map(|d| d["rotation"].as_f64()))
        .or_else(|| {
            video["tags"]["rotate"]
                .as_str()
                .and_then(|r| r.parse().ok())
        })
        .unwrap_or(0.0);
    let quarter = (rotation.abs() as i64) % 180 == 90;
    let (width, height) = if quarter {
        (h as u32, w as u32)
    } else {
        (w as u32, h as u32)
    };
    let num = |x: &serde_json::Value| x.as_str().and_then(|s| s.parse::<f64>().ok());
    let duration = num(&video["duration"]).or_else(|| num(&v["format"]["duration"]));
    let frames = video["nb_frames"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .filter(|&n: &u64| n > 0);
    let audio_codecs: Vec<String> = streams
        .iter()
        .filter(|s| s["codec_type"] == "audio")
        .map(|s| s["codec_name"].as_str().unwrap_or("").to_string())
        .collect();
    let audio = !audio_codecs.is_empty();
    let subtitle_codecs: Vec<String> = streams
        .iter()
        .filter(|s| s["codec_type"] == "subtitle")
        .map(|s| s["codec_name"].as_str().unwrap_or("").to_string())
        .collect();
    let text = |k: &str| video[k].as_str().unwrap_or("").to_string();
    Ok(Probe {
        width,
        height,
        rate,
        fps,
        frames,
        duration,
        audio,
        audio_codecs,
        subtitle_codecs,
        pix_fmt: text("pix_fmt"),
        color_space: text("color_space"),
        color_range: text("color_range"),
    })
}

/// The encoders this ffmpeg has (`ffmpeg -encoders`).
fn encoders() -> Result<Vec<String>> {
    let out = command("ffmpeg")
        .args(["-hide_banner", "-encoders"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| spawn_error("ffmpeg", e))?;
    let text = String::from_utf8_lossy(&out.stdout);
    // the list follows a " ------" line: " V....D libx264   description"
    Ok(text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("---"))
        .skip(1)
        .filter_map(|l| l.split_whitespace().nth(1))
        .map(str::to_string)
        .collect())
}

/// The last lines a child wrote on stderr, collected on a thread of its own (a child blocked
/// on a full stderr pipe would stop writing frames too).
#[derive(Clone, Default)]
struct Tail(Arc<Mutex<VecDeque<String>>>);

impl Tail {
    fn follow(&self, stderr: impl Read + Send + 'static) -> std::thread::JoinHandle<()> {
        let lines = self.0.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(|l| l.ok()) {
                if let Ok(mut l) = lines.lock() {
                    // the first lines say why; later ones repeat it
                    if l.len() < 32 {
                        l.push_back(line);
                    }
                }
            }
        })
    }
    fn lines(&self) -> Vec<String> {
        self.0
            .lock()
            .map(|l| l.iter().cloned().collect())
            .unwrap_or_default()
    }
}

/// A running child with its stderr followed.
struct Proc {
    child: Child,
    tail: Tail,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Proc {
    fn spawn(mut cmd: Command, tool: &str) -> Result<Proc> {
        let mut child = cmd
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| spawn_error(tool, e))?;
        let tail = Tail::default();
        let reader = child.stderr.take().map(|s| tail.follow(s));
        Ok(Proc {
            child,
            tail,
            reader,
        })
    }
    /// Waits for the exit; `Err` with ffmpeg's first line when it failed.
    fn wait(&mut self) -> Result<(), String> {
        let status = self.child.wait().map_err(|e| e.to_string())?;
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        if status.success() {
            Ok(())
        } else {
            Err(first_line(
                &self.tail.lines(),
                &format!("ffmpeg exited with {status}"),
            ))
        }
    }
    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }
}

/// Frames read from a pipe, exactly `bytes` each; stops at the end, on a read error (kept in
/// `error`), when `stop` is set (a later stage failed) and on Ctrl-C.
struct Frames<'a> {
    src: Box<dyn Read + Send + 'a>,
    bytes: usize,
    stop: &'a AtomicBool,
    error: &'a Mutex<Option<String>>,
}

impl Iterator for Frames<'_> {
    type Item = Vec<u8>;
    fn next(&mut self) -> Option<Vec<u8>> {
        if self.stop.load(Ordering::Relaxed) || INTERRUPTED.load(Ordering::Relaxed) {
            return None;
        }
        let mut buf = vec![0u8; self.bytes];
        let mut filled = 0;
        while filled < self.bytes {
            match self.src.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    if let Ok(mut slot) = self.error.lock() {
                        *slot = Some(format!("reading frames: {e}"));
                    }
                    return None;
                }
            }
        }
        if filled == 0 {
            return None;
        }
        if filled < self.bytes {
            if let Ok(mut slot) = self.error.lock() {
                *slot = Some(format!(
                    "the last frame is incomplete ({filled} of {} bytes)",
                    self.bytes
                ));
            }
            return None;
        }
        Some(buf)
    }
}

/// A result frame ready for the pipe: the first `len` bytes of `img` (a packed I420 frame's
/// container is longer than the frame).
struct Frame {
    img: Image,
    len: usize,
}

impl Frame {
    fn bytes(&self) -> &[u8] {
        &self.img.as_u8()[..self.len.min(self.img.as_u8().len())]
    }
}

/// What the pipeline made of one frame.
enum Out {
    Frame(Frame),
    /// Boxed: a `Data` (a histogram) is a hundred times a `Frame`'s size.
    Data(Box<texelflow::Data>),
}

/// Where results go: an `ffmpeg` encoding into a temporary file (started with the first
/// frame), raw RGBA8 frames on stdout, or one JSON line per frame (`--data`) into a temporary
/// file (renamed when complete) or stdout.
enum Sink<'a> {
    Encode {
        plan: &'a EncodePlan,
        running: Option<(Proc, ChildStdin)>,
    },
    Stdout,
    /// One record per frame: JSON lines, or CSV rows (`csv`: the header, once the first
    /// record gives the columns).
    Lines {
        out: Box<dyn Write + Send>,
        tmp: Option<(PathBuf, PathBuf)>,
        fps: f64,
        csv: Option<Vec<String>>,
    },
}

/// How the input's subtitles go into a container with extension `ext`: copied where it holds
/// them, converted where it holds another text format (MP4/MOV: mov_text, WebM: WebVTT), or
/// left out with a note (picture subtitles outside MKV, any in AVI or GIF).
fn subtitle_plan(ext: &str, codecs: &[String]) -> Option<&'static str> {
    if codecs.is_empty() {
        return None;
    }
    const TEXT: &[&str] = &["subrip", "srt", "ass", "ssa", "webvtt", "mov_text", "text"];
    let all_text = codecs.iter().all(|c| TEXT.contains(&c.as_str()));
    let plan = match ext {
        "mkv" => Some("copy"),
        "mp4" | "mov" | "m4v" if codecs.iter().all(|c| c == "mov_text") => Some("copy"),
        "mp4" | "mov" | "m4v" if all_text => Some("mov_text"),
        "webm" if codecs.iter().all(|c| c == "webvtt") => Some("copy"),
        "webm" if all_text => Some("webvtt"),
        _ => None,
    };
    if plan.is_none() {
        eprintln!("texelflow: note: the subtitles ({}) are left out: a .{ext} file cannot hold them (.mkv can)", codecs.join(", "));
    }
    plan
}

/// Frames are megabytes and a pipe holds 64 KiB by default: 1 MiB (the unprivileged maximum)
/// moves a frame in fewer wake-ups of both processes. Best effort: the default still works.
fn widen_pipe(pipe: &impl std::os::fd::AsRawFd) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let bytes = std::env::var("TEXELFLOW_PIPE_BYTES")
            .ok()
            .and_then(|v| v.parse::<i32>().ok())
            .unwrap_or(1 << 20);
        // SAFETY: fcntl on a file descriptor this process owns; a failure changes nothing
        unsafe {
            libc::fcntl(pipe.as_raw_fd(), libc::F_SETPIPE_SZ, bytes);
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = pipe;
}

/// One CSV cell: numbers and booleans as they are, null empty, text and anything nested (a
/// histogram's lists) as JSON text in quotes (RFC 4180: inner quotes doubled).
fn csv_cell(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::Number(n) => n.to_string(),
        serde_json::Value::Bool(b) => b.to_string(),
        serde_json::Value::String(t) => format!("\"{}\"", t.replace('"', "\"\"")),
        other => format!("\"{}\"", other.to_string().replace('"', "\"\"")),
    }
}

/// Everything the encoder needs.
struct EncodePlan {
    output: PathBuf,
    tmp: PathBuf,
    rate: String,
    /// The frames' size on the pipe (padded where the pixel format needs it).
    size: (u32, u32),
    /// `rgba`, or `yuv420p` (converted on the GPU).
    transfer: Transfer,
    /// The input's colour tags (`-colorspace`, `-color_range`) where it had them.
    colour: Vec<(&'static str, String)>,
    /// The original file, for its audio, metadata and chapters.
    source: Option<PathBuf>,
    /// The audio's encoder: `copy` (untouched), or one the container needs.
    audio: Option<&'static str>,
    /// The subtitles' encoder: `copy`, or the text format the container holds.
    subtitles: Option<&'static str>,
    codec: Option<String>,
    crf: Option<u8>,
    pix_fmt: Option<String>,
}

impl EncodePlan {
    fn command(&self) -> Command {
        let (width, height) = self.size;
        let mut c = command("ffmpeg");
        c.args([
            "-hide_banner",
            "-v",
            "error",
            "-y",
            "-f",
            "rawvideo",
            "-pix_fmt",
            self.transfer.pix_fmt(),
            "-s",
            &format!("{width}x{height}"),
            "-framerate",
            &self.rate,
        ]);
        c.args(["-i", "pipe:0"]);
        if let Some(src) = &self.source {
            c.arg("-i").arg(src);
        }
        c.args(["-map", "0:v:0"]);
        if self.source.is_some() {
            if let Some(a) = self.audio {
                c.args(["-map", "1:a?", "-c:a", a]);
            }
            if let Some(sub) = self.subtitles {
                c.args(["-map", "1:s?", "-c:s", sub]);
            }
            c.args(["-map_metadata", "1", "-map_chapters", "1"]);
        }
        if let Some(codec) = &self.codec {
            c.args(["-c:v", codec]);
        }
        if let Some(crf) = self.crf {
            c.args(["-crf", &crf.to_string()]);
            // libvpx reads -crf as a cap unless the bit rate is 0 (constant quality)
            if self
                .codec
                .as_deref()
                .is_some_and(|c| c.starts_with("libvpx"))
            {
                c.args(["-b:v", "0"]);
            }
        }
        if let Some(p) = &self.pix_fmt {
            c.args(["-pix_fmt", p]);
        }
        for (k, v) in &self.colour {
            c.args([*k, v.as_str()]);
        }
        c.arg(&self.tmp);
        c.stdin(Stdio::piped()).stdout(Stdio::null());
        c
    }

    /// The encoder's failure as one line, with the final name (not the temporary one).
    fn explain(&self, why: String) -> anyhow::Error {
        if why.contains("Unable to find a suitable output format")
            || why.contains("Unable to choose an output format")
        {
            return anyhow!("ffmpeg cannot write `{}`: no video format has this extension (use .mp4, .mkv, .webm, .mov, .avi)", self.output.display());
        }
        let tmp = self.tmp.display().to_string();
        anyhow!(
            "encoding `{}` failed: {}",
            self.output.display(),
            why.replace(&tmp, &self.output.display().to_string())
        )
    }
}

impl Sink<'_> {
    fn put(&mut self, k: usize, out: &Out) -> Result<()> {
        match (self, out) {
            (Sink::Lines { out, tmp, fps, csv }, Out::Data(d)) => {
                // {"frame": k, "time": seconds, ...the data's own fields}
                let mut line = serde_json::Map::new();
                line.insert("frame".into(), k.into());
                line.insert(
                    "time".into(),
                    serde_json::json!((k as f64 / *fps * 1e6).round() / 1e6),
                );
                match crate::analyze::data_json(d) {
                    serde_json::Value::Object(fields) => line.extend(fields),
                    other => {
                        line.insert("data".into(), other);
                    }
                }
                let what = tmp
                    .as_ref()
                    .map_or("stdout".to_string(), |(_, f)| format!("`{}`", f.display()));
                match csv {
                    None => writeln!(out, "{}", serde_json::Value::Object(line)),
                    Some(columns) => {
                        if columns.is_empty() {
                            // frame and time first, then the data's fields (in name order)
                            columns.extend(["frame".to_string(), "time".to_string()]);
                            columns.extend(
                                line.keys()
                                    .filter(|k| *k != "frame" && *k != "time")
                                    .cloned(),
                            );
                            writeln!(
                                out,
                                "{}",
                                columns
                                    .iter()
                                    .map(|c| csv_cell(&serde_json::Value::String(c.clone())))
                                    .collect::<Vec<_>>()
                                    .join(",")
                            )
                            .with_context(|| format!("writing data to {what}"))?;
                        }
                        let row: Vec<String> = columns
                            .iter()
                            .map(|c| line.get(c).map_or(String::new(), csv_cell))
                            .collect();
                        writeln!(out, "{}", row.join(","))
                    }
                }
                .with_context(|| format!("writing data to {what}"))
            }
            (sink @ (Sink::Encode { .. } | Sink::Stdout), Out::Frame(f)) => sink.write(f),
            _ => bail!("the pipeline's result changed kind between frames"),
        }
    }

    fn write(&mut self, frame: &Frame) -> Result<()> {
        match self {
            Sink::Lines { .. } => bail!("a frame where data was expected"),
            Sink::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(frame.bytes())
                    .context("writing frames to stdout")?;
                Ok(())
            }
            Sink::Encode { plan, running } => {
                if running.is_none() {
                    let mut p = Proc::spawn(plan.command(), "ffmpeg")?;
                    let stdin = p
                        .child
                        .stdin
                        .take()
                        .ok_or_else(|| anyhow!("ffmpeg's stdin is not a pipe"))?;
                    widen_pipe(&stdin);
                    *running = Some((p, stdin));
                }
                let Some((p, stdin)) = running.as_mut() else {
                    bail!("the encoder did not start")
                };
                if stdin.write_all(frame.bytes()).is_err() {
                    // the encoder quit: its own message says why
                    let why = p
                        .wait()
                        .err()
                        .unwrap_or_else(|| "ffmpeg stopped reading frames".into());
                    return Err(plan.explain(why));
                }
                Ok(())
            }
        }
    }

    /// Closes the encoder's input and waits for it; the file is then complete.
    fn finish(&mut self) -> Result<()> {
        match self {
            Sink::Stdout => std::io::stdout()
                .flush()
                .context("writing frames to stdout"),
            Sink::Lines { out, tmp, .. } => {
                out.flush().context("writing data")?;
                if let Some((tmp, path)) = tmp {
                    std::fs::rename(&*tmp, &*path).with_context(|| {
                        format!(
                            "cannot move the finished data into place as `{}`",
                            path.display()
                        )
                    })?;
                }
                Ok(())
            }
            Sink::Encode { plan, running } => {
                let Some((mut p, stdin)) = running.take() else {
                    bail!("no frames to encode")
                };
                drop(stdin); // end of input: ffmpeg finishes the file
                p.wait().map_err(|why| plan.explain(why))
            }
        }
    }

    /// Stops the encoder, if any, and removes what it wrote.
    fn abort(&mut self) {
        match self {
            Sink::Encode { plan, running } => {
                if let Some((mut p, stdin)) = running.take() {
                    drop(stdin);
                    p.stop();
                }
                let _ = std::fs::remove_file(&plan.tmp);
            }
            Sink::Lines {
                tmp: Some((tmp, _)),
                ..
            } => {
                let _ = std::fs::remove_file(&*tmp);
            }
            _ => {}
        }
    }
}

/// How frames cross the pipes.
#[derive(Clone, Copy, Debug)]
enum Transfer {
    /// RGBA8, 4 bytes per pixel (ffmpeg converts).
    Rgba,
    /// I420, 1.5 bytes per pixel, converted to and from RGBA on the GPU; `pix_fmt` is ffmpeg's
    /// name of the layout (`yuv420p`, or `yuvj420p` for full range, the same bytes).
    Yuv420 {
        matrix: YuvMatrix,
        range: YuvRange,
        pix_fmt: &'static str,
    },
}

impl Transfer {
    fn pix_fmt(&self) -> &'static str {
        match self {
            Transfer::Rgba => "rgba",
            Transfer::Yuv420 { pix_fmt, .. } => pix_fmt,
        }
    }
    fn frame_bytes(&self, w: u32, h: u32) -> usize {
        match self {
            Transfer::Rgba => w as usize * h as usize * 4,
            Transfer::Yuv420 { .. } => i420_len(w, h),
        }
    }
}

/// `frame` (RGBA8) as bytes of a `w`x`h` frame, the last column and row repeated into the padding.
fn pad(frame: &Image, w: u32, h: u32) -> std::borrow::Cow<'_, [u8]> {
    let (fw, fh) = (frame.width() as usize, frame.height() as usize);
    let (w, h) = (w as usize, h as usize);
    let src = frame.as_u8();
    if (w, h) == (fw, fh) {
        return std::borrow::Cow::Borrowed(src);
    }
    let mut out = Vec::with_capacity(w * h * 4);
    for y in 0..h {
        let row = &src[y.min(fh - 1) * fw * 4..][..fw * 4];
        out.extend_from_slice(row);
        let last = &row[(fw - 1) * 4..];
        for _ in fw..w {
            out.extend_from_slice(last);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Stops the decoder and the encoder and removes the partial file; returns `e`.
fn abort(sink: &mut Sink<'_>, decoder: &mut Option<Proc>, e: anyhow::Error) -> anyhow::Error {
    if let Some(d) = decoder.as_mut() {
        d.stop();
    }
    sink.abort();
    e
}

/// Whether the pipeline runs on the CPU: the reference implementation or a software adapter.
fn software(be: &Backend) -> bool {
    match be {
        Backend::Gpu(g) => g.info().device_type == "Cpu",
        Backend::Cpu => true,
    }
}

/// A hidden name beside `output` that keeps its extension (ffmpeg picks the format by it).
fn temporary(output: &Path) -> PathBuf {
    let name = output.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let e = output.extension().and_then(|e| e.to_str()).unwrap_or("mp4");
    output.with_file_name(format!(".{name}.texelflow-{}.{e}", std::process::id()))
}

/// Runs a video job; `backend` opens the device (while ffprobe reads the input).
pub fn run(o: &Options<'_>, backend: &(dyn Fn() -> Backend + Sync), spec: &str) -> Result<()> {
    // Ctrl-C (from here on): stop taking frames; the cleanup at the end removes the partial
    // file. Only one handler can be installed per process, hence the `let _`.
    let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));
    let stdin_in = o.input.as_os_str() == "-";
    // `-` as the output: raw frames on stdout, or with --data, JSON lines there
    let stdout_out = !o.data && o.output.as_os_str() == "-";
    let data_stdout = o.data && o.output.as_os_str() == "-";
    if (stdin_in || stdout_out) && !o.raw {
        bail!("`-` as input or output reads or writes raw RGBA frames: add `-f rawvideo` (and `--size WxH` for raw input)");
    }
    if o.raw && !stdin_in && !stdout_out {
        bail!("-f rawvideo concerns `-` (stdin or stdout): give `-` as the input or the output");
    }
    if !stdout_out && !data_stdout {
        let e = ext(o.output);
        if !o.data && IMAGE_EXTENSIONS.contains(&e.as_str()) {
            bail!("`{}` is an image; a video goes to a video file (.mp4, .mkv, .webm, .mov, .avi) or to `-` with -f rawvideo", o.output.display());
        }
        if !stdin_in && crate::same_file(o.input, o.output) {
            bail!(
                "refusing to overwrite the input `{}`; choose another output path",
                o.input.display()
            );
        }
        if o.output.exists() && o.no_clobber {
            bail!("`{}` exists (--no-clobber)", o.output.display());
        }
    }
    if !stdin_in && IMAGE_EXTENSIONS.contains(&ext(o.input).as_str()) {
        bail!(
            "`{}` is an image; a video output needs a video input (or `-` with -f rawvideo)",
            o.input.display()
        );
    }
    let rate_arg = match &o.fps {
        Some(r) => {
            parse_rate(r).ok_or_else(|| {
                anyhow!("--fps `{r}`: give a positive frame rate such as 25, 29.97 or 30000/1001")
            })?;
            Some(r.clone())
        }
        None => None,
    };
    let codec = o
        .codec
        .clone()
        .or_else(|| default_codec(&ext(o.output)).map(str::to_string));
    if !stdout_out && !o.data {
        // one clear line for a codec this ffmpeg lacks (also says when ffmpeg is missing)
        if let Some(c) = &codec {
            if !encoders()?.iter().any(|e| e == c) {
                bail!("unknown codec `{c}`: this ffmpeg has no such encoder (`ffmpeg -encoders` lists them; e.g. libx264, libx265, libvpx-vp9, ffv1)");
            }
        }
    }

    // the input: its probe (ffprobe) and the GPU start overlap
    let (be, probed) = std::thread::scope(|s| {
        let gpu = s.spawn(backend);
        let probed = if stdin_in {
            o.size
                .ok_or_else(|| anyhow!("raw input needs --size WxH (RGBA8 frames)"))
                .map(|(w, h)| {
                    let rate = rate_arg.clone().unwrap_or_else(|| "25".into());
                    let fps = parse_rate(&rate).unwrap_or(25.0);
                    Probe {
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
                    }
                })
        } else {
            probe(o.input)
        };
        (gpu.join(), probed)
    });
    let be = be.map_err(|_| anyhow!("GPU initialisation panicked"))?;
    let info = probed?;
    let mut pipeline = Pipeline::parse(spec, &mut |p: &str| Image::open(p))?;
    // frames of a format without alpha (yuv420p, the usual case) are opaque: premultiplying them
    // around averaging filters would change nothing and cost two passes a frame
    let alpha = [
        "yuva", "rgba", "bgra", "argb", "abgr", "gbrap", "ya8", "ya16", "pal8",
    ]
    .iter()
    .any(|p| info.pix_fmt.starts_with(p));
    pipeline.set_straight_alpha(!alpha);
    // One run on a black frame of the input's size before any decoding: a pipeline that ends
    // in data or fails at this size says so in one line, the kernels compile here once, and
    // the output's size is known before the encoder starts.
    let (ow, oh) = match (pipeline.run_with(&be, &Image::zeroed(texelflow::ImageDesc::new(info.width, info.height, PixelFormat::Rgba8)), &crate::run_options())?.take("output").ok_or_else(|| anyhow::anyhow!("the pipeline gave no output"))?, o.data) {
        (Value::Image(i), false) => (i.width(), i.height()),
        (Value::Data(_), true) => (1, 1),
        (Value::Data(_), false) => bail!("the pipeline ends in data, not an image: write it per frame with `--data FILE.jsonl` (or `--data -`) instead of OUT"),
        (Value::Image(_), true) => bail!("the pipeline ends in an image, not data; --data needs a pipeline ending in data (e.g. `... | reduce`), and a video needs IN OUT"),
    };
    let out_pix_fmt = o
        .pix_fmt
        .clone()
        .or_else(|| default_pix_fmt(codec.as_deref(), &ext(o.output)).map(str::to_string));

    // I420 across both pipes where input and output are 4:2:0 (1.5 bytes a pixel, converted
    // on the GPU in the input's matrix and range), else RGBA with ffmpeg converting
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
    let transfer = match o.transfer.as_str() {
        "rgba" => Transfer::Rgba,
        "yuv420p" if files => yuv(),
        "yuv420p" => bail!("--transfer yuv420p needs video files on both sides (raw frames on stdin/stdout are RGBA)"),
        // On the CPU reference or a software adapter (lavapipe), ffmpeg's SIMD conversion is
        // cheaper than emulated kernels: a 720p clip took twice as long with I420 frames as with
        // RGBA ones on lavapipe.
        _ if files && is420(&info.pix_fmt) && out420 && !software(&be) => yuv(),
        _ => Transfer::Rgba,
    };
    // the frame size on the encoder's pipe: even where the pixel format subsamples chroma
    let even = if stdout_out || o.data {
        (1, 1)
    } else {
        subsampling(out_pix_fmt.as_deref().unwrap_or(""))
    };
    let (pw, ph) = (ow.div_ceil(even.0) * even.0, oh.div_ceil(even.1) * even.1);
    if (pw, ph) != (ow, oh) {
        eprintln!("texelflow: note: {ow}x{oh} frames padded to {pw}x{ph} by repeating the last column/row: {} needs sides that are multiples of {}x{}", out_pix_fmt.as_deref().unwrap_or(""), even.0, even.1);
    }
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

    let out_rate = rate_arg.clone().unwrap_or_else(|| info.rate.clone());
    // the decoder (or stdin)
    let mut decoder = None;
    let src: Box<dyn Read + Send> = if stdin_in {
        Box::new(std::io::stdin())
    } else {
        let mut c = command("ffmpeg");
        c.args(["-hide_banner", "-nostdin", "-v", "error", "-i"])
            .arg(o.input)
            .args(["-map", "0:v:0"]);
        // frames at exactly the rate the encoder stamps them with: a constant-rate input passes
        // as it is; a variable-rate one (or --fps) gets frames repeated or dropped by ffmpeg,
        // which keeps the duration and the sync with the audio
        c.args(["-vf", &format!("fps={out_rate}")]);
        c.args(["-f", "rawvideo", "-pix_fmt", transfer.pix_fmt(), "pipe:1"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped());
        let mut p = Proc::spawn(c, "ffmpeg")?;
        let out = p
            .child
            .stdout
            .take()
            .ok_or_else(|| anyhow!("ffmpeg's stdout is not a pipe"))?;
        widen_pipe(&out);
        decoder = Some(p);
        Box::new(out)
    };
    let out_fps = parse_rate(&out_rate).unwrap_or(info.fps);
    // frames to come: the duration at the output rate (the container's count, where it has
    // no duration, counts a variable-rate input's frames before the rate is made constant)
    let expected = match (&rate_arg, info.duration, info.frames) {
        (_, Some(d), _) => Some((d * out_fps).round() as u64),
        (None, None, Some(n)) => Some(n),
        _ => None,
    };

    let plan = EncodePlan {
        output: o.output.to_path_buf(),
        tmp: temporary(o.output),
        rate: out_rate,
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
            .filter(|(_, v)| matches!(v.as_str(), "bt709" | "smpte170m" | "bt470bg" | "tv" | "pc"))
            .map(|(k, v)| (k, v.clone()))
            .collect(),
            Transfer::Rgba => Vec::new(),
        },
        source: (!stdin_in).then(|| o.input.to_path_buf()),
        audio: if !info.audio || NO_AUDIO.contains(&ext(o.output).as_str()) {
            None
        } else if ext(o.output) == "webm"
            && info
                .audio_codecs
                .iter()
                .any(|c| c != "opus" && c != "vorbis")
        {
            // WebM holds Opus or Vorbis only: the one case where the audio cannot be copied
            eprintln!("texelflow: note: the audio ({}) is re-encoded as Opus: WebM holds only Opus or Vorbis audio", info.audio_codecs.join(", "));
            Some("libopus")
        } else {
            Some("copy")
        },
        subtitles: subtitle_plan(&ext(o.output), &info.subtitle_codecs),
        pix_fmt: out_pix_fmt,
        codec,
        crf: o.crf,
    };
    let mut sink = if o.data {
        let (out, tmp): (Box<dyn Write + Send>, _) = if data_stdout {
            (Box::new(std::io::stdout()), None)
        } else {
            let tmp = temporary(o.output);
            let f = std::fs::File::create(&tmp)
                .with_context(|| format!("cannot write `{}`", o.output.display()))?;
            (
                Box::new(std::io::BufWriter::new(f)),
                Some((tmp, o.output.to_path_buf())),
            )
        };
        // `.csv`: one row per frame under a header; otherwise JSON lines
        let csv = (!data_stdout && ext(o.output) == "csv").then(Vec::new);
        Sink::Lines {
            out,
            tmp,
            fps: out_fps,
            csv,
        }
    } else if stdout_out {
        Sink::Stdout
    } else {
        Sink::Encode {
            plan: &plan,
            running: None,
        }
    };

    let bar = ProgressBar::with_draw_target(
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
        bar.set_style(style);
    }

    let stop = AtomicBool::new(false);
    let read_error = Mutex::new(None);
    let frames = Frames {
        src,
        bytes: transfer.frame_bytes(info.width, info.height),
        stop: &stop,
        error: &read_error,
    };
    let (w, h) = (info.width, info.height);
    let mut failure: Option<anyhow::Error> = None;
    let mut written = 0u64;
    let started = std::time::Instant::now();
    let mut notes: Vec<String> = Vec::new();
    // Temporal filters (low_pass, motion_detector, ...) carry state from frame to frame: their
    // frames are submitted in order (still several in flight); other pipelines need no order.
    let sequence = pipeline
        .graph(&Image::zeroed(texelflow::ImageDesc::new(
            info.width,
            info.height,
            PixelFormat::Rgba8,
        )))?
        .0
        .has_state()
        .then(texelflow::Sequence::new);
    let work = |(k, bytes): (usize, Vec<u8>)| -> texelflow::Result<(Out, Vec<String>)> {
        let img = match transfer {
            Transfer::Rgba => Image::from_u8(w, h, PixelFormat::Rgba8, bytes),
            Transfer::Yuv420 { .. } => pack_i420(w, h, bytes),
        };
        let mut r = match (&sequence, img) {
            (None, img) => full.run_with(&be, &img?, &crate::run_options())?,
            (Some(seq), Ok(img)) => {
                full.run_frame_with(&be, &img, &crate::run_options(), seq, k as u64)?
            }
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
            None => {
                return Err(texelflow::Error::Graph(
                    "the pipeline produced no output".into(),
                ))
            }
        };
        let frame = match transfer {
            Transfer::Yuv420 { .. } => Frame {
                img: out,
                len: i420_len(pw, ph),
            },
            Transfer::Rgba => {
                if (out.width(), out.height()) != (ow, oh) {
                    return Err(texelflow::Error::Graph(format!(
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
    texelflow::graph::stream(
        frames.enumerate(),
        work,
        o.jobs.max(1),
        |k, result: texelflow::Result<(Out, Vec<String>)>| {
            if failure.is_some() {
                return;
            }
            let done = result
                .map_err(|e| anyhow!("frame {k}: {e}"))
                .and_then(|(img, n)| {
                    for note in n {
                        if !notes.contains(&note) {
                            notes.push(note);
                        }
                    }
                    sink.put(k, &img)
                });
            match done {
                Ok(()) => {
                    written += 1;
                    bar.inc(1);
                    bar.set_message(format!(
                        "{:.1} fps",
                        written as f64 / started.elapsed().as_secs_f64().max(1e-3)
                    ));
                }
                Err(e) => {
                    failure = Some(e);
                    stop.store(true, Ordering::Relaxed);
                }
            }
        },
    );
    bar.finish_and_clear();
    for note in &notes {
        eprintln!("texelflow: note: {note}");
    }

    // what went wrong first: a frame, Ctrl-C, reading frames, the decoder
    if let Some(e) = failure {
        return Err(abort(&mut sink, &mut decoder, e));
    }
    if INTERRUPTED.load(Ordering::SeqCst) {
        let what = if stdout_out || data_stdout {
            String::new()
        } else {
            format!("; `{}` not written", o.output.display())
        };
        return Err(abort(
            &mut sink,
            &mut decoder,
            anyhow!("interrupted after {written} frames{what}"),
        ));
    }
    if let Some(d) = decoder.as_mut() {
        if let Err(why) = d.wait() {
            return Err(abort(
                &mut sink,
                &mut None,
                anyhow!("decoding `{}` failed: {why}", o.input.display()),
            ));
        }
        // ffmpeg ends a truncated or damaged file with status 0 after error lines: fail when
        // frames are missing too (isolated glitches in a complete file only get a note)
        let lines = d.tail.lines();
        if !lines.is_empty() {
            let why = first_line(&lines, "");
            match expected {
                Some(e) if written + 1 >= e => eprintln!(
                    "texelflow: note: ffmpeg reported while decoding `{}`: {why}",
                    o.input.display()
                ),
                _ => {
                    let of = expected.map(|e| format!(" of {e}")).unwrap_or_default();
                    return Err(abort(&mut sink, &mut None, anyhow!("`{}` is corrupt or truncated: {why} ({written}{of} frames decoded; nothing written)", o.input.display())));
                }
            }
        }
    }
    if let Some(why) = read_error.lock().ok().and_then(|mut e| e.take()) {
        return Err(abort(
            &mut sink,
            &mut decoder,
            anyhow!("`{}`: {why}", o.input.display()),
        ));
    }
    if written == 0 {
        return Err(abort(
            &mut sink,
            &mut decoder,
            anyhow!("no frames could be decoded from `{}`", o.input.display()),
        ));
    }
    if let Err(e) = sink.finish() {
        sink.abort();
        return Err(e);
    }
    if !stdout_out && !o.data {
        std::fs::rename(&plan.tmp, o.output).with_context(|| {
            format!(
                "cannot move the finished video into place as `{}`",
                o.output.display()
            )
        })?;
    }
    // the process ends here: the OS reclaims the device faster than wgpu's teardown
    std::mem::forget(be);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse() {
        assert_eq!(parse_rate("25"), Some(25.0));
        assert!((parse_rate("30000/1001").unwrap() - 29.97).abs() < 0.01);
        assert_eq!(parse_rate("0/0"), None);
        assert_eq!(parse_rate("-3"), None);
        assert_eq!(parse_rate("x"), None);
    }

    #[test]
    fn padding_repeats_the_edge() {
        let img = Image::from_u8(3, 1, PixelFormat::Rgba8, (0..12).collect()).unwrap();
        let p = pad(&img, 4, 2);
        assert_eq!(p.len(), 4 * 2 * 4);
        assert_eq!(&p[12..16], &[8, 9, 10, 11]);
        assert_eq!(&p[16..32], &p[0..16]);
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
