//! Colour fingerprint and photo assessment: known answers on constructed images, GPU equal to
//! the CPU twins, and a folder of 57 generated photos ranked and grouped.

mod common;
#[path = "common/photos.rs"]
mod photos;

use common::*;
use texelflow::assess::{self, AssessOptions, Assessment, Fingerprint, PhotoReport};
use texelflow::filters::analysis::{ColorFingerprint, PhotoAssessment};
use texelflow::{Backend, Data, Graph, Image, PixelFormat, RunOptions, Value};

fn solid(w: u32, h: u32, mut f: impl FnMut(u32, u32) -> [u8; 3]) -> Image {
    let data = (0..w * h).flat_map(|i| {
        let c = f(i % w, i / w);
        [c[0], c[1], c[2], 255]
    });
    Image::from_u8(w, h, PixelFormat::Rgba8, data.collect()).unwrap()
}

/// The report on the GPU, checked equal to the CPU twin's.
fn report(img: &Image) -> PhotoReport {
    let gpu = assess::assess_image(&gpu_backend(), img, AssessOptions::default()).unwrap();
    let cpu = assess::assess_image(&Backend::Cpu, img, AssessOptions::default()).unwrap();
    assert_eq!(gpu, cpu, "GPU and CPU differ");
    gpu
}

fn fingerprint(backend: &Backend, img: &Image, grid: u32, bits: u32) -> Fingerprint {
    match run_chain(
        backend,
        vec![Box::new(ColorFingerprint::new(grid, bits).unwrap())],
        img,
    ) {
        Value::Data(Data::Fingerprint(f)) => f,
        other => panic!("not a fingerprint: {other:?}"),
    }
}

#[test]
fn flat_grey_has_no_sharpness_noise_or_colour() {
    let a = report(&solid(37, 23, |_, _| [128, 128, 128])).assessment;
    assert_eq!(
        (
            a.tenengrad,
            a.laplacian_variance,
            a.noise_sigma,
            a.colorfulness,
            a.mean_saturation
        ),
        (0.0, 0.0, 0.0, 0.0, 0.0)
    );
    assert_eq!(
        (a.mean_luma, a.rms_contrast, a.luma_p1, a.luma_p99),
        (128.0, 0.0, 128, 128)
    );
    assert_eq!((a.clipped_shadows, a.clipped_highlights), (0.0, 0.0));
    assert_eq!(a.score(), 0.0, "nothing in focus scores 0");
}

#[test]
fn all_black_is_all_clipped_shadows() {
    let a = report(&solid(9, 7, |_, _| [0, 0, 0])).assessment;
    assert_eq!(
        (a.clipped_shadows, a.clipped_highlights, a.mean_luma),
        (1.0, 0.0, 0.0)
    );
    assert_eq!(a.sub_scores().exposure, 0.0);
    assert_eq!(a.score(), 0.0);
}

#[test]
fn checkerboard_is_sharp_and_blurring_lowers_sharpness() {
    let board = solid(64, 48, |x, y| {
        if (x / 4 + y / 4) % 2 == 0 {
            [230, 230, 230]
        } else {
            [20, 20, 20]
        }
    });
    let a = report(&board).assessment;
    assert!(
        a.tenengrad > 50_000.0 && a.laplacian_variance > 10_000.0,
        "{a:?}"
    );
    assert!(a.sub_scores().sharpness > 0.95);
    let b = report(&photos::blurred(&board, 2)).assessment;
    assert!(
        b.tenengrad < a.tenengrad / 4.0 && b.laplacian_variance < a.laplacian_variance / 10.0,
        "{b:?}"
    );
    assert!(b.sub_scores().sharpness < a.sub_scores().sharpness);
    // on a scene too
    let s = photos::scene(96, 72, 7);
    let (sa, sb) = (
        report(&s).assessment,
        report(&photos::blurred(&s, 2)).assessment,
    );
    assert!(
        sb.laplacian_variance < sa.laplacian_variance
            && sb.tenengrad < sa.tenengrad
            && sb.score() < sa.score()
    );
}

#[test]
fn known_sums_on_a_small_image() {
    // one bright pixel in the middle of a 3x3 black image: every stencil by hand
    let img = solid(3, 3, |x, y| {
        if (x, y) == (1, 1) {
            [100, 100, 100]
        } else {
            [0, 0, 0]
        }
    });
    let m = report(&img).metrics;
    // Sobel: the 8 neighbours see ±100 or ±200 per axis: (1,0),(0,1)...: gx^2+gy^2 summed
    // corners: gx = ±100, gy = ±100 → 20000 each, 4 corners; edges: one axis ±200 → 40000 each, 4 edges (replicate
    // borders: the row/column beyond the edge repeats the edge's, which holds 0 here)
    assert_eq!(m.sobel_energy, 4 * 20000 + 4 * 40000);
    // Laplacian: centre -400, its 4 neighbours +100 each
    assert_eq!((m.laplacian_sum, m.laplacian_sq), (0, 160000 + 4 * 10000));
    // Immerkaer: only the centre is interior: 4 * 100
    assert_eq!(m.noise_abs, 400);
    assert_eq!((m.rg_sum, m.yb2_sum, m.saturation_sum), (0, 0, 0));
    assert_eq!((m.luma_hist[0], m.luma_hist[100]), (8, 1));
}

#[test]
fn colourfulness_and_noise_estimates() {
    // half pure red, half pure blue: rg = 255 or 0, yb = 127.5 or -255
    let a = report(&solid(20, 10, |x, _| {
        if x < 10 {
            [255, 0, 0]
        } else {
            [0, 0, 255]
        }
    }))
    .assessment;
    let (mu_rg, mu_yb, s_rg, s_yb) = (
        127.5f64,
        (127.5 - 255.0) / 2.0,
        127.5f64,
        (127.5f64 + 255.0) / 2.0,
    );
    let want = (s_rg * s_rg + s_yb * s_yb).sqrt() + 0.3 * (mu_rg * mu_rg + mu_yb * mu_yb).sqrt();
    assert!(
        (a.colorfulness - want).abs() < 1e-9,
        "{} vs {want}",
        a.colorfulness
    );
    assert!((a.mean_saturation - 1.0).abs() < 1e-12);
    // grey 128 with uniform integer noise in [-8, 8]: sigma = sqrt(24) = 4.90
    let mut r = Rng(12345);
    let noisy = solid(128, 96, |_, _| {
        let v = (128 + (r.next() % 17) as i32 - 8) as u8;
        [v, v, v]
    });
    let n = report(&noisy).assessment.noise_sigma;
    assert!(
        (n - 24f64.sqrt()).abs() < 0.1 * 24f64.sqrt(),
        "Immerkaer estimate {n}"
    );
}

#[test]
fn two_block_fingerprint_by_hand() {
    // 4x2: left half (200, 100, 30), right half (10, 250, 140); 2x2 blocks of 2x1 pixels
    let img = solid(4, 2, |x, _| {
        if x < 2 {
            [200, 100, 30]
        } else {
            [10, 250, 140]
        }
    });
    // left: R' 6, G' 3, B' 0 → colour 6 + 3*8 = 30 → bin block + 4*30; right: 0 + 7*8 + 4*64 = 312
    let mut want = vec![0u32; 2048];
    want[120] = 2; // block 0 (row 0, col 0)
    want[122] = 2; // block 2 (row 1, col 0)
    want[4 * 312 + 1] = 2;
    want[4 * 312 + 3] = 2;
    for b in [gpu_backend(), Backend::Cpu] {
        let f = fingerprint(&b, &img, 2, 3);
        assert_eq!((f.grid, f.bits, f.pixels), (2, 3, 8));
        assert_eq!(f.bins, want);
    }
    // odd height: the article's row = y / (3 / 2) reaches 2 on the last row and spills into
    // R's bits; the clamp keeps it in block row 1
    let img = solid(2, 3, |_, _| [0, 0, 0]);
    let f = fingerprint(&gpu_backend(), &img, 2, 3);
    assert_eq!(&f.bins[..4], &[1, 1, 2, 2]);
    assert_eq!(f.bins.iter().sum::<u32>(), 6);
}

#[test]
fn fingerprint_gpu_equals_cpu_for_every_bin_count_path() {
    // up to 4096 bins in workgroup memory, beyond in global memory
    for (grid, bits) in [(1, 1), (2, 3), (8, 2), (3, 4), (8, 4)] {
        for (w, h) in [(1, 1), (1, 9), (9, 1), (67, 43), (130, 17)] {
            let img = random_image(
                w,
                h,
                PixelFormat::Rgba8,
                (w * 31 + h + grid * 7 + bits) as u64,
            );
            assert_eq!(
                fingerprint(&gpu_backend(), &img, grid, bits),
                fingerprint(&Backend::Cpu, &img, grid, bits),
                "grid {grid} bits {bits} {w}x{h}"
            );
        }
    }
    assert!(
        ColorFingerprint::new(9, 3).is_err()
            && ColorFingerprint::new(2, 5).is_err()
            && ColorFingerprint::new(0, 3).is_err()
    );
}

/// The assessment's two outputs from a graph built by `build` (the fused node or the two
/// nodes), outputs poisoned on the GPU.
fn assessment_outputs(
    backend: &Backend,
    img: &Image,
    opts: AssessOptions,
    build: fn(texelflow::ImageDesc, AssessOptions) -> texelflow::Result<Graph>,
) -> (Data, Data) {
    assessment_outputs_scheduled(backend, img, opts, build, &[])
}

/// `assessment_outputs` with the schedule overrides `schedules` in the run's options.
fn assessment_outputs_scheduled(
    backend: &Backend,
    img: &Image,
    opts: AssessOptions,
    build: fn(texelflow::ImageDesc, AssessOptions) -> texelflow::Result<Graph>,
    schedules: &[(String, String)],
) -> (Data, Data) {
    let g = build(img.desc(), opts).unwrap();
    let mut r = backend
        .run(
            &g,
            &[("image", img)],
            &RunOptions {
                poison: true,
                schedules: schedules.to_vec(),
                ..Default::default()
            },
        )
        .unwrap();
    match (
        r.take(assess::METRICS_OUTPUT),
        r.take(assess::FINGERPRINT_OUTPUT),
    ) {
        (Some(Value::Data(m)), Some(Value::Data(f))) => (m, f),
        other => panic!("not two data outputs: {other:?}"),
    }
}

/// Smooth images: a flat colour (every pixel in one bin: the longest runs), a gentle gradient
/// with a little noise (few bins per tile), and a photo-like scene.
fn smooth_images(w: u32, h: u32, seed: u64) -> Vec<(&'static str, Image)> {
    let mut r = Rng(seed * 7919 + 5);
    vec![
        ("flat", solid(w, h, |_, _| [97, 160, 33])),
        (
            "gradient",
            solid(w, h, |x, y| {
                let n = (r.next() % 5) as u32;
                [
                    (40 + x * 120 / w.max(1) + n) as u8,
                    (200 - y * 90 / h.max(1)) as u8,
                    (60 + (x + y) * 50 / (w + h) + n) as u8,
                ]
            }),
        ),
        ("scene", photos::scene(w.max(8), h.max(8), seed)),
    ]
}

#[test]
fn fused_pass_equals_the_two_nodes_and_the_cpu_twins() {
    // awkward sizes (one pixel, one row, one column, odd sizes not divisible by the grid),
    // several workgroups in x and y (64x64 pixels each), and every fingerprint path: bins in
    // workgroup memory (up to 2634 beside the metrics) and beyond, straight into global memory
    let sizes = [
        (1, 1),
        (1, 9),
        (9, 1),
        (1, 200),
        (200, 1),
        (67, 43),
        (130, 17),
        (68, 130),
        (203, 151),
    ];
    let layouts = [(2, 3), (1, 1), (3, 2), (5, 3), (8, 2), (3, 4)];
    let gpu = gpu_backend();
    let mut checked = 0;
    for (i, &(w, h)) in sizes.iter().enumerate() {
        let mut images = vec![(
            "random",
            random_image(w, h, PixelFormat::Rgba8, 11 + i as u64),
        )];
        images.extend(smooth_images(w, h, 3 + i as u64));
        for (name, img) in &images {
            for (k, &(grid, bits)) in layouts.iter().enumerate() {
                // every layout on the small sizes; the default and the global path on the larger
                if w * h > 10_000 && ![0, 5].contains(&k) {
                    continue;
                }
                let opts = AssessOptions { grid, bits };
                let what = format!(
                    "{name} {}x{} grid {grid} bits {bits}",
                    img.width(),
                    img.height()
                );
                let two = assessment_outputs(&gpu, img, opts, assess::build_assessment_graph);
                let cpu = assessment_outputs(
                    &Backend::Cpu,
                    img,
                    opts,
                    assess::build_fused_assessment_graph,
                );
                let cpu_two =
                    assessment_outputs(&Backend::Cpu, img, opts, assess::build_assessment_graph);
                assert_eq!(cpu, cpu_two, "CPU twins: {what}");
                assert_eq!(two, cpu, "two GPU passes against the CPU twins: {what}");
                // both ways of counting the fingerprint (schedules `runs`, the default, and `direct`)
                let mut fused = None;
                for variant in ["runs", "direct"] {
                    let f = assessment_outputs_scheduled(
                        &gpu,
                        img,
                        opts,
                        assess::build_fused_assessment_graph,
                        &[("photo_assessment".to_string(), variant.to_string())],
                    );
                    assert_eq!(
                        f, cpu,
                        "fused GPU ({variant}) against the CPU twins: {what}"
                    );
                    fused = Some(f);
                }
                let fused = fused.expect("two variants ran");
                if let (Data::Fingerprint(f), Data::PhotoMetrics(m)) = (&fused.1, &fused.0) {
                    assert_eq!(
                        (f.pixels, f.bins.iter().map(|&b| b as u64).sum::<u64>()),
                        (m.pixels(), m.pixels()),
                        "{what}"
                    );
                } else {
                    panic!("outputs in the wrong order: {what}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked}");
    // an unknown counting schedule is an error, not a fallback
    let img = random_image(4, 4, PixelFormat::Rgba8, 1);
    let g = assess::build_fused_assessment_graph(img.desc(), AssessOptions::default()).unwrap();
    let r = gpu.run(
        &g,
        &[("image", &img)],
        &RunOptions {
            schedules: vec![("photo_assessment".to_string(), "sideways".to_string())],
            ..Default::default()
        },
    );
    assert!(r.is_err_and(|e| e.to_string().contains("unknown schedule `sideways`")));
}

#[test]
fn fused_node_rejects_bad_parameters_and_formats() {
    assert!(
        PhotoAssessment::new(9, 3).is_err()
            && PhotoAssessment::new(2, 5).is_err()
            && PhotoAssessment::new(0, 3).is_err()
    );
    let mut g = Graph::new();
    let s = g
        .source("image", texelflow::ImageDesc::new(8, 8, PixelFormat::Gray8))
        .unwrap();
    assert!(
        g.add(PhotoAssessment::new(2, 3).unwrap(), &[s]).is_err(),
        "gray8 is converted by assess_image, not taken by the node"
    );
    // the fused node, and assess_image's two nodes
    let g = assess::build_fused_assessment_graph(
        texelflow::ImageDesc::new(8, 8, PixelFormat::Rgba8),
        AssessOptions::default(),
    )
    .unwrap();
    assert_eq!(g.labels(), vec!["photo_assessment".to_string()], "one node");
    let g = assess::build_assessment_graph(
        texelflow::ImageDesc::new(8, 8, PixelFormat::Rgba8),
        AssessOptions::default(),
    )
    .unwrap();
    assert_eq!(
        g.labels(),
        vec!["photo_metrics".to_string(), "color_fingerprint".to_string()]
    );
}

#[test]
fn similarity_of_copies_shifted_copies_and_other_scenes() {
    let a = photos::scene(96, 72, 3);
    let fa = fingerprint(&gpu_backend(), &a, 2, 3);
    assert_eq!(fa.similarity(&fa), 1.0);
    let shifted = fingerprint(&gpu_backend(), &photos::near_copy(&a, 3.0, 2, 9), 2, 3);
    let s = fa.similarity(&shifted);
    assert!(
        s > assess::DUPLICATE_THRESHOLD,
        "brightness-shifted copy: {s}"
    );
    assert_eq!(s, shifted.similarity(&fa), "symmetric");
    let other = fingerprint(&gpu_backend(), &photos::scene(96, 72, 4), 2, 3);
    assert!(
        fa.similarity(&other) < 0.3,
        "unrelated scene: {}",
        fa.similarity(&other)
    );
    let coarse = fingerprint(&gpu_backend(), &a, 1, 3);
    assert_eq!(
        fa.similarity(&coarse),
        0.0,
        "different layouts are not comparable"
    );
}

#[test]
fn grouping_is_connected_components_in_index_order() {
    let f = |bins: Vec<u32>| Fingerprint {
        grid: 1,
        bits: 1,
        pixels: bins.iter().map(|&b| b as u64).sum(),
        bins,
    };
    let fps = vec![
        f(vec![10, 0, 0, 0, 0, 0, 0, 0]),
        f(vec![0, 0, 0, 0, 0, 0, 0, 10]),
        f(vec![9, 1, 0, 0, 0, 0, 0, 0]),  // ~0
        f(vec![0, 0, 0, 0, 0, 0, 1, 9]),  // ~1
        f(vec![8, 2, 0, 0, 0, 0, 0, 0]),  // ~2 (0.9), ~0 (0.8)
        f(vec![0, 0, 0, 10, 0, 0, 0, 0]), // alone
    ];
    assert_eq!(
        assess::group_near_duplicates(&fps, 0.85),
        vec![vec![0, 2, 4], vec![1, 3]]
    );
    assert_eq!(
        assess::group_near_duplicates(&fps, 1.0),
        Vec::<Vec<usize>>::new()
    );
}

#[test]
fn fifty_seven_photos_rank_defects_last_and_group_duplicates() {
    let set = photos::photo_set(96, 72);
    assert!(set.len() >= 50);
    let images: Vec<&Image> = set.iter().map(|(_, img, _)| img).collect();
    let mut reports: Vec<Option<PhotoReport>> = vec![None; set.len()];
    assess::assess_stream(
        &gpu_backend(),
        images.iter().copied(),
        Ok,
        AssessOptions::default(),
        4,
        |k, r| reports[k] = Some(r.unwrap()),
    );
    let reports: Vec<PhotoReport> = reports
        .into_iter()
        .map(|r| r.expect("every photo assessed"))
        .collect();
    // the CPU twin agrees on every photo
    for ((name, img, _), r) in set.iter().zip(&reports) {
        assert_eq!(
            &assess::assess_image(&Backend::Cpu, img, AssessOptions::default()).unwrap(),
            r,
            "{name}"
        );
    }
    let mut order: Vec<usize> = (0..set.len()).collect();
    order.sort_by(|&a, &b| {
        reports[b]
            .assessment
            .score()
            .total_cmp(&reports[a].assessment.score())
    });
    let bad = set.iter().filter(|s| s.2.is_bad()).count();
    let table: String = order
        .iter()
        .map(|&k| format!("{:>6.2} {}\n", reports[k].assessment.score(), set[k].0))
        .collect();
    for &k in &order[order.len() - bad..] {
        assert!(
            set[k].2.is_bad(),
            "{} ranks among the last {bad}:\n{table}",
            set[k].0
        );
    }
    let fps: Vec<Fingerprint> = reports.iter().map(|r| r.fingerprint.clone()).collect();
    let groups = assess::group_near_duplicates(&fps, assess::DUPLICATE_THRESHOLD);
    let want: Vec<Vec<usize>> = set
        .iter()
        .enumerate()
        .filter_map(|(k, s)| {
            if let photos::Kind::DuplicateOf(i) = s.2 {
                Some(vec![i, k])
            } else {
                None
            }
        })
        .collect();
    let sims: String = want
        .iter()
        .map(|g| format!("{:?}: {:.3}\n", g, fps[g[0]].similarity(&fps[g[1]])))
        .collect();
    // badly exposed photos collapse into few colour bins, so some of them group with each
    // other (as they look alike); none may group with a good photo, and among the good ones
    // and their copies the groups are exactly the pairs
    let (good_groups, bad_groups): (Vec<Vec<usize>>, Vec<Vec<usize>>) =
        groups.into_iter().partition(|g| !set[g[0]].2.is_bad());
    assert!(
        bad_groups.iter().flatten().all(|&k| set[k].2.is_bad()),
        "{bad_groups:?}"
    );
    assert_eq!(good_groups, want, "pairs' similarities:\n{sims}");
    let _ = Assessment::from_data(&Data::PhotoMetrics(reports[0].metrics.clone())).unwrap();
}
