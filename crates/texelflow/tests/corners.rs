//! Corners as data: `fast_corner_detection` against its CPU twin on images with structure
//! (random rectangles: noise alone makes FAST fire almost everywhere), `corner_points` lists
//! equal on GPU and CPU for FAST, Harris-style RGBA8 and R32F maps, and the overflow flag.

mod common;

use common::*;
use texelflow::filters::analysis::CornerPoints;
use texelflow::filters::neighborhood::{FastCornerDetection, HarrisCornerDetection};
use texelflow::{Backend, Data, Image, PixelFormat, Points, Value};

/// Rectangles of random grey levels (or colours) on a grey ground, with mild noise.
fn rectangles(w: u32, h: u32, format: PixelFormat, seed: u64) -> Image {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut px = vec![[90u8, 90, 90, 255]; (w * h) as usize];
    for _ in 0..12 {
        let (x0, y0) = (
            (rng.next() % w as u64) as u32,
            (rng.next() % h as u64) as u32,
        );
        let (x1, y1) = (
            (x0 + 4 + (rng.next() % (w as u64 / 2 + 1)) as u32).min(w),
            (y0 + 4 + (rng.next() % (h as u64 / 2 + 1)) as u32).min(h),
        );
        let c = [rng.byte(), rng.byte(), rng.byte(), 255];
        for y in y0..y1 {
            for x in x0..x1 {
                px[(y * w + x) as usize] = c;
            }
        }
    }
    for p in &mut px {
        for c in &mut p[..3] {
            *c = (*c as i32 + (rng.next() % 7) as i32 - 3).clamp(0, 255) as u8;
        }
    }
    let rgba = Image::from_u8(w, h, PixelFormat::Rgba8, px.concat()).unwrap();
    match format {
        PixelFormat::Gray8 => Image::from_u8(
            w,
            h,
            PixelFormat::Gray8,
            rgba.as_u8().chunks_exact(4).map(|p| p[1]).collect(),
        )
        .unwrap(),
        _ => rgba,
    }
}

fn points(v: Value) -> Points {
    match v {
        Value::Data(Data::Points(p)) => p,
        other => panic!("not points: {other:?}"),
    }
}

#[test]
fn fast_maps_and_points_equal_the_cpu_twin() {
    let mut corners = 0;
    for (i, &(w, h)) in [(67, 43), (130, 97), (256, 200), (7, 7), (9, 31), (1, 1)]
        .iter()
        .enumerate()
    {
        for format in [PixelFormat::Gray8, PixelFormat::Rgba8] {
            let img = rectangles(w, h, format, 11 + i as u64);
            for (threshold, nonmax) in [(10, true), (10, false), (40, true), (1, true)] {
                let fast = || {
                    Box::new(FastCornerDetection::new(threshold, nonmax).unwrap())
                        as Box<dyn texelflow::Filter>
                };
                let gpu = run_chain(&gpu_backend(), vec![fast()], &img);
                let cpu = run_chain(&Backend::Cpu, vec![fast()], &img);
                assert_eq!(
                    gpu, cpu,
                    "{w}x{h} {format:?} threshold {threshold} nonmax {nonmax}: maps differ"
                );
                let list = || {
                    vec![
                        fast(),
                        Box::new(CornerPoints::default()) as Box<dyn texelflow::Filter>,
                    ]
                };
                let (g, c) = (
                    points(run_chain(&gpu_backend(), list(), &img)),
                    points(run_chain(&Backend::Cpu, list(), &img)),
                );
                assert!(!c.overflow);
                assert_eq!(
                    g, c,
                    "{w}x{h} {format:?} threshold {threshold} nonmax {nonmax}: lists differ"
                );
                // the list is the map's non-zero pixels, sorted by (y, x), scores at least the threshold
                let map = cpu.as_image().unwrap().as_u8().to_vec();
                assert_eq!(c.points.len(), map.iter().filter(|&&v| v > 0).count());
                assert!(c
                    .points
                    .windows(2)
                    .all(|p| (p[0].y, p[0].x) < (p[1].y, p[1].x)));
                assert!(c.points.iter().all(|p| p.score >= threshold as f32
                    && p.x >= 3
                    && p.y >= 3
                    && p.x + 3 < w
                    && p.y + 3 < h));
                corners += c.points.len();
            }
        }
    }
    assert!(corners > 200, "the rectangles made only {corners} corners");
}

/// A single bright dot on a dark ground: every circle pixel darker by 100, so one corner with
/// score 99 (the largest threshold it passes), none around it.
#[test]
fn fast_finds_a_dot_with_opencvs_score() {
    let (w, h) = (15, 13);
    let mut px = vec![50u8; (w * h) as usize];
    px[(6 * w + 7) as usize] = 150;
    let img = Image::from_u8(w, h, PixelFormat::Gray8, px).unwrap();
    for backend in [gpu_backend(), Backend::Cpu] {
        let p = points(run_chain(
            &backend,
            vec![
                Box::new(FastCornerDetection::default()),
                Box::new(CornerPoints::default()),
            ],
            &img,
        ));
        assert_eq!(p.points.len(), 1);
        assert_eq!(
            (p.points[0].x, p.points[0].y, p.points[0].score),
            (7, 6, 99.0)
        );
    }
}

/// Any corner map: Harris's white points (RGBA8, red channel) and an R32F response, the
/// same list on both sides; the harris chain's own map comes from the CPU so that the lists
/// compare `corner_points` alone (the chain's blur may differ by a level on the GPU).
#[test]
fn corner_points_of_rgba8_and_r32f_maps() {
    let img = rectangles(120, 90, PixelFormat::Rgba8, 5);
    let map = run_chain(
        &Backend::Cpu,
        vec![Box::new(HarrisCornerDetection::default())],
        &img,
    )
    .into_image()
    .unwrap();
    let list = || vec![Box::new(CornerPoints::default()) as Box<dyn texelflow::Filter>];
    let c = points(run_chain(&Backend::Cpu, list(), &map));
    assert_eq!(points(run_chain(&gpu_backend(), list(), &map)), c);
    assert!(!c.points.is_empty() && c.points.iter().all(|p| p.score == 255.0));
    let mut rng = Rng(99);
    let response: Vec<f32> = (0..67 * 43)
        .map(|_| {
            if rng.next().is_multiple_of(20) {
                (rng.unit() * 4.0 - 1.0) as f32
            } else {
                0.0
            }
        })
        .collect();
    let r32 = Image::from_f32(67, 43, PixelFormat::R32F, response).unwrap();
    let list =
        || vec![Box::new(CornerPoints::new(0.5, 65536).unwrap()) as Box<dyn texelflow::Filter>];
    let c = points(run_chain(&Backend::Cpu, list(), &r32));
    assert_eq!(points(run_chain(&gpu_backend(), list(), &r32)), c);
    assert!(!c.points.is_empty() && c.points.iter().all(|p| p.score > 0.5));
}

/// More points than `max`: the flag is set, `found` counts them all, and the GPU keeps `max`
/// real ones (which ones is unspecified).
#[test]
fn overflow_is_flagged() {
    let img = rectangles(64, 48, PixelFormat::Gray8, 3);
    let all = |b: &Backend| {
        points(run_chain(
            b,
            vec![Box::new(CornerPoints::new(0.0, 65536).unwrap())],
            &img,
        ))
    };
    let full = all(&Backend::Cpu);
    assert_eq!(full.points.len(), 64 * 48);
    assert_eq!(all(&gpu_backend()), full);
    for backend in [gpu_backend(), Backend::Cpu] {
        let p = points(run_chain(
            &backend,
            vec![Box::new(CornerPoints::new(0.0, 100).unwrap())],
            &img,
        ));
        assert!(p.overflow);
        assert_eq!((p.found, p.points.len()), (64 * 48, 100));
        assert!(p.points.iter().all(|q| full.points.contains(q)));
        assert!(p
            .points
            .windows(2)
            .all(|q| (q[0].y, q[0].x) < (q[1].y, q[1].x)));
    }
}
