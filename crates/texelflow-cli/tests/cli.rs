//! End-to-end tests of the `texelflow` binary: the happy paths a new user tries, and bad
//! input (each must give a one-line error and a non-zero exit, never a panic).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{bin, run, stderr, tmp};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/sample.png")
}

/// A failure: non-zero exit, an `error:` line, no panic.
fn assert_clean_error(o: &Output, needle: &str) {
    let e = stderr(o);
    assert!(!o.status.success(), "expected failure, stderr: {e}");
    assert!(!e.contains("panicked"), "panic: {e}");
    assert!(
        e.contains("error:") && e.contains(needle),
        "stderr lacks `{needle}`: {e}"
    );
}

#[test]
fn apply_writes_the_output_and_matches_the_cpu() {
    let out_cpu = tmp("edges_cpu.png");
    let o = run(&[
        "--cpu",
        "apply",
        sample().to_str().unwrap(),
        out_cpu.to_str().unwrap(),
        "-p",
        "gaussian_blur(sigma=2) | sobel_edge_detection",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let cpu = image::open(&out_cpu).unwrap().to_rgba8();
    // The blur's f32 schedules compute the twin's sums (only a rounding can flip), so the
    // chain stays within 2 levels. The default f16 schedule may differ from the twin by one
    // level at any sample (its documented bound), and Sobel's gradients (coefficients summing
    // to 8 in each direction) can turn that into 8 * sqrt(2) = 11.3 levels, plus one of its
    // own rounding.
    for (schedule, tolerance) in [("gaussian_blur=f32", 2), ("", 12)] {
        let out = tmp(&format!("edges{}.png", schedule.len()));
        let o = bin()
            .env("TEXELFLOW_SCHEDULE", schedule)
            .args([
                "apply",
                sample().to_str().unwrap(),
                out.to_str().unwrap(),
                "--pipeline",
                "gaussian_blur(sigma=2) | sobel_edge_detection",
                "--timings",
            ])
            .output()
            .expect("binary runs");
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("gaussian_blur"),
            "timings table missing: {}",
            stderr(&o)
        );
        let gpu = image::open(&out).unwrap().to_rgba8();
        assert_eq!(gpu.dimensions(), (384, 256));
        let diff = gpu
            .as_raw()
            .iter()
            .zip(cpu.as_raw())
            .map(|(a, b)| (*a as i32 - *b as i32).abs())
            .max()
            .unwrap();
        assert!(
            diff <= tolerance,
            "[{schedule}] GPU and CPU outputs differ by {diff}"
        );
        // the edges image is not blank
        assert!(gpu.pixels().any(|p| p[0] > 50));
    }
}

#[test]
fn extra_image_inputs_and_jpeg_output() {
    let top = tmp("top.png");
    let o = run(&[
        "apply",
        sample().to_str().unwrap(),
        top.to_str().unwrap(),
        "-p",
        "color_invert",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = tmp("blend.jpg");
    let spec = format!(
        "alpha_blend(with={}, mix=0.5) | brightness(0.1)",
        top.display()
    );
    let o = run(&[
        "apply",
        sample().to_str().unwrap(),
        out.to_str().unwrap(),
        "-p",
        &spec,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(image::open(&out).unwrap().width(), 384);
}

#[test]
fn analyze_prints_text_and_json() {
    let o = run(&["analyze", sample().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(
        s.contains("mean saturation") && s.contains("mean luminance"),
        "{s}"
    );
    let o = run(&["analyze", sample().to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["width"], 384);
    let bins: u64 = v["histogram"]["y"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap())
        .sum();
    assert_eq!(bins, 384 * 256);
    let sat = v["mean_saturation"].as_f64().unwrap();
    assert!(sat > 0.05 && sat < 1.0, "{sat}");
    // CPU and GPU agree exactly on analysis data
    let c = run(&["--cpu", "analyze", sample().to_str().unwrap(), "--json"]);
    let vc: serde_json::Value = serde_json::from_slice(&c.stdout).unwrap();
    assert_eq!(v["histogram"], vc["histogram"]);
    assert_eq!(v["channels"], vc["channels"]);
}

#[test]
fn analyze_plots_the_histogram() {
    let out = tmp("hist-plot.png");
    std::fs::remove_file(&out).ok();
    let o = run(&[
        "analyze",
        sample().to_str().unwrap(),
        "--plot",
        out.to_str().unwrap(),
        "--plot-size",
        "800x400",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let img = image::open(&out).unwrap().to_rgb8();
    assert_eq!(img.dimensions(), (800, 400));
    // each channel's outline colour is drawn (plot.rs `channel_color`)
    for c in [[220u8, 40, 40], [30, 160, 60], [40, 90, 220], [60, 60, 60]] {
        assert!(img.pixels().any(|p| p.0 == c), "no {c:?} in the plot");
    }
    let o = run(&[
        "analyze",
        sample().to_str().unwrap(),
        "--plot",
        out.to_str().unwrap(),
        "--plot-size",
        "big",
    ]);
    assert_clean_error(&o, "WxH");
    let o = run(&[
        "analyze",
        sample().to_str().unwrap(),
        "--plot",
        out.to_str().unwrap(),
        "--plot-size",
        "20x20",
    ]);
    assert_clean_error(&o, "outside");
    std::fs::remove_file(&out).ok();
}

#[test]
fn list_help_info() {
    let o = run(&["list"]);
    let s = String::from_utf8_lossy(&o.stdout);
    for d in texelflow::registry::all() {
        assert!(s.contains(d.name), "list misses {}", d.name);
    }
    let o = run(&["help", "gaussian_blur"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("sigma"));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("formats: rgba8, gray8, rgba16\n"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let o = run(&["help", "sobel_edge_detection"]);
    assert!(
        String::from_utf8_lossy(&o.stdout)
            .contains("formats: rgba8 (a pipeline narrows a 16-bit image to rgba8 before it)"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert_clean_error(&run(&["help", "gausian"]), "did you mean `gaussian_blur`");
    let o = run(&["info"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("backend:   vulkan"));
}

/// `bench` (the `texelflow-bench` crate): the table's header and rows, per-step times of a
/// case of several steps, the CPU twin, and the JSON report's fields (BENCHMARKS.md and
/// scripts/bench_report.py read both).
#[test]
fn bench_prints_the_table_and_json() {
    let json = tmp("bench.json");
    let o = run(&[
        "bench",
        "--size",
        "32x16",
        "--runs",
        "2",
        "--sets",
        "2",
        "--filters",
        "box_blur 9x9 reflect,color_invert",
        "--cpu-twin",
        "1",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("adapter: "), "{out}");
    assert!(
        lines[2].starts_with("image 32x16 rgba8, 2 rotating buffer sets, median/min of 2 runs"),
        "{out}"
    );
    let header = format!(
        "{:<44} {:>9} {:>9} {:>9} {:>8} {:>7}  {}",
        "case", "median ms", "min ms", "GB/s", "x copy", "probe", "steps (median ms)"
    );
    assert_eq!(lines[3], header);
    let names: Vec<&str> = lines[4..].iter().map(|l| l[..44].trim_end()).collect();
    assert_eq!(
        names,
        ["copy", "box_blur 9x9 reflect", "color_invert"],
        "{out}"
    );
    // progress on stderr, a line per case as it starts (stderr is not a terminal here)
    let progress: Vec<String> = stderr(&o)
        .lines()
        .filter(|l| l.starts_with("bench: case "))
        .map(|l| l.split(',').next().unwrap_or("").to_string())
        .collect();
    assert_eq!(
        progress,
        [
            "bench: case 1/3 copy",
            "bench: case 2/3 box_blur 9x9 reflect",
            "bench: case 3/3 color_invert"
        ],
        "{}",
        stderr(&o)
    );
    // copy is its own yardstick; the reflect case lists its steps after the CPU twin's time
    assert_eq!(lines[4].split_whitespace().nth(4), Some("1.00"), "{out}");
    assert!(
        lines[5].contains("cpu twin ") && lines[5].contains("box_blur/pad "),
        "{out}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for k in ["adapter", "backend", "driver", "driver_info", "copy_ms"] {
        assert!(v.get(k).is_some(), "no {k}: {v}");
    }
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(32), Some(16))
    );
    assert_eq!((v["runs"].as_u64(), v["sets"].as_u64()), (Some(2), Some(2)));
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    let r = &results[1];
    for k in [
        "name",
        "spec",
        "width",
        "height",
        "median_ms",
        "min_ms",
        "bytes",
        "gbps",
        "x_copy",
        "probe_tflops",
        "cpu_twin_ms",
        "steps",
    ] {
        assert!(r.get(k).is_some(), "no {k}: {r}");
    }
    assert_eq!(r["bytes"].as_u64(), Some(2 * 32 * 16 * 4));
    assert!(r["cpu_twin_ms"].as_f64().is_some() && results[0]["cpu_twin_ms"].is_null());
    let steps = r["steps"].as_array().unwrap();
    assert!(steps.len() >= 3 && steps[0]["label"].is_string() && steps[0]["median_ms"].is_f64());
    std::fs::remove_file(&json).ok();
}

#[test]
fn bad_input_gives_one_line_errors() {
    let s = sample();
    let s = s.to_str().unwrap();
    let out = tmp("x.png");
    let out = out.to_str().unwrap();
    assert_clean_error(
        &run(&["apply", s, out, "-p", "gausian_blur(sigma=2)"]),
        "did you mean `gaussian_blur`",
    );
    assert_clean_error(
        &run(&["apply", s, out, "-p", "gaussian_blur(sigma=99)"]),
        "out of range [0.1, 32]",
    );
    assert_clean_error(
        &run(&["apply", s, out, "-p", "gaussian_blur(sigmaa=2)"]),
        "did you mean `sigma`",
    );
    assert_clean_error(
        &run(&["apply", s, out, "-p", "gaussian_blur(sigma=2"]),
        "column",
    );
    assert_clean_error(
        &run(&["apply", "/nonexistent/in.png", out, "-p", "brightness"]),
        "file not found",
    );
    let corrupt = tmp("corrupt.png");
    std::fs::write(&corrupt, b"\x89PNG\r\n\x1a\nnot really a png").unwrap();
    assert_clean_error(
        &run(&["apply", corrupt.to_str().unwrap(), out, "-p", "brightness"]),
        "corrupt",
    );
    let text = tmp("notes.txt");
    std::fs::write(&text, b"hello").unwrap();
    assert_clean_error(
        &run(&["apply", text.to_str().unwrap(), out, "-p", "brightness"]),
        "image",
    );
    assert_clean_error(
        &run(&[
            "apply",
            s,
            tmp("out.xyz").to_str().unwrap(),
            "-p",
            "brightness",
        ]),
        "extension",
    );
    assert_clean_error(
        &run(&[
            "apply",
            s,
            out,
            "-p",
            "alpha_blend(with=/nonexistent/top.png)",
        ]),
        "file not found",
    );
    assert_clean_error(&run(&["apply", s, out, "-p", "histogram"]), "ends in data");
    assert_clean_error(&run(&["analyze", "/nonexistent.png"]), "file not found");
    // files that filters read themselves, and curve points
    assert_clean_error(
        &run(&["apply", s, out, "-p", "lut_cube"]),
        "`file` of `lut_cube`: is required",
    );
    assert_clean_error(
        &run(&[
            "apply",
            s,
            out,
            "-p",
            "lut_cube(file=/nonexistent/grade.cube)",
        ]),
        "file `/nonexistent/grade.cube`: cannot read",
    );
    let cube = tmp("short.cube");
    std::fs::write(&cube, "LUT_3D_SIZE 2\n0 0 0\n1 0 0\n").unwrap();
    assert_clean_error(
        &run(&[
            "apply",
            s,
            out,
            "-p",
            &format!("lut_cube(file={})", cube.display()),
        ]),
        "LUT_3D_SIZE 2 needs 8 data lines, found 2",
    );
    assert_clean_error(
        &run(&[
            "apply",
            s,
            out,
            "-p",
            "tone_curve(file=/nonexistent/curve.acv)",
        ]),
        "cannot read",
    );
    assert_clean_error(
        &run(&[
            "apply",
            s,
            out,
            "-p",
            "tone_curve(rgb=[0,0, 0.5,0.5, 0.4,1])",
        ]),
        "x must increase strictly",
    );
    assert_clean_error(
        &run(&[
            "apply",
            s,
            out,
            "-p",
            "canny_edge_detection(lower=0.5, upper=0.4)",
        ]),
        "lower must be at most upper",
    );
    assert_clean_error(
        &run(&["apply", s, out, "-p", "canny_edge_detection(sigma=20)"]),
        "out of range [0, 16]",
    );
    assert_clean_error(
        &run(&["apply", s, out, "-p", "kuwahara(radius=0)"]),
        "out of range [1, 16]",
    );
    assert_clean_error(
        &run(&["apply", s, out, "-p", "kuwahara(radius=2.5)"]),
        "2.5 is not an integer",
    );
    assert_clean_error(
        &run(&["apply", s, out, "-p", "kuwahara_radius3(radius=4)"]),
        "has no parameter `radius`",
    );
    assert_clean_error(
        &run(&["apply", s, out, "-p", "clahe(tiles_x=0)"]),
        "out of range [1, 64]",
    );
    assert_clean_error(
        &run(&["apply", s, out, "-p", "clahe(clip_limit=-1)"]),
        "out of range [0, 1000]",
    );
}

/// The colour family's parameters: colours, points, lists of the wrong length, choices and a
/// LUT image of the wrong size are one-line errors with a non-zero exit.
#[test]
fn colour_parameters_and_luts_give_one_line_errors() {
    let s = sample();
    let s = s.to_str().unwrap();
    let out = tmp("y.png");
    let out = out.to_str().unwrap();
    assert_clean_error(
        &run(&["apply", s, out, "-p", "chroma_key(color=[2,0,0])"]),
        "2 is out of range [0, 1]",
    );
    assert_clean_error(
        &run(&["apply", s, out, "-p", "swirl(center=[1.5,0.5])"]),
        "1.5 is out of range [0, 1]",
    );
    assert_clean_error(
        &run(&["apply", s, out, "-p", "levels(min=[0.1,0.1])"]),
        "expected 3 numbers, got 2",
    );
    assert_clean_error(
        &run(&[
            "apply",
            s,
            out,
            "-p",
            "skin_tone(upper_skin_tone_color=blue)",
        ]),
        "not one of green, orange",
    );
    assert_clean_error(
        &run(&[
            "apply",
            s,
            out,
            "-p",
            "tone_curve(rgb=[0,0, 0.5,0.4, 0.4,0.6, 1,1])",
        ]),
        "x must increase strictly",
    );
    assert_clean_error(
        &run(&["apply", s, out, "-p", &format!("lookup(lut={s})")]),
        "needs a 512x512 LUT image",
    );
    assert_clean_error(
        &run(&["apply", s, out, "-p", "lut_cube(file=Cargo.toml)"]),
        "line 1, column 1: not a .cube line",
    );
    // issue 29 item 14: the file's text is not quoted
    let e = stderr(&run(&["apply", s, out, "-p", "lut_cube(file=Cargo.toml)"]));
    assert!(!e.contains("[package]"), "{e}");
}

#[test]
fn never_overwrites_the_input() {
    let copy = tmp("input_copy.png");
    std::fs::copy(sample(), &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    assert_clean_error(
        &run(&[
            "apply",
            copy.to_str().unwrap(),
            copy.to_str().unwrap(),
            "-p",
            "color_invert",
        ]),
        "refusing to overwrite the input",
    );
    assert_eq!(std::fs::read(&copy).unwrap(), before);
}

#[test]
fn failed_runs_leave_no_partial_output() {
    // own folder: other tests write (atomically, via .tmp files) into the shared one
    let dir = tmp("failed-run");
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("never.png");
    let o = run(&[
        "apply",
        sample().to_str().unwrap(),
        out.to_str().unwrap(),
        "-p",
        "brightness(5)",
    ]);
    assert!(!o.status.success());
    assert!(!out.exists());
    assert!(std::fs::read_dir(&dir).unwrap().all(|e| !e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .ends_with(".tmp")));
}

#[test]
fn lut_identity_round_trips() {
    let lut = tmp("identity.png");
    let o = run(&["lut-identity", lut.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = tmp("graded.png");
    let spec = format!("lookup(lut={})", lut.display());
    let o = run(&[
        "apply",
        sample().to_str().unwrap(),
        out.to_str().unwrap(),
        "-p",
        &spec,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let a = image::open(sample()).unwrap().to_rgba8();
    let b = image::open(&out).unwrap().to_rgba8();
    let diff = a
        .as_raw()
        .iter()
        .zip(b.as_raw())
        .map(|(x, y)| (*x as i32 - *y as i32).abs())
        .max()
        .unwrap();
    assert!(diff <= 1, "identity LUT changed a pixel by {diff}");
}

/// docs/filters.md's table is `texelflow list --markdown`;
/// `UPDATE_DOCS=1 cargo test -p texelflow-cli --test cli doc_filter_table` rewrites the table between the markers.
#[test]
fn doc_filter_table_is_generated_from_the_registry() {
    let o = run(&["list", "--markdown"]);
    let table = String::from_utf8_lossy(&o.stdout).into_owned();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/filters.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    if std::env::var_os("UPDATE_DOCS").is_some() && !doc.contains(&table) {
        let start = doc.find("<!-- filter-table:start").expect("start marker");
        let start = start + doc[start..].find('\n').expect("marker line") + 1;
        let end = doc.find("<!-- filter-table:end -->").expect("end marker");
        std::fs::write(&path, format!("{}{table}{}", &doc[..start], &doc[end..])).unwrap();
        return;
    }
    assert!(doc.contains(&table), "docs/filters.md's filter table is stale; regenerate it with `UPDATE_DOCS=1 cargo test -p texelflow-cli --test cli doc_filter_table`");
}

/// Batch mode: a folder (recursively) and a name pattern through one pipeline; a corrupt file
/// and a non-image fail alone, the others are written exactly as single-image runs write
/// them; existing outputs are refused, skipped or replaced as asked.
#[test]
fn batch_processes_folders_and_reports_failures() {
    let root = tmp("batch");
    let _ = std::fs::remove_dir_all(&root);
    let (inp, sub, out) = (root.join("in"), root.join("in/sub"), root.join("out"));
    std::fs::create_dir_all(&sub).unwrap();
    let s = sample();
    let s = s.to_str().unwrap();
    // three real images of different sizes, one in a subfolder
    for (path, spec) in [
        (inp.join("a.png"), "brightness(0)"),
        (inp.join("b.png"), "resize(scale=0.5)"),
        (
            sub.join("c.png"),
            "crop(x=0.1, y=0.1, width=0.3, height=0.5)",
        ),
    ] {
        assert!(
            run(&["--cpu", "apply", s, path.to_str().unwrap(), "-p", spec])
                .status
                .success()
        );
    }
    std::fs::write(inp.join("broken.png"), b"\x89PNG\r\n\x1a\ntruncated").unwrap();
    std::fs::write(inp.join("notes.txt"), b"not an image").unwrap();
    let spec = "gaussian_blur(sigma=1.5) | sobel_edge_detection";
    let batch = |extra: &[&str]| {
        let mut args = vec![
            "apply",
            inp.to_str().unwrap(),
            "--out-dir",
            out.to_str().unwrap(),
            "--recursive",
            "--name",
            "{stem}_edges.png",
            "--jobs",
            "2",
            "-p",
            spec,
        ];
        args.extend_from_slice(extra);
        run(&args)
    };
    let o = batch(&[]);
    let e = stderr(&o);
    assert!(!o.status.success() && !e.contains("panicked"), "{e}");
    assert!(
        e.contains("3 written, 0 skipped, 1 failed")
            && e.contains("broken.png")
            && e.contains("1 of 4 files failed"),
        "{e}"
    );
    assert!(
        !e.contains("notes.txt"),
        "a folder contributes image files only: {e}"
    );
    // each output equals a single-image run of the same pipeline
    for (input, output) in [
        (inp.join("a.png"), out.join("a_edges.png")),
        (inp.join("b.png"), out.join("b_edges.png")),
        (sub.join("c.png"), out.join("sub/c_edges.png")),
    ] {
        let single = root.join("single.png");
        assert!(run(&[
            "apply",
            "--overwrite",
            input.to_str().unwrap(),
            single.to_str().unwrap(),
            "-p",
            spec
        ])
        .status
        .success());
        assert_eq!(
            std::fs::read(&single).unwrap(),
            std::fs::read(&output).unwrap(),
            "{}",
            output.display()
        );
    }
    // existing outputs: refused by default, skipped or replaced when asked
    let e = stderr(&batch(&[]));
    assert!(
        e.contains("0 written, 0 skipped, 4 failed")
            && e.contains("use --overwrite or --skip-existing"),
        "{e}"
    );
    let e = stderr(&batch(&["--skip-existing"]));
    assert!(e.contains("0 written, 3 skipped, 1 failed"), "{e}");
    let e = stderr(&batch(&["--overwrite"]));
    assert!(e.contains("3 written, 0 skipped, 1 failed"), "{e}");
    // a name pattern, and a non-image named explicitly, which fails alone
    let out2 = root.join("out2");
    let pattern = inp.join("*.png");
    let o = run(&[
        "apply",
        pattern.to_str().unwrap(),
        inp.join("notes.txt").to_str().unwrap(),
        "--out-dir",
        out2.to_str().unwrap(),
        "-p",
        "color_invert",
    ]);
    let e = stderr(&o);
    assert!(
        e.contains("2 written, 0 skipped, 2 failed") && e.contains("notes.txt"),
        "{e}"
    );
    assert!(
        out2.join("a.png").exists() && out2.join("b.png").exists() && !out2.join("c.png").exists()
    );
    // two inputs that would write one file are refused before any work
    assert_clean_error(
        &run(&[
            "apply",
            inp.join("a.png").to_str().unwrap(),
            inp.join("b.png").to_str().unwrap(),
            "--out-dir",
            out2.to_str().unwrap(),
            "--name",
            "same.png",
            "-p",
            "color_invert",
        ]),
        "would both write",
    );
    assert_clean_error(
        &run(&[
            "apply",
            inp.to_str().unwrap(),
            "--out-dir",
            out2.to_str().unwrap(),
            "--name",
            "{stem}.xyz",
            "-p",
            "color_invert",
        ]),
        "unknown output extension",
    );
    // no temporary file is left behind by any of these runs, failed ones included
    for dir in [&out, &out.join("sub"), &out2] {
        let stray: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
            .collect();
        assert!(stray.is_empty(), "{stray:?}");
    }
}

/// A JPEG whose EXIF says "rotate 90° clockwise to view" (orientation 6): 6x4 stored, 4x6 upright.
fn jpeg_rotated_by_exif(path: &Path) {
    let mut jpeg = Vec::new();
    let img = image::RgbImage::from_fn(6, 4, |x, y| image::Rgb([x as u8 * 40, y as u8 * 60, 90]));
    image::DynamicImage::ImageRgb8(img)
        .write_to(
            &mut std::io::Cursor::new(&mut jpeg),
            image::ImageFormat::Jpeg,
        )
        .unwrap();
    let tiff: [u8; 26] = [
        0x4d, 0x4d, 0, 0x2a, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0,
    ];
    let mut file = jpeg[..2].to_vec();
    file.extend_from_slice(&[0xff, 0xe1, 0, (2 + 6 + tiff.len()) as u8]);
    file.extend_from_slice(b"Exif\0\0");
    file.extend_from_slice(&tiff);
    file.extend_from_slice(&jpeg[2..]);
    std::fs::write(path, file).unwrap();
}

/// A batch of JPEGs to JPEG (the photographer's case): an EXIF-rotated JPEG comes out upright,
/// a grey result is written as a one-channel JPEG, a corrupt JPEG fails alone, and every output
/// is byte-identical to the single-image run of the same file.
#[test]
fn batch_of_jpegs_matches_single_runs() {
    let root = tmp("batch_jpeg");
    let _ = std::fs::remove_dir_all(&root);
    let (inp, out) = (root.join("in"), root.join("out"));
    std::fs::create_dir_all(&inp).unwrap();
    jpeg_rotated_by_exif(&inp.join("turned.jpg"));
    let s = sample();
    assert!(run(&[
        "--cpu",
        "apply",
        s.to_str().unwrap(),
        inp.join("photo.jpg").to_str().unwrap(),
        "-p",
        "brightness(0)"
    ])
    .status
    .success());
    let mut truncated = std::fs::read(inp.join("photo.jpg")).unwrap();
    truncated.truncate(300);
    std::fs::write(inp.join("cut.jpg"), &truncated[..]).unwrap();
    std::fs::write(inp.join("zero.jpg"), b"").unwrap();
    for (spec, grey) in [
        ("contrast(1.2)", false),
        ("gaussian_blur(sigma=1) | sobel_edge_detection", true),
    ] {
        let _ = std::fs::remove_dir_all(&out);
        let o = run(&[
            "apply",
            inp.to_str().unwrap(),
            "--out-dir",
            out.to_str().unwrap(),
            "--jobs",
            "3",
            "-p",
            spec,
        ]);
        let e = stderr(&o);
        assert!(!o.status.success() && !e.contains("panicked"), "{e}");
        // a JPEG cut inside its headers and an empty one fail alone, one line each
        assert!(
            e.contains("zero.jpg")
                && e.contains("cut.jpg")
                && e.contains("2 written, 0 skipped, 2 failed"),
            "{e}"
        );
        assert!(!e.contains("\n\n"), "one line per failure: {e}");
        let turned = image::open(out.join("turned.jpg")).unwrap();
        assert_eq!(
            (turned.width(), turned.height()),
            (4, 6),
            "EXIF orientation applied on load"
        );
        let photo = image::open(out.join("photo.jpg")).unwrap();
        assert_eq!(
            photo.color() == image::ColorType::L8,
            grey,
            "{spec}: grey results are one-channel JPEGs"
        );
        for name in ["turned.jpg", "photo.jpg"] {
            let single = root.join(format!("single_{name}"));
            assert!(run(&[
                "apply",
                "--overwrite",
                inp.join(name).to_str().unwrap(),
                single.to_str().unwrap(),
                "-p",
                spec
            ])
            .status
            .success());
            assert_eq!(
                std::fs::read(&single).unwrap(),
                std::fs::read(out.join(name)).unwrap(),
                "{spec}: {name}"
            );
        }
    }
}

/// A fresh folder `in` (under `root`, returned with it) holding `photo.jpg` (the sample) and
/// `turned.jpg` (EXIF-rotated).
fn photo_folder(name: &str) -> (PathBuf, PathBuf) {
    let root = tmp(name);
    let _ = std::fs::remove_dir_all(&root);
    let inp = root.join("in");
    std::fs::create_dir_all(&inp).unwrap();
    jpeg_rotated_by_exif(&inp.join("turned.jpg"));
    let photo = inp.join("photo.jpg");
    let s = sample();
    let args = [
        "--cpu",
        "apply",
        s.to_str().unwrap(),
        photo.to_str().unwrap(),
        "-p",
        "brightness(0)",
    ];
    assert!(run(&args).status.success());
    (root, inp)
}

/// The small-work rule: where no device was asked for, a batch so small that the CPU reference
/// ends before a GPU would start runs there (`--timings` says so, and every image is decoded and
/// encoded on the host), as does a single image; `--gpu` and an explicit backend keep the GPU.
#[test]
fn small_work_runs_on_the_cpu_unless_a_gpu_is_asked_for() {
    // tiny inputs: the estimate stays far below the rule's bound however loaded the machine
    let root = tmp("small_work");
    let _ = std::fs::remove_dir_all(&root);
    let inp = root.join("in");
    std::fs::create_dir_all(&inp).unwrap();
    jpeg_rotated_by_exif(&inp.join("turned.jpg"));
    image::RgbImage::from_fn(24, 16, |x, y| image::Rgb([x as u8 * 9, y as u8 * 13, 90]))
        .save(inp.join("photo.jpg"))
        .unwrap();
    let go = |extra: &[&str], env_backend: bool, out: &str| {
        let mut c = bin();
        if !env_backend {
            c.env_remove("WGPU_BACKEND").env_remove("WGPU_ADAPTER_NAME");
        }
        let o = root.join(out);
        c.args(extra).args([
            "apply",
            inp.to_str().unwrap(),
            "--out-dir",
            o.to_str().unwrap(),
            "--name",
            "{stem}.jpg",
            "--timings",
            "-p",
            "brightness(0.1)",
        ]);
        let r = c.output().unwrap();
        let err = stderr(&r);
        assert!(r.status.success(), "{err}");
        let total = err
            .lines()
            .find(|l| l.starts_with("total"))
            .unwrap_or_default()
            .to_string();
        (err, total)
    };
    let (auto, total) = go(&[], false, "auto");
    assert!(
        auto.contains("on the CPU reference: the whole work"),
        "{auto}"
    );
    // the `enc` and `on` columns: the last two before the sums' note
    let cols: Vec<&str> = total
        .split(" (sums")
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert_eq!(
        cols[cols.len().saturating_sub(2)..],
        ["host", "host"],
        "{total}"
    );
    for (extra, env_backend, out) in [(&["--gpu"][..], false, "gpu"), (&[][..], true, "explicit")] {
        let (err, total) = go(extra, env_backend, out);
        assert!(!err.contains("on the CPU reference"), "{err}");
        // JPEG outputs encoded on the GPU
        assert!(total.contains("gpu"), "{total}");
    }
    // a single image, likewise
    let one = root.join("one.png");
    let mut c = bin();
    c.env_remove("WGPU_BACKEND")
        .env_remove("WGPU_ADAPTER_NAME")
        .args([
            "apply",
            inp.join("photo.jpg").to_str().unwrap(),
            one.to_str().unwrap(),
            "--timings",
            "-p",
            "brightness(0.1)",
        ]);
    let r = c.output().unwrap();
    let err = stderr(&r);
    assert!(r.status.success(), "{err}");
    assert!(
        err.contains("on the CPU reference: the whole work"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(root);
}

/// A batch decodes JPEGs with the GPU's help by default (`--timings` says where each image
/// was decoded): its outputs equal `--host-decode`'s byte for byte; a CMYK JPEG is decoded on
/// the host, and a note says why.
#[test]
fn batch_decodes_jpegs_on_the_gpu_as_on_the_host() {
    let (root, inp) = photo_folder("batch_device_decode");
    let cmyk =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../texelflow/tests/data/jpeg/cmyk_adobe.jpg");
    std::fs::copy(cmyk, inp.join("cmyk.jpg")).unwrap();
    let spec = "gaussian_blur(sigma=1) | contrast(1.2)";
    let batch = |out: &Path, extra: &[&str]| {
        let mut args = vec![
            "apply",
            inp.to_str().unwrap(),
            "--out-dir",
            out.to_str().unwrap(),
            "--name",
            "{stem}.png",
            "--timings",
            "-p",
            spec,
        ];
        args.extend_from_slice(extra);
        let o = run(&args);
        let e = stderr(&o);
        assert!(o.status.success(), "{e}");
        e
    };
    let (dev, host) = (root.join("device"), root.join("host"));
    let e = batch(&dev, &[]);
    let line = |name: &str| {
        e.lines()
            .find(|l| l.contains(name))
            .unwrap_or_default()
            .to_string()
    };
    // the entropy decode on the GPU too, by default
    assert!(line("photo.jpg").ends_with(" gpu"), "{e}");
    assert!(line("turned.jpg").ends_with(" gpu"), "{e}");
    assert!(line("cmyk.jpg").ends_with("host"), "{e}");
    assert!(e.contains("decoded on the CPU: a CMYK or YCCK JPEG"), "{e}");
    let e = batch(&host, &["--host-decode"]);
    assert!(
        !e.contains(" gpu\n") && !e.contains("decoded on the CPU"),
        "{e}"
    );
    // and with the entropy decode on CPU threads (`--host-entropy`)
    let entropy = root.join("entropy");
    let e = batch(&entropy, &["--host-entropy"]);
    assert!(e.contains("decoded on the CPU: a CMYK or YCCK JPEG"), "{e}");
    let line = |name: &str| {
        e.lines()
            .find(|l| l.contains(name))
            .unwrap_or_default()
            .to_string()
    };
    assert!(line("photo.jpg").ends_with(" cpu+gpu"), "{e}");
    for name in ["photo.png", "turned.png", "cmyk.png"] {
        let want = std::fs::read(host.join(name)).unwrap();
        assert_eq!(std::fs::read(dev.join(name)).unwrap(), want, "{name}");
        assert_eq!(std::fs::read(entropy.join(name)).unwrap(), want, "{name}");
    }
}

/// `jpeg` with `bytes` put into its entropy-coded data at `at` (a fraction of it), moved on to
/// where no 0xFF (a marker, a stuffed byte) is touched.
fn damaged(jpeg: &[u8], at: f64, bytes: &[u8]) -> Vec<u8> {
    let sos = jpeg.windows(2).position(|w| w == [0xff, 0xda]).unwrap();
    let start = sos + 2 + (usize::from(jpeg[sos + 2]) << 8 | usize::from(jpeg[sos + 3]));
    let end = jpeg.len() - 2;
    let mut k = start + ((end - start) as f64 * at) as usize;
    while k < end && jpeg[k - 1] == 0xff {
        k += 1;
    }
    let mut out = jpeg.to_vec();
    out.splice(k..k, bytes.iter().copied());
    out
}

/// Damaged JPEGs in a batch (issue 30): the GPU's entropy decode (the default) flags them and
/// they are decoded again as `--host-entropy` decodes them, so the outputs, the exit status
/// and the messages are the same: data cut short is the host's error; a bad Huffman code and a
/// byte left before EOI (which libjpeg-turbo's fast path does not warn about) the host's image,
/// with a note; with `--allow-truncated` (decoded on the host either way) what it recovers.
#[test]
fn batch_with_a_damaged_jpeg_fails_or_decodes_as_on_the_host() {
    let (root, inp) = photo_folder("batch_damaged_jpeg");
    let good = std::fs::read(inp.join("photo.jpg")).unwrap();
    // 32 one bits (0xFF, stuffed): a code longer than 16 bits
    let ones = [0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0];
    std::fs::write(inp.join("badcode.jpg"), damaged(&good, 0.5, &ones)).unwrap();
    std::fs::write(inp.join("extra.jpg"), damaged(&good, 1.0, &[0x5a])).unwrap();
    // the last third of the entropy-coded data gone, EOI kept
    let sos = good.windows(2).position(|w| w == [0xff, 0xda]).unwrap();
    let mut cut = (sos + good.len()) * 2 / 3;
    while good[cut - 1] == 0xff {
        cut += 1;
    }
    let short = [&good[..cut], &good[good.len() - 2..]].concat();
    std::fs::write(inp.join("short.jpg"), short).unwrap();
    let batch = |out: &str, extra: &[&str]| {
        let dir = root.join(out);
        let mut args = vec![
            "apply",
            inp.to_str().unwrap(),
            "--out-dir",
            dir.to_str().unwrap(),
            "--name",
            "{stem}.png",
            "-p",
            "contrast(1.2)",
        ];
        args.extend_from_slice(extra);
        let o = run(&args);
        let e = stderr(&o);
        assert!(!e.contains("panicked"), "{e}");
        // the messages but the notes (which say where a file was decoded)
        let said: Vec<String> = e
            .lines()
            .filter(|l| !l.starts_with("texelflow: note:"))
            .map(String::from)
            .collect();
        (o.status.code(), said, e, dir)
    };
    for allow in [&[][..], &["--allow-truncated"][..]] {
        let (code, said, e, dev) = batch(&format!("dev{}", allow.len()), allow);
        let host_args = [allow, &["--host-entropy"][..]].concat();
        let (host_code, host_said, host_e, host) =
            batch(&format!("host{}", allow.len()), &host_args);
        assert_eq!(code, host_code, "{e}\n---\n{host_e}");
        assert_eq!(said, host_said, "{e}\n---\n{host_e}");
        if allow.is_empty() {
            assert_ne!(code, Some(0), "{e}");
            assert!(e.contains("1 failed") && e.contains("short.jpg:"), "{e}");
            assert!(
                e.contains("badcode.jpg`: the GPU's entropy decode found"),
                "{e}"
            );
        } else {
            assert_eq!(code, Some(0), "{e}");
        }
        for name in [
            "photo.png",
            "turned.png",
            "badcode.png",
            "extra.png",
            "short.png",
        ] {
            let (a, b) = (
                std::fs::read(dev.join(name)).ok(),
                std::fs::read(host.join(name)).ok(),
            );
            assert!(a == b, "{name} {allow:?}: the outputs differ");
            assert!(
                a.is_some() || (name == "short.png" && allow.is_empty()),
                "{name} {allow:?}: no output"
            );
        }
    }
}

/// A batch on the GPU encodes JPEG outputs there (issue 30, `io::jpeg_file`): the files are
/// byte for byte those of the host's encode (`--host-encode`), for colour and grey results, at
/// the default quality (4:4:4) and at 75 (4:2:0), the EXIF of a turned photo carried; an
/// image with transparency is composited over the background on the host either way.
#[test]
fn batch_encodes_jpegs_on_the_gpu_as_on_the_host() {
    let (root, inp) = photo_folder("batch_device_encode");
    let mut px = image::RgbaImage::new(37, 21);
    for (x, y, p) in px.enumerate_pixels_mut() {
        *p = image::Rgba([
            (x * 7) as u8,
            (y * 11) as u8,
            90,
            if x > 20 { 100 } else { 255 },
        ]);
    }
    px.save(inp.join("clear.png")).unwrap();
    // (spec, options, whether the PNG's result keeps its transparency: Sobel's is opaque)
    for (k, (spec, extra, clear)) in [
        ("gaussian_blur(sigma=1) | contrast(1.2)", &[][..], true),
        ("sobel_edge_detection", &[][..], false),
        ("saturation(1.3)", &["--quality", "75"][..], true),
    ]
    .into_iter()
    .enumerate()
    {
        let batch = |out: &Path, more: &[&str]| {
            let mut args = vec![
                "apply",
                inp.to_str().unwrap(),
                "--out-dir",
                out.to_str().unwrap(),
                "--name",
                "{stem}.jpg",
                "-p",
                spec,
            ];
            args.extend_from_slice(extra);
            args.extend_from_slice(more);
            let o = run(&args);
            let e = stderr(&o);
            assert!(o.status.success(), "{e}");
            e
        };
        let (dev, host) = (
            root.join(format!("device{k}")),
            root.join(format!("host{k}")),
        );
        let e = batch(&dev, &["--timings"]);
        // the `enc` column: the photos on the GPU, a transparent result on the host
        let enc = |name: &str| {
            let l = e.lines().find(|l| l.contains(name)).unwrap_or_default();
            l.split_whitespace()
                .rev()
                .nth(1)
                .unwrap_or_default()
                .to_string()
        };
        let clear_on = if clear { "host" } else { "gpu" };
        assert_eq!(
            [enc("photo.jpg"), enc("turned.jpg"), enc("clear.png")],
            ["gpu", "gpu", clear_on],
            "{spec}: {e}"
        );
        assert_eq!(e.contains("JPEG has no alpha"), clear, "{e}");
        batch(&host, &["--host-encode", "--host-decode"]);
        for name in ["photo.jpg", "turned.jpg", "clear.jpg"] {
            let (a, b) = (
                std::fs::read(dev.join(name)).unwrap(),
                std::fs::read(host.join(name)).unwrap(),
            );
            assert!(
                a == b,
                "{spec}: {name} differs ({} and {} bytes)",
                a.len(),
                b.len()
            );
        }
        // one image (`apply IN OUT`) as in the batch
        for name in ["turned.jpg", "clear.png"] {
            let one = |out: &Path, more: &[&str]| {
                let i = inp.join(name);
                let mut args = vec![
                    "apply",
                    i.to_str().unwrap(),
                    out.to_str().unwrap(),
                    "--timings",
                    "-p",
                    spec,
                ];
                args.extend_from_slice(extra);
                args.extend_from_slice(more);
                let o = run(&args);
                let e = stderr(&o);
                assert!(o.status.success(), "{e}");
                e
            };
            let (a, b) = (
                dev.join(format!("one-{name}.jpg")),
                host.join(format!("one-{name}.jpg")),
            );
            let e = one(&a, &[]);
            let on = if name == "clear.png" { clear_on } else { "gpu" };
            assert!(
                e.contains(&format!("(on the {})", on.replace("gpu", "GPU"))),
                "{e}"
            );
            let e = one(&b, &["--host-encode"]);
            assert!(e.contains("(on the host)"), "{e}");
            let a = std::fs::read(&a).unwrap();
            assert!(a == std::fs::read(&b).unwrap(), "{spec}: one {name}");
            let batch = dev.join(name.replace(".png", ".jpg"));
            assert!(
                a == std::fs::read(batch).unwrap(),
                "{spec}: one {name} and the batch's"
            );
        }
    }
}

/// `--quality` sets the JPEG quality (a lower one, a smaller file); out of 1-100 is an error.
#[test]
fn jpeg_quality_is_an_option() {
    let s = sample();
    let s = s.to_str().unwrap();
    let (lo, hi) = (tmp("q40.jpg"), tmp("q95.jpg"));
    assert!(run(&[
        "--cpu",
        "apply",
        s,
        lo.to_str().unwrap(),
        "-p",
        "brightness(0)",
        "--quality",
        "40"
    ])
    .status
    .success());
    assert!(run(&[
        "--cpu",
        "apply",
        s,
        hi.to_str().unwrap(),
        "-p",
        "brightness(0)",
        "--quality",
        "95"
    ])
    .status
    .success());
    assert!(std::fs::metadata(&lo).unwrap().len() < std::fs::metadata(&hi).unwrap().len());
    let o = run(&[
        "--cpu",
        "apply",
        s,
        lo.to_str().unwrap(),
        "-p",
        "brightness(0)",
        "--quality",
        "0",
    ]);
    assert!(
        !o.status.success() && stderr(&o).contains("quality"),
        "{}",
        stderr(&o)
    );
}

/// An input's ICC colour profile is embedded in the output (PNG and JPEG), in single and batch
/// mode, so colour-managed viewers show the colours the photographer saw.
#[test]
fn icc_profiles_travel_to_the_output() {
    use image::{ImageDecoder, ImageEncoder};
    let icc: Vec<u8> = (0..300u32).map(|i| (i * 7 % 251) as u8).collect();
    let input = tmp("with_icc.png");
    {
        let rgba = image::RgbaImage::from_fn(16, 9, |x, y| {
            image::Rgba([x as u8 * 15, y as u8 * 25, 100, 255])
        });
        let file = std::io::BufWriter::new(std::fs::File::create(&input).unwrap());
        let mut enc = image::codecs::png::PngEncoder::new(file);
        enc.set_icc_profile(icc.clone()).unwrap();
        enc.write_image(rgba.as_raw(), 16, 9, image::ExtendedColorType::Rgba8)
            .unwrap();
    }
    let read_icc = |p: &Path| {
        image::ImageReader::open(p)
            .unwrap()
            .with_guessed_format()
            .unwrap()
            .into_decoder()
            .unwrap()
            .icc_profile()
            .unwrap()
    };
    assert_eq!(read_icc(&input).as_deref(), Some(icc.as_slice()));
    for out in [tmp("icc_out.png"), tmp("icc_out.jpg")] {
        assert!(run(&[
            "--cpu",
            "apply",
            input.to_str().unwrap(),
            out.to_str().unwrap(),
            "-p",
            "brightness(0.1)"
        ])
        .status
        .success());
        assert_eq!(
            read_icc(&out).as_deref(),
            Some(icc.as_slice()),
            "{}",
            out.display()
        );
    }
    let dir = tmp("icc_batch");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(run(&[
        "--cpu",
        "apply",
        input.to_str().unwrap(),
        "--out-dir",
        dir.to_str().unwrap(),
        "--name",
        "{stem}.jpg",
        "-p",
        "contrast(1.1)"
    ])
    .status
    .success());
    assert_eq!(
        read_icc(&dir.join("with_icc.jpg")).as_deref(),
        Some(icc.as_slice())
    );
}

/// A 16-bit RGBA PNG whose samples use all 16 bits (few are multiples of 257).
fn write_png16(path: &Path, w: u32, h: u32) {
    let img = image::ImageBuffer::<image::Rgba<u16>, Vec<u16>>::from_fn(w, h, |x, y| {
        let v = |c: u32| ((x * 1733 + y * 977 + c * 3181 + (x * y * 7) % 1000) % 65536) as u16;
        image::Rgba([v(0), v(1), v(2), 40000 + (x * 13 + y) as u16])
    });
    image::DynamicImage::ImageRgba16(img).save(path).unwrap();
}

/// A 16-bit PNG through per-pixel filters and a blur stays 16-bit, within a few 1/65535 steps
/// of the library's CPU chain; through a filter that takes 8-bit images it is narrowed, with a
/// note on stderr, once.
#[test]
fn sixteen_bit_pngs_keep_their_precision() {
    let input = tmp("in16.png");
    write_png16(&input, 37, 23);
    let spec = "brightness(0.1) | gaussian_blur(sigma=1.5)";
    let out = tmp("out16.png");
    let o = run(&[
        "apply",
        input.to_str().unwrap(),
        out.to_str().unwrap(),
        "-p",
        spec,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("note"), "{}", stderr(&o));
    let written = image::open(&out).unwrap();
    assert_eq!(written.color(), image::ColorType::Rgba16);
    let written = written.to_rgba16().into_raw();
    let pipe = texelflow::Pipeline::parse(spec, &mut |p: &str| texelflow::Image::open(p)).unwrap();
    let cpu = pipe
        .run(
            &texelflow::Backend::Cpu,
            &texelflow::Image::open(&input).unwrap(),
        )
        .unwrap();
    let cpu = cpu.as_image().unwrap().as_u16().to_vec();
    assert_eq!(cpu.len(), written.len());
    // f32 on both sides: brightness within a few steps (the matrix's 4), the blur's weights sum
    // to 1 so it carries that on, plus one rounding of its own
    let diff = written
        .iter()
        .zip(&cpu)
        .map(|(a, b)| a.abs_diff(*b))
        .max()
        .unwrap();
    assert!(diff <= 5, "GPU and CPU differ by {diff}/65535");
    assert!(
        written.iter().any(|v| v % 257 != 0),
        "precision lost: every sample is an 8-bit level"
    );

    let out8 = tmp("out16_edges.png");
    let o = run(&[
        "apply",
        input.to_str().unwrap(),
        out8.to_str().unwrap(),
        "-p",
        "brightness(0.1) | sobel_edge_detection | contrast(1.1)",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o).matches("`sobel_edge_detection` takes 8-bit images: the 16-bit image was narrowed to 8 bits before it").count(), 1, "{}", stderr(&o));
    assert_eq!(image::open(&out8).unwrap().color(), image::ColorType::Rgba8);
}

/// Batch mode writes a 16-bit PNG of a 16-bit input (and 8-bit of an 8-bit one).
#[test]
fn batch_keeps_16_bit_pngs() {
    let root = tmp("batch16");
    let _ = std::fs::remove_dir_all(&root);
    let (inp, out) = (root.join("in"), root.join("out"));
    std::fs::create_dir_all(&inp).unwrap();
    write_png16(&inp.join("deep.png"), 19, 11);
    std::fs::copy(sample(), inp.join("plain.png")).unwrap();
    let o = run(&[
        "apply",
        inp.to_str().unwrap(),
        "--out-dir",
        out.to_str().unwrap(),
        "-p",
        "contrast(1.2) | box_blur(radius=1)",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let deep = image::open(out.join("deep.png")).unwrap();
    assert_eq!(deep.color(), image::ColorType::Rgba16);
    assert!(deep.to_rgba16().into_raw().iter().any(|v| v % 257 != 0));
    assert_eq!(
        image::open(out.join("plain.png")).unwrap().color(),
        image::ColorType::Rgba8
    );
}

/// Writes an RGBA PNG whose pixel (x, y) is `f(x, y)`.
fn write_rgba(name: &str, w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 4]) -> PathBuf {
    let path = tmp(name);
    image::RgbaImage::from_fn(w, h, |x, y| image::Rgba(f(x, y)))
        .save(&path)
        .unwrap();
    path
}

/// `porter_duff(op=src)` shows the second image as fitted: each `fit` mode's placement,
/// checked pixel by pixel, on the GPU and the CPU alike.
#[test]
fn blends_fit_a_second_image_of_another_size() {
    let input = write_rgba("fit_in.png", 8, 6, |_, _| [10, 20, 30, 255]);
    let solid = write_rgba("fit_solid.png", 4, 2, |_, _| [200, 100, 50, 255]);
    let marked = write_rgba("fit_marked.png", 10, 10, |x, y| {
        [x as u8 * 20, y as u8 * 20, 7, 255]
    });
    // Mismatch without `fit`: one line naming both sizes and the option.
    let out = tmp("fit_out.png");
    let o = run(&[
        "apply",
        "--overwrite", // the output is written again (issue 29: no silent replacing)
        input.to_str().unwrap(),
        out.to_str().unwrap(),
        "-p",
        &format!("overlay_blend(with={})", solid.display()),
    ]);
    assert_clean_error(&o, "4x2");
    assert!(
        stderr(&o).contains("8x6") && stderr(&o).contains("fit="),
        "{}",
        stderr(&o)
    );
    assert_eq!(stderr(&o).trim().lines().count(), 1, "{}", stderr(&o));
    let clear = [0u8, 0, 0, 0];
    let colour = [200u8, 100, 50, 255];
    type Expect = Box<dyn Fn(u32, u32) -> [u8; 4]>;
    let cases: Vec<(&str, &PathBuf, Expect)> = vec![
        // 4x2 stretched to 8x6: a solid colour stays exact under bilinear resizing
        ("stretch", &solid, Box::new(move |_, _| colour)),
        // scaled by max(2, 3) = 3 to 12x6, centre-cropped to 8x6
        ("fill", &solid, Box::new(move |_, _| colour)),
        // scaled by min(2, 3) = 2 to 8x4, centred: one transparent row above and below
        (
            "fit",
            &solid,
            Box::new(move |_, y| if (1..5).contains(&y) { colour } else { clear }),
        ),
        // not scaled: 4x2 at (2, 2)
        (
            "center",
            &solid,
            Box::new(move |x, y| {
                if (2..6).contains(&x) && (2..4).contains(&y) {
                    colour
                } else {
                    clear
                }
            }),
        ),
        // not scaled, larger: 10x10 centred on 8x6 is cropped, its (1, 2) at the output's (0, 0)
        (
            "center",
            &marked,
            Box::new(|x, y| [(x + 1) as u8 * 20, (y + 2) as u8 * 20, 7, 255]),
        ),
    ];
    for (fit, with, expect) in &cases {
        for cpu in [false, true] {
            let spec = format!("porter_duff(with={}, op=src, fit={fit})", with.display());
            let mut args = vec![];
            if cpu {
                args.push("--cpu");
            }
            args.extend([
                "apply",
                "--overwrite", // the output is written again (issue 29: no silent replacing)
                input.to_str().unwrap(),
                out.to_str().unwrap(),
                "-p",
                &spec,
            ]);
            let o = run(&args);
            assert!(o.status.success(), "{spec}: {}", stderr(&o));
            let img = image::open(&out).unwrap().to_rgba8();
            assert_eq!(img.dimensions(), (8, 6), "{spec}");
            for (x, y, p) in img.enumerate_pixels() {
                assert_eq!(p.0, expect(x, y), "{spec} (cpu {cpu}) at ({x}, {y})");
            }
        }
    }
}

/// A grey mask file is widened for a blend; a missing or corrupt second file is one line.
#[test]
fn blends_take_grey_masks_and_reject_bad_second_files() {
    let input = write_rgba("mask_in.png", 5, 3, |_, _| [90, 80, 70, 255]);
    let grey = tmp("mask_grey.png");
    image::GrayImage::from_fn(5, 3, |x, _| image::Luma([x as u8 * 60]))
        .save(&grey)
        .unwrap();
    let out = tmp("mask_out.png");
    let o = run(&[
        "apply",
        "--overwrite", // the output is written again (issue 29: no silent replacing)
        input.to_str().unwrap(),
        out.to_str().unwrap(),
        "-p",
        &format!("mask(with={})", grey.display()),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let img = image::open(&out).unwrap().to_rgba8();
    for (x, _, p) in img.enumerate_pixels() {
        assert_eq!(p.0, [90, 80, 70, x as u8 * 60]);
    }
    let o = run(&[
        "apply",
        "--overwrite", // the output is written again (issue 29: no silent replacing)
        input.to_str().unwrap(),
        out.to_str().unwrap(),
        "-p",
        "screen_blend(with=/no/such/file.png)",
    ]);
    assert_clean_error(&o, "file.png");
    let corrupt = tmp("corrupt.png");
    std::fs::write(&corrupt, b"\x89PNG\r\n\x1a\nnot really").unwrap();
    let o = run(&[
        "apply",
        "--overwrite", // the output is written again (issue 29: no silent replacing)
        input.to_str().unwrap(),
        out.to_str().unwrap(),
        "-p",
        &format!("screen_blend(with={})", corrupt.display()),
    ]);
    assert_clean_error(&o, "corrupt.png");
    assert_eq!(stderr(&o).trim().lines().count(), 1, "{}", stderr(&o));
}

/// poisson_blend end to end: a patch pasted through its alpha leaves everything outside it
/// as it was, GPU and CPU agree within the declared level, and an out-of-range parameter is
/// one line naming the range.
#[test]
fn poisson_blend_pastes_through_the_mask() {
    let input = write_rgba("poisson_in.png", 12, 9, |_, _| [100, 120, 140, 255]);
    let with = write_rgba("poisson_with.png", 12, 9, |x, y| {
        let inside = (4..8).contains(&x) && (3..6).contains(&y);
        // a parabola in red: a Laplacian to paste (a linear ramp's is zero, the base already solves it)
        [
            ((x as i32 - 6).pow(2) * 8).min(255) as u8,
            y as u8 * 25,
            60,
            if inside { 255 } else { 0 },
        ]
    });
    let mut outs = Vec::new();
    for cpu in [false, true] {
        let out = tmp(&format!("poisson_out_{cpu}.png"));
        let spec = format!("poisson_blend(with={}, iterations=50)", with.display());
        let mut args = vec![];
        if cpu {
            args.push("--cpu");
        }
        args.extend([
            "apply",
            "--overwrite", // the output is written again (issue 29: no silent replacing)
            input.to_str().unwrap(),
            out.to_str().unwrap(),
            "-p",
            &spec,
        ]);
        let o = run(&args);
        assert!(o.status.success(), "{spec}: {}", stderr(&o));
        let img = image::open(&out).unwrap().to_rgba8();
        for (x, y, p) in img.enumerate_pixels() {
            if !((4..8).contains(&x) && (3..6).contains(&y)) {
                assert_eq!(
                    p.0,
                    [100, 120, 140, 255],
                    "cpu {cpu}: ({x}, {y}) outside the mask"
                );
            }
        }
        outs.push(img);
    }
    let d = outs[0]
        .as_raw()
        .iter()
        .zip(outs[1].as_raw())
        .map(|(a, b)| (*a as i32 - *b as i32).abs())
        .max()
        .unwrap_or(0);
    assert!(d <= 1, "GPU and CPU differ by {d}");
    assert_ne!(
        outs[0].as_raw(),
        image::open(&input).unwrap().to_rgba8().as_raw(),
        "the patch changed nothing"
    );
    let out = tmp("poisson_bad.png");
    let o = run(&[
        "apply",
        "--overwrite", // the output is written again (issue 29: no silent replacing)
        input.to_str().unwrap(),
        out.to_str().unwrap(),
        "-p",
        &format!("poisson_blend(with={}, iterations=20000)", with.display()),
    ]);
    assert_clean_error(&o, "[0, 10000]");
}

/// `blend_with_mask` with a grey PNG mask (widened for the blend): exact pixels on the GPU and
/// the CPU, the mask weighting `with` (white) against the input (black), and `invert=true`
/// the other way round; the mask given before `with` still means what it says.
#[test]
fn blend_with_mask_takes_a_grey_mask_file() {
    let input = write_rgba("bwm_in.png", 4, 2, |_, _| [200, 100, 0, 255]);
    let with = write_rgba("bwm_with.png", 4, 2, |_, _| [0, 50, 250, 128]);
    let mask = tmp("bwm_mask.png");
    // columns: w = 0, 1, 0.2, 0.8
    image::GrayImage::from_fn(4, 2, |x, _| image::Luma([[0u8, 255, 51, 204][x as usize]]))
        .save(&mask)
        .unwrap();
    let out = tmp("bwm_out.png");
    // c (1 - w) + t w, away from rounding ties: at w = 0.2 alpha is 204 + 25.6, at 0.8 51 + 102.4
    let (c, t) = ([200u8, 100, 0, 255], [0u8, 50, 250, 128]);
    let (w02, w08) = ([160u8, 90, 50, 230], [40u8, 60, 200, 153]);
    for (invert, expect) in [("false", [c, t, w02, w08]), ("true", [t, c, w08, w02])] {
        for cpu in [false, true] {
            let spec = format!(
                "blend_with_mask(mask={}, with={}, invert={invert})",
                mask.display(),
                with.display()
            );
            let mut args = vec![];
            if cpu {
                args.push("--cpu");
            }
            args.extend([
                "apply",
                "--overwrite", // the output is written again (issue 29: no silent replacing)
                input.to_str().unwrap(),
                out.to_str().unwrap(),
                "-p",
                &spec,
            ]);
            let o = run(&args);
            assert!(o.status.success(), "{spec}: {}", stderr(&o));
            let img = image::open(&out).unwrap().to_rgba8();
            assert_eq!(img.dimensions(), (4, 2), "{spec}");
            for (x, y, p) in img.enumerate_pixels() {
                assert_eq!(p.0, expect[x as usize], "{spec} (cpu {cpu}) at ({x}, {y})");
            }
        }
    }
    // a mask of another size: one line naming the mask, unless fitted
    let small = tmp("bwm_mask_small.png");
    image::GrayImage::from_fn(2, 1, |_, _| image::Luma([255]))
        .save(&small)
        .unwrap();
    let spec = format!(
        "blend_with_mask(with={}, mask={})",
        with.display(),
        small.display()
    );
    let o = run(&[
        "apply",
        "--overwrite", // the output is written again (issue 29: no silent replacing)
        input.to_str().unwrap(),
        out.to_str().unwrap(),
        "-p",
        &spec,
    ]);
    assert_clean_error(&o, "mask is 2x1");
    assert_eq!(stderr(&o).trim().lines().count(), 1, "{}", stderr(&o));
    let o = run(&[
        "apply",
        "--overwrite", // the output is written again (issue 29: no silent replacing)
        input.to_str().unwrap(),
        out.to_str().unwrap(),
        "-p",
        &format!("{}, fit=stretch)", spec.trim_end_matches(')')),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        image::open(&out)
            .unwrap()
            .to_rgba8()
            .pixels()
            .all(|p| p.0 == t),
        "a white mask stretched shows `with` everywhere"
    );
    // a missing mask file is one line naming it
    let o = run(&[
        "apply",
        "--overwrite", // the output is written again (issue 29: no silent replacing)
        input.to_str().unwrap(),
        out.to_str().unwrap(),
        "-p",
        &format!(
            "blend_with_mask(with={}, mask=/no/such/mask.png)",
            with.display()
        ),
    ]);
    assert_clean_error(&o, "mask.png");
    assert_eq!(stderr(&o).trim().lines().count(), 1, "{}", stderr(&o));
}

/// A pipeline ending in points data writes JSON with `--data` (a file, or `-` for standard
/// output) and needs no OUT; the GPU's list equals the CPU's; mixing up OUT and --data is one line.
#[test]
fn corners_as_json_with_data() {
    let spec = "fast_corner_detection(threshold=20) | corner_points";
    let read = |cpu: bool| {
        let out = tmp(if cpu {
            "corners_cpu.json"
        } else {
            "corners_gpu.json"
        });
        let input = sample();
        let mut args = vec![
            "apply",
            input.to_str().unwrap(),
            "-p",
            spec,
            "--data",
            out.to_str().unwrap(),
        ];
        if cpu {
            args.insert(0, "--cpu");
        }
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&out).unwrap()).unwrap()
    };
    let gpu = read(false);
    assert_eq!(gpu, read(true));
    assert_eq!(gpu["overflow"], false);
    let pts = gpu["points"].as_array().unwrap();
    assert!(!pts.is_empty());
    assert_eq!(gpu["found"].as_u64().unwrap() as usize, pts.len());
    let key = |p: &serde_json::Value| (p["y"].as_u64().unwrap(), p["x"].as_u64().unwrap());
    assert!(
        pts.windows(2).all(|w| key(&w[0]) < key(&w[1])),
        "sorted by (y, x)"
    );
    assert!(pts.iter().all(|p| p["score"].as_f64().unwrap() >= 20.0));
    let o = run(&[
        "apply",
        sample().to_str().unwrap(),
        "-p",
        spec,
        "--data",
        "-",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&o.stdout).unwrap(),
        gpu
    );
    let png = tmp("corners.png");
    assert_clean_error(
        &run(&[
            "apply",
            sample().to_str().unwrap(),
            png.to_str().unwrap(),
            "-p",
            spec,
        ]),
        "--data",
    );
    assert_clean_error(
        &run(&[
            "apply",
            sample().to_str().unwrap(),
            "-p",
            "fast_corner_detection",
            "--data",
            "-",
        ]),
        "ends in an image",
    );
    assert_clean_error(
        &run(&[
            "apply",
            sample().to_str().unwrap(),
            png.to_str().unwrap(),
            "-p",
            "fast_corner_detection(threshold=0)",
        ]),
        "threshold",
    );
}

/// Lines as JSON: `canny_edge_detection | hough_line_detection` with `--data` writes
/// `{"lines": [{"rho", "theta", "votes"}...], "found", "overflow", "max_votes"}`, strongest first,
/// the GPU's equal to the CPU's; draw_hough_lines writes an image; bad parameters are one line.
#[test]
fn hough_lines_as_json_with_data() {
    let spec = "canny_edge_detection | hough_line_detection(max=10)";
    let read = |cpu: bool| {
        let out = tmp(if cpu {
            "lines_cpu.json"
        } else {
            "lines_gpu.json"
        });
        let input = sample();
        let mut args = vec![
            "apply",
            "--overwrite", // the output is written again (issue 29: no silent replacing)
            input.to_str().unwrap(),
            "-p",
            spec,
            "--data",
            out.to_str().unwrap(),
        ];
        if cpu {
            args.insert(0, "--cpu");
        }
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&out).unwrap()).unwrap()
    };
    let gpu = read(false);
    assert_eq!(gpu, read(true));
    let lines = gpu["lines"].as_array().unwrap();
    assert!(!lines.is_empty() && lines.len() <= 10);
    assert_eq!(gpu["overflow"], gpu["found"].as_u64().unwrap() > 10);
    let votes: Vec<u64> = lines.iter().map(|l| l["votes"].as_u64().unwrap()).collect();
    assert!(
        votes.windows(2).all(|v| v[0] >= v[1]),
        "strongest first: {votes:?}"
    );
    assert_eq!(gpu["max_votes"].as_u64().unwrap(), votes[0]);
    assert!(lines
        .iter()
        .all(|l| (0.0..std::f64::consts::PI).contains(&l["theta"].as_f64().unwrap())));
    let png = tmp("hough_lines.png");
    let o = run(&[
        "apply",
        "--overwrite", // the output is written again (issue 29: no silent replacing)
        sample().to_str().unwrap(),
        png.to_str().unwrap(),
        "-p",
        "draw_hough_lines(max=4, width=3)",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = sample();
    let s = s.to_str().unwrap();
    assert_clean_error(
        &run(&[
            "apply",
            "--overwrite", // the output is written again (issue 29: no silent replacing)
            s,
            "--data",
            "-",
            "-p",
            "canny_edge_detection | hough_line_detection(theta=0.1)",
        ]),
        "out of range [0.25, 90]",
    );
    assert_clean_error(
        &run(&[
            "apply",
            "--overwrite", // the output is written again (issue 29: no silent replacing)
            s,
            "--data",
            "-",
            "-p",
            "canny_edge_detection | hough_line_detection(rho=0)",
        ]),
        "out of range [1, 64]",
    );
    assert_clean_error(
        &run(&[
            "apply",
            "--overwrite", // the output is written again (issue 29: no silent replacing)
            s,
            "--data",
            "-",
            "-p",
            "canny_edge_detection | hough_line_detection(max=0)",
        ]),
        "max",
    );
    assert_clean_error(
        &run(&[
            "apply",
            "--overwrite", // the output is written again (issue 29: no silent replacing)
            s,
            png.to_str().unwrap(),
            "-p",
            "draw_hough_lines(lower=0.5, upper=0.4)",
        ]),
        "lower must be at most upper",
    );
    assert_clean_error(
        &run(&[
            "apply",
            "--overwrite", // the output is written again (issue 29: no silent replacing)
            s,
            png.to_str().unwrap(),
            "-p",
            "draw_hough_lines(width=0)",
        ]),
        "width",
    );
}

/// The image-producing histogram solvers chain in one graph (one GPU submission: histogram,
/// solver and apply nodes, no read-back), equal to the CPU; the data solvers write JSON.
#[test]
fn histogram_solvers_apply_and_write_data() {
    let spec = "auto_levels | auto_white_balance";
    let (gpu_out, cpu_out) = (tmp("auto_gpu.png"), tmp("auto_cpu.png"));
    let o = run(&[
        "apply",
        sample().to_str().unwrap(),
        gpu_out.to_str().unwrap(),
        "-p",
        spec,
        "--timings",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for step in [
        "auto_levels/range_from_histogram",
        "auto_levels/levels_lut",
        "auto_white_balance/grey_world_lut",
        "auto_white_balance/apply_lut",
    ] {
        assert!(
            stderr(&o).contains(step),
            "timings lack {step}: {}",
            stderr(&o)
        );
    }
    let o = run(&[
        "--cpu",
        "apply",
        sample().to_str().unwrap(),
        cpu_out.to_str().unwrap(),
        "-p",
        spec,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        image::open(&gpu_out).unwrap().to_rgba8(),
        image::open(&cpu_out).unwrap().to_rgba8()
    );
    let o = run(&[
        "apply",
        sample().to_str().unwrap(),
        "--data",
        "-",
        "-p",
        "dynamic_range(low=1, high=99)",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for c in ["r", "g", "b", "y"] {
        assert!(
            v["range"][c]["low"].as_u64().unwrap() <= v["range"][c]["high"].as_u64().unwrap(),
            "{v}"
        );
    }
    let o = run(&[
        "apply",
        sample().to_str().unwrap(),
        "--data",
        "-",
        "-p",
        "histogram",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["histogram"]["a"].as_array().unwrap().len(), 256);
    assert_eq!(v["space"], "rgb");
    assert_clean_error(
        &run(&[
            "apply",
            sample().to_str().unwrap(),
            "--data",
            "-",
            "-p",
            "dynamic_range(low=70, high=20)",
        ]),
        "low must be at most high",
    );
}

/// Splits a command line: blanks separate, "double quotes" keep blanks.
fn split_args(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted, mut any) = (Vec::new(), String::new(), false, false);
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// Exactly one `error:` line containing `needle`, a non-zero exit, no panic.
fn assert_one_line_error(o: &Output, needle: &str, what: &str) {
    let e = stderr(o);
    assert!(!o.status.success(), "{what}: expected failure, stderr: {e}");
    assert!(
        !e.contains("panicked") && !e.contains("RUST_BACKTRACE"),
        "{what}: panic: {e}"
    );
    let errors: Vec<&str> = e.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{what}: one error line expected: {e}");
    assert!(
        errors[0].contains(needle),
        "{what}: the error line lacks `{needle}`: {e}"
    );
}

/// The bad-input corpus (`tests/bad_inputs/cases.txt`): each case fails with its one line.
#[test]
fn bad_input_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_inputs");
    let cases = std::fs::read_to_string(dir.join("cases.txt")).expect("cases.txt");
    let mut n = 0;
    for line in cases
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let (args, expected) = line
            .split_once(" => ")
            .unwrap_or_else(|| panic!("no ` => ` in `{line}`"));
        let out_dir = tmp(&format!("corpus-{n}"));
        std::fs::create_dir_all(&out_dir).unwrap();
        let args: Vec<String> = split_args(args)
            .into_iter()
            .map(|a| match a.strip_prefix("OUT") {
                Some(ext) => out_dir
                    .join(format!("out{ext}"))
                    .to_string_lossy()
                    .into_owned(),
                None => a,
            })
            .collect();
        let o = bin()
            .current_dir(&dir)
            .args(&args)
            .output()
            .expect("binary runs");
        assert_one_line_error(&o, expected.trim(), line);
        n += 1;
    }
    assert!(n >= 20, "only {n} cases");
}

/// `--allow-truncated` takes what a cut JPEG holds, with one warning line.
#[test]
fn truncated_jpeg_is_accepted_when_asked() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_inputs");
    let out = tmp("truncated-ok.png");
    let o = run(&[
        "--cpu",
        "apply",
        dir.join("truncated.jpg").to_str().unwrap(),
        out.to_str().unwrap(),
        "-p",
        "brightness",
        "--allow-truncated",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning:") && stderr(&o).contains("Premature end of JPEG file"),
        "{}",
        stderr(&o)
    );
    assert_eq!(image::open(&out).unwrap().width(), 48);
}

/// A reader that goes away (`texelflow list | head`) ends the output quietly, status 0.
#[test]
fn broken_pipes_end_quietly() {
    for args in [
        &["list", "--markdown"][..],
        &["help", "gaussian_blur"],
        &["--cpu", "analyze", sample().to_str().unwrap(), "--json"],
    ] {
        let mut child = bin()
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawns");
        drop(child.stdout.take()); // the reader is gone before anything is read
        let o = child.wait_with_output().expect("waits");
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}: {}", stderr(&o));
    }
}

/// `lut-identity` refuses to replace a file unless `--force`.
#[test]
fn lut_identity_asks_before_overwriting() {
    let path = tmp("photo-not-a-lut.png");
    std::fs::copy(sample(), &path).unwrap();
    let before = std::fs::read(&path).unwrap();
    let o = run(&["lut-identity", path.to_str().unwrap()]);
    assert_one_line_error(&o, "exists; use --force", "lut-identity");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "the photo was changed"
    );
    let o = run(&["lut-identity", path.to_str().unwrap(), "--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(image::open(&path).unwrap().width(), 512);
}

/// `help COMMAND` shows the command's help; `help FILTER` the filter's.
#[test]
fn help_covers_commands_and_filters() {
    let o = run(&["help", "apply"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(
        s.contains("--pipeline") && s.contains("texelflow apply"),
        "{s}"
    );
}

/// A GPU failure mid-run names the step; `--fallback cpu` runs the pipeline again on the CPU
/// reference with a note (the failure injected by `TEXELFLOW_INJECT_GPU_FAULT`).
#[test]
fn gpu_failures_name_the_step_and_fall_back_when_asked() {
    let out = tmp("fallback.png");
    let spec = "brightness(0.1) | gaussian_blur(sigma=2) | contrast(1.2)";
    let o = bin()
        .env("TEXELFLOW_INJECT_GPU_FAULT", "gaussian_blur")
        .args([
            "apply",
            sample().to_str().unwrap(),
            out.to_str().unwrap(),
            "-p",
            spec,
        ])
        .output()
        .unwrap();
    assert_one_line_error(&o, "Out of Memory", "injected fault");
    assert!(
        stderr(&o).contains("(in step `gaussian_blur`)"),
        "{}",
        stderr(&o)
    );
    let o = bin()
        .env("TEXELFLOW_INJECT_GPU_FAULT", "gaussian_blur")
        .args([
            "apply",
            sample().to_str().unwrap(),
            out.to_str().unwrap(),
            "-p",
            spec,
            "--fallback",
            "cpu",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("running again on the CPU reference"),
        "{}",
        stderr(&o)
    );
    let cpu = tmp("fallback-cpu.png");
    let c = run(&[
        "--cpu",
        "apply",
        sample().to_str().unwrap(),
        cpu.to_str().unwrap(),
        "-p",
        spec,
    ]);
    assert!(c.status.success(), "{}", stderr(&c));
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(&cpu).unwrap(),
        "the fallback is the CPU reference's result"
    );
}

/// A software rasterizer (lavapipe, llvmpipe) is named as such on stderr.
#[test]
fn software_adapters_get_a_note() {
    let o = run(&["info"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let software = String::from_utf8_lossy(&o.stdout).contains("type:      Cpu");
    let raw = String::from_utf8_lossy(&o.stderr);
    assert_eq!(raw.contains("is a software rasterizer"), software, "{raw}");
}

/// The binary with none of the device variables (`bin` asks for Vulkan): the default path.
fn bin_default_device() -> Command {
    let mut c = bin();
    for v in ["WGPU_BACKEND", "WGPU_ADAPTER_NAME", "CUDA_VISIBLE_DEVICES"] {
        c.env_remove(v);
    }
    c
}

/// `info`'s adapter rows (index first), from its standard output.
fn info_rows(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .skip_while(|l| !l.contains("index  name"))
        .skip(1)
        .take_while(|l| !l.starts_with("a plain run takes"))
        .map(String::from)
        .collect()
}

/// Issue 34: where the only adapter is a software rasterizer (lavapipe here), a plain run
/// takes the CPU reference and says so once (a single image and a batch); `--gpu`, `--device`,
/// `--adapter` and `--backend` still open it; `info` lists the adapters with their ids and
/// marks the plain run's choice.
#[test]
fn software_rasterizer_only_when_asked() {
    let o = bin_default_device().arg("info").output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let rows = info_rows(&o);
    assert!(!rows.is_empty(), "{out}");
    if !rows.iter().all(|r| r.contains(" Cpu ")) {
        eprintln!("skipped: this machine has a hardware GPU");
        return;
    }
    assert!(
        out.contains("a plain run takes: only a software rasterizer (`"),
        "{out}"
    );
    assert!(
        rows.iter().all(|r| r.starts_with("  ")),
        "nothing marked: {out}"
    );
    let dir = own_dir("software-only");
    let cpu_out = dir.join("cpu.png");
    let o = run(&[
        "--cpu",
        "apply",
        common::s(&sample()),
        common::s(&cpu_out),
        "-p",
        "gaussian_blur(sigma=2)",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let plain_out = dir.join("plain.png");
    let o = bin_default_device()
        .args([
            "apply",
            common::s(&sample()),
            common::s(&plain_out),
            "-p",
            "gaussian_blur(sigma=2)",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let notes = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(
        notes.matches("only a software rasterizer (`").count(),
        1,
        "{notes}"
    );
    assert!(
        notes.contains("running the CPU reference; --gpu or --device runs on it"),
        "{notes}"
    );
    assert_eq!(
        image::open(&plain_out).unwrap().to_rgba8(),
        image::open(&cpu_out).unwrap().to_rgba8(),
        "the plain run is the CPU reference's"
    );
    // a batch says so once too
    let batch = dir.join("batch");
    let small = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_inputs/small.jpg");
    let o = bin_default_device()
        .args([
            "apply",
            common::s(&sample()),
            common::s(&small),
            "--out-dir",
            common::s(&batch),
            "-p",
            "gaussian_blur(sigma=2)",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let notes = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(
        notes.matches("only a software rasterizer").count(),
        1,
        "{notes}"
    );
    // asked for, it runs there (the timings table names the device)
    for args in [
        vec!["--gpu"],
        vec!["--device", "0"],
        vec!["--adapter", "0"],
        vec!["--backend", "vulkan"],
    ] {
        let mut c = bin_default_device();
        c.args(&args).args([
            "apply",
            common::s(&sample()),
            common::s(&dir.join("asked.png")),
            "--overwrite",
            "--timings",
            "-p",
            "gaussian_blur(sigma=2)",
        ]);
        let o = c.output().unwrap();
        let e = String::from_utf8_lossy(&o.stderr).to_string();
        assert!(o.status.success(), "{args:?}: {e}");
        assert!(!e.contains("only a software rasterizer"), "{args:?}: {e}");
        assert!(!e.contains("(CPU reference)"), "{args:?}: {e}");
    }
}

/// Issue 34: `--device` takes an index, a PCI bus id, a UUID (as `info` prints it) or part of
/// a name, `--adapter` the same; no match is one line naming the adapters there are;
/// `CUDA_VISIBLE_DEVICES` is honoured where no device is asked for.
#[test]
fn device_selectors_and_cuda_visible_devices() {
    let o = run(&["info"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows = info_rows(&o);
    let first = rows.first().expect("an adapter").clone();
    let cells: Vec<&str> = first[2..]
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    let (name, uuid) = (cells[1], *cells.last().unwrap());
    let dir = own_dir("device-selectors");
    let out = dir.join("o.png");
    let apply = |device: &[&str], env: Option<(&str, &str)>| {
        let mut c = bin_default_device();
        if let Some((k, v)) = env {
            c.env(k, v);
        }
        c.args(device)
            // work large enough that the small-work rule leaves it to the device choice
            .args([
                "apply",
                common::s(&sample()),
                common::s(&out),
                "--overwrite",
                "--timings",
                "-p",
                "gaussian_blur(sigma=2)",
            ])
            .output()
            .unwrap()
    };
    let mut selectors = vec!["0".to_string(), name.to_uppercase(), name[..4].to_string()];
    if let Some(hex) = uuid.strip_prefix("GPU-") {
        selectors.push(uuid.to_string());
        selectors.push(hex.replace('-', ""));
    }
    for sel in &selectors {
        for flag in ["--device", "--adapter"] {
            let o = apply(&[flag, sel], None);
            let e = String::from_utf8_lossy(&o.stderr).to_string();
            assert!(o.status.success(), "{flag} {sel}: {e}");
            assert!(e.contains(&format!("({name} (")), "{flag} {sel}: {e}");
        }
    }
    let n = rows.len();
    let o = apply(&["--device", &n.to_string()], None);
    assert_one_line_error(
        &o,
        &format!("no GPU adapter found matching index {n} (there are: 0 `{name}`"),
        "an index past the last",
    );
    let o = apply(&["--device", "0000:ff:1f.7"], None);
    assert_one_line_error(
        &o,
        "matching PCI bus id 0000:ff:1f.7 (there are: ",
        "a PCI bus id",
    );
    let o = apply(&["--device", "GPU-1234"], None);
    assert_one_line_error(&o, "`GPU-1234` is not a GPU UUID", "a short UUID");
    // CUDA_VISIBLE_DEVICES: -1 or empty hides NVIDIA's GPUs (Ray's actor without GPUs)
    for v in ["-1", ""] {
        let o = apply(&[], Some(("CUDA_VISIBLE_DEVICES", v)));
        let e = String::from_utf8_lossy(&o.stderr).to_string();
        assert!(o.status.success(), "{e}");
        assert!(
            e.contains("hides every NVIDIA GPU: running the CPU reference"),
            "{e}"
        );
        assert_eq!(e.matches("hides every NVIDIA GPU").count(), 1, "{e}");
    }
    let o = apply(
        &[],
        Some((
            "CUDA_VISIBLE_DEVICES",
            "MIG-GPU-01234567-89ab-cdef-0123-456789abcdef/1/0",
        )),
    );
    let e = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{e}");
    assert!(e.contains("MIG instances are not supported"), "{e}");
    // a device asked for wins over the variable
    let o = apply(&["--device", "0"], Some(("CUDA_VISIBLE_DEVICES", "-1")));
    let e = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(
        o.status.success() && e.contains(&format!("({name} (")),
        "{e}"
    );
    let o = bin_default_device()
        .env("CUDA_VISIBLE_DEVICES", "-1")
        .arg("info")
        .output()
        .unwrap();
    let info = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        info.contains("a plain run takes: CUDA_VISIBLE_DEVICES=\"-1\" hides every NVIDIA GPU"),
        "{info}"
    );
}

/// Chains of thousands of filters run in seconds (kernels fused in bounded groups; the CPU
/// reference drops each image after its last reader), and past the node limit a spec is
/// refused at once.
#[test]
fn long_chains_run_or_are_refused_at_once() {
    let small = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad_inputs/small.jpg");
    let out = tmp("chain.png");
    let spec = vec!["brightness(0.001)"; 5000].join("|");
    for cpu in [false, true] {
        let t = std::time::Instant::now();
        let mut args = vec![
            "apply",
            "--overwrite", // the output is written again (issue 29: no silent replacing)
            small.to_str().unwrap(),
            out.to_str().unwrap(),
            "-p",
            &spec,
        ];
        if cpu {
            args.insert(0, "--cpu");
        }
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        eprintln!(
            "5000 chained filters ({}): {:.1} s",
            if cpu { "cpu" } else { "gpu" },
            t.elapsed().as_secs_f64()
        );
    }
    let spec = vec!["sepia"; 10_001].join("|");
    let t = std::time::Instant::now();
    let o = run(&[
        "apply",
        "--overwrite", // the output is written again (issue 29: no silent replacing)
        small.to_str().unwrap(),
        out.to_str().unwrap(),
        "-p",
        &spec,
    ]);
    assert_one_line_error(&o, "more than 10000 filters", "10001 filters");
    assert!(
        t.elapsed().as_secs_f64() < 10.0,
        "refused after {:?}",
        t.elapsed()
    );
}

/// Files the examples name, made in `dir`: a small photo (`in.png`, `photo.jpg`, `other.png`,
/// `logo.png`), a LUT image (`lut.png`, `graded.png`) and an identity `.cube` file.
fn example_files(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let small = image::open(sample())
        .unwrap()
        .resize_exact(40, 27, image::imageops::FilterType::Triangle)
        .to_rgba8();
    for name in ["in.png", "other.png", "logo.png"] {
        small.save(dir.join(name)).unwrap();
    }
    image::DynamicImage::ImageRgba8(small)
        .to_rgb8()
        .save(dir.join("photo.jpg"))
        .unwrap();
    let lut = Path::new(env!("CARGO_MANIFEST_DIR")).join("../texelflow/luts/amatorka.png");
    for name in ["lut.png", "graded.png"] {
        std::fs::copy(&lut, dir.join(name)).unwrap();
    }
    let mut cube = String::from("LUT_3D_SIZE 2\n");
    for b in 0..2 {
        for g in 0..2 {
            for r in 0..2 {
                cube.push_str(&format!("{r} {g} {b}\n"));
            }
        }
    }
    for name in ["file.cube", "film.cube"] {
        std::fs::write(dir.join(name), &cube).unwrap();
    }
}

/// Runs example command lines (`texelflow ...` after the program name) in `dir` on the CPU
/// reference, several at a time; returns the failures.
fn run_examples(dir: &Path, lines: Vec<(String, String)>) -> Vec<String> {
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets");
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                while let Some((name, line)) =
                    lines.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    let mut args: Vec<String> = split_args(line)
                        .into_iter()
                        .take_while(|a| a != "#")
                        .collect();
                    if args.first().map(String::as_str) == Some("texelflow") {
                        args.remove(0);
                    }
                    let mut args: Vec<String> = args
                        .into_iter()
                        .map(|a| a.replace("assets/", &format!("{}/", assets.display())))
                        .collect();
                    // the examples share a folder and many write `out.png`: an existing output
                    // is refused unless --overwrite (issue 29)
                    if args.first().map(String::as_str) == Some("apply")
                        && !args
                            .iter()
                            .any(|a| a == "--skip-existing" || a == "--no-clobber")
                    {
                        args.insert(1, "--overwrite".into());
                    }
                    let o = bin()
                        .current_dir(dir)
                        .arg("--cpu")
                        .args(&args)
                        .output()
                        .expect("binary runs");
                    if !o.status.success() {
                        failures
                            .lock()
                            .unwrap()
                            .push(format!("{name}: `{line}`: {}", stderr(&o).trim()));
                    }
                }
            });
        }
    });
    failures.into_inner().unwrap()
}

/// Every filter's `help` example runs as shown (on a small photo; the CPU reference).
#[test]
fn help_examples_run() {
    let dir = tmp("help-examples");
    example_files(&dir);
    let o = run(&["list", "--examples"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let lines: Vec<(String, String)> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(n, c)| (n.to_string(), c.to_string()))
        .collect();
    assert!(lines.len() > 100, "{} examples", lines.len());
    let failures = run_examples(&dir, lines);
    assert!(
        failures.is_empty(),
        "{} examples fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The example commands of the README and of docs/cli.md (`texelflow apply photo.jpg ...`,
/// `texelflow lut-identity ...`, and the README's first command for a fresh machine) run as written.
#[test]
fn doc_examples_run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut all = Vec::new();
    for (name, file) in [("README", "README.md"), ("docs/cli.md", "docs/cli.md")] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let mut lines: Vec<(String, String)> = text
            .lines()
            .map(str::trim)
            .filter(|l| {
                l.starts_with("texelflow apply photo.jpg")
                    || l.starts_with("texelflow lut-identity")
            })
            .map(|l| (name.to_string(), l.to_string()))
            .collect();
        if name == "README" {
            let first = text
                .lines()
                .map(str::trim)
                .find(|l| l.starts_with("scripts/run.sh apply"))
                .expect("the first command");
            lines.push((
                name.into(),
                first.replacen("scripts/run.sh", "texelflow", 1),
            ));
        }
        assert!(lines.len() >= 2, "{name}: {lines:?}");
        all.extend(lines);
    }
    assert!(all.len() >= 12, "{all:?}");
    // each file's commands in a folder of their own, so that both may write the same names
    let mut failures = Vec::new();
    for name in ["README", "docs/cli.md"] {
        let dir = tmp(&format!("doc-examples-{}", name.replace(['/', '.'], "-")));
        example_files(&dir);
        // `lut-identity lut.png` writes it
        std::fs::remove_file(dir.join("lut.png")).unwrap();
        let lines: Vec<_> = all.iter().filter(|(n, _)| n == name).cloned().collect();
        failures.extend(run_examples(&dir, lines));
    }
    assert!(
        failures.is_empty(),
        "{} documented examples fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// An image with transparent pixels saved as JPEG (no alpha): composited over `--background`
/// (white by default) with a note, never the colours hidden under the transparent pixels.
#[test]
fn alpha_saved_as_jpeg_goes_over_the_background() {
    // left half opaque blue, right half fully transparent red (the hidden colour)
    let input = write_rgba("alpha_in.png", 16, 8, |x, _| {
        if x < 8 {
            [0, 0, 255, 255]
        } else {
            [255, 0, 0, 0]
        }
    });
    for (bg, expect) in [
        (None, [255u8, 255, 255]),
        (Some("black"), [0, 0, 0]),
        (Some("#00ff00"), [0, 255, 0]),
    ] {
        let out = tmp(&format!(
            "alpha_{}.jpg",
            bg.unwrap_or("white").trim_start_matches('#')
        ));
        let mut args = vec![
            "--cpu",
            "apply",
            input.to_str().unwrap(),
            out.to_str().unwrap(),
            "-p",
            "brightness(0)",
            "--quality",
            "100",
        ];
        if let Some(b) = bg {
            args.extend(["--background", b]);
        }
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stderr(&o).contains("composited over"), "{}", stderr(&o));
        let img = image::open(&out).unwrap().to_rgb8();
        let p = img.get_pixel(12, 4).0;
        assert!(
            p.iter().zip(expect).all(|(a, b)| a.abs_diff(b) <= 8),
            "{bg:?}: {p:?}, expected {expect:?}"
        );
        let q = img.get_pixel(3, 4).0;
        assert!(q[2] > 240 && q[0] < 16, "the opaque half stays blue: {q:?}");
    }
}

/// A blur at a transparent edge keeps the visible colour (premultiplied alpha);
/// `--straight-alpha` filters colour as stored, so the hidden colour bleeds in.
#[test]
fn blurs_premultiply_alpha_unless_told_not_to() {
    // opaque white on the left, transparent red hidden on the right
    let input = write_rgba("edge_in.png", 24, 8, |x, _| {
        if x < 12 {
            [255, 255, 255, 255]
        } else {
            [255, 0, 0, 0]
        }
    });
    let fringe = |straight: bool| {
        let out = tmp(&format!("edge_out_{straight}.png"));
        let mut args = vec![
            "--cpu",
            "apply",
            input.to_str().unwrap(),
            out.to_str().unwrap(),
            "-p",
            "gaussian_blur(sigma=2)",
        ];
        if straight {
            args.push("--straight-alpha");
        }
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        image::open(&out)
            .unwrap()
            .to_rgba8()
            .pixels()
            .filter(|p| p[3] >= 16)
            .map(|p| p[1])
            .min()
            .unwrap()
    };
    assert!(fringe(false) >= 250, "premultiplied: {}", fringe(false));
    assert!(fringe(true) < 200, "straight: {}", fringe(true));
}

/// An EXIF-turned JPEG streamed in bands (decoded whole, turned upright, then streamed) gives
/// the whole path's upright output.
#[test]
fn streamed_apply_turns_exif_rotated_jpegs_upright() {
    let input = tmp("stream_rotated.jpg");
    jpeg_rotated_by_exif(&input);
    let (s, w) = (tmp("stream_rotated_s.png"), tmp("stream_rotated_w.png"));
    for (mode, out) in [("1", &s), ("0", &w)] {
        let o = bin()
            .env("TEXELFLOW_STREAM", mode)
            .args([
                "apply",
                input.to_str().unwrap(),
                out.to_str().unwrap(),
                "-p",
                "gaussian_blur(sigma=1)",
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(
            mode == "1",
            stderr(&o).contains("streamed in"),
            "{}",
            stderr(&o)
        );
    }
    let (a, b) = (
        image::open(&s).unwrap().to_rgba8(),
        image::open(&w).unwrap().to_rgba8(),
    );
    assert_eq!(a.dimensions(), (4, 6), "upright: 6x4 stored, turned");
    assert_eq!(a.as_raw(), b.as_raw());
}

/// Waits for `child` at most `secs` seconds (killing it past that), so a test of something
/// that used to hang fails instead of hanging.
#[cfg(unix)]
fn wait_bounded(mut child: std::process::Child, secs: u64) -> Output {
    let start = std::time::Instant::now();
    while child.try_wait().expect("waits").is_none() {
        if start.elapsed().as_secs() >= secs {
            let _ = child.kill();
            panic!("still running after {secs} s (blocked?)");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.wait_with_output().expect("output")
}

/// A FIFO as an input, alone or in a folder of a batch, is refused in one line at once: it
/// used to block forever with nothing writing (issue 29, item 4); a pipe (`<(cat v.png)`) was
/// "empty file (0 bytes)".
#[cfg(unix)]
#[test]
fn fifo_inputs_are_refused_without_blocking() {
    let dir = tmp("fifo-inputs");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("batch")).unwrap();
    let fifo = dir.join("f.png");
    for f in [&fifo, &dir.join("batch/b.png")] {
        let made = Command::new("mkfifo").arg(f).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    }
    std::fs::copy(sample(), dir.join("batch/a.png")).unwrap();
    let spawn = |args: &[&str]| {
        bin()
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawns")
    };
    let out = dir.join("o.png");
    let o = wait_bounded(
        spawn(&[
            "--cpu",
            "apply",
            fifo.to_str().unwrap(),
            out.to_str().unwrap(),
            "-p",
            "brightness",
        ]),
        30,
    );
    assert_one_line_error(&o, "is a FIFO or a pipe, not a regular file", "fifo input");
    assert!(!out.exists());
    // the batch writes the regular file, refuses the FIFO and ends with its summary
    let o = wait_bounded(
        spawn(&[
            "--cpu",
            "apply",
            dir.join("batch").to_str().unwrap(),
            "--out-dir",
            dir.join("out").to_str().unwrap(),
            "-p",
            "brightness",
        ]),
        60,
    );
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("1 written") && e.contains("1 failed"), "{e}");
    assert!(e.contains("b.png") && e.contains("FIFO"), "{e}");
    assert!(dir.join("out/a.png").exists());
}

/// A batch whose output name equals another of its inputs is refused before any work, even
/// with `--overwrite` (issue 29, item 3: the input `x_e.png` was replaced).
#[test]
fn a_batch_never_writes_over_one_of_its_inputs() {
    let dir = tmp("batch-own-input");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (x, xe) = (dir.join("x.png"), dir.join("x_e.png"));
    std::fs::copy(sample(), &x).unwrap();
    std::fs::copy(sample(), &xe).unwrap();
    let before = std::fs::read(&xe).unwrap();
    let o = run(&[
        "--cpu",
        "apply",
        x.to_str().unwrap(),
        xe.to_str().unwrap(),
        "--out-dir",
        dir.to_str().unwrap(),
        "--name",
        "{stem}_e.png",
        "--overwrite",
        "-p",
        "brightness(0.1)",
    ]);
    assert_one_line_error(&o, "which is one of the inputs", "output equals an input");
    assert_eq!(std::fs::read(&xe).unwrap(), before, "the input was changed");
}

/// A recursive batch visits each folder once: a link back up (`sub/up -> ..`) and a link to
/// itself are not followed again (issue 29, item 6: 41 copies of each image, or no end).
#[cfg(unix)]
#[test]
fn a_recursive_batch_does_not_follow_link_cycles() {
    let dir = tmp("batch-link-cycles");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("in/sub")).unwrap();
    std::fs::copy(sample(), dir.join("in/a.png")).unwrap();
    std::fs::copy(sample(), dir.join("in/sub/b.png")).unwrap();
    std::os::unix::fs::symlink("..", dir.join("in/sub/up")).unwrap();
    std::os::unix::fs::symlink(".", dir.join("in/self")).unwrap();
    std::os::unix::fs::symlink("self", dir.join("in/self2")).unwrap();
    let o = run(&[
        "--cpu",
        "apply",
        dir.join("in").to_str().unwrap(),
        "--recursive",
        "--out-dir",
        dir.join("out").to_str().unwrap(),
        "-p",
        "brightness(0)",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut written = Vec::new();
    let mut stack = vec![dir.join("out")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                written.push(p);
            }
        }
    }
    assert_eq!(written.len(), 2, "{written:?}");
}

/// An output name near the file system's limit (255 bytes) is written: its temporary name is
/// cut to fit (issue 29, item 10: "File name too long" from about 237 bytes).
#[test]
fn long_output_names_are_written() {
    let dir = tmp("long-names");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for n in [236, 250, 255] {
        let out = dir.join(format!(
            "{}.png",
            "é".repeat((n - 4) / 2) + &"a".repeat((n - 4) % 2)
        ));
        assert_eq!(out.file_name().unwrap().len(), n);
        let o = run(&[
            "--cpu",
            "apply",
            sample().to_str().unwrap(),
            out.to_str().unwrap(),
            "-p",
            "brightness(0)",
        ]);
        assert!(o.status.success(), "{n} bytes: {}", stderr(&o));
        assert!(out.exists());
    }
    // no temporary file is left beside them
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// `WGPU_BACKEND` and `WGPU_ADAPTER_NAME` are the flags' equivalents: one that cannot be met
/// is an error, as `--backend`/`--adapter` are, not a quiet run on the CPU (issue 29, item 16).
#[test]
fn unmet_device_variables_are_errors() {
    let out = tmp("unmet-device.png");
    for (var, value, needle) in [
        (
            "WGPU_ADAPTER_NAME",
            "nosuch",
            "no GPU adapter found matching `nosuch`",
        ),
        ("WGPU_BACKEND", "bogus", "unknown backend `bogus`"),
    ] {
        let o = bin()
            .env(var, value)
            .args([
                "apply",
                sample().to_str().unwrap(),
                out.to_str().unwrap(),
                "-p",
                "brightness",
            ])
            .output()
            .expect("binary runs");
        assert_one_line_error(&o, needle, var);
    }
}

/// A fresh folder of its own for a test of outputs (nothing else writes there).
fn own_dir(name: &str) -> PathBuf {
    let d = tmp(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The hidden temporaries (`.NAME.texelflow-PID-N.EXT`) in `dir`.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') && n.contains(".texelflow-"))
        .collect()
}

/// Issue 29, item 1: a FIFO, a character device or a link to one named as the output is
/// written into, never replaced by a regular file (`--data`); an image or a report is refused
/// there in one line, as are a folder; `/dev/stdout` prints. The old code renamed a temporary
/// file over each of them.
#[cfg(unix)]
#[test]
fn special_outputs_are_written_into_never_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = own_dir("special-outputs");
    let input = sample();
    let input = input.to_str().unwrap();
    // a FIFO with a reader: the reader gets the JSON, the FIFO stays a FIFO
    let fifo = dir.join("out.json");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let o = run(&[
        "apply",
        input,
        "--data",
        fifo.to_str().unwrap(),
        "-p",
        "histogram",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let got = reader.join().unwrap();
    assert!(
        got.contains("\"histogram\""),
        "the FIFO's reader got: {got}"
    );
    let t = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(t.is_fifo(), "the FIFO was replaced");
    // /dev/stdout (a link to the process's own stdout, a pipe here) prints, and stays
    let o = run(&["apply", input, "--data", "/dev/stdout", "-p", "histogram"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"histogram\""));
    let link = dir.join("stdout");
    std::os::unix::fs::symlink("/proc/self/fd/1", &link).unwrap();
    let o = run(&[
        "apply",
        input,
        "--data",
        link.to_str().unwrap(),
        "-p",
        "histogram",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"histogram\""));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    // a character device: written into (/dev/null swallows it), still a device
    let o = run(&["apply", input, "--data", "/dev/null", "-p", "histogram"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    // an image into a FIFO, or a folder: one line, before any work; nothing replaced
    let png_fifo = dir.join("f.png");
    assert!(Command::new("mkfifo")
        .arg(&png_fifo)
        .status()
        .unwrap()
        .success());
    let o = run(&["apply", input, png_fifo.to_str().unwrap(), "-p", "sepia"]);
    assert_one_line_error(&o, "is a FIFO", "an image into a FIFO");
    assert!(std::fs::symlink_metadata(&png_fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    let folder = dir.join("d.png");
    std::fs::create_dir(&folder).unwrap();
    let o = run(&["apply", input, folder.to_str().unwrap(), "-p", "sepia"]);
    assert_one_line_error(&o, "is a folder", "an image onto a folder");
    let o = run(&["analyze", input, "--plot", png_fifo.to_str().unwrap()]);
    assert_one_line_error(&o, "is a FIFO", "a plot into a FIFO");
    // a link to a regular file: the target is written (atomically), the link stays
    let target = dir.join("target.json");
    std::fs::write(&target, "old").unwrap();
    let to_target = dir.join("link.json");
    std::os::unix::fs::symlink(&target, &to_target).unwrap();
    let o = run(&[
        "apply",
        input,
        "--data",
        to_target.to_str().unwrap(),
        "-p",
        "histogram",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&target)
        .unwrap()
        .contains("\"histogram\""));
    assert!(std::fs::symlink_metadata(&to_target)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(temporaries(&dir).is_empty(), "{:?}", temporaries(&dir));
}

/// Issue 29, item 9: SIGTERM or Ctrl-C (SIGINT) while an image is being written removes its
/// temporary file (the old code left `.NAME.texelflow-PID.tmp` behind). The signal is sent
/// once the temporary exists (a 2000x2000 PNG at `--png-compression best` takes seconds).
#[cfg(unix)]
#[test]
fn a_signal_during_an_image_write_leaves_no_temporary() {
    for signal in ["-TERM", "-INT"] {
        let dir = own_dir(&format!("signal{signal}"));
        let out = dir.join("big.png");
        let mut child = bin()
            .args([
                "apply",
                sample().to_str().unwrap(),
                out.to_str().unwrap(),
                "--png-compression",
                "best",
                "-p",
                "resize(width=2000, height=2000)",
            ])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let t = std::time::Instant::now();
        while temporaries(&dir).is_empty() && t.elapsed().as_secs() < 60 {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(!temporaries(&dir).is_empty(), "no temporary appeared");
        let pid = child.id().to_string();
        assert!(Command::new("kill")
            .args([signal, &pid])
            .status()
            .unwrap()
            .success());
        let status = child.wait().unwrap();
        assert!(!status.success(), "{signal}: the write was not interrupted");
        assert!(
            temporaries(&dir).is_empty(),
            "{signal} left {:?}",
            temporaries(&dir)
        );
        assert!(!out.exists());
    }
}

/// Issue 29, item 9: temporaries of processes that died without cleaning up (SIGKILL) are
/// swept from a folder the next time texelflow writes into it; a recent one, and one of a
/// running process, stay.
#[cfg(target_os = "linux")]
#[test]
fn stale_temporaries_of_dead_processes_are_swept() {
    let dir = own_dir("stale-sweep");
    // no process has a PID above the kernel's maximum (4194304)
    let dead = dir.join(".a.png.texelflow-99999999-0.tmp");
    let dead_video = dir.join(".v.mp4.texelflow-99999998.mp4");
    let recent = dir.join(".b.png.texelflow-99999997-3.tmp");
    let alive = dir.join(format!(".c.png.texelflow-{}-0.tmp", std::process::id()));
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for p in [&dead, &dead_video, &recent, &alive] {
        let f = std::fs::File::create(p).unwrap();
        if p != &recent {
            f.set_modified(old).unwrap();
        }
    }
    let out = dir.join("out.png");
    let o = run(&[
        "apply",
        sample().to_str().unwrap(),
        out.to_str().unwrap(),
        "-p",
        "sepia",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!dead.exists() && !dead_video.exists(), "stale ones stayed");
    assert!(recent.exists() && alive.exists(), "a live one was removed");
}

/// Issue 29, item 11: `--no-clobber` rules hold for writers racing for one path: of 8
/// concurrent runs to one output exactly one writes it, the others say it exists (the old
/// code let all 8 succeed, each replacing the last).
#[test]
fn concurrent_writers_to_one_output_have_one_winner() {
    let dir = own_dir("race");
    let out = dir.join("one.png");
    let children: Vec<_> = (0..8)
        .map(|_| {
            bin()
                .args([
                    "--cpu",
                    "apply",
                    sample().to_str().unwrap(),
                    out.to_str().unwrap(),
                    "--no-clobber",
                    "-p",
                    "sepia",
                ])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let outcomes: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let won = outcomes.iter().filter(|o| o.status.success()).count();
    assert_eq!(won, 1, "exactly one writer wins");
    for o in outcomes.iter().filter(|o| !o.status.success()) {
        assert_one_line_error(o, "exists", "a losing writer");
    }
    assert!(temporaries(&dir).is_empty(), "{:?}", temporaries(&dir));
}

/// Issue 29, item 11: two batches racing for one folder write each output once between them
/// (the old code had both write all 40): with --skip-existing the loser skips, by default it
/// reports the file as existing.
#[test]
fn concurrent_batches_write_each_output_once() {
    let dir = own_dir("race-batch");
    let inputs = dir.join("in");
    std::fs::create_dir(&inputs).unwrap();
    for k in 0..40 {
        std::fs::copy(sample(), inputs.join(format!("p{k:02}.png"))).unwrap();
    }
    for extra in [&[][..], &["--skip-existing"][..]] {
        let out = dir.join(format!("out{}", extra.len()));
        let spawn = || {
            let mut c = bin();
            c.args([
                "--cpu",
                "apply",
                inputs.to_str().unwrap(),
                "--out-dir",
                out.to_str().unwrap(),
                "-p",
                "sepia",
            ])
            .args(extra)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
            c.spawn().unwrap()
        };
        let (a, b) = (spawn(), spawn());
        let outs = [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()];
        // "texelflow: N written, M skipped, F failed"
        let written: usize = outs
            .iter()
            .map(|o| {
                let e = stderr(o);
                let line = e
                    .lines()
                    .find(|l| l.contains(" written, "))
                    .unwrap_or_else(|| panic!("no summary: {e}"))
                    .to_string();
                line.split_whitespace()
                    .nth(1)
                    .unwrap()
                    .parse::<usize>()
                    .unwrap()
            })
            .sum();
        assert_eq!(written, 40, "{extra:?}: each output is written once");
        assert_eq!(std::fs::read_dir(&out).unwrap().count(), 40);
        if !extra.is_empty() {
            assert!(outs.iter().all(|o| o.status.success()));
        }
    }
}

/// Issue 29, item 12: a reader that goes away from raw video frames on stdout (`| head`)
/// ends the run quietly with status 0, as for printed text (the old code: status 1, "Broken
/// pipe").
#[test]
fn closed_stdout_in_video_mode_is_a_quiet_end() {
    use std::io::{Read, Write};
    let mut child = bin()
        .args([
            "--cpu", "apply", "-", "-", "-f", "rawvideo", "--size", "16x16", "-p", "sepia",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let frame = vec![128u8; 16 * 16 * 4];
        for _ in 0..2000 {
            if stdin.write_all(&frame).is_err() {
                break;
            }
        }
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut first = vec![0u8; 16 * 16 * 4];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let o = child.wait_with_output().unwrap();
    let _ = feeder.join();
    let e = stderr(&o);
    assert!(o.status.success(), "status {:?}: {e}", o.status);
    assert!(!e.contains("error"), "{e}");
}

/// New-user edges (issue 29): `apply IN OUT` refuses an existing OUT unless --overwrite, as a
/// batch does (it was replaced silently); a missing output folder is one line before any work,
/// and a batch's uncreatable --out-dir one line (not one per file after the work).
#[test]
fn existing_outputs_and_missing_folders_are_refused_first() {
    let dir = own_dir("refuse-first");
    let input = sample();
    let input = input.to_str().unwrap();
    let out = dir.join("o.png");
    std::fs::write(&out, "keep").unwrap();
    let o = run(&["apply", input, out.to_str().unwrap(), "-p", "sepia"]);
    assert_one_line_error(&o, "exists; use --overwrite", "an existing OUT");
    assert_eq!(std::fs::read(&out).unwrap(), b"keep");
    let o = run(&[
        "apply",
        input,
        out.to_str().unwrap(),
        "--overwrite",
        "-p",
        "sepia",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_ne!(std::fs::read(&out).unwrap(), b"keep");
    let missing = dir.join("nope/o.png");
    let o = run(&["apply", input, missing.to_str().unwrap(), "-p", "sepia"]);
    assert_one_line_error(&o, "does not exist", "a missing folder");
    assert!(!stderr(&o).contains("software rasterizer"));
    // --out-dir below a regular file cannot be created
    let o = run(&[
        "apply",
        input,
        "--out-dir",
        dir.join("o.png/sub").to_str().unwrap(),
        "-p",
        "sepia",
    ]);
    assert_one_line_error(
        &o,
        "cannot create the output folder",
        "an uncreatable --out-dir",
    );
}

/// Issue 31: `pixel_kernel` from a file fuses with the built-ins around it and writes the
/// bytes the same math as built-ins writes; a syntax error is one line with its file, line
/// and column; on the CPU it is one line saying there is no twin.
#[test]
fn pixel_kernel_runs_fused_and_reports_its_place() {
    let d = common::dir("pixel-kernel");
    let warm = d.join("warm.wgsl");
    std::fs::write(
        &warm,
        "struct Params { amount: f32 }\nfn kernel(c: vec4<f32>, p: Params) -> vec4<f32> {\n    return vec4<f32>(c.rgb + vec3<f32>(p.amount), c.a);\n}\n",
    )
    .unwrap();
    let input = sample();
    let (mine, theirs) = (d.join("mine.png"), d.join("theirs.png"));
    let spec = format!(
        "exposure(0.3) | pixel_kernel(file={}, amount=0.1) | contrast(1.2)",
        texelflow::quote(common::s(&warm))
    );
    let o = run(&[
        "apply",
        "--timings",
        common::s(&input),
        common::s(&mine),
        "-p",
        &spec,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // one fused step: the timings (on stderr) name its three filters joined by `+`
    assert!(
        stderr(&o).contains("exposure+pixel_kernel+contrast"),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "apply",
        common::s(&input),
        common::s(&theirs),
        "-p",
        "exposure(0.3) | brightness(0.1) | contrast(1.2)",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (a, b) = (image::open(&mine).unwrap(), image::open(&theirs).unwrap());
    assert!(
        a.as_bytes() == b.as_bytes(),
        "pixel_kernel differs from brightness"
    );
    // a syntax error: line 3, column 18 (the `;` where an expression should be)
    std::fs::write(
        &warm,
        "struct Params { amount: f32 }\nfn kernel(c: vec4<f32>, p: Params) -> vec4<f32> {\n    let x = c.r +;\n    return c;\n}\n",
    )
    .unwrap();
    let o = run(&[
        "apply",
        common::s(&input),
        common::s(&d.join("bad.png")),
        "-p",
        &spec,
    ]);
    assert_clean_error(&o, &format!("pixel_kernel: {}:3:18: ", warm.display()));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    let o = run(&[
        "--cpu",
        "apply",
        common::s(&input),
        common::s(&d.join("cpu.png")),
        "-p",
        "pixel_kernel(code=\"fn kernel(c: vec4<f32>) -> vec4<f32> { return c.bgra; }\")",
    ]);
    assert_clean_error(&o, "pixel_kernel: has no CPU twin");
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&d);
}

/// `--devices` (issue 34): a batch spread over a list of one GPU writes the same files as the
/// batch on that GPU alone (`--device`); `all` on a host of a software rasterizer alone is
/// refused unless `--gpu` counts it; a GPU listed twice or an unknown one is one line; other
/// commands run on the list's first GPU.
#[test]
fn devices_list_of_one_equals_one_device() {
    let (_, src) = photo_folder("devices-src");
    let dir = own_dir("devices");
    let batch = |flags: &[&str], out: &Path| {
        let mut c = bin_default_device();
        c.args(flags)
            .args(["apply", common::s(&src), "--out-dir", common::s(out)])
            .args([
                "-p",
                "gaussian_blur(sigma=2) | sobel_edge_detection",
                "--timings",
            ])
            .output()
            .unwrap()
    };
    let one = dir.join("one");
    let o = batch(&["--device", "0"], &one);
    assert!(o.status.success(), "{}", stderr(&o));
    for flags in [&["--devices", "0"][..], &["--devices", "all", "--gpu"][..]] {
        let listed = dir.join(format!("listed{}", flags.len()));
        let o = batch(flags, &listed);
        let e = stderr(&o);
        assert!(o.status.success(), "{flags:?}: {e}");
        assert!(
            !e.contains("CPU reference"),
            "{flags:?}: ran on the CPU: {e}"
        );
        let mut names: Vec<_> = std::fs::read_dir(&one)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert!(names.len() >= 2, "{names:?}");
        for n in &names {
            assert_eq!(
                std::fs::read(one.join(n)).unwrap(),
                std::fs::read(listed.join(n)).unwrap(),
                "{flags:?}: {n:?} differs from the one-device batch"
            );
        }
    }
    // a software rasterizer is no GPU for `all`, unless --gpu says so
    let o = batch(&["--devices", "all"], &dir.join("soft"));
    assert_one_line_error(&o, "no hardware GPU", "--devices all on lavapipe");
    let o = batch(&["--devices", "0,0"], &dir.join("twice"));
    assert_one_line_error(&o, "is listed twice", "a device listed twice");
    let o = batch(&["--devices", "0,7"], &dir.join("unknown"));
    assert_one_line_error(&o, "matching index 7", "an unknown device");
    let o = batch(&["--devices", "0", "--cpu"], &dir.join("cpu"));
    assert!(!o.status.success(), "--devices with --cpu must be refused");
    // outside a batch too, `all` is no software rasterizer unless --gpu says so
    let o = bin_default_device()
        .args(["--devices", "all", "apply", common::s(&sample())])
        .arg(common::s(&dir.join("single-all.png")))
        .args(["-p", "gaussian_blur(sigma=2)"])
        .output()
        .unwrap();
    assert_one_line_error(
        &o,
        "no hardware GPU",
        "--devices all, one image, on lavapipe",
    );
    // a single image runs on the list's first GPU
    let o = bin_default_device()
        .args(["--devices", "0", "apply", common::s(&sample())])
        .arg(common::s(&dir.join("single.png")))
        .args(["-p", "gaussian_blur(sigma=2)", "--timings"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success() && !e.contains("CPU reference"), "{e}");
}
