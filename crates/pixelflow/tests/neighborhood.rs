//! Neighbourhood filters: both Gaussian strategies (fused tile, two-pass fallback) and
//! forced tile schedules against the CPU twin, constant images staying constant, box blur
//! at its largest radius, Sobel on flat images. `bench_neighborhood_4k` (ignored) times the
//! kernels against a copy at 3840x2160.

mod common;

use common::*;
use pixelflow::filters::convert::ToRgba;
use pixelflow::filters::neighborhood::{box_blur, gaussian_blur, BoxBlur, GaussianBlur, SobelEdgeDetection};
use pixelflow::{Backend, Filter, Graph, Image, PixelFormat, RunOptions, Value};

fn run(backend: &Backend, filter: Box<dyn Filter>, img: &Image, opts: &RunOptions) -> Result<(Image, f64), String> {
    let mut g = Graph::new();
    let s = g.source("in", img.desc()).map_err(|e| e.to_string())?;
    let out = g.add_boxed(filter, &[s]).map_err(|e| e.to_string())?;
    g.output("out", out[0]).map_err(|e| e.to_string())?;
    let r = backend.run(&g, &[("in", img)], opts).map_err(|e| e.to_string())?;
    let ms = r.timings.iter().map(|t| t.ms).sum();
    match r.outputs.into_iter().next() {
        Some((_, Value::Image(i))) => Ok((i, ms)),
        _ => Err("no image output".into()),
    }
}

/// Max per-sample difference between the GPU (poisoned outputs) and CPU results.
fn gpu_vs_cpu(filter: Box<dyn Filter>, img: &Image) -> u8 {
    let opts = RunOptions { poison: true, ..Default::default() };
    let (a, _) = run(&gpu_backend(), filter.clone(), img, &opts).unwrap_or_else(|e| panic!("gpu: {e}"));
    let (b, _) = run(&Backend::Cpu, filter, img, &opts).unwrap_or_else(|e| panic!("cpu: {e}"));
    max_diff(&Value::Image(a), &Value::Image(b)).unwrap() as u8
}

fn constant(w: u32, h: u32, px: [u8; 4]) -> Image {
    Image::from_u8(w, h, PixelFormat::Rgba8, px.iter().copied().cycle().take((w * h * 4) as usize).collect()).unwrap()
}

#[test]
fn gaussian_fused_and_two_pass_match_cpu() {
    let img = random_image(200, 150, PixelFormat::Rgba8, 7);
    // sigma 2 (radius 6) fuses on any device; sigma 20 (radius 60) never fits a tile
    for sigma in [2.0, 20.0] {
        assert!(gpu_vs_cpu(Box::new(GaussianBlur::new(sigma).unwrap()), &img) <= 1, "sigma {sigma}");
    }
    let forced = GaussianBlur::new(2.0).unwrap().with_schedule(gaussian_blur::Schedule::TwoPass);
    assert!(gpu_vs_cpu(Box::new(forced), &img) <= 1, "two-pass at sigma 2");
}

#[test]
fn gaussian_every_tile_shape_matches_cpu() {
    let img = random_image(67, 43, PixelFormat::Rgba8, 3);
    let tiles = [(8, 32, 2, 1), (16, 16, 2, 1), (16, 32, 4, 2), (16, 64, 4, 4), (32, 32, 8, 4), (64, 16, 8, 4)];
    for (tw, th, kh, kv) in tiles {
        let t = gaussian_blur::FusedTile { tw, th, kh, kv };
        let f = GaussianBlur::new(0.6).unwrap().with_schedule(gaussian_blur::Schedule::Fused(t));
        assert!(gpu_vs_cpu(Box::new(f), &img) <= 1, "{t:?}");
    }
}

#[test]
fn blurred_constant_image_stays_constant() {
    let img = constant(70, 50, [12, 200, 77, 255]);
    let filters: Vec<Box<dyn Filter>> = vec![
        Box::new(GaussianBlur::new(0.7).unwrap()),
        Box::new(GaussianBlur::new(3.0).unwrap()),
        Box::new(GaussianBlur::new(20.0).unwrap()),
        Box::new(BoxBlur::new(3).unwrap()),
        Box::new(BoxBlur::new(64).unwrap()),
    ];
    for f in filters {
        let name = format!("{f:?}");
        for backend in [gpu_backend(), Backend::Cpu] {
            let (out, _) = run(&backend, f.clone(), &img, &RunOptions { poison: true, ..Default::default() }).unwrap();
            assert_eq!(out, img, "{name} on {}", backend.describe());
        }
    }
}

#[test]
fn box_blur_is_exact_at_every_radius_and_schedule() {
    // wider than one strip at radius 64 (128 output columns) and taller than one strip
    let img = random_image(300, 150, PixelFormat::Rgba8, 11);
    for r in [0, 1, 5, 64] {
        assert_eq!(gpu_vs_cpu(Box::new(BoxBlur::new(r).unwrap()), &img), 0, "radius {r}");
    }
    let small = random_image(130, 17, PixelFormat::Rgba8, 12);
    for (ch, sh) in [(1, 1), (1, 5), (2, 6), (4, 8), (4, 128)] {
        let f = BoxBlur::new(9).unwrap().with_schedule(ch, sh);
        assert_eq!(gpu_vs_cpu(Box::new(f), &small), 0, "schedule {ch}/{sh}");
    }
    // radius 0 is the identity
    let (out, _) = run(&gpu_backend(), Box::new(BoxBlur::new(0).unwrap()), &small, &RunOptions::default()).unwrap();
    assert_eq!(out, small);
    assert_eq!(box_blur::box_cpu(&small, 0).unwrap(), small);
}

#[test]
fn sobel_is_black_on_flat_images_and_matches_cpu() {
    let flat = constant(45, 40, [90, 30, 200, 17]);
    let (out, _) = run(&gpu_backend(), Box::new(SobelEdgeDetection::new(10.0).unwrap()), &flat, &RunOptions { poison: true, ..Default::default() }).unwrap();
    assert_eq!(out, constant(45, 40, [0, 0, 0, 255]));
    let img = random_image(100, 70, PixelFormat::Rgba8, 5);
    for s in [0.0, 0.3, 1.0, 10.0] {
        assert!(gpu_vs_cpu(Box::new(SobelEdgeDetection::new(s).unwrap()), &img) <= 1, "strength {s}");
    }
}

/// GPU time per kernel at 3840x2160 RGBA8 against a copy kernel (`to_rgba` on RGBA8 input).
/// `cargo test --release --test neighborhood -- --ignored --nocapture`
#[test]
#[ignore]
fn bench_neighborhood_4k() {
    let backend = gpu_backend();
    eprintln!("device: {}", backend.describe());
    let img = random_image(3840, 2160, PixelFormat::Rgba8, 1);
    let opts = RunOptions { timings: true, ..Default::default() };
    let time = |f: Box<dyn Filter>| -> f64 {
        let mut v: Vec<f64> = (0..15).map(|_| run(&backend, f.clone(), &img, &opts).map(|r| r.1).unwrap_or(f64::NAN)).collect();
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    let copy = time(Box::new(ToRgba));
    eprintln!("{:<44} {:>8.4} ms", "copy (to_rgba on rgba8)", copy);
    let mut cases: Vec<(String, Box<dyn Filter>)> = Vec::new();
    for sigma in [1.0f32, 2.0, 3.0, 5.0, 8.0] {
        cases.push((format!("gaussian sigma={sigma} auto"), Box::new(GaussianBlur::new(sigma).unwrap())));
    }
    let tiles = [(8, 32, 2, 1), (16, 32, 4, 2), (16, 64, 4, 4), (16, 64, 8, 4), (32, 32, 8, 4), (8, 128, 8, 4), (8, 128, 4, 4), (32, 64, 8, 8), (16, 128, 8, 8), (64, 32, 8, 8)];
    for sigma in [2.0f32, 3.0] {
        for (tw, th, kh, kv) in tiles {
            let t = gaussian_blur::FusedTile { tw, th, kh, kv };
            cases.push((format!("gaussian sigma={sigma} {tw}x{th} kh{kh} kv{kv}"), Box::new(GaussianBlur::new(sigma).unwrap().with_schedule(gaussian_blur::Schedule::Fused(t)))));
        }
        cases.push((format!("gaussian sigma={sigma} two-pass"), Box::new(GaussianBlur::new(sigma).unwrap().with_schedule(gaussian_blur::Schedule::TwoPass))));
    }
    for r in [1u32, 4, 16, 64] {
        cases.push((format!("box r={r} auto"), Box::new(BoxBlur::new(r).unwrap())));
        for (ch, sh) in [(4, 32), (4, 64), (4, 128), (4, 256), (2, 64)] {
            cases.push((format!("box r={r} ch{ch} strip{sh}"), Box::new(BoxBlur::new(r).unwrap().with_schedule(ch, sh))));
        }
    }
    cases.push(("sobel".into(), Box::new(SobelEdgeDetection::new(1.0).unwrap())));
    for (name, f) in cases {
        let t = time(f);
        eprintln!("{name:<44} {t:>8.4} ms  {:>5.2}x copy", t / copy);
    }
}
