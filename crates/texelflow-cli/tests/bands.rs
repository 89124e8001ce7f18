//! `apply` on images streamed in bands of rows (issue 20): the output equals the whole-image
//! path's for PNG, TIFF and JPEG inputs and outputs; memory stays within the formula (a
//! `--max-memory` the whole path exceeds is enough, and the peak RSS is a fraction of the
//! whole path's); truncated PNG and TIFF files are errors unless `--allow-truncated`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use texelflow::{Image, ImageDesc, PixelFormat};

fn bin(stream: &str, rows: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_texelflow"));
    c.env(
        "XDG_RUNTIME_DIR",
        std::env::var("XDG_RUNTIME_DIR").unwrap_or_else(|_| "/tmp".into()),
    );
    c.env("WGPU_BACKEND", "vulkan");
    c.env("TEXELFLOW_STREAM", stream)
        .env("TEXELFLOW_STREAM_ROWS", rows);
    c
}

fn run(stream: &str, rows: &str, args: &[&str]) -> Output {
    bin(stream, rows).args(args).output().expect("binary runs")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("texelflow-bands-cli-{}", std::process::id()));
    // a folder of an earlier run whose process had this id holds outputs the tests would
    // refuse to replace: start empty, once per process
    static FRESH: std::sync::Once = std::sync::Once::new();
    FRESH.call_once(|| {
        let _ = std::fs::remove_dir_all(&d);
    });
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A photo-like image: smooth gradients, edges and a little noise (compresses like a photo).
fn photo(w: u32, h: u32, format: PixelFormat) -> Image {
    let mut img = Image::zeroed(ImageDesc::new(w, h, PixelFormat::Rgba8));
    let mut seed = 12345u32;
    for (i, p) in img.as_u8_mut().chunks_exact_mut(4).enumerate() {
        let (x, y) = ((i % w as usize) as u32, (i / w as usize) as u32);
        seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
        let n = (seed >> 28) as u8;
        let edge = if (x / 37 + y / 23) % 2 == 0 { 60 } else { 0 };
        p.copy_from_slice(&[
            ((x * 255) / w.max(1)) as u8 / 2 + edge + n,
            ((y * 255) / h.max(1)) as u8 / 2 + n,
            (((x + y) * 3) % 200) as u8 + n,
            255,
        ]);
    }
    img.convert(format)
}

fn same(a: &Path, b: &Path) -> bool {
    let (a, b) = (Image::open(a).unwrap(), Image::open(b).unwrap());
    a.desc() == b.desc() && a.data() == b.data()
}

#[test]
fn streamed_apply_equals_the_whole_image_path() {
    let inputs = [
        ("in8.png", photo(203, 131, PixelFormat::Rgba8)),
        ("in16.tif", photo(150, 97, PixelFormat::Rgba16)),
        ("grey.png", photo(120, 77, PixelFormat::Gray8)),
        ("in.jpg", photo(160, 90, PixelFormat::Rgba8)),
    ];
    let spec = "gaussian_blur(sigma=4) | sobel_edge_detection";
    for (name, img) in &inputs {
        let input = tmp(name);
        img.save(&input).unwrap();
        for (ext, pipeline) in [
            ("png", spec),
            ("tif", "gaussian_blur(sigma=2)"),
            ("jpg", spec),
        ] {
            let (s, w) = (
                tmp(&format!("s_{name}.{ext}")),
                tmp(&format!("w_{name}.{ext}")),
            );
            let o = run(
                "1",
                "16",
                &[
                    "apply",
                    input.to_str().unwrap(),
                    s.to_str().unwrap(),
                    "-p",
                    pipeline,
                ],
            );
            assert!(o.status.success(), "{name} -> {ext}: {}", err(&o));
            assert!(
                err(&o).contains("streamed in"),
                "{name} -> {ext}: no note: {}",
                err(&o)
            );
            let o = run(
                "0",
                "16",
                &[
                    "apply",
                    input.to_str().unwrap(),
                    w.to_str().unwrap(),
                    "-p",
                    pipeline,
                ],
            );
            assert!(o.status.success(), "{}", err(&o));
            assert!(!err(&o).contains("streamed in"));
            assert!(
                same(&s, &w),
                "{name} -> {ext} ({pipeline}): streamed differs from whole"
            );
        }
    }
    // the CPU reference streams too
    let (input, s, w) = (tmp("in8.png"), tmp("cpu_s.png"), tmp("cpu_w.png"));
    assert!(run(
        "1",
        "7",
        &[
            "--cpu",
            "apply",
            input.to_str().unwrap(),
            s.to_str().unwrap(),
            "-p",
            spec
        ]
    )
    .status
    .success());
    assert!(run(
        "0",
        "7",
        &[
            "--cpu",
            "apply",
            input.to_str().unwrap(),
            w.to_str().unwrap(),
            "-p",
            spec
        ]
    )
    .status
    .success());
    assert!(same(&s, &w), "CPU: streamed differs from whole");
    // a GPU failure while streaming: an error, or with --fallback cpu the CPU reference's bands
    let f = tmp("fallback.png");
    let o = bin("1", "16")
        .env("TEXELFLOW_INJECT_GPU_FAULT", "sobel_edge_detection")
        .args([
            "--fallback",
            "cpu",
            "apply",
            input.to_str().unwrap(),
            f.to_str().unwrap(),
            "-p",
            spec,
        ])
        .output()
        .unwrap();
    assert!(
        o.status.success() && err(&o).contains("--fallback cpu") && err(&o).contains("streamed in"),
        "{}",
        err(&o)
    );
    assert!(same(&f, &s), "the fallback is the CPU reference's result");
    let o = bin("1", "16")
        .env("TEXELFLOW_INJECT_GPU_FAULT", "sobel_edge_detection")
        .args([
            "apply",
            input.to_str().unwrap(),
            tmp("failed.png").to_str().unwrap(),
            "-p",
            spec,
        ])
        .output()
        .unwrap();
    assert!(
        !o.status.success()
            && err(&o).contains("sobel_edge_detection")
            && !tmp("failed.png").exists(),
        "{}",
        err(&o)
    );
    // a resize streams through its geometry, with the whole path's result
    let (r, rw) = (tmp("resized.png"), tmp("resized_whole.png"));
    let o = run(
        "1",
        "16",
        &[
            "apply",
            input.to_str().unwrap(),
            r.to_str().unwrap(),
            "-p",
            "gaussian_blur(sigma=2) | resize(scale=0.5, method=bicubic)",
        ],
    );
    assert!(
        o.status.success() && err(&o).contains("streamed in") && err(&o).contains("geometry"),
        "{}",
        err(&o)
    );
    assert!(run(
        "0",
        "16",
        &[
            "apply",
            input.to_str().unwrap(),
            rw.to_str().unwrap(),
            "-p",
            "gaussian_blur(sigma=2) | resize(scale=0.5, method=bicubic)"
        ]
    )
    .status
    .success());
    assert_eq!(Image::open(&r).unwrap().width(), 102);
    assert!(same(&r, &rw), "streamed resize differs from whole");
    // pipelines that cannot run in bands take the whole path, with the same result
    let p = tmp("padded.png");
    let o = run(
        "1",
        "16",
        &[
            "apply",
            input.to_str().unwrap(),
            p.to_str().unwrap(),
            "-p",
            "ios_blur",
        ],
    );
    assert!(
        o.status.success() && !err(&o).contains("streamed in"),
        "{}",
        err(&o)
    );
    assert_eq!(Image::open(&p).unwrap().width(), 203);
}

/// The peak RSS `--timings` reports, in bytes.
fn peak_rss(o: &Output) -> f64 {
    let e = err(o);
    let text = e
        .split("peak RSS ")
        .nth(1)
        .unwrap_or_else(|| panic!("no peak RSS in: {e}"));
    let mut parts = text.split_whitespace();
    let v: f64 = parts.next().unwrap().parse().unwrap();
    let unit = parts.next().unwrap_or("B");
    v * match unit {
        u if u.starts_with("KiB") => 1024.0,
        u if u.starts_with("MiB") => 1048576.0,
        u if u.starts_with("GiB") => 1073741824.0,
        _ => 1.0,
    }
}

#[test]
fn streaming_bounds_memory() {
    let input = tmp("big.png");
    photo(2000, 1600, PixelFormat::Rgba8).save(&input).unwrap();
    let spec = "gaussian_blur(sigma=8) | sobel_edge_detection";
    let (s, w) = (tmp("big_s.png"), tmp("big_w.png"));
    // 2000x1600 needs about 24 MiB to decode whole: refused at 16 MiB, streamed in bands of 32 rows it fits
    let o = run(
        "0",
        "32",
        &[
            "--max-memory",
            "16M",
            "apply",
            input.to_str().unwrap(),
            w.to_str().unwrap(),
            "-p",
            spec,
        ],
    );
    assert!(
        !o.status.success() && err(&o).contains("--max-memory"),
        "{}",
        err(&o)
    );
    let o = run(
        "1",
        "32",
        &[
            "--max-memory",
            "16M",
            "apply",
            "--timings",
            input.to_str().unwrap(),
            s.to_str().unwrap(),
            "-p",
            spec,
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    let streamed = peak_rss(&o);
    let o = run(
        "0",
        "32",
        &[
            "apply",
            "--timings",
            input.to_str().unwrap(),
            w.to_str().unwrap(),
            "-p",
            spec,
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    let whole = peak_rss(&o);
    assert!(same(&s, &w));
    // the whole path holds the image several times over (12 MiB each as RGBA8, more in the
    // GPU's intermediates); streamed, a few bands
    eprintln!("peak RSS: streamed {streamed:.0} B, whole {whole:.0} B");
    assert!(
        streamed + 40.0 * 1048576.0 < whole,
        "streamed {streamed} B is not well below whole {whole} B"
    );
}

/// `brightness(0.1)` of an RGBA8 image, as the CPU computes it.
fn brightened(img: &Image) -> Vec<u8> {
    let mut v = img.as_u8().to_vec();
    for p in v.chunks_exact_mut(4) {
        for c in &mut p[..3] {
            *c = (*c as f32 + 25.5).round().min(255.0) as u8;
        }
    }
    v
}

/// Runs `brightness(0.1)` on the damaged `cut` (of the intact `full`, 120x90): an error by
/// default, with `--allow-truncated` a warning and the rows before the damage intact.
fn check_damaged(cut: &Path, full: &Path, tag: &str) {
    for stream in ["0", "1"] {
        let out = tmp(&format!("cut_out_{tag}_{stream}.png"));
        let o = run(
            stream,
            "16",
            &[
                "apply",
                cut.to_str().unwrap(),
                out.to_str().unwrap(),
                "-p",
                "brightness(0.1)",
            ],
        );
        let e = err(&o);
        assert!(
            !o.status.success()
                && e.contains("error:")
                && e.contains("--allow-truncated")
                && !e.contains("panicked"),
            "{tag} stream={stream}: {e}"
        );
        assert!(!out.exists(), "no partial output");
        let o = run(
            stream,
            "16",
            &[
                "--allow-truncated",
                "apply",
                cut.to_str().unwrap(),
                out.to_str().unwrap(),
                "-p",
                "brightness(0.1)",
            ],
        );
        let e = err(&o);
        assert!(
            o.status.success(),
            "{tag} stream={stream} --allow-truncated: {e}"
        );
        assert!(
            e.contains("warning:") && e.contains("could not be decoded"),
            "{tag}: {e}"
        );
        let (got, expect) = (Image::open(&out).unwrap(), Image::open(full).unwrap());
        assert_eq!(got.desc(), expect.desc());
        let first_rows = 120 * 4 * 16;
        let diff = got.as_u8()[..first_rows]
            .iter()
            .zip(&brightened(&expect)[..first_rows])
            .map(|(a, b)| a.abs_diff(*b))
            .max()
            .unwrap();
        assert!(diff <= 1, "{tag}: the first rows differ by {diff}");
        // and the rows past the damage are transparent
        assert_eq!(
            got.as_u8()[got.as_u8().len() - 1],
            0,
            "{tag}: the last pixel is not transparent"
        );
    }
}

#[test]
fn truncated_png_and_damaged_tiff_are_errors_unless_allowed() {
    // a PNG cut short
    let full = tmp("full.png");
    photo(120, 90, PixelFormat::Rgba8).save(&full).unwrap();
    let bytes = std::fs::read(&full).unwrap();
    let cut = tmp("cut.png");
    std::fs::write(&cut, &bytes[..bytes.len() * 6 / 10]).unwrap();
    check_damaged(&cut, &full, "png");
    // a PNG whose data's checksum does not match: an error streamed as whole (the decoders read
    // the checksums after the last row), with --allow-truncated a warning
    let mut bytes = std::fs::read(&full).unwrap();
    let idat = bytes.windows(4).position(|w| w == b"IDAT").unwrap();
    bytes[idat + 100] ^= 0xff;
    let crc = tmp("crc.png");
    std::fs::write(&crc, &bytes).unwrap();
    for stream in ["0", "1"] {
        let out = tmp(&format!("crc_out_{stream}.png"));
        let o = run(
            stream,
            "16",
            &[
                "apply",
                crc.to_str().unwrap(),
                out.to_str().unwrap(),
                "-p",
                "brightness(0.1)",
            ],
        );
        assert!(
            !o.status.success()
                && err(&o).contains("CRC")
                && err(&o).contains("--allow-truncated")
                && !out.exists(),
            "stream={stream}: {}",
            err(&o)
        );
        let o = run(
            stream,
            "16",
            &[
                "--allow-truncated",
                "apply",
                crc.to_str().unwrap(),
                out.to_str().unwrap(),
                "-p",
                "brightness(0.1)",
            ],
        );
        assert!(
            o.status.success() && err(&o).contains("warning:"),
            "stream={stream}: {}",
            err(&o)
        );
    }
    // a TIFF in strips whose middle strip points past the end of the file (its directory,
    // after the pixels, intact)
    let full = tmp("full.tif");
    // written by rows, in strips of 64 rows (`Image::save` writes one strip)
    let img = photo(120, 90, PixelFormat::Rgba8);
    let mut sink =
        texelflow::io::rows::create_rows(&full, img.desc(), &Default::default()).unwrap();
    sink.write_rows(&img).unwrap();
    sink.finish().unwrap();
    let mut bytes = std::fs::read(&full).unwrap();
    let u16_at = |b: &[u8], i: usize| u16::from_le_bytes([b[i], b[i + 1]]) as usize;
    let u32_at =
        |b: &[u8], i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]) as usize;
    assert_eq!(&bytes[..4], b"II*\0", "a little-endian TIFF");
    let ifd = u32_at(&bytes, 4);
    let entry = (0..u16_at(&bytes, ifd))
        .map(|k| ifd + 2 + 12 * k)
        .find(|&e| u16_at(&bytes, e) == 273)
        .expect("StripOffsets");
    let (kind, count) = (u16_at(&bytes, entry + 2), u32_at(&bytes, entry + 4));
    assert!(
        kind == 4 && count >= 2,
        "strip offsets as LONGs, several strips ({kind}, {count})"
    );
    let middle = u32_at(&bytes, entry + 8) + 4 * (count / 2);
    let past_end = (bytes.len() as u32 + 1000).to_le_bytes();
    bytes[middle..middle + 4].copy_from_slice(&past_end);
    let cut = tmp("damaged.tif");
    std::fs::write(&cut, &bytes).unwrap();
    check_damaged(&cut, &full, "tif");
    // a TIFF cut short has lost its directory: an error even when allowed, saying why
    let cut = tmp("cut.tif");
    std::fs::write(&cut, &std::fs::read(&full).unwrap()[..bytes.len() * 6 / 10]).unwrap();
    let o = run(
        "1",
        "16",
        &[
            "--allow-truncated",
            "apply",
            cut.to_str().unwrap(),
            tmp("x.png").to_str().unwrap(),
            "-p",
            "brightness(0.1)",
        ],
    );
    assert!(
        !o.status.success() && err(&o).contains("cannot help"),
        "{}",
        err(&o)
    );
}

/// A batch streams its large images one at a time (here every image: `TEXELFLOW_STREAM=1`), with
/// the whole path's outputs, and keeps going past a bad file.
#[test]
fn batches_stream_large_images() {
    let dir = tmp("batch_in");
    std::fs::create_dir_all(&dir).unwrap();
    photo(130, 90, PixelFormat::Rgba8)
        .save(dir.join("a.png"))
        .unwrap();
    photo(90, 130, PixelFormat::Rgba16)
        .save(dir.join("b.tif"))
        .unwrap();
    std::fs::write(dir.join("c.png"), b"not a png").unwrap();
    let spec = "gaussian_blur(sigma=3) | sobel_edge_detection";
    let (s, w) = (tmp("batch_s"), tmp("batch_w"));
    for (stream, out) in [("1", &s), ("0", &w)] {
        let o = run(
            stream,
            "16",
            &[
                "apply",
                dir.to_str().unwrap(),
                "--out-dir",
                out.to_str().unwrap(),
                "--name",
                "{stem}.png",
                "-p",
                spec,
            ],
        );
        let e = err(&o);
        assert!(
            !o.status.success()
                && e.contains("2 written")
                && e.contains("1 failed")
                && e.contains("c.png"),
            "stream={stream}: {e}"
        );
        assert_eq!(
            stream == "1",
            e.contains("streamed in"),
            "stream={stream}: {e}"
        );
    }
    for name in ["a.png", "b.png"] {
        assert!(
            same(&s.join(name), &w.join(name)),
            "{name}: streamed in a batch differs from whole"
        );
    }
    // an existing output is skipped when asked, streamed or not
    let o = run(
        "1",
        "16",
        &[
            "apply",
            dir.join("a.png").to_str().unwrap(),
            "--out-dir",
            s.to_str().unwrap(),
            "--name",
            "{stem}.png",
            "--skip-existing",
            "-p",
            spec,
        ],
    );
    assert!(
        o.status.success() && err(&o).contains("1 skipped"),
        "{}",
        err(&o)
    );
}
