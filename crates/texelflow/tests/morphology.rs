//! Morphology beyond the registry-wide equivalence matrix: radii larger than the image,
//! the largest radius against a brute-force 2-D window, idempotence of opening and closing,
//! and the lowering of the composites.

mod common;

use common::*;
use texelflow::filters::morphology::{Closing, Dilation, Erosion, Opening};
use texelflow::{Backend, Filter, Graph, Image, ImageDesc, Pipeline, PixelFormat, RunOptions};

fn run(backend: &Backend, filter: impl Filter + 'static, img: &Image) -> Image {
    run_scheduled(backend, filter, img, &[])
}

/// `run` with the schedule overrides `schedules` in the run's options.
fn run_scheduled(
    backend: &Backend,
    filter: impl Filter + 'static,
    img: &Image,
    schedules: &[(String, String)],
) -> Image {
    let opts = RunOptions {
        poison: true,
        schedules: schedules.to_vec(),
        ..Default::default()
    };
    let r = Pipeline::new()
        .then(filter)
        .run_with(backend, img, &opts)
        .expect("run");
    r.outputs
        .into_iter()
        .next()
        .and_then(|(_, v)| v.into_image())
        .expect("image output")
}

/// Max (or min) over the clamped (2r+1)x(2r+1) square, straight from the definition.
fn brute(img: &Image, r: i64, max: bool) -> Vec<u8> {
    brute_rect(img, r, r, max)
}

/// Max (or min) over the clamped (2rx+1)x(2ry+1) rectangle.
fn brute_rect(img: &Image, rx: i64, ry: i64, max: bool) -> Vec<u8> {
    let (w, h, ch) = (
        img.width() as i64,
        img.height() as i64,
        img.format().channels(),
    );
    let s = img.as_u8();
    let mut out = Vec::with_capacity(s.len());
    for y in 0..h {
        for x in 0..w {
            for c in 0..ch {
                let mut m = if max { 0u8 } else { 255u8 };
                for dy in -ry..=ry {
                    for dx in -rx..=rx {
                        let (xx, yy) = ((x + dx).clamp(0, w - 1), (y + dy).clamp(0, h - 1));
                        let v = s[((yy * w + xx) as usize) * ch + c];
                        m = if max { m.max(v) } else { m.min(v) };
                    }
                }
                out.push(m);
            }
        }
    }
    out
}

fn extremes(img: &Image) -> (Vec<u8>, Vec<u8>) {
    let ch = img.format().channels();
    let mut lo = vec![255u8; ch];
    let mut hi = vec![0u8; ch];
    for p in img.as_u8().chunks_exact(ch) {
        for c in 0..ch {
            lo[c] = lo[c].min(p[c]);
            hi[c] = hi[c].max(p[c]);
        }
    }
    (lo, hi)
}

#[test]
fn radius_larger_than_the_image_gives_the_global_extremes() {
    for (fmt, w, h) in [
        (PixelFormat::Rgba8, 5, 3),
        (PixelFormat::Gray8, 7, 2),
        (PixelFormat::Rgba8, 1, 1),
        (PixelFormat::Gray8, 13, 11),
    ] {
        let img = random_image(w, h, fmt, 42 + w as u64);
        let (lo, hi) = extremes(&img);
        for backend in [gpu_backend(), Backend::Cpu] {
            let d = run(&backend, Dilation::new(32).unwrap(), &img);
            let e = run(&backend, Erosion::new(20).unwrap(), &img);
            let ch = fmt.channels();
            assert!(
                d.as_u8().chunks_exact(ch).all(|p| p == &hi[..]),
                "{fmt:?} {w}x{h} dilation"
            );
            assert!(
                e.as_u8().chunks_exact(ch).all(|p| p == &lo[..]),
                "{fmt:?} {w}x{h} erosion"
            );
        }
    }
}

#[test]
fn gpu_matches_a_brute_force_window_at_large_radii() {
    // sizes spanning several tiles in both directions, radii past the equivalence matrix's 13
    for (fmt, w, h, r) in [
        (PixelFormat::Rgba8, 150, 90, 32),
        (PixelFormat::Gray8, 261, 70, 25),
        (PixelFormat::Rgba8, 70, 131, 17),
        (PixelFormat::Gray8, 9, 140, 32),
    ] {
        let img = random_image(w, h, fmt, 7 * r as u64 + w as u64);
        let d = run(&gpu_backend(), Dilation::new(r).unwrap(), &img);
        assert!(
            d.as_u8() == brute(&img, r as i64, true).as_slice(),
            "dilation {fmt:?} {w}x{h} r={r}"
        );
        let e = run(&gpu_backend(), Erosion::new(r).unwrap(), &img);
        assert!(
            e.as_u8() == brute(&img, r as i64, false).as_slice(),
            "erosion {fmt:?} {w}x{h} r={r}"
        );
    }
}

#[test]
fn opening_and_closing_are_idempotent() {
    for (fmt, r) in [
        (PixelFormat::Rgba8, 2),
        (PixelFormat::Gray8, 3),
        (PixelFormat::Rgba8, 6),
    ] {
        let img = random_image(97, 61, fmt, 1234 + r as u64);
        let once = run(&gpu_backend(), Opening::new(r).unwrap(), &img);
        let twice = run(&gpu_backend(), Opening::new(r).unwrap(), &once);
        assert!(once == twice, "opening {fmt:?} r={r} is not idempotent");
        assert!(
            once != img,
            "opening {fmt:?} r={r} left a noisy image unchanged"
        );
        // anti-extensive: never above the input
        assert!(once.as_u8().iter().zip(img.as_u8()).all(|(a, b)| a <= b));

        let once = run(&gpu_backend(), Closing::new(r).unwrap(), &img);
        let twice = run(&gpu_backend(), Closing::new(r).unwrap(), &once);
        assert!(once == twice, "closing {fmt:?} r={r} is not idempotent");
        assert!(once.as_u8().iter().zip(img.as_u8()).all(|(a, b)| a >= b));
        assert!(
            once == run(&Backend::Cpu, Closing::new(r).unwrap(), &img),
            "closing {fmt:?} r={r}: GPU and CPU differ"
        );
    }
}

#[test]
fn composites_lower_to_two_nodes() {
    let mut g = Graph::new();
    let s = g
        .source("in", ImageDesc::new(8, 8, PixelFormat::Gray8))
        .unwrap();
    let o = g.add1(Opening::new(4).unwrap(), &[s]).unwrap();
    assert_eq!(g.filter_count(), 2);
    assert_eq!(
        g.labels(),
        vec![
            "opening/erosion".to_string(),
            "opening/dilation".to_string()
        ]
    );
    let c = g.add1(Closing::new(4).unwrap(), &[o]).unwrap();
    assert_eq!(g.filter_count(), 4);
    assert_eq!(
        &g.labels()[2..],
        &[
            "closing/dilation".to_string(),
            "closing/erosion".to_string()
        ]
    );
    assert_eq!(g.desc(c), g.desc(s));
}

#[test]
fn radius_and_format_are_checked() {
    assert!(Dilation::new(0).is_err());
    assert!(Erosion::new(33).is_err());
    assert!(Opening::new(0).is_err());
    assert!(Closing::new(33).is_err());
    let mut g = Graph::new();
    let s = g
        .source("in", ImageDesc::new(8, 8, PixelFormat::R32F))
        .unwrap();
    assert!(g.add(Dilation::new(1).unwrap(), &[s]).is_err());
    assert!(g.add(Opening::new(1).unwrap(), &[s]).is_err());
}

/// Timing on the real GPU (not run by default): `cargo test --release --test morphology -- --ignored --nocapture`.
/// Each case is a chain of the same filter, so the GPU stays busy (and clocked up) between
/// the timed nodes; the figure is the median node time of the chain's second half.
#[test]
#[ignore]
fn bench_4k() {
    let backend = gpu_backend();
    let (w, h) = (3840, 2160);
    let opts = RunOptions {
        timings: true,
        ..Default::default()
    };
    let chain = 24;
    let radii: Vec<u32> = std::env::var("TEXELFLOW_BENCH_RADII")
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or(vec![1, 2, 4, 8, 16, 32]);
    for fmt in [PixelFormat::Rgba8, PixelFormat::Gray8] {
        let img = random_image(w, h, fmt, 5);
        let time = |make: &dyn Fn() -> Box<dyn Filter>| -> f64 {
            let mut p = Pipeline::new();
            for _ in 0..chain {
                p.push(make(), vec![]);
            }
            let mut best = f64::MAX;
            for _ in 0..3 {
                let r = p.run_with(&backend, &img, &opts).expect("run");
                let mut ms: Vec<f64> = r.timings.iter().map(|t| t.ms).collect();
                let mut tail = ms.split_off(ms.len() / 2);
                tail.sort_by(|a, b| a.total_cmp(b));
                best = best.min(tail[tail.len() / 2]);
            }
            best
        };
        // a copy kernel of the same format, as the yardstick
        let copy_ms = if fmt == PixelFormat::Rgba8 {
            time(&|| Box::new(texelflow::filters::convert::ToRgba))
        } else {
            time(&|| Box::new(texelflow::filters::convert::ToGray))
        };
        println!("{fmt:?} {w}x{h}: copy {copy_ms:.4} ms");
        for &r in &radii {
            let d = time(&|| Box::new(Dilation::new(r).unwrap()));
            let e = time(&|| Box::new(Erosion::new(r).unwrap()));
            println!(
                "  r={r:2}: dilation {d:.4} ms ({:.2}x copy), erosion {e:.4} ms ({:.2}x)",
                d / copy_ms,
                e / copy_ms
            );
        }
    }
}

/// The bench-only ablations run exactly one pass each (a row-only or a column-only window),
/// so what `bench --experiments` times under them is that pass and nothing else.
#[test]
#[cfg(feature = "bench")] // the ablations exist only in benchmark builds
fn ablations_run_one_pass_each() {
    for (fmt, w, h) in [(PixelFormat::Rgba8, 45, 29), (PixelFormat::Gray8, 37, 31)] {
        let img = random_image(w, h, fmt, 7);
        for r in [2u32, 9] {
            for (variant, rx, ry) in [("rows_only", r, 0), ("cols_only", 0, r)] {
                for max in [true, false] {
                    let o = [(
                        if max { "dilation" } else { "erosion" }.to_string(),
                        variant.to_string(),
                    )];
                    let got = if max {
                        run_scheduled(&gpu_backend(), Dilation::new(r).unwrap(), &img, &o)
                    } else {
                        run_scheduled(&gpu_backend(), Erosion::new(r).unwrap(), &img, &o)
                    };
                    assert!(
                        got.as_u8() == brute_rect(&img, rx as i64, ry as i64, max).as_slice(),
                        "{fmt:?} r={r} {variant} max={max}"
                    );
                }
            }
        }
    }
}

#[test]
fn unknown_schedule_is_an_error() {
    let img = random_image(16, 16, PixelFormat::Rgba8, 1);
    for filter in ["dilation", "erosion"] {
        let opts = RunOptions {
            poison: true,
            schedules: vec![(filter.to_string(), "no_such_variant".to_string())],
            ..Default::default()
        };
        let p = if filter == "dilation" {
            Pipeline::new().then(Dilation::new(3).unwrap())
        } else {
            Pipeline::new().then(Erosion::new(3).unwrap())
        };
        let err = p
            .run_with(&gpu_backend(), &img, &opts)
            .expect_err("unknown variant must fail");
        assert!(err.to_string().contains("no_such_variant"), "{err}");
    }
    // the default schedule is reachable by name too
    let o = [("dilation".to_string(), "twopass".to_string())];
    assert!(
        run_scheduled(&gpu_backend(), Dilation::new(3).unwrap(), &img, &o)
            == run_scheduled(&Backend::Cpu, Dilation::new(3).unwrap(), &img, &o)
    );
}

/// Every declared schedule variant of dilation and erosion against the CPU twin, exactly,
/// at the radii where the row pass changes shape (block radius 8, the 2- and 4-way window
/// splits, the largest radius) and at sizes that are not multiples of any tile, down to
/// 1x1 and radii larger than the image. The equivalence matrix stops at radius 13.
#[test]
fn schedule_variants_match_cpu_at_every_tile_shape() {
    use texelflow::registry;
    let sizes = [(1, 1), (1, 23), (23, 1), (67, 43), (229, 7), (5, 70)];
    let radii = [1u32, 2, 7, 8, 9, 15, 16, 17, 24, 31, 32];
    let mut checked = 0;
    for name in ["dilation", "erosion"] {
        let def = registry::find(name).expect("registered");
        assert!(!def.schedules.is_empty());
        for &variant in def.schedules {
            for (i, &(w, h)) in sizes.iter().enumerate() {
                for fmt in [PixelFormat::Rgba8, PixelFormat::Gray8] {
                    let img = random_image(w, h, fmt, 100 + i as u64);
                    // a few radii per size keeps lavapipe's compile time down; every radius
                    // is still met on some size
                    for &r in radii.iter().skip(i % 2).step_by(2) {
                        let (gpu_out, cpu_out) = if name == "dilation" {
                            let o = [(name.to_string(), variant.to_string())];
                            let g =
                                run_scheduled(&gpu_backend(), Dilation::new(r).unwrap(), &img, &o);
                            (g, run(&Backend::Cpu, Dilation::new(r).unwrap(), &img))
                        } else {
                            let o = [(name.to_string(), variant.to_string())];
                            let g =
                                run_scheduled(&gpu_backend(), Erosion::new(r).unwrap(), &img, &o);
                            (g, run(&Backend::Cpu, Erosion::new(r).unwrap(), &img))
                        };
                        if gpu_out != cpu_out {
                            let bad: Vec<(usize, u8, u8, u8)> = gpu_out
                                .as_u8()
                                .iter()
                                .zip(cpu_out.as_u8())
                                .enumerate()
                                .filter(|(_, (a, b))| a != b)
                                .take(12)
                                .map(|(i, (a, b))| (i, *a, *b, img.as_u8()[i]))
                                .collect();
                            panic!("{name} [{variant}] {fmt:?} {w}x{h} r={r}: (index, gpu, cpu, input) {bad:?}");
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    eprintln!("{checked} variant cases matched the CPU");
}

/// The ablations of the `wide`, `wide16` and `vstream` variants run the changed pass alone (a
/// row-only or a column-only window), like `rows_only` and `cols_only`.
#[test]
#[cfg(feature = "bench")] // the ablations exist only in benchmark builds
fn variant_ablations_run_one_pass_each() {
    for (fmt, w, h) in [(PixelFormat::Rgba8, 61, 39), (PixelFormat::Gray8, 45, 37)] {
        let img = random_image(w, h, fmt, 9);
        for r in [3u32, 20] {
            for (variant, rx, ry) in [
                ("wide_rows_only", r, 0),
                ("wide16_rows_only", r, 0),
                ("vstream_cols_only", 0, r),
            ] {
                let o = [("dilation".to_string(), variant.to_string())];
                let got = run_scheduled(&gpu_backend(), Dilation::new(r).unwrap(), &img, &o);
                assert!(
                    got.as_u8() == brute_rect(&img, rx as i64, ry as i64, true).as_slice(),
                    "{fmt:?} r={r} {variant}"
                );
            }
        }
    }
}

/// The one-pass `window` schedule (radius up to 3, RGBA8) at every radius it covers, on
/// widths that are multiples of 4 (16-byte stores; the matrix above has the others), images
/// narrower and wider than a workgroup's columns and shorter and taller than its rows.
/// Dilation or erosion (`name`) of `img` at radius `r`: on the GPU under schedule `variant`,
/// and on the CPU.
fn gpu_under_schedule_and_cpu(name: &str, variant: &str, r: u32, img: &Image) -> (Image, Image) {
    let o = vec![(name.to_string(), variant.to_string())];
    if name == "dilation" {
        (
            run_scheduled(&gpu_backend(), Dilation::new(r).unwrap(), img, &o),
            run(&Backend::Cpu, Dilation::new(r).unwrap(), img),
        )
    } else {
        (
            run_scheduled(&gpu_backend(), Erosion::new(r).unwrap(), img, &o),
            run(&Backend::Cpu, Erosion::new(r).unwrap(), img),
        )
    }
}

#[test]
fn window_schedule_matches_cpu_with_quad_stores() {
    let sizes = [(4, 1), (8, 3), (68, 43), (256, 17), (12, 70)];
    for variant in ["window", "window_wg64_th5_br3"] {
        for (i, &(w, h)) in sizes.iter().enumerate() {
            let img = random_image(w, h, PixelFormat::Rgba8, 300 + i as u64);
            for r in 1..=3u32 {
                for name in ["dilation", "erosion"] {
                    let (g, c) = gpu_under_schedule_and_cpu(name, variant, r, &img);
                    assert!(g == c, "{name} [{variant}] {w}x{h} r={r}");
                }
            }
        }
    }
}

/// The one-pass van Herk schedule (`onepass`, radius up to 16, RGBA8) against the CPU twin:
/// widths with and without 16-byte stores, narrower and wider than a workgroup's columns,
/// heights ending inside a block of 2r + 1 rows, inside the first block and past several
/// workgroups of blocks, shapes with one and several blocks per workgroup, the column pass
/// kept across flushes and reloaded (`nv`), row windows split (from radius 5 with `hb4`,
/// past block radius 8 with `hb8`) and whole (the default).
#[test]
fn onepass_schedule_matches_cpu() {
    let sizes = [
        (4, 1),
        (68, 43),
        (261, 37),
        (12, 70),
        (1, 23),
        (23, 1),
        (300, 9),
    ];
    let radii = [1u32, 2, 3, 5, 7, 8, 11, 15, 16];
    let mut checked = 0;
    for variant in [
        "onepass",
        "onepass_wg64_m1",
        "onepass_wg128_m3_nv",
        "onepass_nv_hb4",
        "onepass_hb8",
        "onepass_nv_wg128",
    ] {
        for (i, &(w, h)) in sizes.iter().enumerate() {
            let img = random_image(w, h, PixelFormat::Rgba8, 500 + i as u64);
            for &r in radii.iter().skip(i % 3).step_by(3) {
                for name in ["dilation", "erosion"] {
                    let (g, c) = gpu_under_schedule_and_cpu(name, variant, r, &img);
                    if g != c {
                        let bad: Vec<(usize, u8, u8)> = g
                            .as_u8()
                            .iter()
                            .zip(c.as_u8())
                            .enumerate()
                            .filter(|(_, (a, b))| a != b)
                            .take(8)
                            .map(|(i, (a, b))| (i, *a, *b))
                            .collect();
                        panic!("{name} [{variant}] {w}x{h} r={r}: (index, gpu, cpu) {bad:?}");
                    }
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 6 * 2 * 21);
}
