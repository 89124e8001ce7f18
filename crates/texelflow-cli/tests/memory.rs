//! `--max-memory` bounds a run's memory (issue 29 item 7): each case runs the CLI as a child
//! and reads its peak RSS from `wait4`, which must stay within the limit plus `BASELINE` (the
//! process's own memory: code, the Vulkan driver and lavapipe, about 90-120 MiB measured, and
//! the metadata bound `MAX_METADATA_BYTES`, 16 MiB), or the run is refused in one line before
//! the allocation.
#![cfg(all(target_os = "linux", target_env = "gnu"))]

mod common;

use std::io::Read;
use std::path::PathBuf;
use std::process::Stdio;

use common::{bin, s, tmp};

use texelflow::{Image, ImageDesc, PixelFormat};

const MIB: u64 = 1 << 20;
/// The process's own peak RSS beside what the limit bounds (see the module docs).
const BASELINE: u64 = 160 * MIB;

/// Runs the CLI with `args` (stdin from `stdin` if given); its exit success, stderr and peak
/// RSS in bytes. The child is reaped by `wait4` (for its own resource usage), which clippy
/// does not see.
#[allow(clippy::zombie_processes)]
fn run(args: &[&str], env: &[(&str, &str)], stdin: Option<PathBuf>) -> (bool, String, u64) {
    let mut c = bin();
    c.envs(env.iter().copied())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    match stdin {
        Some(p) => c.stdin(std::fs::File::open(p).unwrap()),
        None => c.stdin(Stdio::null()),
    };
    let mut child = c.spawn().expect("binary runs");
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value; wait4 fills it for this child only
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    // SAFETY: `pid` is our child, not yet waited for; both out-pointers are valid
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4");
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    (ok, err, usage.ru_maxrss as u64 * 1024)
}

fn within(peak: u64, limit: u64, err: &str) {
    eprintln!("peak RSS {} MiB (limit {} MiB)", peak / MIB, limit / MIB);
    assert!(
        peak <= limit + BASELINE,
        "peak RSS {} MiB is over the limit {} MiB + {} MiB: {err}",
        peak / MIB,
        limit / MIB,
        BASELINE / MIB
    );
}

/// How a case of (a)-(e) must end.
enum Outcome {
    /// It runs to its end.
    Runs,
    /// It is refused by a message that names `--max-memory`.
    Refused,
}

/// One case of (a)-(e): `texelflow --max-memory 64M GLOBALS apply APPLY` with `env` (stdin
/// from `stdin` if given) ends as `outcome` says, its peak RSS within the limit (`within`).
/// Returns its stderr.
fn case(
    globals: &[&str],
    apply: &[&str],
    env: &[(&str, &str)],
    stdin: Option<PathBuf>,
    outcome: Outcome,
) -> String {
    let args = [&["--max-memory", "64M"][..], globals, &["apply"][..], apply].concat();
    let (ok, err, peak) = run(&args, env, stdin);
    match outcome {
        Outcome::Runs => assert!(ok, "{err}"),
        Outcome::Refused => assert!(!ok && err.contains("--max-memory"), "{err}"),
    }
    within(peak, 64 * MIB, &err);
    err
}

/// A black RGBA image of `w` x `h` saved as `name` (its format from the extension) in the
/// temporary folder.
fn blank(name: &str, w: u32, h: u32) -> PathBuf {
    let p = tmp(name);
    Image::zeroed(ImageDesc::new(w, h, PixelFormat::Rgba8))
        .save(&p)
        .unwrap();
    p
}

fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let mut crc = !0u32;
    for &b in &out[start..] {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    out.extend_from_slice(&(!crc).to_be_bytes());
}

/// A zlib stream of `n` zero bytes (a fixed-Huffman block: one literal, then matches of 258
/// at distance 1), about 160 times smaller than its content.
fn zlib_zeros(n: u64) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let (mut acc, mut bits) = (0u64, 0u32);
    let mut put = |out: &mut Vec<u8>, v: u64, len: u32| {
        acc |= v << bits;
        bits += len;
        while bits >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            bits -= 8;
        }
    };
    // Huffman codes go most significant bit first: reverse them into the LSB-first stream
    let code = |out: &mut Vec<u8>, put: &mut dyn FnMut(&mut Vec<u8>, u64, u32), c: u32, len| {
        let r = (c.reverse_bits() >> (32 - len)) as u64;
        put(out, r, len);
    };
    put(&mut out, 1, 1); // last block
    put(&mut out, 1, 2); // fixed Huffman
    code(&mut out, &mut put, 0x30, 8); // literal 0
    let matches = (n - 1) / 258;
    for _ in 0..matches {
        code(&mut out, &mut put, 0b1100_0101, 8); // length 258 (code 285)
        code(&mut out, &mut put, 0, 5); // distance 1
    }
    for _ in 0..(n - 1) % 258 {
        code(&mut out, &mut put, 0x30, 8);
    }
    code(&mut out, &mut put, 0, 7); // end of block (256)
    put(&mut out, 0, 7); // to a byte boundary
    let b = n % 65521;
    out.extend_from_slice(&((b << 16 | 1) as u32).to_be_bytes());
    out
}

/// (a) A 1 KB JPEG padded to 300 MB (sparse) at `--max-memory 64M`: refused without reading it.
#[test]
fn a_padded_jpeg_is_not_read_whole() {
    let jpg = blank("padded.jpg", 16, 16);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&jpg)
        .unwrap()
        .set_len(300 * MIB)
        .unwrap();
    let out = tmp("padded.png");
    let err = case(
        &[],
        &[s(&jpg), s(&out), "-p", "brightness(0.1)"],
        &[],
        None,
        Outcome::Refused,
    );
    assert_eq!(
        err.trim().lines().last().map(|l| l.starts_with("error")),
        Some(true),
        "{err}"
    );
    let _ = std::fs::remove_file(&jpg);
}

/// (b) A 2.5 MB PNG whose ICC profile (`iCCP`) inflates to 400 MB, at `--max-memory 64M`:
/// the profile is read within the metadata bound (and dropped), the image runs.
#[test]
fn a_compressed_profile_bomb_stays_within_the_limit() {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&4u32.to_be_bytes());
    ihdr.extend_from_slice(&4u32.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    png_chunk(&mut png, b"IHDR", &ihdr);
    let mut iccp = b"bomb\0\0".to_vec();
    iccp.extend_from_slice(&zlib_zeros(400 * MIB));
    png_chunk(&mut png, b"iCCP", &iccp);
    // 4 rows of 1 filter byte and 16 sample bytes, stored (uncompressed deflate)
    let raw = [0u8; 4 * 17];
    let mut idat = vec![0x78, 0x01, 1, raw.len() as u8, 0, !(raw.len() as u8), 0xFF];
    idat.extend_from_slice(&raw);
    // adler32 of 68 zeros: A = 1, B = 68
    idat.extend_from_slice(&((68u32 << 16) | 1).to_be_bytes());
    png_chunk(&mut png, b"IDAT", &idat);
    png_chunk(&mut png, b"IEND", &[]);
    let input = tmp("bomb.png");
    std::fs::write(&input, &png).unwrap();
    let out = tmp("bomb_out.png");
    case(
        &[],
        &[s(&input), s(&out), "-p", "brightness(0.1)"],
        &[],
        None,
        Outcome::Runs,
    );
}

/// (c) A GPU `resize(scale=16)` run in tiles (`--max-gpu-memory`) whose output cannot fit
/// `--max-memory` is refused before it runs, as the CPU path's is.
#[test]
fn a_tiled_gpu_run_is_refused_where_its_output_cannot_fit() {
    let input = blank("small.png", 400, 300);
    let out = tmp("scaled.png");
    case(
        &["--max-gpu-memory", "32M"],
        &[s(&input), s(&out), "-p", "resize(scale=16)"],
        &[("TEXELFLOW_STREAM", "0")],
        None,
        Outcome::Refused,
    );
}

/// (d) A streamed 3000x2000 PNG at `--max-memory 64M`: bands lower until they fit, and the
/// peak stays within the limit.
#[test]
fn streamed_bands_fit_the_limit() {
    let input = blank("wide.png", 3000, 2000);
    let out = tmp("wide_out.png");
    case(
        &[],
        &[s(&input), s(&out), "-p", "brightness(0.1)"],
        &[("TEXELFLOW_STREAM", "1")],
        None,
        Outcome::Runs,
    );
    assert_eq!(Image::open(&out).unwrap().width(), 3000);
}

/// (e) `-f rawvideo --size 8192x8192` at `--max-memory 64M`: refused from the size, before
/// the first frame is allocated.
#[test]
fn raw_frames_too_large_are_refused_before_allocation() {
    let raw = tmp("short.rgba");
    std::fs::write(&raw, [0u8; 1000]).unwrap();
    case(
        &[],
        &[
            "-",
            "-",
            "-f",
            "rawvideo",
            "--size",
            "8192x8192",
            "-p",
            "brightness(0.1)",
        ],
        &[],
        Some(raw),
        Outcome::Refused,
    );
}

/// A `resize(scale=16)` whose output is larger than any image is refused from the header,
/// before the input is decoded (issue 29 item 7): a file damaged after its header says so.
#[test]
fn an_impossible_run_is_refused_before_decoding() {
    let input = blank("cut.png", 3000, 2000);
    let bytes = std::fs::read(&input).unwrap();
    std::fs::write(&input, &bytes[..bytes.len() / 2]).unwrap();
    let out = tmp("cut_out.png");
    let (ok, err, _) = run(
        &["apply", s(&input), s(&out), "-p", "resize(scale=16)"],
        &[("TEXELFLOW_STREAM", "1")],
        None,
    );
    assert!(!ok && err.contains("32768"), "{err}");
}
