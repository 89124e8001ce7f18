//! `--no-shrink-on-load` (issue 30): by default a JPEG before a leading shrink is decoded at a
//! DCT scale (the output within the library's stated bound of the full decode's); with the
//! flag, the full decode.

use std::path::{Path, PathBuf};
use std::process::Command;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("texelflow-cli-shrink-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d.join(name)
}

const SPEC: &str = "resize(width=100, height=75, method=area)";

fn texelflow() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_texelflow"));
    c.env("XDG_RUNTIME_DIR", "/tmp");
    c
}

fn apply(input: &Path, output: &Path, extra: &[&str]) -> image::RgbaImage {
    let o = texelflow()
        .args(extra)
        .args(["--cpu", "apply", "--overwrite"])
        .arg(input)
        .arg(output)
        .args(["-p", SPEC])
        .output()
        .expect("binary runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    image::open(output).expect("output").to_rgba8()
}

/// A photo-like `w`×`h` JPEG at quality 90 (smooth gradients, a soft shape, a little fine
/// texture: the content the library's bound is stated for) or, `textured`, a strong fine
/// texture (a 17-pixel diagonal pattern of 48 levels in blue) at the default quality.
fn write_jpeg(path: &Path, w: u32, h: u32, textured: bool) {
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        let t = ((x * 7 + y * 13) % 17) as f32;
        let (fx, fy) = (x as f32 / w as f32, y as f32 / h as f32);
        if textured {
            return image::Rgb([
                (fx * 200.0 + t) as u8,
                (fy * 200.0) as u8,
                200 - 3 * t as u8,
            ]);
        }
        let d = ((fx - 0.4).powi(2) + (fy - 0.5).powi(2)).sqrt();
        let blob = (1.0 - (d * 3.0).min(1.0)) * 120.0;
        let stripe = (fx * 40.0).sin() * (fy * 25.0).cos() * 20.0;
        image::Rgb([
            (40.0 + 150.0 * fx + blob * 0.5 + t * 1.5).clamp(0.0, 255.0) as u8,
            (30.0 + 120.0 * fy + stripe + blob * 0.3).clamp(0.0, 255.0) as u8,
            (200.0 - 140.0 * fx * fy + t * 1.5 - blob * 0.4).clamp(0.0, 255.0) as u8,
        ])
    });
    let quality = if textured { 75 } else { 90 };
    let file = std::fs::File::create(path).expect("create jpeg");
    image::codecs::jpeg::JpegEncoder::new_with_quality(std::io::BufWriter::new(file), quality)
        .encode_image(&img)
        .expect("encode jpeg");
}

fn max_diff(a: &image::RgbaImage, b: &image::RgbaImage) -> u8 {
    assert_eq!(a.dimensions(), b.dimensions());
    a.as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(x, y)| x.abs_diff(*y))
        .max()
        .unwrap_or(0)
}

#[test]
fn no_shrink_on_load_decodes_in_full() {
    let input = tmp("in.jpg");
    write_jpeg(&input, 512, 384, false);
    let on = apply(&input, &tmp("on.png"), &[]);
    let off = apply(&input, &tmp("off.png"), &["--no-shrink-on-load"]);
    assert_eq!(on.dimensions(), (100, 75));
    assert_eq!(off.dimensions(), (100, 75));
    let d = max_diff(&on, &off);
    assert!(d <= texelflow::graph::SHRINK_ON_LOAD_MAX_DIFF, "{d}");
    // the flag changes the decode: the two are not the same run
    assert_ne!(on.as_raw(), off.as_raw());
}

/// A batch (`--out-dir`) decodes as one image does: a JPEG before a leading shrink at the DCT
/// scale (1/2, 1/4 and 1/8 here), so every output equals the single-image `apply`'s, with the
/// flag or without it, and the two differ within the stated bound (photo-like content; a
/// strong fine texture within 8, `shrink_on_load_size`'s note). Streamed in bands
/// (`TEXELFLOW_STREAM=1`), a JPEG is decoded whole at the same scale: the same outputs again.
#[test]
fn batch_and_streamed_runs_shrink_on_load_as_one_image_does() {
    let root = tmp("batch");
    let _ = std::fs::remove_dir_all(&root);
    let inp = root.join("in");
    std::fs::create_dir_all(&inp).expect("input folder");
    // 1/2 (150×125), 1/4 (128×96) and 1/8 (100×75) keep 100×75; the texture at 1/2
    let sizes = [
        ("half", 300, 250, false),
        ("quarter", 512, 384, false),
        ("eighth", 800, 600, false),
        ("texture", 300, 250, true),
    ];
    for (name, w, h, textured) in sizes {
        write_jpeg(&inp.join(format!("{name}.jpg")), w, h, textured);
    }
    let batch = |out: &Path, extra: &[&str], stream: &str| {
        let o = texelflow()
            .env("TEXELFLOW_STREAM", stream)
            .args(extra)
            .args(["--cpu", "apply"])
            .arg(&inp)
            .arg("--out-dir")
            .arg(out)
            .args(["--name", "{stem}.png", "--jobs", "2", "-p", SPEC])
            .output()
            .expect("binary runs");
        let e = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{e}");
        e
    };
    let (on_dir, off_dir, streamed_dir) =
        (root.join("on"), root.join("off"), root.join("streamed"));
    batch(&on_dir, &[], "0");
    batch(&off_dir, &["--no-shrink-on-load"], "0");
    let e = batch(&streamed_dir, &[], "1");
    // the bands run from the decoded size: 1/8 of 800×600
    assert!(e.contains("100x75 streamed in"), "{e}");
    let open = |p: PathBuf| image::open(p).expect("output").to_rgba8();
    for (name, _, _, textured) in sizes {
        let input = inp.join(format!("{name}.jpg"));
        let png = format!("{name}.png");
        let single_on = apply(&input, &root.join(format!("single-on-{png}")), &[]);
        let single_off = apply(
            &input,
            &root.join(format!("single-off-{png}")),
            &["--no-shrink-on-load"],
        );
        let (on, off) = (open(on_dir.join(&png)), open(off_dir.join(&png)));
        assert_eq!(on.dimensions(), (100, 75), "{name}");
        assert_eq!(
            on.as_raw(),
            single_on.as_raw(),
            "{name}: batch against one image"
        );
        assert_eq!(
            off.as_raw(),
            single_off.as_raw(),
            "{name}: --no-shrink-on-load"
        );
        assert_eq!(
            open(streamed_dir.join(&png)).as_raw(),
            on.as_raw(),
            "{name}: streamed in bands"
        );
        let d = max_diff(&on, &off);
        eprintln!("{name}: shrink-on-load against the full decode: {d}");
        // photo-like: the stated bound; a strong fine texture differs more at 1/2, where the
        // scaled IDCT drops what the full decode's area average lets alias (measured 7)
        let bound = if textured {
            8
        } else {
            texelflow::graph::SHRINK_ON_LOAD_MAX_DIFF
        };
        assert!(d <= bound, "{name}: {d}");
        assert_ne!(on.as_raw(), off.as_raw(), "{name}: the decode differs");
    }
    std::fs::remove_dir_all(&root).ok();
}

/// Issue 30's leftover: `--max-memory` is checked against the size decoded. A 1024×768 JPEG
/// needs 6 MiB to decode whole, over `--max-memory 4M`; before the shrink to 100×75 it decodes
/// at 1/8 (128×96) and is accepted, whole and streamed in bands (`TEXELFLOW_STREAM=1`); with
/// `--no-shrink-on-load` it is refused.
#[test]
fn max_memory_is_checked_at_the_decoded_size() {
    let input = tmp("limits.jpg");
    write_jpeg(&input, 1024, 768, false);
    for stream in ["0", "1"] {
        for extra in [&[][..], &["--no-shrink-on-load"][..]] {
            let output = tmp(&format!("limits-{stream}-{}.png", extra.len()));
            let o = texelflow()
                .env("TEXELFLOW_STREAM", stream)
                .args(["--max-memory", "4M"])
                .args(extra)
                .args(["--cpu", "apply", "--overwrite"])
                .arg(&input)
                .arg(&output)
                .args(["-p", SPEC])
                .output()
                .expect("binary runs");
            let e = String::from_utf8_lossy(&o.stderr);
            if extra.is_empty() {
                assert!(o.status.success(), "stream {stream}: {e}");
                let out = image::open(&output).expect("output");
                assert_eq!((out.width(), out.height()), (100, 75));
            } else {
                assert!(!o.status.success(), "stream {stream}: accepted in full");
                assert!(e.contains("--max-memory"), "stream {stream}: {e}");
            }
        }
    }
}
