//! Video through the `ffmpeg` program (issue 18): short clips made by ffmpeg itself, checked
//! with `ffprobe`. Every test skips with a note where ffmpeg is absent; `scripts/test.sh`
//! installs it, so in CI they run.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{bin, dir, s, stderr};

fn have_ffmpeg() -> bool {
    let ok = |t: &str| {
        Command::new(t)
            .arg("-version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let have = ok("ffmpeg") && ok("ffprobe");
    if !have {
        eprintln!(
            "note: ffmpeg/ffprobe not found; video test skipped (scripts/test.sh installs ffmpeg)"
        );
    }
    have
}

fn ffmpeg(args: &[&str]) {
    let o = Command::new("ffmpeg")
        .args(["-hide_banner", "-v", "error", "-y"])
        .args(args)
        .output()
        .expect("ffmpeg runs");
    assert!(o.status.success(), "ffmpeg {args:?}: {}", stderr(&o));
}

/// 15 frames of 64x48 at 10 fps (1.5 s) with a sine tone and a title: H.264 + AAC in MP4.
fn clip(d: &Path) -> PathBuf {
    let p = d.join("in.mp4");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=64x48:rate=10",
        "-f",
        "lavfi",
        "-i",
        "sine=frequency=440:sample_rate=8000",
        "-t",
        "1.5",
        "-c:v",
        "libx264",
        "-pix_fmt",
        "yuv420p",
        "-c:a",
        "aac",
        "-metadata",
        "title=texelflow test",
        s(&p),
    ]);
    p
}

/// 10 frames of 64x48 at 10 fps, lossless and without chroma subsampling (FFV1, bgr0, in
/// .mkv): every frame can be compared with the single-image pipeline exactly.
fn ffv1_clip(d: &Path) -> PathBuf {
    let input = d.join("in.mkv");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=64x48:rate=10",
        "-t",
        "1",
        "-c:v",
        "ffv1",
        "-pix_fmt",
        "bgr0",
        s(&input),
    ]);
    input
}

/// `ffprobe`'s JSON about a file: streams, format and (with `frames`) every video frame.
fn probe(p: &Path) -> serde_json::Value {
    let o = Command::new("ffprobe").args(["-v", "error", "-print_format", "json", "-show_streams", "-show_format", "-count_frames", "-show_entries", "frame=pts_time:stream=codec_type,codec_name,width,height,nb_read_frames,duration:format=duration:format_tags=title", "-select_streams", "v"]).arg(p).output().expect("ffprobe runs");
    assert!(o.status.success(), "ffprobe: {}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn audio_codec(p: &Path) -> Option<String> {
    let o = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-select_streams",
            "a",
            "-show_entries",
            "stream=codec_name",
            "-of",
            "csv=p=0",
        ])
        .arg(p)
        .output()
        .expect("ffprobe runs");
    let t = String::from_utf8_lossy(&o.stdout).trim().to_string();
    (!t.is_empty()).then_some(t)
}

/// Only the final file is in the folder: no temporary left behind.
fn no_leftovers(d: &Path, keep: &[&str]) {
    for e in std::fs::read_dir(d).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            keep.contains(&name.as_str()),
            "unexpected file `{name}` in {}",
            d.display()
        );
    }
}

#[test]
fn frame_count_size_timestamps_duration_and_audio_are_kept() {
    if !have_ffmpeg() {
        return;
    }
    let d = dir("keep");
    let input = clip(&d);
    for transfer in ["rgba", "yuv420p"] {
        let out = d.join("out.mp4");
        let o = bin()
            .args([
                "apply",
                "--overwrite", // written once per transfer (issue 29: no silent replacing)
                s(&input),
                s(&out),
                "--transfer",
                transfer,
                "-p",
                "brightness(0.1) | contrast(1.2)",
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let (a, b) = (probe(&input), probe(&out));
        let va = &a["streams"][0];
        let vb = &b["streams"][0];
        assert_eq!(vb["codec_name"], "h264");
        assert_eq!(
            (vb["width"].as_u64(), vb["height"].as_u64()),
            (Some(64), Some(48))
        );
        assert_eq!(vb["nb_read_frames"], va["nb_read_frames"]);
        assert_eq!(vb["nb_read_frames"], "15");
        // every frame at the same time as in the input
        assert_eq!(b["frames"], a["frames"], "frame timestamps differ");
        let dur = |v: &serde_json::Value| {
            v["format"]["duration"]
                .as_str()
                .and_then(|x| x.parse::<f64>().ok())
                .unwrap()
        };
        assert!(
            (dur(&a) - dur(&b)).abs() <= 0.1,
            "durations {} and {}",
            dur(&a),
            dur(&b)
        );
        assert_eq!(
            audio_codec(&out).as_deref(),
            Some("aac"),
            "audio stream not copied"
        );
        assert_eq!(
            b["format"]["tags"]["title"], "texelflow test",
            "metadata not copied"
        );
        no_leftovers(&d, &["in.mp4", "out.mp4"]);
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// A variable-rate input (a second of frames missing) comes out at a constant rate with its
/// duration (ffmpeg repeats frames to fill the gap, as the audio needs); `--fps` changes the
/// rate and keeps the duration within a frame.
#[test]
fn variable_rate_and_fps_keep_the_duration() {
    if !have_ffmpeg() {
        return;
    }
    let d = dir("vfr");
    let input = d.join("vfr.mkv");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=64x48:rate=10",
        "-t",
        "3",
        "-vf",
        "select='not(between(t,1,2))'",
        "-fps_mode",
        "vfr",
        "-c:v",
        "libx264",
        s(&input),
    ]);
    let dur = |v: &serde_json::Value| {
        v["format"]["duration"]
            .as_str()
            .and_then(|x| x.parse::<f64>().ok())
            .unwrap()
    };
    for (fps, frames) in [(None, 30), (Some("5"), 15), (Some("25"), 75)] {
        let out = d.join("out.mkv");
        // written once per rate (issue 29: no silent replacing)
        let mut args = vec!["apply", "--overwrite", s(&input), s(&out), "-p", "sepia"];
        args.extend(fps.iter().flat_map(|f| ["--fps", f]));
        let o = bin().args(&args).output().unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let p = probe(&out);
        assert_eq!(
            p["streams"][0]["nb_read_frames"].as_str(),
            Some(frames.to_string().as_str()),
            "--fps {fps:?}"
        );
        let step = 1.0 / fps.map_or(10.0, |f| f.parse::<f64>().unwrap());
        assert!(
            (dur(&p) - 3.0).abs() <= step + 1e-3,
            "--fps {fps:?}: duration {}",
            dur(&p)
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// Each output frame equals the single-image `apply` of the same decoded frame: lossless
/// clips (FFV1, RGB) in and out, so the only difference allowed is none.
#[test]
fn each_frame_equals_the_single_image_pipeline() {
    if !have_ffmpeg() {
        return;
    }
    let d = dir("equal");
    let input = ffv1_clip(&d);
    let out = d.join("out.mkv");
    let spec = "gaussian_blur(sigma=2) | sobel_edge_detection";
    let o = bin()
        .args([
            "apply",
            s(&input),
            s(&out),
            "--codec",
            "ffv1",
            "--pix-fmt",
            "bgra",
            "-p",
            spec,
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    ffmpeg(&["-i", s(&input), s(&d.join("in%02d.png"))]);
    ffmpeg(&["-i", s(&out), s(&d.join("out%02d.png"))]);
    for k in [1, 5, 10] {
        let frame = d.join(format!("in{k:02}.png"));
        let single = d.join(format!("single{k:02}.png"));
        let o = bin()
            .args(["apply", s(&frame), s(&single), "-p", spec])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let a = image::open(&single).unwrap().to_rgba8();
        let b = image::open(d.join(format!("out{k:02}.png")))
            .unwrap()
            .to_rgba8();
        assert_eq!(a.dimensions(), b.dimensions());
        assert!(
            a.as_raw() == b.as_raw(),
            "frame {k} differs from the single-image pipeline"
        );
    }
    assert!(!d.join("out11.png").exists(), "more frames out than in");
    let _ = std::fs::remove_dir_all(&d);
}

/// 4:2:0 in and out: frames cross the pipes as I420 and are converted on the GPU
/// (filters/yuv.rs). Each output frame equals the library's CPU chain I420 -> RGBA ->
/// pipeline -> I420 on the same decoded frame, within the GPU/CPU tolerance (1 level); lossless
/// FFV1 both ways, so ffmpeg adds nothing.
#[test]
fn yuv420_frames_are_converted_on_the_gpu_like_the_cpu_twin() {
    use texelflow::filters::yuv::{
        i420_len, pack_i420, unpack_i420, RgbaToYuv420, Yuv420ToRgba, YuvMatrix, YuvRange,
    };
    if !have_ffmpeg() {
        return;
    }
    let d = dir("yuv");
    let (w, h) = (64u32, 48u32);
    let input = d.join("in.mkv");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=64x48:rate=10",
        "-t",
        "0.5",
        "-c:v",
        "ffv1",
        "-pix_fmt",
        "yuv420p",
        s(&input),
    ]);
    let out = d.join("out.mkv");
    let spec = "color_invert | brightness(0.05)";
    // explicit: on a software adapter (lavapipe) `auto` leaves the conversion to ffmpeg
    let o = bin()
        .args([
            "apply",
            s(&input),
            s(&out),
            "--codec",
            "ffv1",
            "--pix-fmt",
            "yuv420p",
            "--transfer",
            "yuv420p",
            "-p",
            spec,
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let raw = |p: &Path, name: &str| {
        let r = d.join(name);
        ffmpeg(&["-i", s(p), "-f", "rawvideo", "-pix_fmt", "yuv420p", s(&r)]);
        std::fs::read(&r).unwrap()
    };
    let (a, b) = (raw(&input, "in.yuv"), raw(&out, "out.yuv"));
    let n = i420_len(w, h);
    assert_eq!(a.len(), 5 * n);
    assert_eq!(b.len(), a.len());
    let pipe = texelflow::Pipeline::parse(spec, &mut |p: &str| texelflow::Image::open(p)).unwrap();
    let mut chain = texelflow::Pipeline::new().then(Yuv420ToRgba {
        height: h,
        matrix: YuvMatrix::Bt601,
        range: YuvRange::Limited,
    });
    chain.extend(&pipe);
    let chain = chain.then(RgbaToYuv420 {
        width: w,
        height: h,
        matrix: YuvMatrix::Bt601,
        range: YuvRange::Limited,
    });
    for k in 0..5 {
        let frame = pack_i420(w, h, a[k * n..(k + 1) * n].to_vec()).unwrap();
        let want = chain
            .run(&texelflow::Backend::Cpu, &frame)
            .unwrap()
            .into_image()
            .unwrap();
        let want = unpack_i420(&want, h).unwrap();
        let got = &b[k * n..(k + 1) * n];
        let diff = want
            .iter()
            .zip(got)
            .map(|(x, y)| x.abs_diff(*y))
            .max()
            .unwrap();
        assert!(
            diff <= 1,
            "frame {k}: the video's frame differs from the CPU chain by {diff}"
        );
        assert!(
            want != &a[k * n..(k + 1) * n],
            "the pipeline changed nothing"
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// `--data`: a pipeline ending in data writes one JSON line per frame, `{"frame", "time", ...}`,
/// each equal to the single-image `apply --data` of the same decoded frame.
#[test]
fn per_frame_data_as_json_lines() {
    if !have_ffmpeg() {
        return;
    }
    let d = dir("data");
    let input = ffv1_clip(&d);
    let lines = d.join("stats.jsonl");
    let spec = "gaussian_blur(sigma=1) | reduce";
    let o = bin()
        .args(["apply", s(&input), "--data", s(&lines), "-p", spec])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&lines).unwrap();
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 10);
    ffmpeg(&["-i", s(&input), s(&d.join("in%02d.png"))]);
    for k in [0usize, 4, 9] {
        let mut row = rows[k].clone();
        let obj = row.as_object_mut().unwrap();
        assert_eq!(obj.remove("frame"), Some(serde_json::json!(k)));
        let t = obj.remove("time").and_then(|t| t.as_f64()).unwrap();
        assert!((t - k as f64 / 10.0).abs() < 1e-9, "time {t}");
        let single = d.join(format!("single{k}.json"));
        let o = bin()
            .args([
                "apply",
                s(&d.join(format!("in{:02}.png", k + 1))),
                "--data",
                s(&single),
                "-p",
                spec,
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        let want: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&single).unwrap()).unwrap();
        assert_eq!(row, want, "frame {k}");
    }
    // to stdout as well; an image pipeline with --data, or a data pipeline with OUT: one line each
    let o = bin()
        .args(["apply", s(&input), "--data", "-", "-p", spec])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), text);
    let o = bin()
        .args([
            "apply",
            s(&input),
            "--data",
            s(&d.join("x.jsonl")),
            "-p",
            "sepia",
        ])
        .output()
        .unwrap();
    assert!(
        !o.status.success() && stderr(&o).contains("ends in an image"),
        "{}",
        stderr(&o)
    );
    assert!(!d.join("x.jsonl").exists());
    let o = bin()
        .args(["apply", s(&input), s(&d.join("x.mkv")), "-p", "reduce"])
        .output()
        .unwrap();
    assert!(
        !o.status.success() && stderr(&o).contains("--data"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn size_changing_filters_work_and_odd_sizes_are_padded_for_yuv420p() {
    if !have_ffmpeg() {
        return;
    }
    let d = dir("resize");
    let input = clip(&d);
    let out = d.join("half.mp4");
    let o = bin()
        .args(["apply", s(&input), s(&out), "-p", "resize(scale=0.5)"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v = &probe(&out)["streams"][0];
    assert_eq!(
        (
            v["width"].as_u64(),
            v["height"].as_u64(),
            v["nb_read_frames"].as_str()
        ),
        (Some(32), Some(24), Some("15"))
    );
    // 33x25 cannot be 4:2:0: padded to 34x26 by repeating the edge, with a note (on the CPU
    // for RGBA frames, in the GPU's I420 conversion for I420 frames)
    for transfer in ["rgba", "yuv420p"] {
        let odd = d.join(format!("odd_{transfer}.mp4"));
        let o = bin()
            .args([
                "apply",
                s(&input),
                s(&odd),
                "--transfer",
                transfer,
                "-p",
                "resize(width=33, height=25)",
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stderr(&o).contains("padded to 34x26"), "{}", stderr(&o));
        let v = &probe(&odd)["streams"][0];
        assert_eq!(
            (
                v["width"].as_u64(),
                v["height"].as_u64(),
                v["nb_read_frames"].as_str()
            ),
            (Some(34), Some(26), Some("15"))
        );
    }
    // a format without subsampling keeps the odd size
    let exact = d.join("odd.mkv");
    let o = bin()
        .args([
            "apply",
            s(&input),
            s(&exact),
            "--codec",
            "ffv1",
            "--pix-fmt",
            "bgra",
            "-p",
            "resize(width=33, height=25)",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v = &probe(&exact)["streams"][0];
    assert_eq!(
        (v["width"].as_u64(), v["height"].as_u64()),
        (Some(33), Some(25))
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn raw_frames_on_stdin_and_stdout() {
    if !have_ffmpeg() {
        return;
    }
    let d = dir("raw");
    // raw RGBA in, raw out: colour_invert of every byte but alpha; no ffmpeg involved
    let frames: Vec<u8> = (0..3 * 8 * 6 * 4).map(|i| (i * 7 % 256) as u8).collect();
    let mut child = bin()
        .args([
            "apply",
            "-",
            "-",
            "-f",
            "rawvideo",
            "--size",
            "8x6",
            "-p",
            "color_invert",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(&frames).unwrap();
    }
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout.len(), frames.len());
    for (i, (a, b)) in frames.iter().zip(&o.stdout).enumerate() {
        let want = if i % 4 == 3 { *a } else { 255 - a };
        assert_eq!(*b, want, "byte {i}");
    }
    // raw in (from ffmpeg), video out; video in, raw out
    let raw = d.join("clip.rgba");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=64x48:rate=10",
        "-t",
        "1",
        "-f",
        "rawvideo",
        "-pix_fmt",
        "rgba",
        s(&raw),
    ]);
    let out = d.join("from_raw.mp4");
    let o = bin()
        .args([
            "apply",
            "-",
            s(&out),
            "-f",
            "rawvideo",
            "--size",
            "64x48",
            "--fps",
            "10",
            "-p",
            "color_invert",
        ])
        .stdin(std::fs::File::open(&raw).unwrap())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let v = &probe(&out)["streams"][0];
    assert_eq!(
        (v["width"].as_u64(), v["nb_read_frames"].as_str()),
        (Some(64), Some("10"))
    );
    let o = bin()
        .args([
            "apply",
            s(&out),
            "-",
            "-f",
            "rawvideo",
            "-p",
            "color_invert",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout.len(), 64 * 48 * 4 * 10);
    // a partial last frame is an error, not a silent short clip
    let partial = d.join("partial.rgba");
    std::fs::write(&partial, &frames[..frames.len() - 5]).unwrap();
    let o = bin()
        .args([
            "apply",
            "-",
            "-",
            "-f",
            "rawvideo",
            "--size",
            "8x6",
            "-p",
            "color_invert",
        ])
        .stdin(std::fs::File::open(&partial).unwrap())
        .output()
        .unwrap();
    assert!(
        !o.status.success() && stderr(&o).contains("incomplete"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// A failure: non-zero exit, exactly one `error:` line and nothing else, no panic, and no
/// output (final or temporary) left in the folder.
fn assert_one_line_error(o: &Output, needle: &str, d: &Path, keep: &[&str]) {
    let e = stderr(o);
    assert!(!o.status.success(), "expected failure, stderr: {e}");
    assert!(!e.contains("panicked"), "panic: {e}");
    let lines: Vec<&str> = e.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "expected one line: {e}");
    assert!(
        lines[0].starts_with("error:") && lines[0].contains(needle),
        "stderr lacks `{needle}`: {e}"
    );
    no_leftovers(d, keep);
}

#[test]
fn bad_inputs_and_options_give_one_clear_line_and_no_file() {
    if !have_ffmpeg() {
        return;
    }
    let d = dir("errors");
    let input = clip(&d);
    let run = |args: &[&str]| bin().args(args).output().unwrap();
    let out = d.join("out.mp4");
    // not a video at all
    let junk = d.join("junk.mp4");
    std::fs::write(
        &junk,
        (0..5000u32)
            .map(|i| (i * 31 % 251) as u8)
            .collect::<Vec<_>>(),
    )
    .unwrap();
    assert_one_line_error(
        &run(&["apply", s(&junk), s(&out), "-p", "brightness(0.1)"]),
        "cannot read",
        &d,
        &["in.mp4", "junk.mp4"],
    );
    std::fs::remove_file(&junk).unwrap();
    // truncated: the index at the front (faststart), the data cut short
    let fast = d.join("fast.mp4");
    ffmpeg(&[
        "-i",
        s(&input),
        "-c",
        "copy",
        "-movflags",
        "+faststart",
        s(&fast),
    ]);
    let bytes = std::fs::read(&fast).unwrap();
    std::fs::remove_file(&fast).unwrap();
    let cut = d.join("cut.mp4");
    std::fs::write(&cut, &bytes[..bytes.len() * 6 / 10]).unwrap();
    assert_one_line_error(
        &run(&["apply", s(&cut), s(&out), "-p", "brightness(0.1)"]),
        "corrupt or truncated",
        &d,
        &["in.mp4", "cut.mp4"],
    );
    // the index cut off (an ordinary MP4 cut short)
    std::fs::write(&cut, &std::fs::read(&input).unwrap()[..4000]).unwrap();
    assert_one_line_error(
        &run(&["apply", s(&cut), s(&out), "-p", "brightness(0.1)"]),
        "cannot read",
        &d,
        &["in.mp4", "cut.mp4"],
    );
    std::fs::remove_file(&cut).unwrap();
    // an encoder this ffmpeg does not have
    assert_one_line_error(
        &run(&[
            "apply",
            s(&input),
            s(&out),
            "--codec",
            "nosuchcodec",
            "-p",
            "brightness(0.1)",
        ]),
        "unknown codec `nosuchcodec`",
        &d,
        &["in.mp4"],
    );
    // an extension no muxer takes
    let xyz = d.join("out.xyz");
    assert_one_line_error(
        &run(&["apply", s(&input), s(&xyz), "-p", "brightness(0.1)"]),
        "ffmpeg cannot write",
        &d,
        &["in.mp4"],
    );
    // a video into an image
    assert_one_line_error(
        &run(&[
            "apply",
            s(&input),
            s(&d.join("out.png")),
            "-p",
            "brightness(0.1)",
        ]),
        "is an image",
        &d,
        &["in.mp4"],
    );
    // a pipeline that ends in data, without --data
    assert_one_line_error(
        &run(&["apply", s(&input), s(&out), "-p", "histogram"]),
        "ends in data",
        &d,
        &["in.mp4"],
    );
    // a file with sound and no picture
    let tone = d.join("tone.m4a");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "sine=frequency=440:sample_rate=8000",
        "-t",
        "0.5",
        "-c:a",
        "aac",
        s(&tone),
    ]);
    assert_one_line_error(
        &run(&["apply", s(&tone), s(&out), "-p", "brightness(0.1)"]),
        "has no video stream",
        &d,
        &["in.mp4", "tone.m4a"],
    );
    std::fs::remove_file(&tone).unwrap();
    // ffmpeg missing: PATH without it
    let empty = d.join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    let o = bin()
        .env("PATH", &empty)
        .args(["apply", s(&input), s(&out), "-p", "brightness(0.1)"])
        .output()
        .unwrap();
    assert_one_line_error(
        &o,
        "ffmpeg not found: install it (apt install ffmpeg",
        &d,
        &["in.mp4", "empty-path"],
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// Ctrl-C (SIGINT) mid-clip: either the clip was already done (a complete file) or texelflow
/// stops with one line and leaves no file at all, never a partial one under the final name.
#[cfg(unix)]
#[test]
fn ctrl_c_leaves_a_complete_file_or_none() {
    if !have_ffmpeg() {
        return;
    }
    let d = dir("sigint");
    let input = d.join("long.mp4");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=320x240:rate=30",
        "-t",
        "20",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-pix_fmt",
        "yuv420p",
        s(&input),
    ]);
    let out = d.join("out.mp4");
    let child = bin()
        .args([
            "apply",
            s(&input),
            s(&out),
            "-p",
            "gaussian_blur(sigma=3) | sobel_edge_detection",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let o = child.wait_with_output().unwrap();
    let e = stderr(&o);
    assert!(!e.contains("panicked"), "{e}");
    if o.status.success() {
        eprintln!("note: the clip was done before Ctrl-C; checking it is complete");
        assert_eq!(probe(&out)["streams"][0]["nb_read_frames"], "600");
        no_leftovers(&d, &["long.mp4", "out.mp4"]);
    } else if o.status.code().is_none() {
        // the signal came before texelflow's handler was installed (at its start): killed outright
        eprintln!("note: Ctrl-C came before the handler was installed");
        no_leftovers(&d, &["long.mp4"]);
    } else {
        assert!(
            e.contains("interrupted after") && e.contains("not written"),
            "{e}"
        );
        no_leftovers(&d, &["long.mp4"]);
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// The decoded RGBA8 frames of a video, exactly as ffmpeg gives them.
fn rgba_frames(p: &Path, d: &Path, w: u32, h: u32) -> Vec<texelflow::Image> {
    let raw = d.join(format!("{}.rgba", p.file_name().unwrap().to_string_lossy()));
    ffmpeg(&["-i", s(p), "-f", "rawvideo", "-pix_fmt", "rgba", s(&raw)]);
    let bytes = std::fs::read(&raw).unwrap();
    let n = (w * h * 4) as usize;
    assert_eq!(bytes.len() % n, 0);
    bytes
        .chunks_exact(n)
        .map(|f| {
            texelflow::Image::from_u8(w, h, texelflow::PixelFormat::Rgba8, f.to_vec()).unwrap()
        })
        .collect()
}

/// Temporal filters carry state from frame to frame on the GPU, with several frames in
/// flight: every frame of the video equals the CPU twin run over the same decoded frames as
/// a sequence (raw RGBA out, so no codec between them).
#[test]
fn temporal_filters_over_a_video_equal_the_cpu_sequence() {
    if !have_ffmpeg() {
        return;
    }
    let d = dir("temporal");
    let (w, h) = (64u32, 48u32);
    let input = d.join("in.mkv");
    // fading in, so that the brightness (auto_exposure's statistics) changes from frame to frame
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=64x48:rate=10",
        "-vf",
        "fade=in:st=0:d=1.2",
        "-t",
        "1.2",
        "-c:v",
        "ffv1",
        "-pix_fmt",
        "bgr0",
        s(&input),
    ]);
    let frames = rgba_frames(&input, &d, w, h);
    assert_eq!(frames.len(), 12);
    for spec in [
        "low_pass(strength=0.8) | sobel_edge_detection",
        "high_pass",
        "frame_difference",
        "auto_exposure(target=0.6)",
    ] {
        let o = bin()
            .args([
                "apply",
                s(&input),
                "-",
                "-f",
                "rawvideo",
                "--jobs",
                "4",
                "-p",
                spec,
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{spec}: {}", stderr(&o));
        let n = (w * h * 4) as usize;
        assert_eq!(o.stdout.len(), frames.len() * n, "{spec}: frame count");
        let pipe =
            texelflow::Pipeline::parse(spec, &mut |p: &str| texelflow::Image::open(p)).unwrap();
        let seq = texelflow::Sequence::new();
        let mut changed = false;
        for (k, f) in frames.iter().enumerate() {
            let want = pipe
                .run_frame(&texelflow::Backend::Cpu, f, &seq, k as u64)
                .unwrap()
                .into_image()
                .unwrap();
            let got = &o.stdout[k * n..(k + 1) * n];
            let diff = want
                .as_u8()
                .iter()
                .zip(got)
                .map(|(a, b)| a.abs_diff(*b))
                .max()
                .unwrap();
            assert!(
                diff <= 1,
                "{spec}: frame {k} differs from the CPU sequence by {diff}"
            );
            // the state matters: frame k differs from the filter applied to frame k alone
            let alone = pipe
                .run(&texelflow::Backend::Cpu, f)
                .unwrap()
                .into_image()
                .unwrap();
            changed |= k > 0 && alone.as_u8() != want.as_u8();
        }
        assert!(changed, "{spec}: no frame depended on the frames before it");
    }
    let _ = std::fs::remove_dir_all(&d);
}

/// `motion_detector` writes the centroid and intensity of every frame as JSON lines or CSV.
#[test]
fn motion_detector_writes_per_frame_motion_as_json_lines_or_csv() {
    if !have_ffmpeg() {
        return;
    }
    let d = dir("motion");
    let input = d.join("in.mkv");
    // a white square crossing a black frame left to right, 8 pixels a frame
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "color=black:size=96x48:rate=10",
        "-f",
        "lavfi",
        "-i",
        "color=white:size=12x12:rate=10",
        "-filter_complex",
        "[0][1]overlay=x='8*n':y=18",
        "-t",
        "1",
        "-c:v",
        "ffv1",
        "-pix_fmt",
        "bgr0",
        s(&input),
    ]);
    let jsonl = d.join("motion.jsonl");
    let o = bin()
        .args([
            "apply",
            s(&input),
            "--data",
            s(&jsonl),
            "-p",
            "motion_detector(strength=0.5)",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 10);
    assert_eq!(
        rows[0]["intensity"], 0.0,
        "nothing moves in the first frame"
    );
    assert!(rows[0]["centroid_x"].is_null());
    // the centroid follows the square rightwards, at the square's height
    let xs: Vec<f64> = rows[2..]
        .iter()
        .map(|r| r["centroid_x"].as_f64().expect("motion"))
        .collect();
    assert!(xs.windows(2).all(|p| p[1] > p[0]), "centroid x {xs:?}");
    for r in &rows[2..] {
        let y = r["centroid_y"].as_f64().unwrap();
        assert!((y - 24.0 / 48.0).abs() < 0.05, "centroid y {y}");
        assert!(r["intensity"].as_f64().unwrap() > 0.0);
    }
    // CSV: a header, then the same numbers
    let csv = d.join("motion.csv");
    let o = bin()
        .args([
            "apply",
            s(&input),
            "--data",
            s(&csv),
            "-p",
            "motion_detector(strength=0.5)",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(&header[..2], ["\"frame\"", "\"time\""]);
    let col = header
        .iter()
        .position(|c| *c == "\"centroid_x\"")
        .expect("centroid_x column");
    let body: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(body.len(), 10);
    assert_eq!(body[0][col], "", "no centroid in the first frame");
    assert_eq!(
        body[5][col].parse::<f64>().unwrap(),
        rows[5]["centroid_x"].as_f64().unwrap()
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// Subtitles come through: copied into MKV, converted to mov_text for MP4, and left out of
/// AVI with a note.
#[test]
fn subtitles_are_kept_where_the_container_holds_them() {
    if !have_ffmpeg() {
        return;
    }
    let d = dir("subs");
    let srt = d.join("subs.srt");
    std::fs::write(
        &srt,
        "1\n00:00:00,000 --> 00:00:00,800\nhello\n\n2\n00:00:00,800 --> 00:00:01,400\nworld\n",
    )
    .unwrap();
    let plain = d.join("plain.mkv");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=64x48:rate=10",
        "-t",
        "1.5",
        "-c:v",
        "ffv1",
        s(&plain),
    ]);
    let input = d.join("in.mkv");
    ffmpeg(&[
        "-i",
        s(&plain),
        "-i",
        s(&srt),
        "-map",
        "0",
        "-map",
        "1",
        "-c",
        "copy",
        "-c:s",
        "srt",
        s(&input),
    ]);
    let subtitle = |p: &Path| {
        let o = Command::new("ffprobe")
            .args([
                "-v",
                "error",
                "-select_streams",
                "s",
                "-show_entries",
                "stream=codec_name",
                "-of",
                "csv=p=0",
            ])
            .arg(p)
            .output()
            .expect("ffprobe runs");
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    };
    for (name, want) in [("out.mkv", "subrip"), ("out.mp4", "mov_text")] {
        let out = d.join(name);
        let o = bin()
            .args(["apply", s(&input), s(&out), "-p", "color_invert"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert_eq!(subtitle(&out), want, "{name}");
        // the cues themselves: extracted back as SRT, the same text
        let back = d.join(format!("{name}.srt"));
        ffmpeg(&["-i", s(&out), "-map", "0:s:0", s(&back)]);
        let text = std::fs::read_to_string(&back).unwrap();
        assert!(
            text.contains("hello") && text.contains("world"),
            "{name}: {text}"
        );
    }
    let out = d.join("out.avi");
    let o = bin()
        .args(["apply", s(&input), s(&out), "-p", "color_invert"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("subtitles (subrip) are left out"),
        "{}",
        stderr(&o)
    );
    assert_eq!(subtitle(&out), "");
    let _ = std::fs::remove_dir_all(&d);
}

/// A GPU failure during a video is an error naming the step; `--fallback cpu` runs the video
/// again on the CPU reference, giving `--cpu`'s frames.
#[test]
fn fallback_cpu_runs_a_failed_video_again_on_the_cpu() {
    if !have_ffmpeg() {
        return;
    }
    let d = dir("fallback");
    let input = d.join("in.mkv");
    ffmpeg(&[
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=64x48:rate=10",
        "-t",
        "0.5",
        "-c:v",
        "ffv1",
        "-pix_fmt",
        "bgr0",
        s(&input),
    ]);
    let spec = "gaussian_blur(sigma=2) | sobel_edge_detection";
    let out = d.join("out.mkv");
    let o = bin()
        .env("TEXELFLOW_INJECT_GPU_FAULT", "gaussian_blur")
        .args([
            "apply",
            s(&input),
            s(&out),
            "--codec",
            "ffv1",
            "--pix-fmt",
            "bgra",
            "-p",
            spec,
        ])
        .output()
        .unwrap();
    let e = stderr(&o);
    assert!(
        !o.status.success()
            && e.contains("error:")
            && e.contains("gaussian_blur")
            && !e.contains("panicked"),
        "{e}"
    );
    assert!(!out.exists(), "no partial output");
    let o = bin()
        .env("TEXELFLOW_INJECT_GPU_FAULT", "gaussian_blur")
        .args([
            "--fallback",
            "cpu",
            "apply",
            s(&input),
            s(&out),
            "--codec",
            "ffv1",
            "--pix-fmt",
            "bgra",
            "-p",
            spec,
        ])
        .output()
        .unwrap();
    let e = stderr(&o);
    assert!(o.status.success() && e.contains("--fallback cpu"), "{e}");
    let cpu = d.join("cpu.mkv");
    let o = bin()
        .args([
            "--cpu",
            "apply",
            s(&input),
            s(&cpu),
            "--codec",
            "ffv1",
            "--pix-fmt",
            "bgra",
            "-p",
            spec,
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        rgba_frames(&out, &d, 64, 48) == rgba_frames(&cpu, &d, 64, 48),
        "the fallback's frames are the CPU reference's"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// `--devices` (issue 34): a video over a list of one GPU writes the frames the same GPU
/// writes alone (`--device 0`), in order; a list with a GPU twice is refused in one line.
#[test]
fn devices_list_of_one_equals_one_device() {
    if !have_ffmpeg() {
        return;
    }
    let d = dir("devices");
    let input = ffv1_clip(&d);
    let spec = "gaussian_blur(sigma=2) | sobel_edge_detection";
    let mut frames = Vec::new();
    for (k, flags) in [["--device", "0"], ["--devices", "0"]].iter().enumerate() {
        let out = d.join(format!("out{k}.mkv"));
        let o = bin()
            .args(flags)
            .args([
                "apply",
                s(&input),
                s(&out),
                "--codec",
                "ffv1",
                "--pix-fmt",
                "bgra",
                "-p",
                spec,
            ])
            .output()
            .unwrap();
        assert!(o.status.success(), "{flags:?}: {}", stderr(&o));
        frames.push(rgba_frames(&out, &d, 64, 48));
    }
    assert_eq!(frames[0].len(), 10);
    assert!(
        frames[0]
            .iter()
            .zip(&frames[1])
            .all(|(a, b)| a.as_u8() == b.as_u8()),
        "--devices 0 differs from --device 0"
    );
    let o = bin()
        .args([
            "--devices",
            "0,0",
            "apply",
            s(&input),
            s(&d.join("twice.mkv")),
            "-p",
            spec,
        ])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("listed twice"), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&d);
}
