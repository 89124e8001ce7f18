//! canny_edge_detection: the GPU's union-find hysteresis against the CPU twin's flood fill,
//! exactly, on noise (large tangled components, the concurrent unions' worst case) and on
//! edges that run across the whole image, where only real hysteresis (not a fixed number of
//! propagation passes) reaches the far end; bad parameters are one line.

mod common;

use common::*;
use texelflow::filters::neighborhood::CannyEdgeDetection;
use texelflow::{Backend, Graph, Image, PixelFormat, RunOptions, Value};

/// The GPU schedules (`DEF.schedules`); `both` runs each against the twin.
const SCHEDULES: &[&str] = &["unionfind", "tiles"];

fn run(backend: &Backend, f: &CannyEdgeDetection, img: &Image, schedule: Option<&str>) -> Image {
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
                schedules: schedule
                    .map(|v| vec![("canny_edge_detection".to_string(), v.to_string())])
                    .unwrap_or_default(),
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
    match r.outputs.into_iter().next() {
        Some((_, Value::Image(i))) => i,
        _ => panic!("no image output"),
    }
}

/// GPU maps (the default and every schedule, outputs poisoned beforehand) and the CPU
/// map, asserted equal; the CPU map.
fn both(f: &CannyEdgeDetection, img: &Image) -> Image {
    let cpu = run(&Backend::Cpu, f, img, None);
    let gpu = gpu_backend();
    for schedule in std::iter::once(None).chain(SCHEDULES.iter().map(|s| Some(*s))) {
        let out = run(&gpu, f, img, schedule);
        assert_eq!(out.format(), PixelFormat::Gray8);
        let diff = out
            .as_u8()
            .iter()
            .zip(cpu.as_u8())
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(
            diff,
            0,
            "{f:?} {}x{} schedule {schedule:?}: {diff} pixels differ",
            img.width(),
            img.height()
        );
    }
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

/// Pixels of a square spiral band (4 pixels thick, arms 12 pixels apart) from the centre of a
/// `size` square, in drawing order: (x, y) of each 4x4 stamp.
fn spiral(size: i32) -> Vec<(i32, i32)> {
    let (mut x, mut y) = (size / 2, size / 2);
    let dirs = [(1, 0), (0, 1), (-1, 0), (0, -1)];
    let mut out = Vec::new();
    for i in 0.. {
        let (dx, dy) = dirs[i % 4];
        for _ in 0..12 * (i as i32 / 2 + 1) {
            if x < 4 || y < 4 || x + 8 > size || y + 8 > size {
                return out;
            }
            out.push((x, y));
            x += dx;
            y += dy;
        }
    }
    out
}

#[test]
fn hysteresis_follows_a_spiral_across_many_tiles() {
    // A weak band (contrast 10: magnitude ~40, lower 20, upper 100) spiralling out over a
    // 256x256 image (4 x 16 tiles), its first stamps strong (contrast 60): the edges reach
    // the outer end only through hundreds of weak pixels crossing tiles back and forth.
    let f = CannyEdgeDetection::new(0.0, 100.0 / 255.0, 20.0 / 255.0, true).unwrap();
    let path = spiral(256);
    assert!(path.len() > 2000, "{} stamps", path.len());
    let draw = |strong: usize| {
        let mut v = vec![100u8; 256 * 256];
        // weak first, the strong start drawn over it
        for (k, &(x, y)) in path.iter().enumerate().rev() {
            for (a, b) in (0..4).flat_map(|a| (0..4).map(move |b| (a, b))) {
                // the contrast falls gradually from the strong start (a sudden drop in
                // contrast along the band breaks the edge chain there)
                v[(y + b) as usize * 256 + (x + a) as usize] =
                    110 + (50 * strong.saturating_sub(k) / strong.max(1)) as u8;
            }
        }
        Image::from_u8(256, 256, PixelFormat::Gray8, v).unwrap()
    };
    let out = both(&f, &draw(40));
    let (ex, ey) = *path.last().unwrap();
    let near_end = (-6..10).any(|b: i32| {
        (-6..10).any(|a: i32| {
            let (x, y) = (ex + a, ey + b);
            (0..256).contains(&x)
                && (0..256).contains(&y)
                && out.as_u8()[y as usize * 256 + x as usize] == 255
        })
    });
    assert!(near_end, "the spiral's edge did not reach its outer end");
    let edges = out.as_u8().iter().filter(|&&v| v == 255).count();
    assert!(edges > 4000, "{edges} edges");
    // without the strong start nothing is an edge
    let none = both(&f, &draw(0));
    assert!(none.as_u8().iter().all(|&v| v == 0));
}

#[test]
fn hysteresis_follows_an_edge_through_tile_corners() {
    // a step along y = x / 4: it passes through every tile corner (64 k, 16 k); the contrast
    // rises to the right, strong only in the last columns
    let f = CannyEdgeDetection::new(0.0, 120.0 / 255.0, 20.0 / 255.0, true).unwrap();
    for (w, h) in [(512u32, 128u32), (515, 130)] {
        let img = gray(
            w,
            h,
            |x, y| if 4 * y < x { 100 } else { 108 + (x / 24) as u8 },
        );
        let out = both(&f, &img);
        // the edge's left end (far from the strong part)
        let left = (0..8).any(|y| (0..32).any(|x| out.as_u8()[y * w as usize + x] == 255));
        assert!(left, "{w}x{h}: the edge did not reach its weak end");
        // the mirror image: strong at the left end, crossing corners the other way
        let img = gray(w, h, |x, y| {
            if 4 * y < w - 1 - x {
                100
            } else {
                108 + ((w - 1 - x) / 24) as u8
            }
        });
        both(&f, &img);
    }
}

#[test]
fn many_components_on_the_tile_borders() {
    // One bright dot every 4 columns on rows 16 k + 1 and 16 k + 14: each makes a 3x3 ring
    // of candidates, so every tile's top and bottom rows hold 16 separate components each,
    // joined in pairs across the tile rows; dots of three strengths (none, weak, strong).
    let f = CannyEdgeDetection::new(0.0, 100.0 / 255.0, 20.0 / 255.0, true).unwrap();
    for (w, h) in [(256u32, 64u32), (259, 67), (130, 33)] {
        let img = gray(w, h, |x, y| {
            if x % 4 == 1 && matches!(y % 16, 1 | 14) {
                [0u8, 20, 80][((x / 4 + y / 16) % 3) as usize]
            } else {
                0
            }
        });
        let out = both(&f, &img);
        let edges = out.as_u8().iter().filter(|&&v| v == 255).count();
        assert!(
            edges > 0 && edges < (w * h) as usize / 4,
            "{w}x{h}: {edges} edges"
        );
        // every component made strong: all rings are edges
        let strong = CannyEdgeDetection::new(0.0, 30.0 / 255.0, 20.0 / 255.0, true).unwrap();
        both(&strong, &img);
    }
}

#[test]
fn awkward_sizes_all_strong_all_weak_and_noise() {
    let bench = CannyEdgeDetection::new(0.0, 150.0 / 255.0, 50.0 / 255.0, true).unwrap();
    // every suppression peak strong / none strong (no edges at all)
    let all_strong = CannyEdgeDetection::new(0.0, 0.0, 0.0, true).unwrap();
    let all_weak = CannyEdgeDetection::new(0.0, 6.0, 0.0, false).unwrap();
    for (k, (w, h)) in [
        (1u32, 1u32),
        (2, 2),
        (3, 1),
        (17, 9),
        (63, 16),
        (64, 16),
        (65, 17),
        (66, 18),
        (130, 33),
        (129, 49),
        (257, 31),
        (193, 80),
    ]
    .into_iter()
    .enumerate()
    {
        let noise = random_image(w, h, PixelFormat::Gray8, 101 + k as u64);
        both(&bench, &noise);
        let out = both(&all_strong, &noise);
        if w * h >= 64 {
            assert!(out.as_u8().contains(&255), "{w}x{h}: no edge");
        }
        let out = both(&all_weak, &noise);
        assert!(
            out.as_u8().iter().all(|&v| v == 0),
            "{w}x{h}: an edge without a strong pixel"
        );
        // an image whose every candidate is weak except one strong corner
        let img = gray(w, h, |x, y| {
            let n = noise.as_u8()[(y * w + x) as usize] / 8;
            if x < 3 && y < 3 {
                n + 200
            } else {
                n
            }
        });
        both(
            &CannyEdgeDetection::new(0.0, 300.0 / 255.0, 10.0 / 255.0, true).unwrap(),
            &img,
        );
    }
    // larger noise with the bench's thresholds, and with lower ones (bigger components)
    let noise = random_image(1280, 720, PixelFormat::Gray8, 7);
    both(&bench, &noise);
    both(
        &CannyEdgeDetection::new(0.0, 250.0 / 255.0, 30.0 / 255.0, true).unwrap(),
        &noise,
    );
}

#[test]
fn vertical_lines_cross_every_tile_row() {
    // A 1-pixel stripe every 4 columns makes candidate lines at every even column (gx on both
    // sides of the stripe): 32 separate components along each tile's top and bottom rows,
    // each crossing all 16 tile rows of a 256-row image. Every third stripe is strong in its
    // last rows only; the others stay weak (no edge), and a gap breaks some stripes.
    let f = CannyEdgeDetection::new(0.0, 100.0 / 255.0, 20.0 / 255.0, true).unwrap();
    for (w, h) in [(256u32, 256u32), (258, 250)] {
        let img = gray(w, h, |x, y| {
            let s = x / 4;
            if x % 4 != 1 || (s % 5 == 4 && (100..104).contains(&y)) {
                0
            } else if s % 3 == 0 && y + 6 >= h {
                50
            } else {
                10
            }
        });
        let out = both(&f, &img);
        // the strong stripes' lines reach the top row; the weak ones do not exist
        let top = &out.as_u8()[..w as usize];
        assert_eq!(top[0], 255, "{w}x{h}");
        assert_eq!(top[2], 255, "{w}x{h}");
        assert_eq!(top[4], 0, "{w}x{h}");
        assert!(top.iter().filter(|&&v| v == 255).count() > 10, "{w}x{h}");
    }
}
