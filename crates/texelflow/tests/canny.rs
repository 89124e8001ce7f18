//! canny_edge_detection: the GPU's union-find hysteresis against the CPU twin's flood fill,
//! exactly, on noise (large tangled components, the concurrent unions' worst case) and on
//! edges that run across the whole image, where only real hysteresis (not a fixed number of
//! propagation passes) reaches the far end; bad parameters are one line.

mod common;

use common::*;
use texelflow::filters::neighborhood::CannyEdgeDetection;
use texelflow::{Backend, Graph, Image, PixelFormat, RunOptions, Value};

fn run(backend: &Backend, f: &CannyEdgeDetection, img: &Image) -> Image {
    let mut g = Graph::new();
    let s = g.source("in", img.desc()).unwrap();
    let out = g.add_boxed(Box::new(f.clone()), &[s]).unwrap();
    g.output("out", out[0]).unwrap();
    let r = backend
        .run(
            &g,
            &[("in", img)],
            &RunOptions {
                poison: true,
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
    match r.outputs.into_iter().next() {
        Some((_, Value::Image(i))) => i,
        _ => panic!("no image output"),
    }
}

/// GPU and CPU maps, asserted equal.
fn both(f: &CannyEdgeDetection, img: &Image) -> Image {
    let gpu = run(&gpu_backend(), f, img);
    let cpu = run(&Backend::Cpu, f, img);
    assert_eq!(gpu.format(), PixelFormat::Gray8);
    let diff = gpu
        .as_u8()
        .iter()
        .zip(cpu.as_u8())
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(
        diff,
        0,
        "{f:?} {}x{}: {diff} pixels differ",
        img.width(),
        img.height()
    );
    cpu
}

fn gray(w: u32, h: u32, px: impl Fn(u32, u32) -> u8) -> Image {
    Image::from_u8(
        w,
        h,
        PixelFormat::Gray8,
        (0..h)
            .flat_map(|y| (0..w).map(move |x| (x, y)))
            .map(|(x, y)| px(x, y))
            .collect(),
    )
    .unwrap()
}

#[test]
fn noise_matches_the_flood_fill_exactly() {
    // low thresholds on noise: most pixels are candidates, joined into large components
    for (k, (w, h)) in [
        (256u32, 256u32),
        (67, 43),
        (130, 17),
        (1, 9),
        (9, 1),
        (5, 5),
    ]
    .into_iter()
    .enumerate()
    {
        let noise = random_image(w, h, PixelFormat::Gray8, 11 + k as u64);
        for (sigma, lower, upper, l2) in [
            (0.0, 0.05, 0.6, true),
            (0.0, 0.3, 1.5, false),
            (1.0, 0.02, 0.2, true),
            (2.0, 0.1, 0.4, true),
        ] {
            let f = CannyEdgeDetection::new(sigma, upper, lower, l2).unwrap();
            let out = both(&f, &noise);
            if w * h >= 1000 {
                let edges = out.as_u8().iter().filter(|&&v| v == 255).count();
                assert!(
                    edges > 0 && edges < (w * h) as usize,
                    "{f:?}: {edges} edges, nothing to compare"
                );
            }
        }
        let colour = random_image(w, h, PixelFormat::Rgba8, 29 + k as u64);
        both(&CannyEdgeDetection::default(), &colour);
        both(
            &CannyEdgeDetection::new(0.0, 0.5, 0.1, true).unwrap(),
            &colour,
        );
    }
}

/// A vertical step edge down the whole 256-row image, contrast `d(y)` across columns 7 | 8.
fn step(d: impl Fn(u32) -> u8) -> Image {
    gray(16, 256, |x, y| if x < 8 { 100 } else { 100 + d(y) })
}

/// Whether row y of `img` (16 wide) has an edge at column 7 or 8.
fn edge_in_row(img: &Image, y: usize) -> bool {
    img.as_u8()[y * 16 + 7] == 255 || img.as_u8()[y * 16 + 8] == 255
}

#[test]
fn hysteresis_follows_an_edge_across_the_whole_image() {
    // Contrast rising slowly from 10 at the top to 61 at the bottom: the Sobel magnitude is
    // about 4 d, above `lower` (20) everywhere and above `upper` (240) in the last rows only.
    // Each row keeps one pixel (column 7, or 8 where the rising contrast makes its magnitude
    // larger), so the edge is one 8-connected chain of 256 pixels, strong at its bottom end.
    let f = CannyEdgeDetection::new(0.0, 240.0 / 255.0, 20.0 / 255.0, true).unwrap();
    let ramp = |y: u32| (10 + y / 5) as u8;
    let out = both(&f, &step(ramp));
    let missing: Vec<usize> = (0..256).filter(|&y| !edge_in_row(&out, y)).collect();
    assert!(
        missing.is_empty(),
        "the 256-pixel edge is not whole: rows {missing:?} have no edge"
    );
    // without the strong end (upper above every magnitude) nothing is an edge
    let none = both(
        &CannyEdgeDetection::new(0.0, 250.0 / 255.0, 20.0 / 255.0, true).unwrap(),
        &step(ramp),
    );
    assert!(none.as_u8().iter().all(|&v| v == 0));
    // broken by 41 flat rows: the part above the gap has no strong pixel and is dropped
    let out = both(
        &f,
        &step(|y| if (100..=140).contains(&y) { 0 } else { ramp(y) }),
    );
    assert!(
        (0..90).all(|y| !edge_in_row(&out, y)),
        "an edge part without a strong pixel survived"
    );
    assert!((150..256).all(|y| edge_in_row(&out, y)));
}

#[test]
fn hysteresis_follows_a_diagonal_and_a_zigzag() {
    // a diagonal step over a 256x256 image, its contrast rising towards the bottom-right end
    let f = CannyEdgeDetection::new(0.0, 200.0 / 255.0, 20.0 / 255.0, true).unwrap();
    let diag = gray(256, 256, |x, y| {
        if x > y {
            110 + ((x + y) / 12) as u8
        } else {
            100
        }
    });
    let out = both(&f, &diag);
    let near = |x0: usize, y0: usize| {
        (0..4).any(|a| (0..4).any(|b| out.as_u8()[(y0 + b) * 256 + x0 + a] == 255))
    };
    assert!(
        near(0, 0) && near(128, 128) && near(250, 250),
        "the diagonal edge did not run its whole length"
    );
    // a zigzag boundary (turning every 32 rows) over 256 rows, contrast rising downwards
    let zig = |y: u32| 20 + (if y % 64 < 32 { y % 64 } else { 64 - y % 64 }) * 3 / 4;
    let img = gray(
        64,
        256,
        |x, y| if x < zig(y) { 100 } else { 110 + (y / 5) as u8 },
    );
    let out = both(&f, &img);
    let rows_with_edges = (0..256)
        .filter(|&y| out.as_u8()[y * 64..(y + 1) * 64].contains(&255))
        .count();
    assert_eq!(
        rows_with_edges, 256,
        "the zigzag edge did not reach the top row"
    );
}

#[test]
fn bad_parameters_are_one_line() {
    for spec in [
        "canny_edge_detection(lower=0.5, upper=0.4)",
        "canny_edge_detection(sigma=-1)",
        "canny_edge_detection(upper=7)",
    ] {
        let e = texelflow::registry::create(spec)
            .expect_err(spec)
            .to_string();
        assert!(!e.contains('\n') && !e.is_empty(), "{spec}: {e}");
    }
    let e = texelflow::registry::create("canny_edge_detection(lower=0.5, upper=0.4)")
        .unwrap_err()
        .to_string();
    assert!(e.contains("lower") && e.contains("upper"), "{e}");
    // RGBA16 and float images are refused with the formats named
    let f: Box<dyn texelflow::Filter> = Box::new(CannyEdgeDetection::default());
    let d = texelflow::ValueDesc::Image(texelflow::ImageDesc::new(4, 4, PixelFormat::Rgba32F));
    let e = f.output_descs(&[d]).unwrap_err().to_string();
    assert!(e.contains("rgba8") && e.contains("gray8"), "{e}");
}
