//! Frames in (from a pipe) and results out (to the encoder, stdout, or data lines per frame).

use std::io::{Read, Write};
use std::process::ChildStdin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use super::ffmpeg::{widen_pipe, EncodePlan, Proc};
use crate::error::{Error, Result};
use crate::image::Image;
use crate::io::output::Output;

/// Frames read from a pipe, exactly `bytes` each; stops at the end, on a read error (kept in
/// `error`), when `stop` is set (a later stage failed) and when `cancel` is (Ctrl-C).
pub(super) struct Frames<'a> {
    pub(super) src: Box<dyn Read + Send + 'a>,
    pub(super) bytes: usize,
    pub(super) stop: &'a AtomicBool,
    pub(super) error: &'a Mutex<Option<String>>,
    pub(super) cancel: Option<&'a AtomicBool>,
}

impl Iterator for Frames<'_> {
    type Item = Vec<u8>;
    fn next(&mut self) -> Option<Vec<u8>> {
        if self.stop.load(Ordering::Relaxed)
            || self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
        {
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
pub(super) struct Frame {
    pub(super) img: Image,
    pub(super) len: usize,
}

impl Frame {
    pub(super) fn bytes(&self) -> &[u8] {
        &self.img.as_u8()[..self.len.min(self.img.as_u8().len())]
    }
}

/// What the pipeline made of one frame.
pub(super) enum Out {
    Frame(Frame),
    /// Boxed: a `Data` (a histogram) is a hundred times a `Frame`'s size.
    Data(Box<crate::value::Data>),
}

/// Where results go: an `ffmpeg` encoding into a temporary file (started with the first
/// frame), raw RGBA8 frames on stdout, or one JSON line per frame (`--data`) into a temporary
/// file (renamed when complete) or stdout.
pub(super) enum Sink<'a> {
    Encode {
        plan: &'a EncodePlan,
        running: Option<(Proc, ChildStdin)>,
    },
    Stdout,
    /// One record per frame: JSON lines, or CSV rows (`csv`: the header, once the first
    /// record gives the columns).
    Lines {
        /// `None` once finished or aborted (the temporary, if any, is then gone or in place).
        out: Option<std::io::BufWriter<Output>>,
        fps: f64,
        csv: Option<Vec<String>>,
        /// The output in messages: `stdout` or the path in backquotes.
        what: String,
    },
}

/// A failed write of `what`: [`Error::OutputClosed`] where its reader went away (a closed pipe,
/// `... | head`), else one line naming it.
pub(super) fn write_error(e: std::io::Error, what: &str, path: &str) -> Error {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Error::OutputClosed { path: path.into() }
    } else {
        verr!("writing {what}: {e}")
    }
}

/// One CSV cell: numbers and booleans as they are, null empty, text and anything nested (a
/// histogram's lists) as JSON text in quotes (RFC 4180: inner quotes doubled).
pub(super) fn csv_cell(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::Number(n) => n.to_string(),
        serde_json::Value::Bool(b) => b.to_string(),
        serde_json::Value::String(t) => format!("\"{}\"", t.replace('"', "\"\"")),
        other => format!("\"{}\"", other.to_string().replace('"', "\"\"")),
    }
}

impl Sink<'_> {
    pub(super) fn put(&mut self, k: usize, out: &Out) -> Result<()> {
        match (self, out) {
            (
                Sink::Lines {
                    out: Some(out),
                    fps,
                    csv,
                    what,
                },
                Out::Data(d),
            ) => {
                // {"frame": k, "time": seconds, ...the data's own fields}
                let mut line = serde_json::Map::new();
                line.insert("frame".into(), k.into());
                line.insert(
                    "time".into(),
                    serde_json::json!((k as f64 / *fps * 1e6).round() / 1e6),
                );
                match crate::json::data_json(d) {
                    serde_json::Value::Object(fields) => line.extend(fields),
                    other => {
                        line.insert("data".into(), other);
                    }
                }
                let what = format!("data to {what}");
                let path = out.get_ref().shown().display().to_string();
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
                            .map_err(|e| write_error(e, &what, &path))?;
                        }
                        let row: Vec<String> = columns
                            .iter()
                            .map(|c| line.get(c).map_or(String::new(), csv_cell))
                            .collect();
                        writeln!(out, "{}", row.join(","))
                    }
                }
                .map_err(|e| write_error(e, &what, &path))
            }
            (sink @ (Sink::Encode { .. } | Sink::Stdout), Out::Frame(f)) => sink.write(f),
            _ => vbail!("the pipeline's result changed kind between frames"),
        }
    }

    pub(super) fn write(&mut self, frame: &Frame) -> Result<()> {
        match self {
            Sink::Lines { .. } => vbail!("a frame where data was expected"),
            Sink::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(frame.bytes())
                    .map_err(|e| write_error(e, "frames to stdout", "-"))?;
                Ok(())
            }
            Sink::Encode { plan, running } => {
                if running.is_none() {
                    let mut p = Proc::spawn(plan.command(), "ffmpeg")?;
                    let stdin = p
                        .child
                        .stdin
                        .take()
                        .ok_or_else(|| verr!("ffmpeg's stdin is not a pipe"))?;
                    widen_pipe(&stdin, plan.pipe_bytes);
                    *running = Some((p, stdin));
                }
                let Some((p, stdin)) = running.as_mut() else {
                    vbail!("the encoder did not start")
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
    pub(super) fn finish(&mut self) -> Result<()> {
        match self {
            Sink::Stdout => std::io::stdout()
                .flush()
                .map_err(|e| write_error(e, "frames to stdout", "-")),
            Sink::Lines { out, what, .. } => {
                let Some(out) = out.take() else {
                    vbail!("the data output was closed")
                };
                let out = out
                    .into_inner()
                    .map_err(|e| write_error(e.into_error(), &format!("data to {what}"), "-"))?;
                out.commit().map_err(|e| match e {
                    Error::OutputClosed { .. } => e,
                    e => verr!("cannot move the finished data into place: {e}"),
                })
            }
            Sink::Encode { plan, running } => {
                let Some((mut p, stdin)) = running.take() else {
                    vbail!("no frames to encode")
                };
                drop(stdin); // end of input: ffmpeg finishes the file
                p.wait().map_err(|why| plan.explain(why))
            }
        }
    }

    /// Stops the encoder, if any, and removes what it wrote.
    pub(super) fn abort(&mut self) {
        match self {
            Sink::Encode { plan, running } => {
                if let Some((mut p, stdin)) = running.take() {
                    drop(stdin);
                    p.stop();
                }
                let _ = std::fs::remove_file(&plan.tmp);
            }
            Sink::Lines { out, .. } => {
                // dropped uncommitted: the temporary, if any, is removed
                drop(out.take());
            }
            _ => {}
        }
    }
}

/// `frame` (RGBA8) as bytes of a `w`x`h` frame, the last column and row repeated into the padding.
pub(super) fn pad(frame: &Image, w: u32, h: u32) -> std::borrow::Cow<'_, [u8]> {
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
pub(super) fn abort(sink: &mut Sink<'_>, decoder: &mut Option<Proc>, e: Error) -> Error {
    if let Some(d) = decoder.as_mut() {
        d.stop();
    }
    sink.abort();
    e
}
