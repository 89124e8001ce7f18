//! `texelflow::batch`: a folder through one pipeline equals each file through `apply_file`
//! byte for byte; a list of devices gives what one gives; each file's failure is reported, not
//! raised; existing outputs follow the policy; bad plans are refused before any work.

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use texelflow::batch::{
    plan, run_batch_on, BatchEvent, BatchOptions, BatchProgress, BatchSummary, Existing,
};
use texelflow::io::{apply_file, ApplyOptions};
use texelflow::{Backend, BatchError, Error, Image, Pipeline, PixelFormat};

const SPEC: &str = "brightness(0.1) | contrast(1.2)";

/// A fresh folder of this test's own.
fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("texelflow-batch-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// An opaque picture: noise over a gradient.
fn picture(w: u32, h: u32, format: PixelFormat, seed: u64) -> Image {
    let mut rng = common::Rng(seed | 1);
    let c = format.channels();
    let mut data = Vec::with_capacity((w * h) as usize * c);
    for y in 0..h {
        for x in 0..w {
            for ch in 0..c {
                let v = if ch == 3 {
                    255
                } else {
                    ((x * 3 + y * 2 + ch as u32 * 40) % 200) as u8 + rng.byte() % 56
                };
                data.push(v);
            }
        }
    }
    Image::from_u8(w, h, format, data).unwrap()
}

/// `in/a.png` (colour), `in/b.jpg` (colour JPEG), `in/sub/c.png` (grey), `in/notes.txt`.
fn folder(root: &Path) -> PathBuf {
    let inp = root.join("in");
    std::fs::create_dir_all(inp.join("sub")).unwrap();
    picture(67, 43, PixelFormat::Rgba8, 1)
        .save(inp.join("a.png"))
        .unwrap();
    picture(130, 72, PixelFormat::Rgba8, 2)
        .save(inp.join("b.jpg"))
        .unwrap();
    picture(40, 31, PixelFormat::Gray8, 3)
        .save(inp.join("sub/c.png"))
        .unwrap();
    std::fs::write(inp.join("notes.txt"), "not an image").unwrap();
    inp
}

fn pipeline() -> Pipeline {
    Pipeline::parse(SPEC, &mut |p: &str| Image::open(p)).unwrap()
}

fn options() -> BatchOptions {
    BatchOptions {
        recursive: true,
        jobs: 3,
        gpu_jobs: 2,
        ..Default::default()
    }
}

/// Counts what the batch tells its caller.
#[derive(Default)]
struct Seen {
    started: AtomicUsize,
    done: AtomicUsize,
    events: Mutex<Vec<String>>,
}

impl BatchProgress for Seen {
    fn start(&self, files: usize) {
        self.started.store(files, Ordering::Relaxed);
    }
    fn file_done(&self, _: &Path, _: usize, _: std::time::Duration) {
        self.done.fetch_add(1, Ordering::Relaxed);
    }
    fn event(&self, event: BatchEvent<'_>) {
        self.events.lock().unwrap().push(format!("{event:?}"));
    }
}

fn batch(devices: &[Backend], inp: &Path, out: &Path, o: &BatchOptions) -> BatchSummary {
    let s = run_batch_on(&pipeline(), devices, &[inp.to_path_buf()], out, o, &()).unwrap();
    assert!(s.failed.is_empty(), "{:?}", s.failed);
    s
}

const OUTPUTS: [&str; 3] = ["a.png", "b.jpg", "sub/c.png"];

#[test]
fn a_batch_equals_each_file_through_apply_file() {
    let root = tmp("per-file");
    let inp = folder(&root);
    let gpu = common::gpu_backend();
    let seen = Seen::default();
    let out = root.join("batch");
    let s = run_batch_on(
        &pipeline(),
        std::slice::from_ref(&gpu),
        std::slice::from_ref(&inp),
        &out,
        &BatchOptions {
            timings: true,
            ..options()
        },
        &seen,
    )
    .unwrap();
    assert!(s.failed.is_empty(), "{:?}", s.failed);
    assert_eq!((s.done, s.skipped), (3, 0));
    assert_eq!(seen.started.load(Ordering::Relaxed), 3);
    assert_eq!(seen.done.load(Ordering::Relaxed), 3);
    assert_eq!(s.times.len(), 3);
    assert_eq!(s.per_device, vec![3]);
    assert!(s.device_times[0].is_some());
    let pipe = pipeline();
    for name in OUTPUTS {
        let input = inp.join(name);
        let single = root.join("single").join(name);
        std::fs::create_dir_all(single.parent().unwrap()).unwrap();
        apply_file(&pipe, &gpu, &input, &single, &ApplyOptions::default()).unwrap();
        assert_eq!(
            std::fs::read(out.join(name)).unwrap(),
            std::fs::read(&single).unwrap(),
            "{name}"
        );
    }
    // on the CPU reference too
    let cpu_out = root.join("cpu");
    batch(&[Backend::Cpu], &inp, &cpu_out, &options());
    for name in OUTPUTS {
        let single = root.join("single-cpu").join(name);
        std::fs::create_dir_all(single.parent().unwrap()).unwrap();
        apply_file(
            &pipe,
            &Backend::Cpu,
            &inp.join(name),
            &single,
            &ApplyOptions::default(),
        )
        .unwrap();
        assert_eq!(
            std::fs::read(cpu_out.join(name)).unwrap(),
            std::fs::read(&single).unwrap(),
            "{name}"
        );
    }
}

/// The largest difference of two image files' pixels.
fn max_diff(a: &Path, b: &Path) -> u8 {
    let (a, b) = (Image::open(a).unwrap(), Image::open(b).unwrap());
    assert_eq!(
        (a.width(), a.height(), a.format()),
        (b.width(), b.height(), b.format())
    );
    a.as_u8()
        .iter()
        .zip(b.as_u8())
        .map(|(x, y)| x.abs_diff(*y))
        .max()
        .unwrap_or(0)
}

#[test]
fn a_list_of_devices_gives_what_one_gives() {
    let root = tmp("devices");
    let inp = folder(&root);
    // more files, so that both devices get some
    for i in 0..6 {
        picture(50 + i, 30, PixelFormat::Rgba8, 10 + i as u64)
            .save(inp.join(format!("m{i}.png")))
            .unwrap();
    }
    let gpu = common::gpu_backend();
    let o = BatchOptions {
        name: "{stem}.png".into(),
        ..options()
    };
    let one = root.join("one");
    batch(std::slice::from_ref(&gpu), &inp, &one, &o);
    // the same GPU twice: byte for byte
    let twice = root.join("twice");
    let s = batch(&[gpu.clone(), gpu.clone()], &inp, &twice, &o);
    assert_eq!(s.done, 9);
    assert_eq!(s.per_device.iter().sum::<usize>(), 9);
    assert_eq!(s.device_times.len(), 2);
    let names: Vec<PathBuf> = ["a", "b", "sub/c", "m0", "m1", "m2", "m3", "m4", "m5"]
        .iter()
        .map(|n| PathBuf::from(format!("{n}.png")))
        .collect();
    for n in &names {
        assert_eq!(
            std::fs::read(twice.join(n)).unwrap(),
            std::fs::read(one.join(n)).unwrap(),
            "{}",
            n.display()
        );
    }
    // the GPU and the CPU reference: within the filters' tolerance, 1 level each (two filters:
    // fused on the GPU, rounded between them on the CPU)
    let mixed = root.join("mixed");
    let s = batch(&[gpu.clone(), Backend::Cpu], &inp, &mixed, &o);
    assert_eq!(s.per_device.iter().sum::<usize>(), 9);
    for n in &names {
        let d = max_diff(&mixed.join(n), &one.join(n));
        assert!(d <= 2, "{}: {d}", n.display());
    }
}

#[test]
fn each_failure_is_reported_and_the_rest_go_on() {
    let root = tmp("failures");
    let inp = folder(&root);
    std::fs::write(inp.join("corrupt.png"), b"\x89PNG\r\n\x1a\nnot really").unwrap();
    std::fs::write(inp.join("empty.jpg"), b"").unwrap();
    let missing = root.join("missing.png");
    let out = root.join("out");
    let s = run_batch_on(
        &pipeline(),
        &[common::gpu_backend()],
        &[inp.clone(), missing.clone()],
        &out,
        &options(),
        &(),
    )
    .unwrap();
    assert_eq!(s.done, 3);
    let mut failed: Vec<String> = s
        .failed
        .iter()
        .map(|f| {
            let reason = f.reason();
            assert!(!reason.is_empty() && !reason.contains('\n'), "{reason}");
            f.input.file_name().unwrap().to_string_lossy().into_owned()
        })
        .collect();
    failed.sort();
    assert_eq!(failed, ["corrupt.png", "empty.jpg", "missing.png"]);
    assert!(!out.join("corrupt.png").exists() && !out.join("empty.jpg").exists());
}

#[test]
fn existing_outputs_are_refused_skipped_or_replaced() {
    let root = tmp("existing");
    let inp = folder(&root);
    let out = root.join("out");
    let gpu = [common::gpu_backend()];
    batch(&gpu, &inp, &out, &options());
    let first = std::fs::read(out.join("a.png")).unwrap();
    std::fs::write(out.join("b.jpg"), b"old").unwrap();
    let run = |existing| {
        run_batch_on(
            &pipeline(),
            &gpu,
            std::slice::from_ref(&inp),
            &out,
            &BatchOptions {
                existing,
                ..options()
            },
            &(),
        )
        .unwrap()
    };
    // refused by default: each file fails, nothing is replaced
    let s = run(Existing::Refuse);
    assert_eq!((s.done, s.skipped, s.failed.len()), (0, 0, 3));
    assert!(s
        .failed
        .iter()
        .all(|f| matches!(f.error, Error::OutputExists { .. })));
    assert_eq!(std::fs::read(out.join("b.jpg")).unwrap(), b"old");
    let s = run(Existing::Skip);
    assert_eq!((s.done, s.skipped, s.failed.len()), (0, 3, 0));
    assert_eq!(std::fs::read(out.join("b.jpg")).unwrap(), b"old");
    let s = run(Existing::Overwrite);
    assert_eq!((s.done, s.skipped, s.failed.len()), (3, 0, 0));
    assert_ne!(std::fs::read(out.join("b.jpg")).unwrap(), b"old");
    assert_eq!(std::fs::read(out.join("a.png")).unwrap(), first);
}

#[test]
fn bad_plans_are_refused_before_any_work() {
    let root = tmp("plans");
    let inp = folder(&root);
    let o = options();
    let err = |inputs: &[PathBuf], out: &Path, o: &BatchOptions| match plan(inputs, out, o) {
        Err(Error::Batch(e)) => e,
        other => panic!("{other:?}"),
    };
    // the outputs would be the inputs
    assert!(matches!(
        err(std::slice::from_ref(&inp), &inp, &o),
        BatchError::OutputIsAnInput { .. }
    ));
    assert!(matches!(
        err(
            std::slice::from_ref(&inp),
            &root.join("o"),
            &BatchOptions {
                name: "x/{stem}.png".into(),
                ..options()
            }
        ),
        BatchError::NameIsPath { .. }
    ));
    assert!(matches!(
        err(
            std::slice::from_ref(&inp),
            &root.join("o"),
            &BatchOptions {
                name: "{stem}.nope".into(),
                ..options()
            }
        ),
        BatchError::UnknownExtension { .. }
    ));
    std::fs::copy(inp.join("a.png"), inp.join("b.png")).unwrap();
    assert!(matches!(
        err(
            std::slice::from_ref(&inp),
            &root.join("o"),
            &BatchOptions {
                name: "{stem}.png".into(),
                ..options()
            }
        ),
        BatchError::SameOutput { .. }
    ));
    assert!(matches!(
        err(&[inp.join("*.gif")], &root.join("o"), &o),
        BatchError::NoMatch { .. }
    ));
    // nothing was written by any of them
    assert!(!root.join("o").join("a.png").exists());
    // and a wildcard lists the matching names of its folder
    let jobs = plan(&[inp.join("?.png")], &root.join("o"), &o).unwrap();
    let names: Vec<_> = jobs
        .iter()
        .map(|j| j.output.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["a.png", "b.png"]);
}
