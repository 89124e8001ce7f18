//! jfa_voronoi and voronoi_consumer on sparse seeds (the equivalence matrix's random images are
//! seeds almost everywhere): GPU equal to the CPU twin, the map nearest-seed exact on a few
//! seeds, the consumer's cells coloured from their seeds, and the size limit as one line.

mod common;

use common::*;
use texelflow::filters::effect::jfa_voronoi::decode;
use texelflow::{Backend, Graph, Image, PixelFormat, RunOptions};

/// Black opaque image with `n` coloured seed pixels; the seeds' positions.
fn seed_image(w: u32, h: u32, n: usize, seed: u64) -> (Image, Vec<(u32, u32)>) {
    let mut rng = Rng(seed * 7919 + 1);
    let mut data: Vec<u8> = (0..w * h).flat_map(|_| [0, 0, 0, 255]).collect();
    let mut placed = Vec::new();
    while placed.len() < n.min((w * h) as usize) {
        let (x, y) = (
            (rng.next() % w as u64) as u32,
            (rng.next() % h as u64) as u32,
        );
        if !placed.contains(&(x, y)) {
            placed.push((x, y));
            data[4 * (y * w + x) as usize..][..4].copy_from_slice(&[
                1 + rng.byte() / 2,
                rng.byte(),
                rng.byte(),
                255,
            ]);
        }
    }
    (
        Image::from_u8(w, h, PixelFormat::Rgba8, data).unwrap(),
        placed,
    )
}

/// Runs jfa_voronoi, and voronoi_consumer of `photo` through its map, on a backend.
fn run(backend: &Backend, seeds: &Image, photo: &Image) -> (Image, Image) {
    let mut g = Graph::new();
    let s = g.source("seeds", seeds.desc()).unwrap();
    let p = g.source("photo", photo.desc()).unwrap();
    let map = g
        .add_boxed(texelflow::registry::create("jfa_voronoi").unwrap(), &[s])
        .unwrap()[0];
    let cells = g
        .add_boxed(
            Box::new(texelflow::filters::effect::VoronoiConsumer),
            &[p, map],
        )
        .unwrap()[0];
    g.output("map", map).unwrap();
    g.output("cells", cells).unwrap();
    let mut r = backend
        .run(
            &g,
            &[("seeds", seeds), ("photo", photo)],
            &RunOptions {
                poison: true,
                ..Default::default()
            },
        )
        .unwrap();
    let mut img = |name: &str| r.take(name).unwrap().as_image().unwrap().clone();
    (img("map"), img("cells"))
}

#[test]
fn sparse_seeds_gpu_equals_cpu_and_few_seeds_are_exact() {
    for (k, &(w, h, n)) in [
        (1u32, 1u32, 1usize),
        (1, 9, 2),
        (9, 1, 1),
        (67, 43, 4),
        (130, 17, 7),
        (68, 130, 40),
        (260, 37, 3),
        (64, 64, 0),
    ]
    .iter()
    .enumerate()
    {
        let (seeds, placed) = seed_image(w, h, n, k as u64);
        let photo = random_image(w, h, PixelFormat::Rgba8, 50 + k as u64);
        let (gmap, gcells) = run(&gpu_backend(), &seeds, &photo);
        let (cmap, ccells) = run(&Backend::Cpu, &seeds, &photo);
        assert_eq!(
            gmap.as_u8(),
            cmap.as_u8(),
            "{w}x{h} {n} seeds: GPU map differs"
        );
        assert_eq!(
            gcells.as_u8(),
            ccells.as_u8(),
            "{w}x{h} {n} seeds: GPU cells differ"
        );
        let px = |img: &Image, x: u32, y: u32| -> [u8; 4] {
            img.as_u8()[4 * (y * w + x) as usize..][..4]
                .try_into()
                .unwrap()
        };
        for y in 0..h {
            for x in 0..w {
                let got = decode(px(&cmap, x, y));
                if placed.is_empty() {
                    // no seed: transparent map, the photo unchanged
                    assert_eq!(got, None);
                    assert_eq!(px(&ccells, x, y), px(&photo, x, y));
                    continue;
                }
                let (sx, sy) = got.unwrap_or_else(|| panic!("{w}x{h}: ({x}, {y}) has no seed"));
                let d2 = |(a, b): (u32, u32)| {
                    (a as i64 - x as i64).pow(2) + (b as i64 - y as i64).pow(2)
                };
                if n <= 7 {
                    let nearest = placed.iter().map(|&s| d2(s)).min().unwrap();
                    assert_eq!(
                        d2((sx, sy)),
                        nearest,
                        "{w}x{h} {placed:?}: ({x}, {y}) got ({sx}, {sy})"
                    );
                }
                assert!(placed.contains(&(sx, sy)));
                // same-size map: each cell takes the photo's colour at its seed
                assert_eq!(px(&ccells, x, y), px(&photo, sx, sy));
            }
        }
    }
}

#[test]
fn maps_beyond_the_encoding_are_refused_in_one_line() {
    let (seeds, _) = seed_image(2049, 2, 3, 1);
    let mut g = Graph::new();
    let s = g.source("seeds", seeds.desc()).unwrap();
    let e = g
        .add_boxed(texelflow::registry::create("jfa_voronoi").unwrap(), &[s])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("2049x2") && e.contains("2048") && !e.contains('\n'),
        "{e}"
    );
}
