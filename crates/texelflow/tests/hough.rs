//! Lines as data: `hough_line_detection` lists equal on GPU and CPU (edge maps of a few
//! straight lines plus noise, awkward sizes, other resolutions, the limit and overflow), the
//! drawn lines found where they were drawn, Canny then Hough on a photo-like scene, and
//! `draw_lines` pixels equal on both sides.

mod common;

use std::f32::consts::FRAC_PI_2;

use common::*;
use texelflow::filters::analysis::{DrawLines, HoughLineDetection};
use texelflow::filters::neighborhood::CannyEdgeDetection;
use texelflow::{
    Backend, Data, Graph, Image, ImageDesc, Line, Lines, PixelFormat, RunOptions, Value, ValueDesc,
};

/// A white-on-black edge map (Gray8, or RGBA8 grey) with a horizontal line at `h / 3`, a
/// vertical one at `w / 2`, a diagonal from the top-left corner, and `noise` per mille of the
/// other pixels set at random.
fn edge_scene(w: u32, h: u32, format: PixelFormat, noise: u64, seed: u64) -> Image {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut px = vec![0u8; (w * h) as usize];
    for (i, p) in px.iter_mut().enumerate() {
        let (x, y) = (i as u32 % w, i as u32 / w);
        if y == h / 3 || x == w / 2 || x == y || rng.next() % 1000 < noise {
            *p = 255;
        }
    }
    match format {
        PixelFormat::Gray8 => Image::from_u8(w, h, PixelFormat::Gray8, px).unwrap(),
        _ => Image::from_u8(
            w,
            h,
            PixelFormat::Rgba8,
            px.iter().flat_map(|&v| [v, v, v, 255]).collect(),
        )
        .unwrap(),
    }
}

fn lines(v: Value) -> Lines {
    match v {
        Value::Data(Data::Lines(l)) => l,
        other => panic!("not lines: {other:?}"),
    }
}

fn hough(
    edge_threshold: f32,
    rho: f32,
    theta: f32,
    threshold: u32,
    relative: f32,
    max: u32,
) -> Box<dyn texelflow::Filter> {
    Box::new(HoughLineDetection::new(edge_threshold, rho, theta, threshold, relative, max).unwrap())
}

#[test]
fn lists_equal_the_cpu_twin_and_find_the_drawn_lines() {
    let mut total = 0;
    for (i, &(w, h)) in [
        (67u32, 43u32),
        (130, 97),
        (200, 256),
        (1, 1),
        (1, 9),
        (9, 1),
        (31, 7),
    ]
    .iter()
    .enumerate()
    {
        for format in [PixelFormat::Gray8, PixelFormat::Rgba8] {
            let img = edge_scene(w, h, format, 20, 3 + i as u64);
            let params: &[(f32, f32, u32, f32, u32)] = &[
                (1.0, 1.0, 0, 0.2, 65536),
                (1.0, 1.0, 5, 0.0, 65536),
                (2.0, 0.5, 0, 0.3, 65536),
                (1.5, 3.0, 0, 0.0, 7),
                (1.0, 0.25, 0, 0.5, 3),
            ];
            for &(rho, theta, threshold, relative, max) in params {
                let f = || vec![hough(0.5, rho, theta, threshold, relative, max)];
                let (g, c) = (
                    lines(run_chain(&gpu_backend(), f(), &img)),
                    lines(run_chain(&Backend::Cpu, f(), &img)),
                );
                assert!(c.found <= 65536);
                assert_eq!(g.lines, c.lines, "{w}x{h} {format:?} rho {rho} theta {theta} threshold {threshold} relative {relative} max {max}");
                assert_eq!(
                    (g.found, g.overflow, g.max_votes),
                    (c.found, c.overflow, c.max_votes)
                );
                // strongest first, within the limit, every line passing both thresholds
                assert!(c
                    .lines
                    .windows(2)
                    .all(|l| (l[0].votes, -l[0].theta, -l[0].rho)
                        >= (l[1].votes, -l[1].theta, -l[1].rho)));
                assert!(c.lines.len() as u32 <= max && c.overflow == (c.found > max as u64));
                assert!(c.lines.iter().all(|l| l.votes > threshold
                    && l.votes as f32 >= relative * c.max_votes as f32
                    && (0.0..std::f32::consts::PI).contains(&l.theta)));
                total += c.lines.len();
            }
            if w >= 67 {
                // at 1 px and 1°, the three drawn lines are among the five strongest
                let c = lines(run_chain(
                    &Backend::Cpu,
                    vec![hough(0.5, 1.0, 1.0, 0, 0.0, 5)],
                    &img,
                ));
                let has = |rho: f32, theta: f32| {
                    c.lines
                        .iter()
                        .any(|l| (l.rho - rho).abs() < 0.5 && (l.theta - theta).abs() < 1e-3)
                };
                assert!(
                    has((h / 3) as f32, FRAC_PI_2),
                    "{w}x{h}: no horizontal line in {:?}",
                    c.lines
                );
                assert!(
                    has((w / 2) as f32, 0.0),
                    "{w}x{h}: no vertical line in {:?}",
                    c.lines
                );
                assert!(
                    has(0.0, 135f32.to_radians()),
                    "{w}x{h}: no diagonal in {:?}",
                    c.lines
                );
            }
        }
    }
    assert!(total > 300, "only {total} lines");
}

/// An empty map gives an empty list; a map of all edges gives lines on both sides alike.
#[test]
fn empty_and_full_maps() {
    let empty = Image::from_u8(40, 30, PixelFormat::Gray8, vec![0; 1200]).unwrap();
    for backend in [gpu_backend(), Backend::Cpu] {
        let l = lines(run_chain(
            &backend,
            vec![hough(0.5, 1.0, 1.0, 0, 0.2, 65536)],
            &empty,
        ));
        assert_eq!(
            (l.found, l.overflow, l.max_votes, l.lines.len()),
            (0, false, 0, 0)
        );
    }
    let full = Image::from_u8(40, 30, PixelFormat::Gray8, vec![255; 1200]).unwrap();
    let f = || vec![hough(0.5, 1.0, 1.0, 0, 0.0, 65536)];
    let c = lines(run_chain(&Backend::Cpu, f(), &full));
    assert!(c.found > 0);
    assert_eq!(lines(run_chain(&gpu_backend(), f(), &full)), c);
}

/// Canny then Hough on an RGBA8 scene with grey noise: the lists equal (Canny is exact, the
/// Hough is exact), and the strongest line is one of the drawn ones.
#[test]
fn canny_then_hough_on_a_scene() {
    let (w, h) = (160u32, 120u32);
    let mut rng = Rng(77);
    let mut px = Vec::with_capacity((w * h * 4) as usize);
    for i in 0..w * h {
        let (x, y) = (i % w, i / w);
        let base = if y == 60 || x == 80 || y == 2 * x / 3 {
            220
        } else {
            40
        };
        let v = (base + (rng.next() % 21) as i32 - 10).clamp(0, 255) as u8;
        px.extend([v, v, v, 255]);
    }
    let img = Image::from_u8(w, h, PixelFormat::Rgba8, px).unwrap();
    let f = || {
        vec![
            Box::new(CannyEdgeDetection::new(1.0, 0.4, 0.1, true).unwrap())
                as Box<dyn texelflow::Filter>,
            hough(0.5, 1.0, 1.0, 0, 0.2, 20),
        ]
    };
    let c = lines(run_chain(&Backend::Cpu, f(), &img));
    assert_eq!(lines(run_chain(&gpu_backend(), f(), &img)), c);
    assert!(!c.lines.is_empty());
    let top = c.lines[0];
    assert!(
        (top.theta - FRAC_PI_2).abs() < 0.03
            || top.theta.abs() < 0.03
            || (top.theta - 2.159).abs() < 0.03,
        "strongest {top:?}"
    );
}

/// draw_lines from a hand-made list on the CPU side (a row, a column, steep and shallow
/// slopes, one outside the image) and from the detector on both: the same pixels.
#[test]
fn draw_lines_pixels() {
    let img = random_image(67, 43, PixelFormat::Rgba8, 5);
    let red = [255u8, 0, 0, 255];
    let list = Lines {
        lines: vec![
            Line {
                rho: 20.0,
                theta: FRAC_PI_2,
                votes: 9,
            },
            Line {
                rho: 7.0,
                theta: 0.0,
                votes: 8,
            },
            Line {
                rho: -500.0,
                theta: 3.0,
                votes: 1,
            },
        ],
        found: 3,
        overflow: false,
        max_votes: 9,
    };
    let out =
        texelflow::filters::analysis::draw_lines::draw_lines_cpu(&img, &list, 0, red).unwrap();
    let px =
        |x: u32, y: u32| &out.as_u8()[4 * (y * 67 + x) as usize..4 * (y * 67 + x) as usize + 4];
    assert!((0..67).all(|x| px(x, 20) == red) && (0..43).all(|y| px(7, y) == red));
    assert_ne!(px(8, 21), red);
    let changed = out
        .as_u8()
        .chunks_exact(4)
        .zip(img.as_u8().chunks_exact(4))
        .filter(|(a, b)| a != b)
        .count();
    assert!(changed < 67 + 43, "{changed} pixels changed");
    for (w, h) in [(67u32, 43u32), (130, 97), (1, 1), (9, 1), (1, 9)] {
        let edges = edge_scene(w, h, PixelFormat::Gray8, 10, 9);
        let photo = random_image(w, h, PixelFormat::Rgba8, 11);
        for width in [1u32, 4, 7] {
            let mut g = Graph::new();
            let e = g.source("edges", edges.desc()).unwrap();
            let p = g.source("photo", photo.desc()).unwrap();
            let l = g.add_boxed(hough(0.5, 1.0, 0.5, 0, 0.3, 40), &[e]).unwrap()[0];
            let o = g
                .add_boxed(
                    Box::new(DrawLines::new(width, [0.0, 1.0, 0.5]).unwrap()),
                    &[p, l],
                )
                .unwrap()[0];
            g.output("out", o).unwrap();
            g.output("lines", l).unwrap();
            let opts = RunOptions {
                poison: true,
                ..Default::default()
            };
            let gpu = gpu_backend()
                .run(&g, &[("edges", &edges), ("photo", &photo)], &opts)
                .unwrap();
            let cpu = Backend::Cpu
                .run(&g, &[("edges", &edges), ("photo", &photo)], &opts)
                .unwrap();
            assert_eq!(gpu.get("lines"), cpu.get("lines"), "{w}x{h}");
            assert_eq!(
                gpu.get("out"),
                cpu.get("out"),
                "{w}x{h} width {width}: drawn pixels differ"
            );
        }
    }
}

/// Out-of-range parameters and images too large are one-line errors, not panics.
#[test]
fn bad_parameters_and_sizes() {
    for (e, r, t, rel) in [
        (1.5f32, 1.0f32, 1.0f32, 0.2f32),
        (0.5, 0.5, 1.0, 0.2),
        (0.5, 1.0, 0.1, 0.2),
        (0.5, 1.0, 91.0, 0.2),
        (0.5, 1.0, 1.0, -0.1),
    ] {
        let err = HoughLineDetection::new(e, r, t, 0, rel, 10)
            .unwrap_err()
            .to_string();
        assert!(
            !err.contains('\n') && err.contains("hough_line_detection"),
            "{err}"
        );
    }
    assert!(HoughLineDetection::new(0.5, 1.0, 1.0, 0, 0.2, 0).is_err());
    assert!(HoughLineDetection::new(0.5, 1.0, 1.0, 0, 0.2, 65537).is_err());
    assert!(
        DrawLines::new(0, [1.0, 0.0, 0.0]).is_err() && DrawLines::new(1, [2.0, 0.0, 0.0]).is_err()
    );
    let f = HoughLineDetection::default();
    let err = texelflow::Filter::output_descs(
        &f,
        &[ValueDesc::Image(ImageDesc::new(
            16385,
            2,
            PixelFormat::Gray8,
        ))],
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("16384") && !err.contains('\n'), "{err}");
    assert!(texelflow::Filter::output_descs(
        &f,
        &[ValueDesc::Image(ImageDesc::new(4, 4, PixelFormat::Rgba32F))]
    )
    .is_err());
}
