//! `texelflow::video` as a library: a small synthetic clip made with ffmpeg goes through
//! `process_video` (frame count, size, events, the report), a temporal filter runs over it, and
//! bad input gives one line of `Error::Video` and no file. Skipped where ffmpeg is absent.
#![cfg(feature = "video")]

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use texelflow::video::{process_video, process_video_with, VideoEvent, VideoJob, VideoOptions};
use texelflow::{Backend, Error, Image, Pipeline, RunOptions};

fn have_ffmpeg() -> bool {
    let ok = |t: &str| Command::new(t).arg("-version").output().is_ok();
    let have = ok("ffmpeg") && ok("ffprobe");
    if !have {
        eprintln!("note: ffmpeg/ffprobe not found; video test skipped");
    }
    have
}

fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("texelflow-libvideo-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temporary directory");
    d
}

/// 12 frames of 64x48 at 10 fps, lossless (ffv1 in .mkv).
fn clip(d: &Path) -> PathBuf {
    let p = d.join("in.mkv");
    let st = Command::new("ffmpeg")
        .args([
            "-v",
            "error",
            "-y",
            "-f",
            "lavfi",
            "-i",
            "testsrc=size=64x48:rate=10",
        ])
        .args(["-frames:v", "12", "-c:v", "ffv1", "-pix_fmt", "yuv420p"])
        .arg(&p)
        .status()
        .expect("ffmpeg runs");
    assert!(st.success());
    p
}

/// Frames, width and height of the first video stream.
fn frames_and_size(p: &Path) -> (u64, u64, u64) {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-count_frames", "-select_streams", "v:0"])
        .args([
            "-show_entries",
            "stream=nb_read_frames,width,height",
            "-of",
            "csv=p=0",
        ])
        .arg(p)
        .output()
        .expect("ffprobe runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Vec<u64> = text
        .trim()
        .split(',')
        .map(|x| x.parse().expect("a number"))
        .collect();
    (v[2], v[0], v[1])
}

fn pipeline(spec: &str) -> Pipeline {
    Pipeline::parse(spec, &mut |p: &str| Image::open(p)).expect("spec")
}

#[test]
fn a_clip_goes_through_a_pipeline_frame_for_frame() {
    if !have_ffmpeg() {
        return;
    }
    let d = dir("clip");
    let input = clip(&d);
    let output = d.join("out.mkv");
    let opts = VideoOptions {
        codec: Some("ffv1".into()),
        ..Default::default()
    };
    let mut events = (0, 0, 0); // started, frames, finished
    let r = process_video_with(
        &Backend::Cpu,
        &pipeline("resize(width=32, height=24) | brightness(brightness=0.1)"),
        &input,
        &output,
        &opts,
        &RunOptions::default(),
        &mut |e| match e {
            VideoEvent::Started { .. } => events.0 += 1,
            VideoEvent::Frame { .. } => events.1 += 1,
            VideoEvent::Finished => events.2 += 1,
            _ => {}
        },
    )
    .expect("video runs");
    assert_eq!(r.frames, 12);
    assert_eq!(r.input_size, (64, 48));
    assert_eq!(r.output_size, Some((32, 24)));
    assert_eq!(events, (1, 12, 1));
    assert_eq!(frames_and_size(&output), (12, 32, 24));
    // only the input and the output: no temporary left behind
    assert_eq!(std::fs::read_dir(&d).map(|r| r.count()).unwrap_or(0), 2);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn temporal_filters_and_data_per_frame() {
    if !have_ffmpeg() {
        return;
    }
    let d = dir("temporal");
    let input = clip(&d);
    let output = d.join("out.mkv");
    let opts = VideoOptions {
        codec: Some("ffv1".into()),
        jobs: 2,
        ..Default::default()
    };
    let be = Backend::Cpu;
    let r = process_video(
        &be,
        &pipeline("low_pass(strength=0.5)"),
        &input,
        &output,
        &opts,
        &RunOptions::default(),
    )
    .expect("video runs");
    assert_eq!(r.frames, 12);
    assert_eq!(frames_and_size(&output), (12, 64, 48));
    // a pipeline ending in data: one JSON line per frame
    let lines = d.join("stats.jsonl");
    let opts = VideoOptions {
        data: true,
        ..Default::default()
    };
    let r = process_video(
        &be,
        &pipeline("reduce"),
        &input,
        &lines,
        &opts,
        &RunOptions::default(),
    )
    .expect("data per frame");
    assert_eq!(r.output_size, None);
    let text = std::fs::read_to_string(&lines).expect("lines written");
    assert_eq!(text.lines().count(), 12);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn bad_input_is_one_line_and_no_file() {
    if !have_ffmpeg() {
        return;
    }
    let d = dir("bad");
    let input = d.join("not-a-video.mp4");
    std::fs::write(&input, b"this is not a video").expect("write");
    let output = d.join("out.mp4");
    let run = |input: &Path, output: &Path, o: &VideoOptions| {
        process_video(
            &Backend::Cpu,
            &pipeline("color_invert"),
            input,
            output,
            o,
            &RunOptions::default(),
        )
    };
    let e = run(&input, &output, &VideoOptions::default()).expect_err("not a video");
    assert!(matches!(e, Error::Video(_)), "{e:?}");
    let m = e.to_string();
    assert!(m.contains("cannot read") && !m.contains('\n'), "{m}");
    assert!(!output.exists());
    // the input is never the output
    let e = run(&input, &input, &VideoOptions::default()).expect_err("same file");
    assert!(
        e.to_string().contains("refusing to overwrite the input"),
        "{e}"
    );
    assert_eq!(
        std::fs::read(&input).ok().as_deref(),
        Some(&b"this is not a video"[..])
    );
    // a bad option
    let o = VideoOptions {
        fps: Some("fast".into()),
        ..Default::default()
    };
    let e = run(&input, &output, &o).expect_err("bad fps");
    assert!(e.to_string().contains("--fps `fast`"), "{e}");
    // raw frames far beyond the pixel limit: refused before anything is allocated
    let o = VideoOptions {
        raw: true,
        size: Some((1 << 20, 1 << 20)),
        ..Default::default()
    };
    let e = run(Path::new("-"), &output, &o).expect_err("huge raw frames");
    assert!(matches!(e, Error::Limit(_)), "{e:?}");
    let _ = std::fs::remove_dir_all(&d);
}

/// The decoded frames of `p` as RGBA bytes (ffmpeg).
fn decoded(p: &Path) -> Vec<u8> {
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-i"])
        .arg(p)
        .args(["-f", "rawvideo", "-pix_fmt", "rgba", "-"])
        .output()
        .expect("ffmpeg runs");
    assert!(out.status.success());
    out.stdout
}

/// `VideoJob::run_on` (issue 34, `--devices`): frames spread over two devices (the same GPU
/// twice here, frame k on device k mod 2) reach the output in order, equal to one device's
/// frames; a temporal filter keeps its state on the first device, with a note, and equals
/// its one-device run too.
#[test]
fn frames_spread_over_devices_equal_one_device() {
    if !have_ffmpeg() {
        return;
    }
    let d = dir("devices");
    let input = clip(&d);
    let opts = VideoOptions {
        codec: Some("ffv1".into()),
        jobs: 4,
        ..Default::default()
    };
    let gpu = common::gpu_backend();
    let run = RunOptions::default();
    for spec in [
        "gaussian_blur(sigma=1.5) | brightness(brightness=0.1)",
        "low_pass(strength=0.5)",
    ] {
        let mut outs = Vec::new();
        for (k, devices) in [vec![gpu.clone()], vec![gpu.clone(), gpu.clone()]]
            .iter()
            .enumerate()
        {
            let out = d.join(format!("out{k}.mkv"));
            let _ = std::fs::remove_file(&out);
            let job = VideoJob::new(&input, &out, &opts).expect("job");
            let info = job.probe(&run.limits).expect("probe");
            let mut notes = Vec::new();
            let r = job
                .run_on(devices, &pipeline(spec), &info, &run, &mut |e| {
                    if let VideoEvent::Note(n) = e {
                        notes.push(n.to_string());
                    }
                })
                .expect("video runs");
            assert_eq!(r.frames, 12, "{spec}");
            let on_first = notes.iter().any(|n| n.contains("first device only"));
            assert_eq!(
                on_first,
                k == 1 && spec.starts_with("low_pass"),
                "{spec}: {notes:?}"
            );
            outs.push(decoded(&out));
        }
        assert_eq!(outs[0].len(), 12 * 64 * 48 * 4, "{spec}");
        assert!(outs[0] == outs[1], "{spec}: two devices differ from one");
    }
    // two different devices (the GPU and the CPU reference, frames alternating): within the
    // twins' tolerance, through ffv1's 4:2:0 frames
    let out = d.join("mixed.mkv");
    let job = VideoJob::new(&input, &out, &opts).expect("job");
    let info = job.probe(&run.limits).expect("probe");
    let spec = pipeline("gaussian_blur(sigma=1.5) | brightness(brightness=0.1)");
    job.run_on(&[gpu, Backend::Cpu], &spec, &info, &run, &mut |_| {})
        .expect("video runs");
    let mixed = decoded(&out);
    let one = {
        let out = d.join("cpu.mkv");
        let job = VideoJob::new(&input, &out, &opts).expect("job");
        job.run_on(&[Backend::Cpu], &spec, &info, &run, &mut |_| {})
            .expect("video runs");
        decoded(&out)
    };
    let worst = mixed
        .iter()
        .zip(&one)
        .map(|(a, b)| a.abs_diff(*b))
        .max()
        .unwrap_or(255);
    assert_eq!(mixed.len(), one.len());
    assert!(
        worst <= 3,
        "GPU and CPU frames alternating differ by {worst} from the CPU's"
    );
    let _ = std::fs::remove_dir_all(&d);
}
