//! One way to write every output (images, video, data, reports): what is at the path is
//! checked first, and only a regular file is ever replaced.
//!
//! - A regular file (or nothing yet): written under a temporary name beside it
//!   (`.NAME.texelflow-PID-N.tmp`) and renamed over it when complete, so a failure leaves no
//!   partial file. With `no_clobber` the rename refuses to replace a file that appeared in the
//!   meantime (`renameat2(RENAME_NOREPLACE)`, else `link` + `unlink`): of concurrent writers
//!   exactly one wins and the others get [`Error::OutputExists`].
//! - A symbolic link to a regular file: its target is written as above (the link stays).
//! - A FIFO or a character device (`/dev/null`, `/dev/stdout`, a terminal) and `-` (standard
//!   output), where the caller allows them (`OutputOptions::special_files`: text and data,
//!   not images): written into directly, never replaced.
//! - Anything else (a folder, a socket, a block device, a dangling link): refused in one line.
//!
//! Temporary files live in a registry until renamed or removed: [`remove_temporaries`] (for a
//! signal handler) removes those of the process; stale ones of processes that died (killed)
//! are swept from a folder the first time the process writes into it.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use crate::error::{Error, Result};

/// How an output may be written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OutputOptions {
    /// Fail with [`Error::OutputExists`] where the output exists, checked at the final rename
    /// too (so of writers racing for one path exactly one wins).
    pub no_clobber: bool,
    /// Accept a FIFO, a character device or `-` (standard output), written into directly
    /// (text and data; an image is written to regular files only).
    pub special_files: bool,
}

/// Where an output goes, as [`check_output`] found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputTarget {
    /// A regular file (or none yet) at this path (a link's target, resolved): written under a
    /// temporary name and renamed over it.
    File(PathBuf),
    /// A FIFO or character device: written into directly.
    Special(PathBuf),
    /// `-`: standard output.
    Stdout,
}

fn io_error(path: &Path, message: impl Into<String>) -> Error {
    Error::Output {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// What `path` is and where writing it goes; an error (one line) where it may not be written:
/// a folder, socket or block device, a dangling link, a missing folder, a FIFO or device where
/// `options.special_files` is off, or an existing file with `options.no_clobber`.
pub fn check_output(path: &Path, options: OutputOptions) -> Result<OutputTarget> {
    if path.as_os_str() == "-" {
        if options.special_files {
            return Ok(OutputTarget::Stdout);
        }
        return Err(io_error(
            path,
            "`-` (standard output) takes data, not images; give a file name",
        ));
    }
    let special = |what: &str| {
        if options.special_files {
            Ok(OutputTarget::Special(path.to_path_buf()))
        } else {
            Err(io_error(
                path,
                format!("is a {what}; images and videos are written to regular files only"),
            ))
        }
    };
    let link = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let dir = folder_of(path);
            return match std::fs::metadata(dir) {
                Ok(m) if m.is_dir() => Ok(OutputTarget::File(path.to_path_buf())),
                Ok(_) => Err(io_error(
                    path,
                    format!("`{}` is not a folder", dir.display()),
                )),
                Err(_) => Err(io_error(
                    path,
                    format!(
                        "the folder `{}` does not exist; create it first",
                        dir.display()
                    ),
                )),
            };
        }
        Err(e) => return Err(io_error(path, e.to_string())),
    };
    let meta = if link.file_type().is_symlink() {
        std::fs::metadata(path).map_err(|_| {
            io_error(
                path,
                "is a symbolic link to nothing; remove it or write elsewhere",
            )
        })?
    } else {
        link.clone()
    };
    let t = meta.file_type();
    if t.is_file() {
        if options.no_clobber {
            return Err(Error::OutputExists {
                path: path.to_path_buf(),
            });
        }
        let target = if link.file_type().is_symlink() {
            std::fs::canonicalize(path).map_err(|e| io_error(path, e.to_string()))?
        } else {
            path.to_path_buf()
        };
        return Ok(OutputTarget::File(target));
    }
    let what = kind_of(&t);
    if what == "FIFO" || what == "character device" {
        return special(what);
    }
    Err(io_error(
        path,
        format!("is a {what}; refusing to write it (give a file name)"),
    ))
}

/// What a file type is, in words.
fn kind_of(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "FIFO";
        }
        if t.is_char_device() {
            return "character device";
        }
        if t.is_socket() {
            return "socket";
        }
        if t.is_block_device() {
            return "block device";
        }
    }
    if t.is_dir() {
        "folder"
    } else {
        "special file"
    }
}

/// The folder a file at `path` is in (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The temporaries of this process not yet renamed into place or removed; `closed` once
/// [`remove_temporaries`] ran (the process is ending: no new ones).
struct Registry {
    live: Vec<PathBuf>,
    closed: bool,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    live: Vec::new(),
    closed: false,
});

/// Folders already swept of stale temporaries by this process.
static SWEPT: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
}

/// Removes every temporary output file of this process and refuses new ones: for a signal
/// handler (Ctrl-C, SIGTERM) that is about to end the process. Returns how many were removed.
pub fn remove_temporaries() -> usize {
    let mut r = registry();
    r.closed = true;
    let live = std::mem::take(&mut r.live);
    live.iter()
        .filter(|p| std::fs::remove_file(p).is_ok())
        .count()
}

/// A fresh temporary path beside `path` ending in `.ext` (`tmp` for most; a video keeps its
/// extension, by which ffmpeg picks the container): `.NAME.texelflow-PID-N.EXT`, cut to fit
/// NAME_MAX (with a hash of the whole name keeping two long names apart).
pub fn temporary_path(path: &Path, ext: &str) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = folder_of(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let suffix = format!(".texelflow-{}-{n}.{ext}", std::process::id());
    if 1 + name.len() + suffix.len() <= NAME_MAX {
        return dir.join(format!(".{name}{suffix}"));
    }
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    name.hash(&mut h);
    let tag = format!("~{:016x}", h.finish());
    let mut keep = NAME_MAX.saturating_sub(1 + suffix.len() + tag.len());
    while !name.is_char_boundary(keep) {
        keep -= 1;
    }
    dir.join(format!(".{}{tag}{suffix}", &name[..keep]))
}

/// The longest file name most file systems take, in bytes.
const NAME_MAX: usize = 255;

/// The process id in a temporary's name (`.NAME.texelflow-PID[-N].EXT`), if it is one.
fn temporary_pid(name: &str) -> Option<u32> {
    if !name.starts_with('.') {
        return None;
    }
    let at = name.rfind(".texelflow-")?;
    let rest = &name[at + ".texelflow-".len()..];
    let (id, ext) = rest.split_once('.')?;
    if ext.is_empty() || ext.contains('.') {
        return None;
    }
    let pid = id.split_once('-').map_or(id, |(p, _)| p);
    let counter_ok = id
        .split_once('-')
        .is_none_or(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    if !counter_ok || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Temporaries older than this whose process is gone are stale (younger ones may belong to a
/// process of another PID namespace sharing the folder).
pub const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes from `dir` the temporaries (`.NAME.texelflow-PID-N.EXT`) of processes that no longer
/// run (killed before they could clean up) and untouched for [`STALE_AFTER`]; returns how many.
/// Only where the process table can be read (`/proc`); elsewhere nothing is removed.
pub fn sweep_stale_temporaries(dir: &Path) -> usize {
    if !Path::new("/proc/self").exists() {
        return 0;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let me = std::process::id();
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(temporary_pid) else {
            continue;
        };
        if pid == me || Path::new("/proc").join(pid.to_string()).exists() {
            continue;
        }
        let stale = entry.metadata().ok().filter(|m| m.is_file()).and_then(|m| {
            m.modified()
                .ok()
                .and_then(|t| t.elapsed().ok())
                .map(|age| age >= STALE_AFTER)
        });
        if stale == Some(true) && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// Sweeps `dir` once per process.
fn sweep_once(dir: &Path) {
    let key = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    {
        let mut swept = SWEPT.lock().unwrap_or_else(|p| p.into_inner());
        if !swept.get_or_insert_with(HashSet::new).insert(key) {
            return;
        }
    }
    sweep_stale_temporaries(dir);
}

/// An output being written (see the module). Writing goes to [`Output::file`] (or through
/// `Write`), or an encoder that takes a path writes [`Output::write_path`]; [`Output::commit`]
/// puts it into place. Dropped uncommitted, the temporary file is removed.
pub struct Output {
    /// The path as given (for messages).
    shown: PathBuf,
    target: OutputTarget,
    /// `OutputTarget::File`: the temporary, registered until renamed or removed.
    tmp: Option<PathBuf>,
    file: Option<std::fs::File>,
    no_clobber: bool,
}

impl Output {
    /// Checks `path` ([`check_output`]) and opens it for writing: a fresh temporary file beside
    /// a regular file's path (after sweeping that folder of stale temporaries), the FIFO or
    /// device itself (a FIFO waits for its reader), or standard output.
    pub fn create(path: &Path, options: OutputOptions) -> Result<Output> {
        Self::create_with_ext(path, options, "tmp")
    }

    /// `create` with the temporary's extension (a video's, for ffmpeg to pick the container).
    pub fn create_with_ext(path: &Path, options: OutputOptions, ext: &str) -> Result<Output> {
        let target = check_output(path, options)?;
        let (tmp, file) = match &target {
            OutputTarget::Stdout => (None, None),
            OutputTarget::Special(p) => {
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(p)
                    .map_err(|e| io_error(path, e.to_string()))?;
                (None, Some(f))
            }
            OutputTarget::File(dest) => {
                sweep_once(folder_of(dest));
                let mut r = registry();
                if r.closed {
                    return Err(io_error(path, "the process is ending (interrupted)"));
                }
                let tmp = temporary_path(dest, ext);
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&tmp)
                    .map_err(|e| {
                        io_error(
                            path,
                            format!("cannot write in `{}`: {e}", folder_of(dest).display()),
                        )
                    })?;
                r.live.push(tmp.clone());
                (Some(tmp), Some(f))
            }
        };
        Ok(Output {
            shown: path.to_path_buf(),
            target,
            tmp,
            file,
            no_clobber: options.no_clobber,
        })
    }

    /// The path as given.
    pub fn shown(&self) -> &Path {
        &self.shown
    }

    /// Where this output goes.
    pub fn target(&self) -> &OutputTarget {
        &self.target
    }

    /// The path an encoder that takes a path writes (the temporary file, or the FIFO or device);
    /// `None` for standard output.
    pub fn write_path(&self) -> Option<&Path> {
        match &self.target {
            OutputTarget::File(_) => self.tmp.as_deref(),
            OutputTarget::Special(p) => Some(p),
            OutputTarget::Stdout => None,
        }
    }

    /// A handle on the file being written (the temporary, or the FIFO or device); `None` for
    /// standard output.
    pub fn file(&self) -> Result<Option<std::fs::File>> {
        self.file
            .as_ref()
            .map(|f| {
                f.try_clone()
                    .map_err(|e| io_error(&self.shown, e.to_string()))
            })
            .transpose()
    }

    /// Puts the output in place: the temporary renamed over the destination (with `no_clobber`:
    /// only where nothing is there, else [`Error::OutputExists`] and the temporary removed);
    /// for a FIFO, a device or standard output, what was written is flushed.
    // `drop` closes the file natively; on wasm32 (no file system) `File` has no `Drop`
    #[cfg_attr(target_arch = "wasm32", allow(clippy::drop_non_drop))]
    pub fn commit(mut self) -> Result<()> {
        let file = self.file.take();
        match (&self.target, self.tmp.clone()) {
            (OutputTarget::File(dest), Some(tmp)) => {
                drop(file);
                let mut r = registry();
                let moved = if self.no_clobber {
                    rename_noreplace(&tmp, dest)
                } else {
                    std::fs::rename(&tmp, dest)
                };
                r.live.retain(|p| *p != tmp);
                drop(r);
                match moved {
                    Ok(()) => {
                        self.tmp = None;
                        Ok(())
                    }
                    Err(e) => {
                        let _ = std::fs::remove_file(&tmp);
                        self.tmp = None;
                        if e.kind() == std::io::ErrorKind::AlreadyExists {
                            Err(Error::OutputExists {
                                path: self.shown.clone(),
                            })
                        } else {
                            Err(io_error(&self.shown, e.to_string()))
                        }
                    }
                }
            }
            (OutputTarget::Stdout, _) => std::io::stdout().flush().map_err(|e| self.closed(e)),
            _ => match file {
                Some(mut f) => f.flush().map_err(|e| self.closed(e)),
                None => Ok(()),
            },
        }
    }

    /// A write error: [`Error::OutputClosed`] where the reader went away (a broken pipe).
    fn closed(&self, e: std::io::Error) -> Error {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Error::OutputClosed {
                path: self.shown.clone(),
            }
        } else {
            io_error(&self.shown, e.to_string())
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => std::io::stdout().write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => std::io::stdout().flush(),
        }
    }
}

impl Drop for Output {
    // `drop` closes the file natively; on wasm32 (no file system) `File` has no `Drop`
    #[cfg_attr(target_arch = "wasm32", allow(clippy::drop_non_drop))]
    fn drop(&mut self) {
        if let Some(tmp) = self.tmp.take() {
            drop(self.file.take());
            let mut r = registry();
            let _ = std::fs::remove_file(&tmp);
            r.live.retain(|p| *p != tmp);
        }
    }
}

/// Writes `bytes` to `path` as [`Output`] does (whole, atomically for a regular file).
pub fn write_output(path: &Path, bytes: &[u8], options: OutputOptions) -> Result<()> {
    let mut out = Output::create(path, options)?;
    out.write_all(bytes).map_err(|e| out.closed(e))?;
    out.commit()
}

/// Renames `from` to `to` unless `to` exists (`AlreadyExists` then): `renameat2` with
/// `RENAME_NOREPLACE` where the kernel and file system have it, else `link` and `unlink`.
fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| {
            std::ffi::CString::new(p.as_os_str().as_bytes())
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))
        };
        let (f, t) = (c(from)?, c(to)?);
        // SAFETY: two NUL-terminated paths that outlive the call; the syscall only reads them.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_renameat2,
                libc::AT_FDCWD,
                f.as_ptr(),
                libc::AT_FDCWD,
                t.as_ptr(),
                libc::RENAME_NOREPLACE,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if !matches!(e.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS)) {
            return Err(e);
        }
    }
    // no renameat2 here: a hard link fails where the name exists
    std::fs::hard_link(from, to)?;
    let _ = std::fs::remove_file(from);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 29, item 11: of 8 threads writing one path with `no_clobber`, exactly one wins and
    /// the others get `OutputExists`; no temporary is left.
    #[test]
    fn racing_no_clobber_writers_have_one_winner() {
        let dir =
            std::env::temp_dir().join(format!("texelflow-output-race-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("one.json");
        let options = OutputOptions {
            no_clobber: true,
            special_files: false,
        };
        let barrier = std::sync::Barrier::new(8);
        let outcomes: Vec<Result<()>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8u8)
                .map(|k| {
                    let (path, barrier) = (&path, &barrier);
                    s.spawn(move || {
                        let out = Output::create(path, options);
                        barrier.wait();
                        let mut out = out?;
                        out.write_all(&[k; 1000])
                            .map_err(|e| io_error(path, e.to_string()))?;
                        out.commit()
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("no panic"))
                .collect()
        });
        assert_eq!(outcomes.iter().filter(|o| o.is_ok()).count(), 1);
        assert!(outcomes
            .iter()
            .filter_map(|o| o.as_ref().err())
            .all(|e| matches!(e, Error::OutputExists { .. })));
        let left: Vec<_> = std::fs::read_dir(&dir).expect("dir").flatten().collect();
        assert_eq!(left.len(), 1, "only the output is left");
        // without no_clobber the file is replaced; a registered temporary goes with
        // remove_temporaries' sweep only when asked (not here: it would close the registry)
        write_output(&path, b"new", OutputOptions::default()).expect("replaces");
        assert_eq!(std::fs::read(&path).expect("read"), b"new");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn temporary_names_parse() {
        assert_eq!(temporary_pid(".a.png.texelflow-123-4.tmp"), Some(123));
        assert_eq!(temporary_pid(".v.mp4.texelflow-77-0.mp4"), Some(77));
        assert_eq!(temporary_pid(".v.mp4.texelflow-77.mp4"), Some(77));
        assert_eq!(temporary_pid("a.png.texelflow-123-4.tmp"), None);
        assert_eq!(temporary_pid(".a.png.texelflow-x-4.tmp"), None);
        assert_eq!(temporary_pid(".a.png.texelflow-12-4"), None);
        let t = temporary_path(Path::new("d/out.png"), "tmp");
        let name = t.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        assert_eq!(temporary_pid(name), Some(std::process::id()));
    }
}
