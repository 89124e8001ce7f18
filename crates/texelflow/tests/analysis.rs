//! Analysis, lookup and geometry filters: hand-computed statistics, histogram totals,
//! composite lowering of `average_luminance_threshold`, the identity LUT, resize sizes and
//! alignment, crop regions. GPU (lavapipe) and CPU are both checked.

mod common;

use common::*;
use texelflow::filters::analysis::{AverageLuminanceThreshold, Histogram, MeanSaturation, Reduce};
use texelflow::filters::geometry::{Crop, Resize};
use texelflow::filters::lookup::{identity_lut, Lookup};
use texelflow::image::luma601;
use texelflow::{Backend, Data, Graph, Image, PixelFormat, RunOptions, Value};

fn backends() -> Vec<Backend> {
    vec![gpu_backend(), Backend::Cpu]
}

/// Runs a one-input filter (plus extra image inputs) on `backend` with poisoned outputs.
/// One filter, its colour straight: these tests check the kernels' own arithmetic against the
/// twins and formulas (the premultiplied path around averaging filters: tests/alpha.rs).
fn run1(
    backend: &Backend,
    filter: impl texelflow::Filter + 'static,
    img: &Image,
    extra: &[Image],
) -> Value {
    run1_scheduled(backend, filter, img, extra, &[])
}

/// `run1` with the schedule overrides `schedules` in the run's options.
fn run1_scheduled(
    backend: &Backend,
    filter: impl texelflow::Filter + 'static,
    img: &Image,
    extra: &[Image],
    schedules: &[(String, String)],
) -> Value {
    let mut g = Graph::new();
    g.set_straight_alpha(true);
    let mut ports = vec![g.source("in", img.desc()).unwrap()];
    for (k, e) in extra.iter().enumerate() {
        ports.push(g.source(&format!("x{k}"), e.desc()).unwrap());
    }
    let out = g.add1(filter, &ports).unwrap();
    g.output("out", out).unwrap();
    let names: Vec<String> = (0..extra.len()).map(|k| format!("x{k}")).collect();
    let mut srcs = vec![("in", img)];
    srcs.extend(names.iter().map(|n| n.as_str()).zip(extra.iter()));
    let mut r = backend
        .run(
            &g,
            &srcs,
            &RunOptions {
                poison: true,
                schedules: schedules.to_vec(),
                ..Default::default()
            },
        )
        .unwrap();
    r.take("out").unwrap()
}

fn rgba(w: u32, h: u32, px: &[[u8; 4]]) -> Image {
    Image::from_u8(
        w,
        h,
        PixelFormat::Rgba8,
        px.iter().flatten().copied().collect(),
    )
    .unwrap()
}

#[test]
fn reduce_matches_hand_computed_stats() {
    let px = [
        [10, 200, 30, 255],
        [0, 0, 0, 0],
        [255, 255, 255, 128],
        [40, 50, 60, 70],
        [1, 2, 3, 4],
    ];
    let img = rgba(5, 1, &px);
    let y: Vec<u8> = px.iter().map(|p| luma601(p[0], p[1], p[2])).collect();
    assert_eq!(y, vec![124, 0, 255, 48, 2]);
    for b in backends() {
        let Value::Data(Data::Stats(s)) = run1(&b, Reduce, &img, &[]) else {
            panic!("not stats")
        };
        assert_eq!(s.count, 5);
        assert_eq!(s.min, [0, 0, 0, 0, 0]);
        assert_eq!(s.max, [255, 255, 255, 255, 255]);
        assert_eq!(s.sum, [306, 507, 348, 457, 429]);
        assert!((s.mean(4) - 429.0 / 5.0).abs() < 1e-12);
    }
    // Without the extremes, min and max move.
    let img = rgba(2, 1, &px[3..]);
    for b in backends() {
        let Value::Data(Data::Stats(s)) = run1(&b, Reduce, &img, &[]) else {
            panic!("not stats")
        };
        assert_eq!(
            (s.count, s.min, s.max),
            (2, [1, 2, 3, 4, 2], [40, 50, 60, 70, 48])
        );
        assert_eq!(s.sum, [41, 52, 63, 74, 50]);
    }
}

#[test]
fn reductions_agree_across_many_workgroups() {
    // 255x255: several workgroups per reduction, and a tail of one pixel after whole quads.
    let img = random_image(255, 255, PixelFormat::Rgba8, 42);
    let gpu = gpu_backend();
    for f in [
        Box::new(Reduce) as Box<dyn texelflow::Filter>,
        Box::new(Histogram::new()),
        Box::new(MeanSaturation),
    ] {
        let mut g = Graph::new();
        let s = g.source("in", img.desc()).unwrap();
        let o = g.add_boxed(f, &[s]).unwrap()[0];
        g.output("out", o).unwrap();
        let opts = RunOptions {
            poison: true,
            ..Default::default()
        };
        let a = gpu.run(&g, &[("in", &img)], &opts).unwrap();
        let b = Backend::Cpu.run(&g, &[("in", &img)], &opts).unwrap();
        assert_eq!(a.outputs[0].1, b.outputs[0].1);
    }
}

#[test]
fn histogram_counts_sum_to_pixels() {
    let img = random_image(200, 150, PixelFormat::Rgba8, 7);
    for b in backends() {
        let Value::Data(Data::Histogram(h)) = run1(&b, Histogram::new(), &img, &[]) else {
            panic!("not a histogram")
        };
        for ch in &h.bins {
            assert_eq!(ch.iter().map(|&v| v as u64).sum::<u64>(), 200 * 150);
        }
        let reds = img.as_u8().chunks_exact(4).filter(|p| p[0] == 17).count() as u32;
        assert_eq!(h.bins[0][17], reds);
    }
}

/// The histogram's schedules that add a quad of equal alphas once (`a`) or keep copies of the
/// workgroup's histogram (`x2`, `x4`) on pictures where
/// quads share their alpha (flat regions, opaque alpha, one colour everywhere), where some do
/// (runs of 1..40), and where few do (noise), plain and alpha-weighted: equal to the twin bin
/// for bin. A quad counted once too few or too many shows.
#[test]
fn histogram_quad_alpha_schedules_match_cpu() {
    let noise = random_image(131, 37, PixelFormat::Rgba8, 11);
    let flat = rgba(1, 1, &[[7, 200, 33, 255]]);
    let mut blocks = noise.clone();
    for (i, p) in blocks.as_u8_mut().chunks_exact_mut(4).enumerate() {
        // runs of 1..40 equal pixels, opaque, some long ones crossing quads and rows
        let v = ((i / (1 + i % 40)) % 5) as u8;
        p.copy_from_slice(&[v * 50, 255 - v, 3, 255]);
    }
    let mut one = noise.clone();
    for p in one.as_u8_mut().chunks_exact_mut(4) {
        p.copy_from_slice(&[9, 9, 9, 200]);
    }
    for img in [&noise, &flat, &blocks, &one] {
        for weighted in [false, true] {
            let f = || {
                if weighted {
                    Histogram::weighted_by_alpha()
                } else {
                    Histogram::new()
                }
            };
            let cpu = run1(&Backend::Cpu, f(), img, &[]);
            for v in [
                "u8q32a", "u1q8a", "u1q1a", "u4q16a", "u16q64a", "u4q16x2", "u4q16ax4", "u1q1ax4",
            ] {
                let o = vec![("histogram".to_string(), v.to_string())];
                let gpu = run1_scheduled(&gpu_backend(), f(), img, &[], &o);
                assert_eq!(
                    gpu,
                    cpu,
                    "{v} weighted={weighted} on {}x{}",
                    img.width(),
                    img.height()
                );
            }
        }
    }
}

#[test]
fn alpha_weighted_histogram_adds_alpha() {
    // two red pixels at alpha 255 and 10, one green pixel fully transparent
    let img = rgba(3, 1, &[[200, 0, 0, 255], [200, 0, 0, 10], [0, 200, 0, 0]]);
    for b in backends() {
        let Value::Data(Data::Histogram(h)) = run1(&b, Histogram::weighted_by_alpha(), &img, &[])
        else {
            panic!("not a histogram")
        };
        assert_eq!(h.bins[0][200], 265, "{}", b.describe());
        assert_eq!(h.bins[1][200], 0, "the transparent pixel does not count");
        assert_eq!(h.bins[1][0], 265);
        assert_eq!(h.bins[4][255], 255);
        assert_eq!(h.bins[4][0], 0);
        let big = random_image(200, 150, PixelFormat::Rgba8, 9);
        let Value::Data(Data::Histogram(w)) = run1(&b, Histogram::weighted_by_alpha(), &big, &[])
        else {
            panic!()
        };
        let alpha_sum: u64 = big.as_u8().chunks_exact(4).map(|p| p[3] as u64).sum();
        assert!(
            w.bins
                .iter()
                .all(|ch| ch.iter().map(|&v| v as u64).sum::<u64>() == alpha_sum),
            "{}",
            b.describe()
        );
    }
    // too large for 32-bit sums of alpha: one clear error before any work
    let mut g = Graph::new();
    let src = g
        .source(
            "in",
            texelflow::ImageDesc::new(5000, 4000, PixelFormat::Rgba8),
        )
        .unwrap();
    let e = g
        .add1(Histogram::weighted_by_alpha(), &[src])
        .unwrap_err()
        .to_string();
    assert!(e.contains("at most 16843009 pixels"), "{e}");
}

#[test]
fn mean_saturation_is_exact() {
    let img = rgba(
        3,
        1,
        &[[255, 0, 0, 255], [0, 0, 0, 255], [200, 100, 100, 0]],
    );
    for b in backends() {
        let Value::Data(d) = run1(&b, MeanSaturation, &img, &[]) else {
            panic!("not data")
        };
        // (255-0)/255 -> 65536; black -> 0; (200-100)/200 -> round(32768) = 32768
        assert_eq!(
            d,
            Data::Mean {
                sum: 65536 + 32768,
                count: 3
            }
        );
        assert!((d.mean_value().unwrap() - 0.5).abs() < 1e-12);
    }
}

#[test]
fn average_luminance_threshold_lowers_to_a_luma_sum_and_threshold() {
    let img = random_image(256, 256, PixelFormat::Rgba8, 3);
    for multiplier in [0.0, 0.5, 1.0, 1.37, 4.0] {
        let mut g = Graph::new();
        let s = g.source("in", img.desc()).unwrap();
        let o = g
            .add1(AverageLuminanceThreshold::new(multiplier).unwrap(), &[s])
            .unwrap();
        g.output("out", o).unwrap();
        assert_eq!(g.filter_count(), 2);
        assert_eq!(
            g.labels(),
            vec![
                "average_luminance_threshold/reduce_luma_sum",
                "average_luminance_threshold/luminance_threshold_by_stats"
            ]
        );
        let opts = RunOptions {
            poison: true,
            ..Default::default()
        };
        let a = gpu_backend().run(&g, &[("in", &img)], &opts).unwrap();
        let b = Backend::Cpu.run(&g, &[("in", &img)], &opts).unwrap();
        assert_eq!(a.outputs[0].1, b.outputs[0].1, "multiplier {multiplier}");
        // Against the definition: white iff luma >= multiplier * mean luma (no exact ties here).
        let ys: Vec<f64> = img
            .as_u8()
            .chunks_exact(4)
            .map(|p| luma601(p[0], p[1], p[2]) as f64)
            .collect();
        let mean = ys.iter().sum::<f64>() / ys.len() as f64;
        let out = a.outputs[0].1.as_image().unwrap();
        let mut whites = 0;
        for ((p, q), y) in img
            .as_u8()
            .chunks_exact(4)
            .zip(out.as_u8().chunks_exact(4))
            .zip(&ys)
        {
            let white = *y >= multiplier as f64 * mean;
            whites += usize::from(white);
            assert_eq!(
                q,
                &[if white { 255 } else { 0 }; 3]
                    .iter()
                    .copied()
                    .chain([p[3]])
                    .collect::<Vec<_>>()[..]
            );
        }
        if multiplier == 0.0 {
            assert_eq!(whites, ys.len());
        }
    }
}

#[test]
fn identity_lut_changes_nothing_by_more_than_one() {
    let lut = identity_lut();
    assert_eq!((lut.width(), lut.height()), (512, 512));
    let img = random_image(97, 61, PixelFormat::Rgba8, 11);
    for b in backends() {
        let out = run1(&b, Lookup::default(), &img, std::slice::from_ref(&lut))
            .into_image()
            .unwrap();
        let d = img
            .as_u8()
            .iter()
            .zip(out.as_u8())
            .map(|(a, b)| (*a as i32 - *b as i32).abs())
            .max()
            .unwrap();
        assert!(d <= 1, "identity LUT moved a sample by {d}");
        assert!(img
            .as_u8()
            .chunks_exact(4)
            .zip(out.as_u8().chunks_exact(4))
            .all(|(a, b)| a[3] == b[3]));
    }
    // Half intensity against an inverting LUT: mid-grey-ish, and exactly the original at 0.
    let mut inv = identity_lut();
    for p in inv.as_u8_mut().chunks_exact_mut(4) {
        for c in &mut p[..3] {
            *c = 255 - *c;
        }
    }
    let out = run1(
        &gpu_backend(),
        Lookup::new(0.0).unwrap(),
        &img,
        &[inv.clone()],
    )
    .into_image()
    .unwrap();
    assert_eq!(out, img);
    let white = rgba(1, 1, &[[255, 255, 255, 255]]);
    let out = run1(&gpu_backend(), Lookup::new(1.0).unwrap(), &white, &[inv])
        .into_image()
        .unwrap();
    assert_eq!(out.as_u8(), &[0, 0, 0, 255]);
}

#[test]
fn lookup_rejects_a_wrong_lut_size() {
    let img = random_image(8, 8, PixelFormat::Rgba8, 1);
    let mut g = Graph::new();
    let a = g.source("in", img.desc()).unwrap();
    let l = g
        .source("lut", texelflow::ImageDesc::new(64, 64, PixelFormat::Rgba8))
        .unwrap();
    let e = g.add(Lookup::default(), &[a, l]).unwrap_err().to_string();
    assert!(e.contains("512x512") && e.contains("64x64"), "{e}");
}

#[test]
fn resize_sizes_and_alignment() {
    let img = random_image(64, 48, PixelFormat::Rgba8, 5);
    for b in backends() {
        let down = run1(&b, Resize::by(0.5).unwrap(), &img, &[])
            .into_image()
            .unwrap();
        assert_eq!((down.width(), down.height()), (32, 24));
        // Exact 2x reduction samples between pixel pairs: the rounded 2x2 box average.
        let s = img.as_u8();
        for (i, q) in down.as_u8().chunks_exact(4).enumerate() {
            let (x, y) = (i % 32, i / 32);
            for c in 0..4 {
                let at = |dx: usize, dy: usize| s[((2 * y + dy) * 64 + 2 * x + dx) * 4 + c] as u32;
                assert_eq!(
                    q[c] as u32,
                    (at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1) + 2) / 4
                );
            }
        }
        let up = run1(&b, Resize::by(2.0).unwrap(), &img, &[])
            .into_image()
            .unwrap();
        assert_eq!((up.width(), up.height()), (128, 96));
        // Corners are clamped copies of the source corners.
        assert_eq!(&up.as_u8()[..4], &s[..4]);
        let exact = run1(&b, Resize::new(3.0, 20, 0).unwrap(), &img, &[])
            .into_image()
            .unwrap();
        assert_eq!((exact.width(), exact.height()), (20, 144));
        let same = run1(&b, Resize::default(), &img, &[]).into_image().unwrap();
        assert_eq!(same, img);
    }
    let a = run1(&gpu_backend(), Resize::new(1.0, 37, 29).unwrap(), &img, &[]);
    let b = run1(&Backend::Cpu, Resize::new(1.0, 37, 29).unwrap(), &img, &[]);
    assert!(max_diff(&a, &b).unwrap() <= 1.0);
}

/// The GPU gives the CPU twin's bytes exactly (same f32 operations per pixel), up and down,
/// at integer and fractional scales, on sizes whose rows end inside an invocation's 4
/// outputs (so one invocation spans two output rows).
#[test]
fn resize_is_bit_exact() {
    let sizes = [(1, 1), (1, 7), (7, 1), (67, 43), (13, 5)];
    let specs = [
        (2.0, 0, 0),
        (0.5, 0, 0),
        (3.7, 0, 0),
        (1.3, 0, 0),
        (1.0, 37, 29),
        (1.0, 5, 1),
        (1.0, 1, 9),
    ];
    for (i, &(w, h)) in sizes.iter().enumerate() {
        let img = random_image(w, h, PixelFormat::Rgba8, 60 + i as u64);
        for &(scale, ow, oh) in &specs {
            let cpu = run1(
                &Backend::Cpu,
                Resize::new(scale, ow, oh).unwrap(),
                &img,
                &[],
            );
            let gpu = run1(
                &gpu_backend(),
                Resize::new(scale, ow, oh).unwrap(),
                &img,
                &[],
            );
            assert_eq!(
                max_diff(&gpu, &cpu).unwrap(),
                0.0,
                "{w}x{h} scale {scale} {ow}x{oh}"
            );
        }
    }
}

#[test]
fn crop_regions() {
    let img = random_image(40, 30, PixelFormat::Rgba8, 9);
    let sub = |x0: usize, y0: usize, w: usize, h: usize| {
        let s = img.as_u8();
        let mut v = Vec::new();
        for y in y0..y0 + h {
            v.extend_from_slice(&s[(y * 40 + x0) * 4..(y * 40 + x0 + w) * 4]);
        }
        Image::from_u8(w as u32, h as u32, PixelFormat::Rgba8, v).unwrap()
    };
    for b in backends() {
        assert_eq!(
            run1(&b, Crop::default(), &img, &[]).into_image().unwrap(),
            img
        );
        assert_eq!(
            run1(&b, Crop::px(5, 7, 10, 4).unwrap(), &img, &[])
                .into_image()
                .unwrap(),
            sub(5, 7, 10, 4)
        );
        // GPUImage-style normalised region: x 0.25 of 40 = 10, width 0.5 = 20; y 0.1 of 30 = 3.
        assert_eq!(
            run1(&b, Crop::norm(0.25, 0.1, 0.5, 0.5).unwrap(), &img, &[])
                .into_image()
                .unwrap(),
            sub(10, 3, 20, 15)
        );
        // Clipped to the image: the region keeps what lies inside.
        assert_eq!(
            run1(&b, Crop::px(30, 25, 100, 100).unwrap(), &img, &[])
                .into_image()
                .unwrap(),
            sub(30, 25, 10, 5)
        );
        // A region with nothing inside the image is an error.
        let mut g = Graph::new();
        let s = g.source("in", img.desc()).unwrap();
        let e = g
            .add(Crop::px(500, 0, 3, 2).unwrap(), &[s])
            .unwrap_err()
            .to_string();
        assert!(e.contains("outside the 40x30 image"), "{e}");
        // Left out in pixels: to the edges.
        let edges = Crop::px(5, 7, 1, 1).unwrap().to_edges(true, true);
        assert_eq!(
            run1(&b, edges, &img, &[]).into_image().unwrap(),
            sub(5, 7, 35, 23)
        );
    }
    let mut g = Graph::new();
    let s = g.source("in", img.desc()).unwrap();
    let e = g
        .add(Crop::px(0, 0, 0, 5).unwrap(), &[s])
        .unwrap_err()
        .to_string();
    assert!(e.contains("empty"), "{e}");
}

/// Sums past 2^32 exercise the lo/hi carry of the 64-bit accumulators. Large (17 M pixels):
/// run on a real GPU with `cargo test --release --test analysis -- --ignored`.
#[test]
#[ignore]
fn sums_carry_past_32_bits() {
    let (w, h) = (4200u32, 4100u32);
    let n = w as u64 * h as u64;
    let mut img = Image::zeroed(texelflow::ImageDesc::new(w, h, PixelFormat::Rgba8));
    img.as_u8_mut().fill(255);
    // A few coloured pixels so min, max and saturation are not trivial.
    img.as_u8_mut()[..8].copy_from_slice(&[255, 0, 0, 7, 0, 0, 0, 9]);
    let gpu = gpu_backend();
    let Value::Data(Data::Stats(s)) = run1(&gpu, Reduce, &img, &[]) else {
        panic!("not stats")
    };
    assert_eq!(s.count, n);
    assert_eq!(s.sum[1], 255 * (n - 2));
    assert_eq!(s.sum[3], 255 * (n - 2) + 16);
    assert_eq!((s.min, s.max), ([0, 0, 0, 7, 0], [255; 5]));
    assert!(s.sum[1] > u32::MAX as u64);
    let cpu = run1(&Backend::Cpu, Reduce, &img, &[]);
    assert_eq!(Value::Data(Data::Stats(s)), cpu);
    // Fully saturated: every sample is 65536, so the sum passes 2^32 after 65536 pixels.
    let mut red = img.clone();
    for p in red.as_u8_mut().chunks_exact_mut(4) {
        p.copy_from_slice(&[200, 0, 0, 255]);
    }
    let a = run1(&gpu, MeanSaturation, &red, &[]);
    assert_eq!(
        a,
        Value::Data(Data::Mean {
            sum: 65536 * n,
            count: n
        })
    );
    let h1 = run1(&gpu, Histogram::new(), &img, &[]);
    assert_eq!(h1, run1(&Backend::Cpu, Histogram::new(), &img, &[]));
}

/// Every `reduce` schedule (the declared ones, plus SWAR shapes with two lane flushes per loop
/// iteration and 64 quads per invocation) gives the CPU twin's statistics exactly, on awkward
/// sizes and on saturated images where a SWAR lane that missed a flush would overflow (64
/// pixels of 255 per invocation, more than a biased 16-bit lane holds).
#[test]
fn reduce_schedules_match_cpu_exactly() {
    let def = texelflow::registry::find("reduce").unwrap();
    let mut variants: Vec<&str> = def.schedules.to_vec();
    // `dp4` is the default (run with no override below as well)
    variants.extend([
        "dp4",
        "swar_u16q64",
        "swar_u1q1",
        "swar_u3q5",
        "dp4_u16q64",
        "dp4_u1q1",
        "dp4_u3q5",
    ]);
    assert!(variants.contains(&"swar") && variants.contains(&"u4q16"));
    let mut images: Vec<(String, Image)> = Vec::new();
    for (w, h) in [(1, 1), (1, 9), (9, 1), (1, 37), (67, 43), (3, 5), (255, 17)] {
        images.push((
            format!("random {w}x{h}"),
            random_image(w, h, PixelFormat::Rgba8, (w * 1000 + h) as u64),
        ));
    }
    for (w, h, v) in [
        (512, 512, 255u8),
        (1024, 131, 255),
        (67, 43, 255),
        (100, 7, 0),
    ] {
        let mut img = Image::zeroed(texelflow::ImageDesc::new(w, h, PixelFormat::Rgba8));
        img.as_u8_mut().fill(v);
        images.push((format!("all {v} {w}x{h}"), img));
    }
    // Saturated but one pixel, in the middle of some invocation's run of whole quads.
    let mut img = images
        .iter()
        .find(|(n, _)| n == "all 255 512x512")
        .unwrap()
        .1
        .clone();
    img.as_u8_mut()[4 * 1000..4 * 1001].copy_from_slice(&[3, 250, 7, 254]);
    images.push(("all 255 but one 512x512".into(), img));
    // Every luma numerator residue near the rounding boundary: a gradient over R, G, B.
    let grad: Vec<[u8; 4]> = (0..256 * 64)
        .map(|i: u32| {
            [
                (i % 256) as u8,
                ((i / 256) * 4) as u8,
                (255 - i % 256) as u8,
                (i % 7) as u8,
            ]
        })
        .collect();
    images.push(("gradient 256x64".into(), rgba(256, 64, &grad)));
    let gpu = gpu_backend();
    let mut checked = 0;
    for variant in &variants {
        let o = [("reduce".to_string(), variant.to_string())];
        for (name, img) in &images {
            let want = run1_scheduled(&Backend::Cpu, Reduce, img, &[], &o);
            let got = run1_scheduled(&gpu, Reduce, img, &[], &o);
            assert_eq!(got, want, "reduce={variant} on {name}");
            checked += 1;
        }
    }
    assert_eq!(checked, variants.len() * images.len());
    // The Y-sum-only reduction (`average_luminance_threshold=ysum`) on the same images: its
    // Y sum and count are the full reduction's, every other slot is at its identity.
    use texelflow::filters::analysis::reduce::{stats_cpu, ReduceLumaSum};
    for (name, img) in &images {
        let full = stats_cpu(img);
        let want = texelflow::Stats {
            count: full.count,
            min: [255; 5],
            max: [0; 5],
            sum: [0, 0, 0, 0, full.sum[4]],
        };
        for b in backends() {
            assert_eq!(
                run1(&b, ReduceLumaSum, img, &[]),
                Value::Data(Data::Stats(want.clone())),
                "reduce_luma_sum on {name}"
            );
        }
    }
}

/// `average_luminance_threshold` under its schedule `ysum` and the threshold's `dp4` (alone and
/// together) gives the CPU's image exactly, on a gradient with many pixels whose luma
/// numerator sits exactly on a threshold (n = 1000 t), for multipliers that move t around.
#[test]
fn average_luminance_threshold_schedules_match_cpu() {
    let mut px: Vec<[u8; 4]> = (0..256 * 95)
        .map(|i: u32| {
            [
                (i % 256) as u8,
                ((i / 256) * 8 / 3) as u8,
                ((i * 7) % 256) as u8,
                (i % 5) as u8,
            ]
        })
        .collect();
    // One more row: for each luma y, a pixel whose numerator 299R + 587G + 114B + 500 is
    // exactly 1000 y (where one exists), so every threshold t has a pixel on it.
    for y in 0..256u32 {
        let hit = (0..256u32)
            .flat_map(|r| (0..256u32).map(move |g| (r, g)))
            .find_map(|(r, g)| {
                let rest = (1000 * y).checked_sub(500 + 299 * r + 587 * g)?;
                (rest % 114 == 0 && rest / 114 < 256).then_some([
                    r as u8,
                    g as u8,
                    (rest / 114) as u8,
                    200,
                ])
            });
        px.push(hit.unwrap_or([0, 0, 0, 0]));
    }
    assert!(px[256 * 95..].iter().filter(|p| p[3] == 200).count() > 200);
    let img = rgba(256, 96, &px);
    let odd = random_image(67, 43, PixelFormat::Rgba8, 5);
    let gpu = gpu_backend();
    let combos = [
        vec![("average_luminance_threshold", "ysum")],
        vec![("luminance_threshold_by_stats", "dp4")],
        vec![
            ("average_luminance_threshold", "ysum"),
            ("luminance_threshold_by_stats", "dp4"),
        ],
    ];
    for combo in &combos {
        let o: Vec<(String, String)> = combo
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        for k in 0..=16 {
            let m = 0.2 + 0.1 * k as f32;
            for im in [&img, &odd] {
                let want = run1_scheduled(
                    &Backend::Cpu,
                    AverageLuminanceThreshold::new(m).unwrap(),
                    im,
                    &[],
                    &o,
                );
                let got = run1_scheduled(
                    &gpu,
                    AverageLuminanceThreshold::new(m).unwrap(),
                    im,
                    &[],
                    &o,
                );
                assert!(
                    got == want,
                    "{combo:?} multiplier {m} on {}x{}",
                    im.width(),
                    im.height()
                );
            }
        }
    }
}
