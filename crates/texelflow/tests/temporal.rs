//! Temporal filters and the sequence executor: values carried from frame to frame on the GPU
//! (`Graph::state`), checked against hand-computed frames on both backends, frames run from
//! several threads in any order, and the graph API's errors. (Every temporal filter is also in
//! the GPU-vs-CPU matrix, equivalence.rs, over a sequence of random frames.)

mod common;

use common::*;
use texelflow::filters::blend::DissolveBlend;
use texelflow::{
    Backend, Data, Graph, Image, ImageDesc, Pipeline, PixelFormat, RunOptions, Sequence, Value,
};

fn backends() -> Vec<Backend> {
    vec![gpu_backend(), Backend::Cpu]
}

/// A frame of one opaque colour.
fn flat(w: u32, h: u32, v: u8) -> Image {
    let px = [v, v, v, 255];
    Image::from_u8(
        w,
        h,
        PixelFormat::Rgba8,
        px.iter()
            .copied()
            .cycle()
            .take((w * h * 4) as usize)
            .collect(),
    )
    .expect("valid frame")
}

fn pipe(spec: &str) -> Pipeline {
    Pipeline::parse(spec, &mut |p| Image::open(p)).expect("valid spec")
}

/// Runs `frames` through `spec` as one sequence; the outputs in frame order.
fn run_sequence(backend: &Backend, spec: &str, frames: &[Image]) -> Vec<Value> {
    let p = pipe(spec);
    let seq = Sequence::new();
    frames
        .iter()
        .enumerate()
        .map(|(k, f)| {
            p.run_frame(backend, f, &seq, k as u64)
                .unwrap_or_else(|e| panic!("{spec} frame {k} on {}: {e}", backend.describe()))
        })
        .collect()
}

fn first_pixel(v: &Value) -> [u8; 4] {
    let b = v.as_image().expect("an image").as_u8();
    [b[0], b[1], b[2], b[3]]
}

#[test]
fn low_pass_is_a_running_average() {
    // out_k = mix(frame_k, out_{k-1}, 0.5): 0, then 200s: 100, 150, 175
    let frames = [
        flat(5, 3, 0),
        flat(5, 3, 200),
        flat(5, 3, 200),
        flat(5, 3, 200),
    ];
    for b in backends() {
        let out: Vec<u8> = run_sequence(&b, "low_pass(strength=0.5)", &frames)
            .iter()
            .map(|v| first_pixel(v)[0])
            .collect();
        assert_eq!(out, [0, 100, 150, 175], "{}", b.describe());
        // strength 0 follows the frames; strength 1 holds the first
        let out: Vec<u8> = run_sequence(&b, "low_pass(strength=0)", &frames)
            .iter()
            .map(|v| first_pixel(v)[0])
            .collect();
        assert_eq!(out, [0, 200, 200, 200]);
        let out: Vec<u8> = run_sequence(&b, "low_pass(strength=1)", &frames)
            .iter()
            .map(|v| first_pixel(v)[0])
            .collect();
        assert_eq!(out, [0, 0, 0, 0]);
    }
}

#[test]
fn high_pass_and_frame_difference() {
    let frames = [flat(4, 4, 10), flat(4, 4, 50), flat(4, 4, 20)];
    for b in backends() {
        let diff: Vec<[u8; 4]> = run_sequence(&b, "frame_difference", &frames)
            .iter()
            .map(first_pixel)
            .collect();
        assert_eq!(
            diff,
            [[0, 0, 0, 255], [40, 40, 40, 255], [30, 30, 30, 255]],
            "{}",
            b.describe()
        );
        // low pass: 10, 30, 25; high pass |frame - low pass|: 0, 20, 5
        let high: Vec<u8> = run_sequence(&b, "high_pass", &frames)
            .iter()
            .map(|v| first_pixel(v)[0])
            .collect();
        assert_eq!(high, [0, 20, 5], "{}", b.describe());
    }
}

/// A black 40x30 frame with a white 6x4 block whose top-left corner is (x, y).
fn block_at(x: u32, y: u32) -> Image {
    let (w, h) = (40u32, 30u32);
    let mut px = vec![0u8; (w * h * 4) as usize];
    for j in 0..h {
        for i in 0..w {
            let k = ((j * w + i) * 4) as usize;
            let v = if (x..x + 6).contains(&i) && (y..y + 4).contains(&j) {
                255
            } else {
                0
            };
            px[k..k + 4].copy_from_slice(&[v, v, v, 255]);
        }
    }
    Image::from_u8(w, h, PixelFormat::Rgba8, px).expect("valid frame")
}

#[test]
fn motion_detector_finds_a_moving_block() {
    // the block jumps from (2, 3) to (30, 20): with strength 0.5 the average holds half of
    // each, so both the old place (255 -> 128 away) and the new one (255 vs 128) move
    let frames = [block_at(2, 3), block_at(2, 3), block_at(30, 20)];
    for b in backends() {
        let out = run_sequence(&b, "motion_detector", &frames);
        let motion: Vec<texelflow::Motion> = out
            .iter()
            .map(|v| match v.as_data() {
                Some(Data::Motion(m)) => *m,
                other => panic!("motion data expected, got {other:?}"),
            })
            .collect();
        assert_eq!(
            motion[0].moving, 0,
            "the first frame has nothing to move against"
        );
        assert_eq!(motion[1].moving, 0, "a still frame");
        assert_eq!(motion[1].centroid(), None);
        assert_eq!(motion[2].moving, 48, "{}", b.describe());
        // the two blocks' centres: (4.5, 4.5) and (32.5, 21.5), in pixel centres (x+0.5)/w
        let (cx, cy) = motion[2].centroid().expect("motion");
        assert!(
            (cx - (18.5 + 0.5) / 40.0).abs() < 1e-9 && (cy - (13.0 + 0.5) / 30.0).abs() < 1e-9,
            "{cx} {cy}"
        );
        assert!((motion[2].intensity() - 48.0 / 1200.0).abs() < 1e-12);
    }
}

#[test]
fn auto_exposure_follows_the_previous_frame() {
    // the gain of frame k comes from frame k-1's mean (frame 0: its own): 0.5 * 255 / 51 = 2.5
    let frames = [
        flat(8, 8, 51),
        flat(8, 8, 51),
        flat(8, 8, 102),
        flat(8, 8, 102),
    ];
    for b in backends() {
        let out: Vec<u8> = run_sequence(&b, "auto_exposure(target=0.5, max_gain=4)", &frames)
            .iter()
            .map(|v| first_pixel(v)[0])
            .collect();
        // 51*2.5 = 127.5 -> 128; frame 2 still has gain 2.5: 255; then 102 * 1.25 = 127.5 -> 128
        assert_eq!(out, [128, 128, 255, 128], "{}", b.describe());
    }
}

#[test]
fn a_still_image_is_a_first_frame() {
    let img = random_image(13, 7, PixelFormat::Rgba8, 3);
    for b in backends() {
        assert_eq!(
            pipe("low_pass(strength=0.9)")
                .run(&b, &img)
                .expect("runs")
                .as_image()
                .expect("image")
                .as_u8(),
            img.as_u8()
        );
        let diff = pipe("frame_difference").run(&b, &img).expect("runs");
        assert!(diff
            .as_image()
            .expect("image")
            .as_u8()
            .chunks_exact(4)
            .all(|p| p[..3] == [0, 0, 0]));
    }
}

#[test]
fn frames_from_many_threads_in_any_order_equal_one_thread() {
    let frames: Vec<Image> = (0..12)
        .map(|k| random_image(23, 11, PixelFormat::Rgba8, 100 + k))
        .collect();
    let spec = "low_pass(strength=0.7) | brightness(0.05)";
    let want = run_sequence(&gpu_backend(), spec, &frames);
    let p = pipe(spec);
    let seq = Sequence::new();
    let b = gpu_backend();
    let got: Vec<std::sync::Mutex<Option<Value>>> = (0..frames.len())
        .map(|_| std::sync::Mutex::new(None))
        .collect();
    std::thread::scope(|s| {
        // a thread per frame, started last frame first: each waits for its turn
        for k in (0..frames.len()).rev() {
            let (p, seq, b, frames, got) = (&p, &seq, &b, &frames, &got);
            s.spawn(move || {
                let v = p.run_frame(b, &frames[k], seq, k as u64).expect("runs");
                *got[k].lock().expect("lock") = Some(v);
            });
        }
    });
    for (k, (w, g)) in want.iter().zip(&got).enumerate() {
        let g = g.lock().expect("lock").take().expect("frame ran");
        assert_eq!(max_diff(w, &g), Ok(0.0), "frame {k}");
    }
}

#[test]
fn skipped_frames_and_reset() {
    let b = gpu_backend();
    let p = pipe("frame_difference");
    let seq = Sequence::new();
    p.run_frame(&b, &flat(3, 3, 10), &seq, 0).expect("runs");
    seq.skip(1).expect("skips");
    // frame 2 compares with frame 0 (the skipped one left the state alone)
    assert_eq!(
        first_pixel(&p.run_frame(&b, &flat(3, 3, 30), &seq, 2).expect("runs"))[0],
        20
    );
    let again = p.run_frame(&b, &flat(3, 3, 30), &seq, 1);
    assert!(again.is_err_and(|e| e.to_string().contains("already run")));
    seq.reset().expect("resets");
    assert_eq!(seq.next_frame(), 0);
    assert_eq!(
        first_pixel(&p.run_frame(&b, &flat(3, 3, 99), &seq, 0).expect("runs"))[0],
        0
    );
}

#[test]
fn a_new_frame_size_starts_afresh() {
    for b in backends() {
        let p = pipe("frame_difference");
        let seq = Sequence::new();
        p.run_frame(&b, &flat(3, 3, 10), &seq, 0).expect("runs");
        // another size: the carried 3x3 frame does not fit, so this is a first frame again
        assert_eq!(
            first_pixel(&p.run_frame(&b, &flat(5, 2, 90), &seq, 1).expect("runs"))[0],
            0
        );
        assert_eq!(
            first_pixel(&p.run_frame(&b, &flat(5, 2, 70), &seq, 2).expect("runs"))[0],
            20
        );
    }
}

#[test]
fn state_api_errors() {
    let d = ImageDesc::new(4, 4, PixelFormat::Rgba8);
    let mut g = Graph::new();
    let input = g.source("input", d).expect("source");
    let prev = g.state(input).expect("state");
    let out = g
        .add1(DissolveBlend { mix: 0.5 }, &[input, prev])
        .expect("blend");
    g.output("output", out).expect("output");
    let img = Image::zeroed(d);
    // never fed: an error on both backends, not a silent still frame
    for b in backends() {
        let e = b
            .run(&g, &[("input", &img)], &RunOptions::default())
            .expect_err("unfed state");
        assert!(e.to_string().contains("never fed"), "{e}");
    }
    // fed with another kind of value, fed twice, fed from a port that is not a state
    let stats = g
        .add1(texelflow::filters::analysis::Reduce::new(), &[input])
        .expect("reduce");
    assert!(g.feed(prev, stats).is_err());
    assert!(g.feed(input, out).is_err());
    g.feed(prev, out).expect("feeds");
    assert!(g.feed(prev, out).is_err());
    let mut other = Graph::new();
    let foreign = other.source("x", d).expect("source");
    assert!(g.state(foreign).is_err());
}
