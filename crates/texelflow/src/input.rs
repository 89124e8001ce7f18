//! Every input file is opened here (on the data floor, so that filters reading a file named in
//! a spec use it as the decoders do). What kind of file a path names is checked before it is
//! opened (opening a FIFO for reading blocks until something writes to it), only regular files
//! are read (a FIFO, a device, a socket or a directory named as an input is refused in one line
//! that says what it is), the file is opened non-blocking and checked again on the open handle
//! (a path swapped for a FIFO in between is refused too), and a whole-file read is capped: a file
//! larger than its cap is refused before it is read, and the read itself stops at the cap, so a
//! file that grows while it is read cannot take more memory.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// What a path names, as far as reading it goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file (or a link to one).
    Regular,
    /// Nothing is there (or a link to nothing).
    Missing,
    /// A directory.
    Directory,
    /// A FIFO (named pipe), or a pipe such as a shell's `<(...)`.
    Fifo,
    /// A character device such as `/dev/zero` or a terminal.
    CharDevice,
    /// A block device such as a disk.
    BlockDevice,
    /// A Unix socket.
    Socket,
}

impl FileKind {
    /// The kind of `path`, following links; `Missing` where it cannot be read at all.
    pub fn of(path: &Path) -> FileKind {
        match std::fs::metadata(path) {
            Ok(m) => Self::of_type(m.file_type()),
            Err(_) => FileKind::Missing,
        }
    }

    fn of_type(t: std::fs::FileType) -> FileKind {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileTypeExt;
            if t.is_fifo() {
                return FileKind::Fifo;
            }
            if t.is_char_device() {
                return FileKind::CharDevice;
            }
            if t.is_block_device() {
                return FileKind::BlockDevice;
            }
            if t.is_socket() {
                return FileKind::Socket;
            }
        }
        if t.is_dir() {
            FileKind::Directory
        } else {
            FileKind::Regular
        }
    }

    /// Why a file of this kind is not read as an input (`None` for a regular file).
    pub fn refusal(self) -> Option<&'static str> {
        Some(match self {
            FileKind::Regular => return None,
            FileKind::Missing => "file not found",
            FileKind::Directory => "is a directory, not a file",
            FileKind::Fifo => {
                "is a FIFO or a pipe, not a regular file: texelflow reads regular files only (save the stream to a file first)"
            }
            FileKind::CharDevice => {
                "is a character device (like /dev/zero or a terminal), not a regular file: texelflow reads regular files only"
            }
            FileKind::BlockDevice => {
                "is a block device, not a regular file: texelflow reads regular files only"
            }
            FileKind::Socket => "is a socket, not a regular file: texelflow reads regular files only",
        })
    }
}

/// Opens `path` for reading if it is a regular file, with its length; otherwise the one-line
/// reason (`FileKind::refusal`, or the system's message), never blocking on a FIFO.
pub fn open_regular(path: &Path) -> Result<(File, u64), String> {
    if let Some(why) = FileKind::of(path).refusal() {
        return Err(why.to_string());
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // a FIFO swapped in after the check above opens at once instead of blocking; the
        // handle's own metadata below refuses it
        options.custom_flags(nonblocking_flag());
    }
    let file = options.open(path).map_err(|e| e.to_string())?;
    let meta = file.metadata().map_err(|e| e.to_string())?;
    if let Some(why) = FileKind::of_type(meta.file_type()).refusal() {
        return Err(why.to_string());
    }
    Ok((file, meta.len()))
}

/// `O_NONBLOCK` of this platform (it only matters for FIFOs, which are refused; a regular
/// file's reads are not affected by it).
#[cfg(unix)]
fn nonblocking_flag() -> i32 {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        0o4000
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        // macOS and the BSDs
        0x0004
    }
}

/// Why a regular file whose size is 0 cannot be read: it is empty, or it is a pseudo-file of
/// `/proc` or `/sys` whose size the system does not give ("empty file" was wrong for those:
/// issue 29 item 13). Reads at most one byte to tell.
pub fn zero_size(mut file: &File) -> String {
    let mut byte = [0u8; 1];
    match file.read(&mut byte) {
        Ok(1..) => "holds data though its size reads 0: a pseudo-file (as in /proc or /sys), not \
                    an image or data file (copy it to an ordinary file first)"
            .into(),
        _ => "empty file (0 bytes)".into(),
    }
}

/// Reads the whole of regular file `path`, refusing a file longer than `cap` bytes before
/// reading it (`what` names the limit in the message) and stopping at the cap should the file
/// grow meanwhile. An empty regular file is an error too ("empty file (0 bytes)").
pub fn read_capped(path: &Path, cap: u64, what: &str) -> Result<Vec<u8>, String> {
    let (file, len) = open_regular(path)?;
    if len == 0 {
        return Err(zero_size(&file));
    }
    if len > cap {
        return Err(format!(
            "is {}, more than {what} ({})",
            crate::limits::human_bytes(len),
            crate::limits::human_bytes(cap)
        ));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    if bytes.len() as u64 > cap {
        return Err(format!(
            "grew past {what} ({}) while it was read",
            crate::limits::human_bytes(cap)
        ));
    }
    Ok(bytes)
}

/// An image reader over regular file `path` (`open_regular`), its format guessed from the
/// content, else from the extension (as `image::ImageReader::open` does, so that a damaged file
/// named `.png` is reported by the PNG decoder). Its headers are read within
/// `limits::MAX_METADATA_BYTES`.
pub fn image_reader(path: &Path) -> Result<image::ImageReader<std::io::BufReader<File>>, String> {
    let (file, _) = open_regular(path)?;
    let mut reader = image::ImageReader::new(std::io::BufReader::new(file));
    // the headers (a PNG's compressed ICC profile) are read within the metadata bound; a
    // caller decoding pixels sets the decoder's limits for them (`Image::load`)
    let mut limits = image::Limits::default();
    limits.max_alloc = Some(crate::limits::MAX_METADATA_BYTES);
    reader.limits(limits);
    if let Ok(format) = image::ImageFormat::from_path(path) {
        reader.set_format(format);
    }
    reader.with_guessed_format().map_err(|e| e.to_string())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn dir() -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("texelflow-input-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn special_files_are_refused_without_blocking() {
        let d = dir();
        let fifo = d.join("f.png");
        let _ = std::fs::remove_file(&fifo);
        // no writer: an open for reading would block forever
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo failed");
        assert_eq!(FileKind::of(&fifo), FileKind::Fifo);
        let e = open_regular(&fifo).unwrap_err();
        assert!(e.contains("FIFO"), "{e}");
        let e = read_capped(Path::new("/dev/zero"), 1 << 20, "the limit").unwrap_err();
        assert!(e.contains("character device"), "{e}");
        assert!(open_regular(&d).unwrap_err().contains("directory"));
        assert_eq!(
            open_regular(&d.join("missing")).unwrap_err(),
            "file not found"
        );
        std::fs::remove_file(&fifo).unwrap();
    }

    #[test]
    fn reads_are_capped() {
        let d = dir();
        let f = d.join("ten.bin");
        std::fs::write(&f, [7u8; 10]).unwrap();
        assert_eq!(read_capped(&f, 10, "x").unwrap(), vec![7u8; 10]);
        let e = read_capped(&f, 9, "the memory limit").unwrap_err();
        assert!(e.contains("more than the memory limit"), "{e}");
        let empty = d.join("empty.bin");
        std::fs::write(&empty, []).unwrap();
        assert_eq!(
            read_capped(&empty, 9, "x").unwrap_err(),
            "empty file (0 bytes)"
        );
    }
}
