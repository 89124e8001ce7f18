//! Issue 29 items 13 and 14 and the new user's rough edges: each unclear or leaking message
//! of the trial, now one line that says what is wrong and what to do, and never quotes a
//! file named in a spec.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{bin, dir, run, s, stderr};

/// A tiny PNG to run on.
fn png(d: &Path) -> PathBuf {
    let p = d.join("v.png");
    image::RgbaImage::from_fn(8, 6, |x, y| {
        image::Rgba([x as u8 * 30, y as u8 * 40, 99, 255])
    })
    .save(&p)
    .unwrap();
    p
}

/// The one line a failure prints (without `error: `), after checking that it failed, printed
/// one line, and did not panic.
fn one_line_error(o: &Output) -> String {
    let e = stderr(o);
    let lines: Vec<&str> = e.lines().collect();
    assert!(!o.status.success(), "expected a failure: {e}");
    assert_eq!(lines.len(), 1, "one line expected: {e}");
    let line = lines[0];
    assert!(line.starts_with("error: "), "{e}");
    line["error: ".len()..].to_string()
}

/// `texelflow --cpu apply INPUT OUTPUT -p PIPELINE`.
fn cpu_apply(input: &str, output: &str, pipeline: &str) -> Output {
    run(&["--cpu", "apply", input, output, "-p", pipeline])
}

/// The one line `cpu_apply` fails with (`one_line_error`).
fn cpu_apply_error(input: &str, output: &str, pipeline: &str) -> String {
    one_line_error(&cpu_apply(input, output, pipeline))
}

/// A run that succeeded (its stderr shown where not).
fn assert_success(o: &Output) {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Item 14: a file named in a spec is never quoted in the error, whatever it holds.
#[test]
fn errors_about_spec_files_never_quote_them() {
    let d = dir("leak");
    let v = png(&d);
    let secret = "root:x:0:0:hunter2:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/sbin/nologin\n";
    for (name, spec) in [
        ("passwd.cube", "lut_cube(file={})"),
        ("passwd.acv", "tone_curve(file={})"),
    ] {
        let f = d.join(name);
        std::fs::write(&f, secret).unwrap();
        let spec = spec.replace("{}", &texelflow::quote(s(&f)));
        let e = cpu_apply_error(s(&v), s(&d.join("o.png")), &spec);
        for word in ["root", "hunter2", "bash", "daemon", "nologin", "sbin"] {
            assert!(!e.contains(word), "`{e}` quotes the file");
        }
        assert!(e.contains(name), "{e}");
    }
    // a .cube error names the line and column and what was expected
    let f = d.join("bad.cube");
    std::fs::write(&f, "LUT_3D_SIZE 2\n0 0 0\n1 secret 0\n").unwrap();
    let spec = format!("lut_cube(file={})", texelflow::quote(s(&f)));
    let e = cpu_apply_error(s(&v), s(&d.join("o.png")), &spec);
    assert!(
        e.contains("line 3, column 3: expected a finite number") && !e.contains("secret"),
        "{e}"
    );
}

/// Item 14: quoted file names with `,` `)` `|` `"` `\` round-trip through the CLI's spec.
#[test]
fn quoted_hostile_file_names_work() {
    let d = dir("quote");
    let v = png(&d);
    let identity: String = std::iter::once("LUT_3D_SIZE 2\n".to_string())
        .chain((0..8).map(|k| format!("{} {} {}\n", k & 1, (k >> 1) & 1, k >> 2)))
        .collect();
    for (k, name) in [
        "a, b).cube",
        "x | invert.cube",
        "q\"uote\\.cube",
        "ｕ｜.cube",
    ]
    .into_iter()
    .enumerate()
    {
        let f = d.join(name);
        std::fs::write(&f, &identity).unwrap();
        let out = d.join(format!("o{k}.png"));
        let spec = format!("lut_cube(file={})", texelflow::quote(s(&f)));
        let o = cpu_apply(s(&v), s(&out), &spec);
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let (a, b) = (image::open(&v).unwrap(), image::open(&out).unwrap());
        assert_eq!(a.to_rgba8(), b.to_rgba8(), "{name}");
    }
}

/// Item 13: non-ASCII in a spec is reported as a whole character at a character column
/// (it was "unexpected `ï`" at a byte column).
#[test]
fn non_ascii_in_a_spec_is_reported_by_character() {
    let d = dir("unicode");
    let v = png(&d);
    let e = cpu_apply_error(s(&v), s(&d.join("o.png")), "brightness(0.1) ｜ invert");
    assert!(
        e.contains("`｜` (U+FF5C, not the ASCII `|`") && e.ends_with("at column 17"),
        "{e}"
    );
    assert!(!e.contains('ï'), "{e}");
}

/// Item 13: a GIF input with an image output says the GIF is read as video (it blamed the
/// output: "a video goes to a video file").
#[test]
fn gif_input_with_an_image_output_says_why() {
    let d = dir("gif");
    let gif = d.join("anim.gif");
    // a 1x1 GIF (the workspace's `image` has no GIF codec)
    std::fs::write(
        &gif,
        b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;",
    )
    .unwrap();
    let e = one_line_error(&run(&[
        "apply",
        s(&gif),
        s(&d.join("o.png")),
        "-p",
        "color_invert",
    ]));
    assert!(
        e.contains("is read as a video") && e.contains("-frames:v 1"),
        "{e}"
    );
    assert!(!e.contains("a video goes to a video file"), "{e}");
}

/// Item 13: an ffmpeg that fails at start is reported as such (it was "unknown codec
/// libx264").
#[cfg(unix)]
#[test]
fn an_ffmpeg_that_cannot_start_is_named() {
    use std::os::unix::fs::PermissionsExt;
    let d = dir("ffmpeg");
    let tools = d.join("bin");
    std::fs::create_dir_all(&tools).unwrap();
    for tool in ["ffmpeg", "ffprobe"] {
        let p = tools.join(tool);
        std::fs::write(
            &p,
            "#!/bin/sh\necho \"ffmpeg: error while loading shared libraries: libavdevice.so.61\" >&2\nexit 127\n",
        )
        .unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let input = d.join("in.mp4");
    std::fs::write(&input, b"not really").unwrap();
    let path = format!("{}:/usr/bin:/bin", s(&tools));
    let o = bin()
        .env("PATH", path)
        .args([
            "apply",
            s(&input),
            s(&d.join("o.mp4")),
            "-p",
            "color_invert",
        ])
        .output()
        .unwrap();
    let e = one_line_error(&o);
    assert!(
        e.contains("ffmpeg fails to start") && e.contains("libavdevice.so.61"),
        "{e}"
    );
    assert!(!e.contains("unknown codec"), "{e}");
}

/// Item 13: `--fps` too low for a short clip says so (it was "no frames could be decoded").
#[test]
fn a_frame_rate_that_keeps_no_frame_says_so() {
    let have = Command::new("ffmpeg")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        eprintln!("note: ffmpeg not found; test skipped");
        return;
    }
    let d = dir("fps");
    let clip = d.join("one.mp4");
    let o = Command::new("ffmpeg")
        .args(["-hide_banner", "-v", "error", "-y", "-f", "lavfi", "-i"])
        .args([
            "testsrc=size=16x16:rate=10",
            "-frames:v",
            "1",
            "-pix_fmt",
            "yuv420p",
        ])
        .arg(&clip)
        .output()
        .unwrap();
    assert_success(&o);
    let o = run(&[
        "--cpu",
        "apply",
        s(&clip),
        s(&d.join("o.mp4")),
        "--fps",
        "0.001",
        "-p",
        "color_invert",
    ]);
    let e = one_line_error(&o);
    assert!(e.contains("--fps 0.001 keeps no frame"), "{e}");
    assert!(!e.contains("could be decoded"), "{e}");
}

/// New user: `help` with no name prints the usage (it was an error).
#[test]
fn help_alone_is_the_usage() {
    let o = run(&["help"]);
    assert_success(&o);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("apply") && out.contains("texelflow help FILTER"),
        "{out}"
    );
}

/// New user: `analyze --json` is short (arrays on one line) and its histogram has the shape
/// of `apply --data -p histogram`'s.
#[test]
fn analyze_json_is_compact_and_shares_the_histogram_shape() {
    let d = dir("analyze");
    let v = png(&d);
    let a = run(&["--cpu", "analyze", s(&v), "--json"]);
    assert_success(&a);
    let text = String::from_utf8_lossy(&a.stdout);
    assert!(text.lines().count() < 80, "{} lines", text.lines().count());
    let a: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    let data = d.join("h.json");
    let o = run(&[
        "--cpu",
        "apply",
        s(&v),
        "--data",
        s(&data),
        "-p",
        "histogram",
    ]);
    assert_success(&o);
    let h: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&data).unwrap()).unwrap();
    assert_eq!(a["histogram"], h["histogram"]);
    assert_eq!(a["histogram"]["y"].as_array().map(Vec::len), Some(256));
    assert!(a["levels"]["y"]["p50"].is_number());
}

/// Item 13: special files as inputs say what they are (they were all "empty file (0 bytes)"):
/// a device, a FIFO, a `/proc` pseudo-file, as an image and as a file named in a spec.
#[cfg(target_os = "linux")]
#[test]
fn special_files_say_what_they_are() {
    let d = dir("special");
    let v = png(&d);
    let fifo = d.join("pipe.png");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let out = d.join("o.png");
    for (input, want) in [
        ("/dev/zero", "is a character device"),
        ("/dev/urandom", "is a character device"),
        (s(&fifo), "is a FIFO or a pipe"),
        ("/proc/self/status", "a pseudo-file (as in /proc or /sys)"),
    ] {
        let e = cpu_apply_error(input, s(&out), "color_invert");
        assert!(
            e.contains(want) && !e.contains("empty file"),
            "{input}: {e}"
        );
        let spec = format!("lut_cube(file={})", texelflow::quote(input));
        let e = cpu_apply_error(s(&v), s(&out), &spec);
        assert!(
            e.contains(want) && !e.contains("empty file"),
            "{input} in a spec: {e}"
        );
    }
}

/// A 2x1 grey float32 TIFF (SampleFormat 3), written by hand: no encoder here writes one.
fn float32_tiff(path: &Path) {
    const SHORT: u16 = 3;
    const LONG: u16 = 4;
    let entries: [(u16, u16, u32); 10] = [
        (256, LONG, 2),   // ImageWidth
        (257, LONG, 1),   // ImageLength
        (258, SHORT, 32), // BitsPerSample
        (259, SHORT, 1),  // Compression: none
        (262, SHORT, 1),  // PhotometricInterpretation: black is zero
        (273, LONG, 134), // StripOffsets: after the header and this directory
        (277, SHORT, 1),  // SamplesPerPixel
        (278, LONG, 1),   // RowsPerStrip
        (279, LONG, 8),   // StripByteCounts
        (339, SHORT, 3),  // SampleFormat: IEEE float
    ];
    let mut b = b"II\x2a\x00\x08\x00\x00\x00".to_vec();
    b.extend((entries.len() as u16).to_le_bytes());
    for (tag, kind, value) in entries {
        b.extend(tag.to_le_bytes());
        b.extend(kind.to_le_bytes());
        b.extend(1u32.to_le_bytes());
        b.extend(value.to_le_bytes());
    }
    b.extend(0u32.to_le_bytes());
    assert_eq!(b.len(), 134);
    b.extend(0.25f32.to_le_bytes());
    b.extend(0.75f32.to_le_bytes());
    std::fs::write(path, b).unwrap();
}

/// Item 13: a float32 TIFF is refused as a kind of image not taken, without the irrelevant
/// `--allow-truncated` hint it got.
#[test]
fn a_float_tiff_gets_no_truncation_hint() {
    let d = dir("f32tiff");
    let f = d.join("f32.tif");
    float32_tiff(&f);
    let e = cpu_apply_error(s(&f), s(&d.join("o.png")), "color_invert");
    assert!(
        e.contains("unsupported kind of image") && e.contains("16-bit integer"),
        "{e}"
    );
    assert!(!e.contains("allow-truncated"), "{e}");
}
