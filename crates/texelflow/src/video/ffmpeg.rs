//! The `ffmpeg` and `ffprobe` programs: probing an input, starting and stopping the children
//! with their stderr followed, the encoder's command line, and the choices made by extension
//! (codec, pixel format, audio, subtitles).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use super::{parse_rate, Context, Probe};
use crate::error::{Error, Result};
use crate::filters::yuv::{i420_len, YuvMatrix, YuvRange};
use crate::graph::Backend;

pub(super) fn ext(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// The encoder used where `--codec` is not given.
pub(super) fn default_codec(ext: &str) -> Option<&'static str> {
    match ext {
        "mp4" | "m4v" | "mov" | "mkv" | "flv" | "ts" | "mts" | "m2ts" | "3gp" => Some("libx264"),
        "webm" => Some("libvpx-vp9"),
        _ => None, // the container's own default (ffmpeg's choice)
    }
}

/// The pixel format used where `--pix-fmt` is not given: 4:2:0, which players expect, for the
/// usual lossy codecs (libx264 would otherwise pick 4:4:4 from RGBA input, which many players
/// cannot play); lossless and RGB codecs (ffv1, libx264rgb, png, ...) keep ffmpeg's choice.
pub(super) fn default_pix_fmt(codec: Option<&str>, ext: &str) -> Option<&'static str> {
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
pub(super) fn subsampling(pix_fmt: &str) -> (u32, u32) {
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

pub(super) fn not_found(tool: &str) -> Error {
    verr!("{tool} not found: install it (apt install ffmpeg, brew install ffmpeg, or a build from ffmpeg.org) and put `{tool}` on PATH; video goes through the ffmpeg program")
}

/// `Command::new(tool)` with the child in a process group of its own: a terminal's Ctrl-C
/// reaches only texelflow, which then stops the children itself and removes the partial file.
pub(super) fn command(tool: &str) -> Command {
    let mut c = Command::new(tool);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        c.process_group(0);
    }
    c
}

pub(super) fn spawn_error(tool: &str, e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::NotFound {
        not_found(tool)
    } else {
        verr!("cannot start {tool}: {e}")
    }
}

/// ffmpeg's message, one line: the first line it printed at `-v error`, without the
/// `[component @ 0x...]` prefix; `fallback` where it printed nothing.
pub(super) fn first_line(lines: &[String], fallback: &str) -> String {
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

pub(super) fn probe(path: &Path) -> Result<Probe> {
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
        vbail!(
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
        .ok_or_else(|| verr!("`{}` has no video stream", path.display()))?;
    let (w, h) = (
        video["width"].as_u64().unwrap_or(0),
        video["height"].as_u64().unwrap_or(0),
    );
    if w == 0 || h == 0 || w > 32768 || h > 32768 {
        vbail!(
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
        (None, None) => vbail!("cannot read `{}` as video: no frame rate", path.display()),
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
pub(super) fn encoders() -> Result<Vec<String>> {
    let out = command("ffmpeg")
        .args(["-hide_banner", "-encoders"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| spawn_error("ffmpeg", e))?;
    // an ffmpeg that cannot start (a missing library, a broken install) lists nothing: say
    // that, not "unknown codec" (issue 29 item 13)
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let why = err.lines().map(str::trim).find(|l| !l.is_empty());
        return Err(Error::Video(format!(
            "ffmpeg fails to start ({}{}): repair or reinstall ffmpeg (`ffmpeg -version` \
             shows the problem)",
            out.status,
            why.map(|w| format!(": {w}")).unwrap_or_default()
        )));
    }
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
pub(super) struct Tail(Arc<Mutex<VecDeque<String>>>);

impl Tail {
    pub(super) fn follow(&self, stderr: impl Read + Send + 'static) -> std::thread::JoinHandle<()> {
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
    pub(super) fn lines(&self) -> Vec<String> {
        self.0
            .lock()
            .map(|l| l.iter().cloned().collect())
            .unwrap_or_default()
    }
}

/// A running child with its stderr followed.
pub(super) struct Proc {
    pub(super) child: Child,
    pub(super) tail: Tail,
    pub(super) reader: Option<std::thread::JoinHandle<()>>,
}

impl Proc {
    pub(super) fn spawn(mut cmd: Command, tool: &str) -> Result<Proc> {
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
    pub(super) fn wait(&mut self) -> Result<(), String> {
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
    pub(super) fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
    }
}

/// How the input's subtitles go into a container with extension `ext`: copied where it holds
/// them, converted where it holds another text format (MP4/MOV: mov_text, WebM: WebVTT), or
/// left out with a note (picture subtitles outside MKV, any in AVI or GIF).
pub(super) fn subtitle_plan(
    ext: &str,
    codecs: &[String],
    note: &mut dyn FnMut(String),
) -> Option<&'static str> {
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
        note(format!(
            "the subtitles ({}) are left out: a .{ext} file cannot hold them (.mkv can)",
            codecs.join(", ")
        ));
    }
    plan
}

/// Frames are megabytes and a pipe holds 64 KiB by default: 1 MiB (the unprivileged maximum)
/// moves a frame in fewer wake-ups of both processes (`bytes`: `VideoOptions::pipe_bytes`).
/// Best effort: the default still works.
pub(super) fn widen_pipe(pipe: &impl std::os::fd::AsRawFd, bytes: Option<i32>) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let bytes = bytes.unwrap_or(1 << 20);
        // SAFETY: fcntl on a file descriptor this process owns; a failure changes nothing
        unsafe {
            libc::fcntl(pipe.as_raw_fd(), libc::F_SETPIPE_SZ, bytes);
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = (pipe, bytes);
}

/// Everything the encoder needs.
pub(super) struct EncodePlan {
    pub(super) output: PathBuf,
    pub(super) tmp: PathBuf,
    pub(super) rate: String,
    /// The frames' size on the pipe (padded where the pixel format needs it).
    pub(super) size: (u32, u32),
    /// `rgba`, or `yuv420p` (converted on the GPU).
    pub(super) transfer: Transfer,
    /// The input's colour tags (`-colorspace`, `-color_range`) where it had them.
    pub(super) colour: Vec<(&'static str, String)>,
    /// The original file, for its audio, metadata and chapters.
    pub(super) source: Option<PathBuf>,
    /// The audio's encoder: `copy` (untouched), or one the container needs.
    pub(super) audio: Option<&'static str>,
    /// The subtitles' encoder: `copy`, or the text format the container holds.
    pub(super) subtitles: Option<&'static str>,
    pub(super) codec: Option<String>,
    pub(super) crf: Option<u8>,
    pub(super) pix_fmt: Option<String>,
    /// The pipe's size (`VideoOptions::pipe_bytes`).
    pub(super) pipe_bytes: Option<i32>,
}

impl EncodePlan {
    pub(super) fn command(&self) -> Command {
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
    pub(super) fn explain(&self, why: String) -> Error {
        if why.contains("Unable to find a suitable output format")
            || why.contains("Unable to choose an output format")
        {
            return verr!("ffmpeg cannot write `{}`: no video format has this extension (use .mp4, .mkv, .webm, .mov, .avi)", self.output.display());
        }
        let tmp = self.tmp.display().to_string();
        verr!(
            "encoding `{}` failed: {}",
            self.output.display(),
            why.replace(&tmp, &self.output.display().to_string())
        )
    }
}

/// How frames cross the pipes.
#[derive(Clone, Copy, Debug)]
pub(super) enum Transfer {
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
    pub(super) fn pix_fmt(&self) -> &'static str {
        match self {
            Transfer::Rgba => "rgba",
            Transfer::Yuv420 { pix_fmt, .. } => pix_fmt,
        }
    }
    pub(super) fn frame_bytes(&self, w: u32, h: u32) -> usize {
        match self {
            Transfer::Rgba => w as usize * h as usize * 4,
            Transfer::Yuv420 { .. } => i420_len(w, h),
        }
    }
}

/// Whether the pipeline runs on the CPU: the reference implementation or a software adapter.
pub(super) fn software(be: &Backend) -> bool {
    match be {
        Backend::Gpu(g) => g.info().device_type == "Cpu",
        Backend::Cpu => true,
    }
}

/// A hidden name beside `output` that keeps its extension (ffmpeg picks the format by it).
pub(super) fn temporary(output: &Path) -> PathBuf {
    let name = output.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let e = output.extension().and_then(|e| e.to_str()).unwrap_or("mp4");
    output.with_file_name(format!(".{name}.texelflow-{}.{e}", std::process::id()))
}
