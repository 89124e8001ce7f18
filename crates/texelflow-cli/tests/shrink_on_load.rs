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

fn apply(input: &Path, output: &Path, extra: &[&str]) -> image::RgbaImage {
    let o = Command::new(env!("CARGO_BIN_EXE_texelflow"))
        .env("XDG_RUNTIME_DIR", "/tmp")
        .args(extra)
        .args(["--cpu", "apply", "--overwrite"])
        .arg(input)
        .arg(output)
        .args(["-p", "resize(width=100, height=75, method=area)"])
        .output()
        .expect("binary runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    image::open(output).expect("output").to_rgba8()
}

#[test]
fn no_shrink_on_load_decodes_in_full() {
    let (w, h) = (512u32, 384u32);
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        let t = ((x * 7 + y * 13) % 17) as u8;
        image::Rgb([
            ((x / 2) as u8).saturating_add(t),
            (y / 2) as u8,
            200 - t * 3,
        ])
    });
    let input = tmp("in.jpg");
    img.save(&input).expect("save jpeg");
    let on = apply(&input, &tmp("on.png"), &[]);
    let off = apply(&input, &tmp("off.png"), &["--no-shrink-on-load"]);
    assert_eq!(on.dimensions(), (100, 75));
    assert_eq!(off.dimensions(), (100, 75));
    let d = on
        .as_raw()
        .iter()
        .zip(off.as_raw())
        .map(|(a, b)| a.abs_diff(*b))
        .max()
        .unwrap_or(0);
    assert!(d <= texelflow::graph::SHRINK_ON_LOAD_MAX_DIFF, "{d}");
    // the flag changes the decode: the two are not the same run
    assert_ne!(on.as_raw(), off.as_raw());
}
