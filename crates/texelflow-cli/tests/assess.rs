//! `texelflow assess` over a folder of generated photos (the photo set of the library's assess
//! test): the blurred and badly exposed rank last, near-copies are grouped, corrupt files are
//! reported by name and skipped, and the HTML report holds every photo.

#[path = "../../texelflow/tests/common/photos.rs"]
mod photos;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_texelflow"));
    c.env(
        "XDG_RUNTIME_DIR",
        std::env::var("XDG_RUNTIME_DIR").unwrap_or_else(|_| "/tmp".into()),
    );
    c.env("WGPU_BACKEND", "vulkan");
    c.args(args).output().expect("binary runs")
}

fn folder() -> PathBuf {
    let d = std::env::temp_dir().join(format!("texelflow-assess-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes the photo set as PNGs (lossless: the scores are those of the library test) plus an
/// empty and a corrupt file; returns the set.
fn write_set(dir: &Path) -> Vec<(String, photos::Kind)> {
    let set = photos::photo_set(96, 72);
    for (name, img, _) in &set {
        img.save(dir.join(format!("{name}.png"))).unwrap();
    }
    std::fs::write(dir.join("zz_empty.png"), b"").unwrap();
    std::fs::write(
        dir.join("zz_corrupt.jpg"),
        b"\xff\xd8\xff\xe0 not really a jpeg",
    )
    .unwrap();
    set.into_iter().map(|(n, _, k)| (n, k)).collect()
}

/// Also issue 29 (new user): failures exit 1, are printed once and listed in the report, and
/// `help assess` holds the score formula the report points to.
#[test]
fn assess_ranks_groups_reports_and_skips_corrupt_files() {
    let dir = folder();
    let set = write_set(&dir);
    let report = dir.join("out").join("report.html");
    std::fs::create_dir_all(report.parent().unwrap()).unwrap();
    let o = run(&[
        "assess",
        dir.to_str().unwrap(),
        "--json",
        "--dupes",
        "--report",
        report.to_str().unwrap(),
        "--jobs",
        "3",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    // issue 29 (new user): a run where files failed exits 1, as `apply --out-dir` does
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let photos = v["photos"].as_array().unwrap();
    assert_eq!(photos.len(), set.len());
    // the failures are named, and the summary counts them
    let failed: Vec<&str> = v["failed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(failed.len(), 2, "{failed:?}");
    assert!(
        failed.iter().any(|f| f.ends_with("zz_empty.png"))
            && failed.iter().any(|f| f.ends_with("zz_corrupt.jpg"))
    );
    assert!(
        err.contains(&format!("{} photo(s) assessed", set.len())) && err.contains("2 failed"),
        "{err}"
    );
    // each failure is printed once (it was printed twice), and the last line counts them
    assert_eq!(err.matches("zz_corrupt.jpg").count(), 1, "{err}");
    assert_eq!(err.matches("zz_empty.png").count(), 1, "{err}");
    assert_eq!(
        err.lines().last(),
        Some(format!("error: 2 of {} files failed", set.len() + 2).as_str()),
        "{err}"
    );
    // ranked best first; the blurred and badly exposed are the last ones
    let kind = |file: &str| {
        let stem = Path::new(file).file_stem().unwrap().to_str().unwrap();
        set.iter()
            .find(|(n, _)| n == stem)
            .map(|(_, k)| *k)
            .unwrap()
    };
    let scores: Vec<f64> = photos
        .iter()
        .map(|p| p["score"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    let bad = set.iter().filter(|(_, k)| k.is_bad()).count();
    for p in &photos[photos.len() - bad..] {
        assert!(
            kind(p["file"].as_str().unwrap()).is_bad(),
            "{} ranks among the last {bad}",
            p["file"]
        );
    }
    for (k, p) in photos.iter().enumerate() {
        assert_eq!(p["rank"].as_u64(), Some(k as u64 + 1));
    }
    // every near-copy is in a group with its original, and no group mixes good and bad photos
    let groups: Vec<Vec<String>> = serde_json::from_value(v["near_duplicates"].clone()).unwrap();
    for (n, k) in &set {
        if let photos::Kind::DuplicateOf(i) = k {
            let original = &set[*i].0;
            assert!(
                groups
                    .iter()
                    .any(|g| g.iter().any(|f| f.contains(n.as_str()))
                        && g.iter().any(|f| f.contains(original.as_str()))),
                "{n} not grouped with {original}: {groups:?}"
            );
        }
    }
    for g in &groups {
        let bads = g.iter().filter(|f| kind(f).is_bad()).count();
        assert!(bads == 0 || bads == g.len(), "mixed group {g:?}");
    }
    // the report shows every photo with its thumbnail, and the groups
    let html = std::fs::read_to_string(&report).unwrap();
    // failed files are listed with their reason; the score formula is where the report says
    let not_assessed = &html[html
        .find("Not assessed (2 file(s))")
        .expect("failures listed")..];
    assert!(
        not_assessed.contains("zz_empty.png") && not_assessed.contains("zz_corrupt.jpg"),
        "{not_assessed}"
    );
    assert!(html.contains("<code>texelflow help assess</code>"));
    let help = run(&["help", "assess"]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("sharpness (w 0.35)") && help.contains("noise (w 0.10)"),
        "{help}"
    );
    let figures = html.matches("<figure").count();
    assert_eq!(
        figures,
        set.len() + groups.iter().map(Vec::len).sum::<usize>()
    );
    assert_eq!(html.matches("data:image/jpeg;base64,").count(), figures);
    assert!(!std::fs::read_dir(report.parent().unwrap())
        .unwrap()
        .any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".tmp")));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn assess_text_output_and_bad_arguments() {
    let dir = folder().join("one");
    std::fs::create_dir_all(&dir).unwrap();
    let set = photos::photo_set(64, 48);
    let (a, b) = (dir.join("sharp.png"), dir.join("blurred.png"));
    set[0].1.save(&a).unwrap();
    photos::blurred(&set[0].1, 3).save(&b).unwrap();
    let o = run(&[
        "assess",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--max-side",
        "32",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert!(
        rows[0].ends_with("sharp.png") && rows[1].ends_with("blurred.png"),
        "{out}"
    );
    for (args, needle) in [
        (vec!["assess", "/nonexistent/folder/x.png"], "x.png"),
        (
            vec!["assess", a.to_str().unwrap(), "--dupe-threshold", "2"],
            "outside [0, 1]",
        ),
        (
            vec!["assess", a.to_str().unwrap(), "--max-side", "1"],
            "--max-side",
        ),
    ] {
        let o = run(&args);
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success()
                && e.contains("error")
                && e.contains(needle)
                && !e.contains("panicked"),
            "{args:?}: {e}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Issue 30: `--max-side` decodes a JPEG at the DCT scale that keeps the analysed size (1/4 of
/// 640×480 for 160: the copy analysed is the decode itself), unless `--no-shrink-on-load`. The
/// photo's size reported is its own either way, the ranking the same, the scores close.
#[test]
fn max_side_shrinks_jpegs_on_load() {
    // a folder of its own: the other tests remove theirs as they end
    let dir = std::env::temp_dir().join(format!("texelflow-assess-shrink-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sharp = photos::scene(640, 480, 7);
    let (a, b) = (dir.join("sharp.jpg"), dir.join("blurred.jpg"));
    sharp.save(&a).unwrap();
    photos::blurred(&sharp, 2).save(&b).unwrap();
    let assess = |extra: &[&str]| {
        let mut args = extra.to_vec();
        args.extend(["assess", "--json", "--max-side", "160"]);
        args.extend([a.to_str().unwrap(), b.to_str().unwrap()]);
        let o = run(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["photos"].as_array().unwrap().clone()
    };
    let (on, off) = (assess(&[]), assess(&["--no-shrink-on-load"]));
    for (p, q) in on.iter().zip(&off) {
        assert_eq!(p["file"], q["file"], "the same ranking");
        assert_eq!((&p["width"], &p["height"]), (&q["width"], &q["height"]));
        assert_eq!(
            (p["width"].as_u64(), p["height"].as_u64()),
            (Some(640), Some(480))
        );
        let (s, t) = (p["score"].as_f64().unwrap(), q["score"].as_f64().unwrap());
        // measured 0.14 and 0.01 of 100
        assert!((s - t).abs() <= 1.0, "{}: {s} against {t}", p["file"]);
    }
    assert!(on[0]["file"].as_str().unwrap().ends_with("sharp.jpg"));
    // the decode differs: so do the raw measures
    assert_ne!(on[0]["tenengrad"], off[0]["tenengrad"]);
    // with the report, the decode keeps the thumbnails' 240 too (1/2 here)
    let report = dir.join("report.html");
    let o = run(&[
        "assess",
        "--max-side",
        "160",
        "--report",
        report.to_str().unwrap(),
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(&report).unwrap();
    // each photo's thumbnail (again in their near-duplicate group)
    assert!(html.matches("data:image/jpeg;base64,").count() >= 2);
    std::fs::remove_dir_all(&dir).ok();
}
