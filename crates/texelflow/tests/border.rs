//! `border=reflect` (OpenCV's BORDER_REFLECT_101): the lowering (pad, the filter with
//! replicated borders, crop) against native reflect-101 filters written here from the
//! definitions, on the CPU reference, exactly; windows wider than the image included. The
//! GPU side of the same graphs is in the equivalence matrix (random `border`).

mod common;

use common::*;
use texelflow::filters::geometry::pad::PadMode;
use texelflow::registry;
use texelflow::{Backend, Image, PixelFormat, Value};

/// The filter alone on the CPU, its colour straight (these tests check the filters' own border
/// arithmetic against formulas; the premultiplied path around averaging filters: tests/alpha.rs).
fn run_cpu(call: &str, img: &Image) -> Image {
    let f = registry::create(call).unwrap_or_else(|e| panic!("{call}: {e}"));
    let mut g = texelflow::Graph::new();
    g.set_straight_alpha(true);
    let s = g.source("in", img.desc()).unwrap();
    let out = g.add_boxed(f, &[s]).unwrap()[0];
    g.output("out", out).unwrap();
    let mut r = Backend::Cpu
        .run(&g, &[("in", img)], &Default::default())
        .unwrap();
    match r.take("out") {
        Some(Value::Image(i)) => i,
        other => panic!("{call}: {other:?}"),
    }
}

/// Sample `c` of pixel (x, y) with reflect-101 coordinates.
fn at(img: &Image, x: i64, y: i64, c: usize) -> u8 {
    let (w, h) = (img.width() as i64, img.height() as i64);
    let n = img.format().channels();
    let (sx, sy) = (
        PadMode::Reflect101.source(x, w).unwrap(),
        PadMode::Reflect101.source(y, h).unwrap(),
    );
    img.as_u8()[(sy * w + sx) as usize * n + c]
}

const SIZES: &[(u32, u32)] = &[(1, 1), (1, 7), (7, 1), (3, 2), (13, 9), (20, 17)];

#[test]
fn reflect101_is_opencvs_border_interpolate() {
    // OpenCV's loop, for widths 1..6 and coordinates far outside
    for n in 1i64..7 {
        for p in -40i64..40 {
            let mut q = p;
            if n == 1 {
                q = 0;
            } else {
                while q < 0 || q >= n {
                    q = if q < 0 { -q } else { 2 * n - 2 - q };
                }
            }
            assert_eq!(PadMode::Reflect101.source(p, n), Some(q), "p={p} n={n}");
        }
    }
}

#[test]
fn box_and_median_reflect_equal_native_reflect() {
    for (i, &(w, h)) in SIZES.iter().enumerate() {
        for fmt in [PixelFormat::Rgba8, PixelFormat::Gray8] {
            let img = random_image(w, h, fmt, 7 + i as u64);
            let n = fmt.channels();
            for r in [1i64, 2, 5, 9] {
                let boxed = run_cpu(&format!("box_blur(radius={r}, border=reflect)"), &img);
                let side = (2 * r + 1) as u32;
                let mut want = Vec::new();
                for y in 0..h as i64 {
                    for x in 0..w as i64 {
                        for c in 0..n {
                            let sum: u32 = (-r..=r)
                                .flat_map(|dy| (-r..=r).map(move |dx| (dx, dy)))
                                .map(|(dx, dy)| at(&img, x + dx, y + dy, c) as u32)
                                .sum();
                            let count = side * side;
                            want.push(((2 * sum + count) / (2 * count)) as u8);
                        }
                    }
                }
                assert_eq!(boxed.as_u8(), &want[..], "box_blur r={r} {w}x{h} {fmt:?}");
                if fmt == PixelFormat::Gray8 {
                    continue;
                }
                let med = run_cpu(&format!("median(radius={r}, border=reflect)"), &img);
                let mut want = Vec::new();
                for y in 0..h as i64 {
                    for x in 0..w as i64 {
                        for c in 0..n {
                            let mut v: Vec<u8> = (-r..=r)
                                .flat_map(|dy| (-r..=r).map(move |dx| (dx, dy)))
                                .map(|(dx, dy)| at(&img, x + dx, y + dy, c))
                                .collect();
                            v.sort_unstable();
                            want.push(v[v.len() / 2]);
                        }
                    }
                }
                assert_eq!(med.as_u8(), &want[..], "median r={r} {w}x{h}");
            }
        }
    }
}

#[test]
fn gaussian_reflect_equals_native_reflect() {
    for (i, &(w, h)) in SIZES.iter().enumerate() {
        let img = random_image(w, h, PixelFormat::Rgba8, 40 + i as u64);
        for sigma in [0.5f32, 2.0, 3.7] {
            let got = run_cpu(
                &format!("gaussian_blur(sigma={sigma}, border=reflect)"),
                &img,
            );
            let wts = texelflow::filters::neighborhood::GaussianBlur::new(sigma)
                .unwrap()
                .weights();
            let r = (wts.len() / 2) as i64;
            // rows then columns in f32, taps in order (the twin's order), reflected coordinates
            let (wi, hi) = (w as i64, h as i64);
            let mut rows = vec![0f32; (w * h * 4) as usize];
            for y in 0..hi {
                for x in 0..wi {
                    for c in 0..4 {
                        let mut acc = 0f32;
                        for (k, wk) in wts.iter().enumerate() {
                            acc += wk * at(&img, x - r + k as i64, y, c) as f32;
                        }
                        rows[((y * wi + x) * 4) as usize + c] = acc;
                    }
                }
            }
            let mut want = Vec::new();
            for y in 0..hi {
                for x in 0..wi {
                    for c in 0..4 {
                        let mut acc = 0f32;
                        for (k, wk) in wts.iter().enumerate() {
                            let yy = PadMode::Reflect101.source(y - r + k as i64, hi).unwrap();
                            acc += wk * rows[((yy * wi + x) * 4) as usize + c];
                        }
                        want.push((acc.clamp(0.0, 255.0) + 0.5) as u8);
                    }
                }
            }
            assert_eq!(got.as_u8(), &want[..], "sigma={sigma} {w}x{h}");
        }
    }
}

#[test]
fn stencils_take_the_border_parameter() {
    // every stencil filter lists it (the template adds it), and reflect changes only the edges
    let img = random_image(9, 6, PixelFormat::Rgba8, 3);
    let rep = run_cpu("sharpen(sharpness=1)", &img);
    let refl = run_cpu("sharpen(sharpness=1, border=reflect)", &img);
    for y in 1..5 {
        for x in 1..8 {
            let i = (y * 9 + x) * 4;
            assert_eq!(rep.as_u8()[i..i + 4], refl.as_u8()[i..i + 4]);
        }
    }
    assert_ne!(rep.as_u8(), refl.as_u8());
    for name in [
        "sharpen",
        "laplacian",
        "emboss",
        "median_3x3",
        "median_5x5",
        "convolution_3x3",
        "prewitt_edge_detection",
        "toon",
        "gaussian_blur",
        "box_blur",
        "median",
        "bilateral",
    ] {
        let def = registry::find(name).unwrap();
        assert!(def.params.iter().any(|p| p.name == "border"), "{name}");
    }
    let e = registry::create("sharpen(border=mirror)")
        .unwrap_err()
        .to_string();
    assert!(e.contains("replicate") && e.contains("reflect"), "{e}");
}

#[test]
fn reflect_runs_on_the_gpu_as_on_the_cpu() {
    let img = random_image(11, 5, PixelFormat::Rgba8, 9);
    for call in [
        "box_blur(radius=7, border=reflect)",
        "gaussian_blur(sigma=1.5, border=reflect)",
        "median(radius=3, border=reflect)",
        "emboss(border=reflect)",
    ] {
        let f = registry::create(call).unwrap();
        let mut g = texelflow::Graph::new();
        g.set_straight_alpha(true);
        let s = g.source("in", img.desc()).unwrap();
        let out = g.add_boxed(f, &[s]).unwrap()[0];
        assert_eq!(
            g.labels().len(),
            3,
            "{call}: pad, the filter, crop: {:?}",
            g.labels()
        );
        g.output("out", out).unwrap();
        let opts = texelflow::RunOptions {
            poison: true,
            ..Default::default()
        };
        let gpu = gpu_backend().run(&g, &[("in", &img)], &opts).unwrap();
        let cpu = Backend::Cpu.run(&g, &[("in", &img)], &opts).unwrap();
        assert!(
            max_diff(&gpu.outputs[0].1, &cpu.outputs[0].1).unwrap() <= 1.0,
            "{call}"
        );
    }
}
