//! Neighbourhood filters: both Gaussian strategies (fused tile, two-pass fallback) and
//! forced tile schedules against the CPU twin, constant images staying constant, box blur
//! at its largest radius, Sobel on flat images. `bench_neighborhood_4k` (ignored) times the
//! kernels against a copy at 3840x2160.

mod common;

use common::*;
use texelflow::filters::convert::ToRgba;
use texelflow::filters::neighborhood::{
    box_blur, gaussian_blur, BoxBlur, GaussianBlur, SobelEdgeDetection,
};
use texelflow::{Backend, Filter, Graph, Image, PixelFormat, RunOptions, Value};

/// One filter, its colour straight: these tests hold the kernels to their twins exactly (the
/// premultiplied path around averaging filters divides by alpha after them: tests/alpha.rs).
fn run(
    backend: &Backend,
    filter: Box<dyn Filter>,
    img: &Image,
    opts: &RunOptions,
) -> Result<(Image, f64), String> {
    let mut g = Graph::new();
    g.set_straight_alpha(true);
    let s = g.source("in", img.desc()).map_err(|e| e.to_string())?;
    let out = g.add_boxed(filter, &[s]).map_err(|e| e.to_string())?;
    g.output("out", out[0]).map_err(|e| e.to_string())?;
    let r = backend
        .run(&g, &[("in", img)], opts)
        .map_err(|e| e.to_string())?;
    let ms = r.timings.iter().map(|t| t.ms).sum();
    match r.outputs.into_iter().next() {
        Some((_, Value::Image(i))) => Ok((i, ms)),
        _ => Err("no image output".into()),
    }
}

/// Max per-sample difference between the GPU (poisoned outputs) and CPU results.
fn gpu_vs_cpu(filter: Box<dyn Filter>, img: &Image) -> u8 {
    gpu_vs_cpu_scheduled(filter, img, &[])
}

/// `gpu_vs_cpu` with the schedule overrides `schedules` in the runs' options.
fn gpu_vs_cpu_scheduled(
    filter: Box<dyn Filter>,
    img: &Image,
    schedules: &[(String, String)],
) -> u8 {
    let opts = RunOptions {
        poison: true,
        schedules: schedules.to_vec(),
        ..Default::default()
    };
    let (a, _) =
        run(&gpu_backend(), filter.clone(), img, &opts).unwrap_or_else(|e| panic!("gpu: {e}"));
    let (b, _) = run(&Backend::Cpu, filter, img, &opts).unwrap_or_else(|e| panic!("cpu: {e}"));
    max_diff(&Value::Image(a), &Value::Image(b)).unwrap() as u8
}

fn constant(w: u32, h: u32, px: [u8; 4]) -> Image {
    Image::from_u8(
        w,
        h,
        PixelFormat::Rgba8,
        px.iter()
            .copied()
            .cycle()
            .take((w * h * 4) as usize)
            .collect(),
    )
    .unwrap()
}

#[test]
fn gaussian_fused_and_two_pass_match_cpu() {
    let img = random_image(200, 150, PixelFormat::Rgba8, 7);
    // sigma 2 (radius 6): the default (f16 where the device has it) and the fused tile that
    // the f32 choice takes on any device; sigma 20 (radius 60) never fits a tile
    for sigma in [2.0, 20.0] {
        assert!(
            gpu_vs_cpu(Box::new(GaussianBlur::new(sigma).unwrap()), &img) <= 1,
            "sigma {sigma}"
        );
    }
    let tile = gaussian_blur::choose_tile(6, 16 * 1024).expect("a tile fits in 16 KiB at radius 6");
    let fused = GaussianBlur::new(2.0)
        .unwrap()
        .with_schedule(gaussian_blur::Schedule::Fused(tile));
    assert!(
        gpu_vs_cpu(Box::new(fused), &img) <= 1,
        "fused tile at sigma 2"
    );
    let forced = GaussianBlur::new(2.0)
        .unwrap()
        .with_schedule(gaussian_blur::Schedule::TwoPass);
    assert!(
        gpu_vs_cpu(Box::new(forced), &img) <= 1,
        "two-pass at sigma 2"
    );
}

#[test]
fn gaussian_every_tile_shape_matches_cpu() {
    let img = random_image(67, 43, PixelFormat::Rgba8, 3);
    let tiles = [
        (8, 32, 2, 1),
        (16, 16, 2, 1),
        (16, 32, 4, 2),
        (16, 64, 4, 4),
        (32, 32, 8, 4),
        (64, 16, 8, 4),
    ];
    for (tw, th, kh, kv) in tiles {
        let t = gaussian_blur::FusedTile { tw, th, kh, kv };
        let f = GaussianBlur::new(0.6)
            .unwrap()
            .with_schedule(gaussian_blur::Schedule::Fused(t));
        assert!(gpu_vs_cpu(Box::new(f), &img) <= 1, "{t:?}");
    }
}

/// Both two-pass schedules (row segment unpacked or packed in workgroup memory) on sizes
/// that are narrower or shorter than the radius, cross the window pass's 256-column row
/// segments and 8-row column windows or end inside one, at radii whose 2r + 1 taps are
/// below, at and past a multiple of the 8-input window (zero-weight padding taps), up to the
/// largest radius.
#[test]
fn gaussian_two_pass_schedules_match_cpu_at_awkward_sizes_and_radii() {
    let sizes = [(1, 1), (1, 19), (23, 1), (67, 43), (300, 21), (9, 130)];
    // radius ceil(3 sigma): 1, 4, 8, 9, 24, 96
    let sigmas = [0.3f32, 1.2, 2.6, 3.0, 8.0, 32.0];
    for (i, &(w, h)) in sizes.iter().enumerate() {
        let img = random_image(w, h, PixelFormat::Rgba8, 40 + i as u64);
        for &sigma in &sigmas {
            for schedule in [
                gaussian_blur::Schedule::TwoPass,
                gaussian_blur::Schedule::TwoPassPacked,
            ] {
                let f = GaussianBlur::new(sigma).unwrap().with_schedule(schedule);
                assert!(
                    gpu_vs_cpu(Box::new(f), &img) <= 1,
                    "{w}x{h} sigma {sigma} {schedule:?}"
                );
            }
        }
    }
}

/// Random 0/255 blocks of `block` x `block` pixels per channel: edges of full amplitude, where
/// a misplaced node, phase or weight in the decimated schedule shows as errors of many
/// levels (random noise blurs to nearly flat images that would hide them).
fn blocks(w: u32, h: u32, block: u32, seed: u64) -> Image {
    let noise = random_image(
        w.div_ceil(block),
        h.div_ceil(block),
        PixelFormat::Rgba8,
        seed,
    );
    let n = noise.as_u8();
    let bw = w.div_ceil(block) as usize;
    let mut px = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h as usize {
        for x in 0..w as usize {
            let b = ((y / block as usize) * bw + x / block as usize) * 4;
            px.extend((0..4).map(|c| if n[b + c] >= 128 { 255 } else { 0 }));
        }
    }
    Image::from_u8(w, h, PixelFormat::Rgba8, px).unwrap()
}

/// The decimated schedule (exact blur at grid nodes, cubic interpolation between them),
/// with each of the row pass's row sources and node formats and other shapes, within one level of the twin: node spacings 2 (sigma 6), 3,
/// 4, 7 and 10 (sigma 32); images smaller than one node spacing, narrower than the row
/// pass's 256-node segment or crossing it, heights that end inside an interpolation pass's
/// 16-row run; random noise and full-amplitude blocks; either pass order, node rows
/// transposed or not.
#[test]
fn gaussian_decimated_matches_cpu_at_awkward_sizes() {
    let sizes = [
        (1, 1),
        (1, 19),
        (23, 1),
        (67, 43),
        (9, 130),
        (256, 40),
        (600, 5),
    ];
    let sigmas = [6.0f32, 8.0, 12.0, 22.0, 32.0];
    for &sigma in &sigmas {
        let step = gaussian_blur::decimation_step(&GaussianBlur::new(sigma).unwrap().weights());
        assert!(step.is_some_and(|d| d >= 2), "sigma {sigma}: {step:?}");
        for (i, &(w, h)) in sizes.iter().enumerate() {
            let block = 2 + (sigma as u32 + i as u32) % (sigma as u32);
            for (kind, img) in [
                (
                    "noise",
                    random_image(w, h, PixelFormat::Rgba8, 60 + i as u64),
                ),
                ("blocks", blocks(w, h, block, 70 + i as u64)),
            ] {
                use gaussian_blur::{DecimateOptions, NodeFormat, RowSource::*};
                let with = |row, nodes| DecimateOptions {
                    row: Some(row),
                    nodes: Some(nodes),
                    ..Default::default()
                };
                // the default, then each row source and node format at least once
                let mut options = vec![
                    DecimateOptions::default(),
                    with(Packed, NodeFormat::Unorm16),
                    with(Direct, NodeFormat::F32),
                ];
                // unpacked (at sigma 32 its row segment exceeds lavapipe's 32 KiB: kept packed)
                options.push(with(Unpacked, NodeFormat::Unorm16));
                // other shapes: odd B reading straight from memory, 1 and 8 column-pass nodes, 3 rows per
                // interpolation invocation, either output packing, either row walk, column-pass phases split 3 ways and D ways,
                // 64-invocation row-pass workgroups
                options.push(DecimateOptions {
                    row: None,
                    b: Some(5),
                    bv: Some(8),
                    th: Some(3),
                    nodes: None,
                    magic_pack: Some(true),
                    intervals: Some(true),
                    ps: Some(3),
                    hwg: None,
                    column_first: Some(false),
                    transposed: None,
                });
                options.push(DecimateOptions {
                    row: Some(Packed),
                    b: Some(4),
                    bv: Some(1),
                    th: Some(32),
                    nodes: Some(NodeFormat::F16),
                    magic_pack: Some(false),
                    intervals: Some(false),
                    ps: Some(16),
                    hwg: Some(64),
                    column_first: Some(false),
                    transposed: Some(true),
                });
                // column pass first: the default shape, then odd B and BV, f32 nodes, phases split
                options.push(DecimateOptions {
                    column_first: Some(true),
                    ..Default::default()
                });
                options.push(DecimateOptions {
                    column_first: Some(true),
                    b: Some(5),
                    bv: Some(3),
                    nodes: Some(NodeFormat::F32),
                    ps: Some(2),
                    th: Some(7),
                    ..Default::default()
                });
                // ... and its node rows transposed, with 16 and 5 node rows per invocation
                options.push(DecimateOptions {
                    column_first: Some(true),
                    transposed: Some(true),
                    bv: Some(16),
                    ..Default::default()
                });
                options.push(DecimateOptions {
                    column_first: Some(true),
                    transposed: Some(true),
                    bv: Some(5),
                    ps: Some(3),
                    nodes: Some(NodeFormat::Unorm16),
                    ..Default::default()
                });
                for &source in &options {
                    let f = GaussianBlur::new(sigma)
                        .unwrap()
                        .with_schedule(gaussian_blur::Schedule::Decimate(source));
                    let d = gpu_vs_cpu(Box::new(f), &img);
                    assert!(
                        d <= 1,
                        "{w}x{h} {kind} sigma {sigma} {source:?}: {d} levels (step {step:?})"
                    );
                }
            }
        }
    }
}

/// The f16 schedule (`half`), within one level of the twin: sigma from 0.3 (radius 1) to 4
/// (radius 12, its largest), every knob; images narrower than one workgroup's columns or
/// wider, shorter than one block of 2R + 1 rows or crossing workgroups; random noise and
/// full-amplitude blocks (edges of 0 and 255, where the f16 sums are largest).
#[test]
fn gaussian_half_matches_cpu_at_awkward_sizes() {
    assert!(gpu().has_f16(), "the test device (lavapipe) has shader-f16");
    // widths not multiples of 4 (4-byte stores) and multiples (16-byte stores)
    let sizes = [
        (1, 1),
        (1, 19),
        (23, 1),
        (67, 43),
        (130, 9),
        (252, 40),
        (8, 70),
    ];
    let sigmas = [0.3f32, 2.0, 3.0, 4.6, 5.0];
    use gaussian_blur::HalfOptions;
    // the default (one block per workgroup), and several blocks (the window refilled)
    let options = [
        HalfOptions::default(),
        HalfOptions {
            wgx: Some(64),
            nf: Some(1),
            nb: Some(3),
            kh: Some(8),
            f32: None,
            late: Some(true),
            const_weights: None,
        },
        HalfOptions {
            wgx: Some(256),
            nf: Some(3),
            nb: Some(2),
            kh: None,
            f32: None,
            late: None,
            const_weights: None,
        },
        HalfOptions {
            f32: Some(true),
            ..Default::default()
        },
        HalfOptions {
            late: Some(true),
            ..Default::default()
        },
        HalfOptions {
            late: Some(false),
            ..Default::default()
        },
    ];
    for &sigma in &sigmas {
        for (i, &(w, h)) in sizes.iter().enumerate() {
            let block = 1 + (i as u32 * 3 + sigma as u32) % 9;
            for (kind, img) in [
                (
                    "noise",
                    random_image(w, h, PixelFormat::Rgba8, 80 + i as u64),
                ),
                ("blocks", blocks(w, h, block, 90 + i as u64)),
            ] {
                for &o in &options {
                    let f = GaussianBlur::new(sigma)
                        .unwrap()
                        .with_schedule(gaussian_blur::Schedule::Half(o));
                    let d = gpu_vs_cpu(Box::new(f), &img);
                    assert!(d <= 1, "{w}x{h} {kind} sigma {sigma} {o:?}: {d} levels");
                }
            }
        }
    }
}

#[test]
fn gaussian_unknown_variant_is_an_error() {
    let img = random_image(8, 8, PixelFormat::Rgba8, 1);
    let overrides = vec![("gaussian_blur".to_string(), "nonesuch".to_string())];
    let r = run(
        &gpu_backend(),
        Box::new(GaussianBlur::new(2.0).unwrap()),
        &img,
        &RunOptions {
            schedules: overrides,
            ..Default::default()
        },
    );
    let e = r.expect_err("unknown variant must fail");
    assert!(e.contains("nonesuch") && e.contains("twopass"), "{e}");
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
            let (out, _) = run(
                &backend,
                f.clone(),
                &img,
                &RunOptions {
                    poison: true,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(out, img, "{name} on {}", backend.describe());
        }
    }
}

#[test]
fn box_blur_is_exact_at_every_radius_and_schedule() {
    // wider than one strip at radius 64 (128 output columns) and taller than one strip
    let img = random_image(300, 150, PixelFormat::Rgba8, 11);
    let small = random_image(130, 17, PixelFormat::Rgba8, 12);
    let mut variants = vec![false];
    if gpu().has_subgroups() {
        variants.push(true);
    }
    for sg in variants {
        for r in [0, 1, 5, 64] {
            assert_eq!(
                gpu_vs_cpu(Box::new(BoxBlur::new(r).unwrap().with_subgroups(sg)), &img),
                0,
                "radius {r} subgroups {sg}"
            );
        }
        for (ch, sh) in [(1, 1), (1, 5), (2, 6), (4, 8), (4, 128)] {
            let f = BoxBlur::new(9)
                .unwrap()
                .with_schedule(ch, sh)
                .with_subgroups(sg);
            assert_eq!(
                gpu_vs_cpu(Box::new(f), &small),
                0,
                "schedule {ch}/{sh} subgroups {sg}"
            );
        }
    }
    // radius 0 is the identity
    let (out, _) = run(
        &gpu_backend(),
        Box::new(BoxBlur::new(0).unwrap()),
        &small,
        &RunOptions::default(),
    )
    .unwrap();
    assert_eq!(out, small);
    assert_eq!(box_blur::box_cpu(&small, 0).unwrap(), small);
}

/// The `sweep` schedules (box_blur_sweep.wgsl) against the CPU twin, exactly: sizes across
/// strip boundaries (a strip is 512 or 256 columns minus 2*r4 halo; 16-128 rows), widths that
/// are and are not multiples of 4 (16-byte vs per-pixel paths), one-pixel rows and columns,
/// radii whose rounding up to 4 leaves 0-3 spare halo columns, and radii beyond the image.
#[test]
fn box_blur_sweep_variants_are_exact() {
    sweep_variants_are_exact(&["sweep", "sweep_short", "sweep_tall", "sweep64"], &[]);
}

/// The `blocks` schedules (sweep walk primed from block sums): the sweep cases plus heights
/// that are not multiples of the 8-row blocks, windows inside one block, 1x1 and 4x1.
#[test]
fn box_blur_blocks_variants_are_exact() {
    let extra: &[((u32, u32), &[u32])] = &[
        ((1, 1), &[0, 2]),
        ((4, 1), &[1, 64]),
        ((132, 37), &[0, 1, 3, 8, 15, 64]),
        ((8, 300), &[5, 17, 64]),
    ];
    sweep_variants_are_exact(
        &["blocks", "blocks_short", "blocks192", "blocks_lb2"],
        extra,
    );
}

fn sweep_variants_are_exact(variants: &[&str], extra: &[((u32, u32), &[u32])]) {
    if !gpu().has_subgroups() {
        eprintln!("skipped: no subgroup operations on this device");
        return;
    }
    let base: &[((u32, u32), &[u32])] = &[
        ((256, 200), &[0, 1, 2, 3, 4, 15, 64]),
        ((70, 256), &[1, 5, 34, 64]),
        ((1, 256), &[0, 3, 64]),
        ((256, 1), &[2, 64]),
        ((3, 3), &[0, 1, 7]),
        ((67, 43), &[4, 6, 33]),
        ((260, 67), &[9, 63]),
        // wider than 256 on purpose: the only way to cross a strip boundary of the 512-column
        // strips (504 output columns at r=4, 384 at r=64); few pixels
        ((520, 24), &[4, 64]),
    ];
    let cases: Vec<((u32, u32), &[u32])> = base.iter().chain(extra).copied().collect();
    for &variant in variants {
        let o = vec![("box_blur".to_string(), variant.to_string())];
        for (i, &((w, h), radii)) in cases.iter().enumerate() {
            let img = random_image(w, h, PixelFormat::Rgba8, 40 + i as u64);
            for &r in radii {
                assert_eq!(
                    gpu_vs_cpu_scheduled(Box::new(BoxBlur::new(r).unwrap()), &img, &o),
                    0,
                    "{variant} {w}x{h} radius {r}"
                );
            }
        }
        // extreme values: sums at the top of the range, and a single bright pixel
        let white = constant(131, 70, [255, 255, 255, 255]);
        let (out, _) = run(
            &gpu_backend(),
            Box::new(BoxBlur::new(64).unwrap()),
            &white,
            &RunOptions {
                poison: true,
                schedules: o.clone(),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(out, white, "{variant} white");
        let mut px = vec![0u8; 200 * 90 * 4];
        px[(45 * 200 + 100) * 4..][..4].copy_from_slice(&[255, 128, 1, 77]);
        let dot = Image::from_u8(200, 90, PixelFormat::Rgba8, px).unwrap();
        for r in [0, 1, 5] {
            assert_eq!(
                gpu_vs_cpu_scheduled(Box::new(BoxBlur::new(r).unwrap()), &dot, &o),
                0,
                "{variant} dot radius {r}"
            );
        }
    }
}

#[test]
fn box_blur_unknown_schedule_is_an_error() {
    let o = vec![("box_blur".to_string(), "sweeep".to_string())];
    let img = random_image(8, 8, PixelFormat::Rgba8, 1);
    let e = run(
        &gpu_backend(),
        Box::new(BoxBlur::new(2).unwrap()),
        &img,
        &RunOptions {
            schedules: o,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        e.contains("unknown schedule") && e.contains("sweep_tall"),
        "{e}"
    );
    // the previous default stays reachable by name
    let o = vec![("box_blur".to_string(), "strip".to_string())];
    let big = random_image(300, 40, PixelFormat::Rgba8, 2);
    assert_eq!(
        gpu_vs_cpu_scheduled(Box::new(BoxBlur::new(7).unwrap()), &big, &o),
        0
    );
}

/// The radix-selection median (radius 3 and up) and the networks it hands radius 1 and 2 to are
/// exact at awkward sizes, on noise and on blocks (many equal values: ties at the median), and
/// the CPU twin agrees with an image of one bright speck per window (the median ignores it).
#[test]
fn median_is_exact_at_every_method_and_awkward_sizes() {
    use texelflow::filters::neighborhood::Median;
    for (r, (w, h)) in [
        (1, (67, 43)),
        (2, (1, 9)),
        (3, (67, 43)),
        (4, (1, 1)),
        (5, (37, 1)),
        (7, (40, 33)),
        (16, (70, 35)),
    ] {
        for img in [
            random_image(w, h, PixelFormat::Rgba8, 40 + r as u64),
            blocks(w, h, 3, r as u64),
        ] {
            assert_eq!(
                gpu_vs_cpu(Box::new(Median::new(r).unwrap()), &img),
                0,
                "median radius {r} at {w}x{h}"
            );
        }
    }
    let mut speck = constant(40, 40, [10, 20, 30, 255]);
    speck.as_u8_mut()[4 * (20 * 40 + 20)] = 255;
    for backend in [gpu_backend(), Backend::Cpu] {
        let (out, _) = run(
            &backend,
            Box::new(Median::new(3).unwrap()),
            &speck,
            &RunOptions::default(),
        )
        .unwrap();
        assert!(out.as_u8().chunks(4).all(|p| p == [10, 20, 30, 255]));
    }
}

/// Kuwahara at every radius up to the largest, on noise and on blocks (many equal variances:
/// the tie order decides), equal to the twin at awkward sizes.
#[test]
fn kuwahara_is_exact_at_every_radius_and_awkward_sizes() {
    use texelflow::filters::neighborhood::{Kuwahara, KuwaharaRadius3};
    for (r, (w, h)) in [
        (1, (67, 43)),
        (2, (1, 9)),
        (3, (9, 1)),
        (4, (1, 1)),
        (5, (37, 20)),
        (8, (40, 33)),
        (16, (70, 35)),
    ] {
        for img in [
            random_image(w, h, PixelFormat::Rgba8, 60 + r as u64),
            blocks(w, h, 3, r as u64),
        ] {
            assert_eq!(
                gpu_vs_cpu(Box::new(Kuwahara::new(r).unwrap()), &img),
                0,
                "kuwahara radius {r} at {w}x{h}"
            );
        }
    }
    assert_eq!(
        gpu_vs_cpu(Box::new(KuwaharaRadius3), &blocks(50, 30, 2, 9)),
        0
    );
}

/// The edge-preserving property: a vertical step between two noisy flat regions stays a step
/// (every output pixel within a few levels of its own side's level) while the noise on each
/// side shrinks; a box blur of the same size smears the same edge.
#[test]
fn kuwahara_keeps_a_step_edge_sharp_and_smooths_the_noise() {
    use texelflow::filters::neighborhood::Kuwahara;
    let (w, h, edge) = (64u32, 40u32, 32u32);
    let mut rng = Rng(99);
    let mut px = Vec::new();
    for _y in 0..h {
        for x in 0..w {
            let base = if x < edge { 60i32 } else { 190 };
            let v = (base + (rng.next() % 41) as i32 - 20) as u8; // +-20 levels of noise
            px.extend([v, v, v, 255]);
        }
    }
    let img = Image::from_u8(w, h, PixelFormat::Rgba8, px).unwrap();
    // spread of the samples of one side away from the image border and the edge
    let spread = |im: &Image, xs: std::ops::Range<u32>| {
        let v: Vec<f64> = (8..h - 8)
            .flat_map(|y| xs.clone().map(move |x| (x, y)))
            .map(|(x, y)| im.as_u8()[((y * w + x) * 4) as usize] as f64)
            .collect();
        let m = v.iter().sum::<f64>() / v.len() as f64;
        (v.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / v.len() as f64).sqrt()
    };
    for backend in [gpu_backend(), Backend::Cpu] {
        let (out, _) = run(
            &backend,
            Box::new(Kuwahara::new(4).unwrap()),
            &img,
            &RunOptions::default(),
        )
        .unwrap();
        for y in 0..h {
            for x in 0..w {
                let v = out.as_u8()[((y * w + x) * 4) as usize] as i32;
                let side = if x < edge { 60 } else { 190 };
                assert!(
                    (v - side).abs() <= 15,
                    "({x}, {y}) = {v}, its side is {side}: the edge was smeared"
                );
            }
        }
        for xs in [8..edge - 8, edge + 8..w - 8] {
            let (before, after) = (spread(&img, xs.clone()), spread(&out, xs.clone()));
            assert!(
                after < before / 2.0,
                "noise {before:.1} -> {after:.1}: not smoothed"
            );
        }
        let (blurred, _) = run(
            &backend,
            Box::new(BoxBlur::new(4).unwrap()),
            &img,
            &RunOptions::default(),
        )
        .unwrap();
        let mid = blurred.as_u8()[((20 * w + edge) * 4) as usize] as i32;
        assert!(
            (mid - 125).abs() < 40,
            "a box blur smears the edge to about mid-level, got {mid}"
        );
    }
}

/// The tie order: two quadrants of equal variance and different means (point reflections of
/// each other through the centre) and two of high variance. GPUImageKuwaharaFilter compares
/// top-right before bottom-left, the Radius3 shader bottom-left before top-right.
#[test]
fn kuwahara_ties_follow_each_gpuimage_shader() {
    use texelflow::filters::neighborhood::{Kuwahara, KuwaharaRadius3};
    let mut px = vec![0u8; 7 * 7 * 4];
    for y in 0..7i32 {
        for x in 0..7i32 {
            let (dx, dy) = (x - 3, y - 3);
            // top-right (and its reflection, bottom-left) ramps; the strict top-left and bottom-right quadrants flicker 0/255
            let v = if dx >= 0 && dy <= 0 {
                128 + (dx * 7 - dy * 3)
            } else if dx <= 0 && dy >= 0 {
                128 - (-dx * 7 + dy * 3)
            } else if (x + y) % 2 == 0 {
                0
            } else {
                255
            };
            px[((y * 7 + x) * 4) as usize..][..4]
                .copy_from_slice(&[v as u8, v as u8, v as u8, 255]);
        }
    }
    let img = Image::from_u8(7, 7, PixelFormat::Rgba8, px).unwrap();
    let centre = |f: Box<dyn Filter>, backend: &Backend| {
        run(backend, f, &img, &RunOptions::default())
            .unwrap()
            .0
            .as_u8()[(3 * 7 + 3) * 4]
    };
    for backend in [gpu_backend(), Backend::Cpu] {
        // the ramps add 7 |dx| + 3 |dy| (240 over a quadrant): means 128 + 15 and 128 - 15
        assert_eq!(
            centre(Box::new(Kuwahara::new(3).unwrap()), &backend),
            143,
            "GPUImageKuwaharaFilter takes top-right"
        );
        assert_eq!(
            centre(Box::new(KuwaharaRadius3), &backend),
            113,
            "GPUImageKuwaharaRadius3Filter takes bottom-left"
        );
    }
}

/// CLAHE with tiles large enough that several workgroups add to one tile's histogram, on RGBA8
/// and Gray8, equal to the twin (within the one level the f32 blend allows); plain equalisation
/// per tile (clip 0) and a tight clip.
#[test]
fn clahe_matches_cpu_with_large_tiles() {
    use texelflow::filters::neighborhood::Clahe;
    let img = random_image(203, 97, PixelFormat::Rgba8, 5);
    for (clip, tx, ty) in [(40.0, 1, 1), (0.0, 2, 1), (1.5, 3, 2), (2.0, 8, 8)] {
        for im in [img.clone(), img.convert(PixelFormat::Gray8)] {
            assert!(
                gpu_vs_cpu(Box::new(Clahe::new(clip, tx, ty).unwrap()), &im) <= 1,
                "clahe({clip}, {tx}x{ty}) on {:?}",
                im.format()
            );
        }
    }
}

#[test]
fn sobel_is_black_on_flat_images_and_matches_cpu() {
    let flat = constant(45, 40, [90, 30, 200, 17]);
    let (out, _) = run(
        &gpu_backend(),
        Box::new(SobelEdgeDetection::new(10.0).unwrap()),
        &flat,
        &RunOptions {
            poison: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(out, constant(45, 40, [0, 0, 0, 255]));
    let img = random_image(100, 70, PixelFormat::Rgba8, 5);
    for s in [0.0, 0.3, 1.0, 10.0] {
        assert!(
            gpu_vs_cpu(Box::new(SobelEdgeDetection::new(s).unwrap()), &img) <= 1,
            "strength {s}"
        );
    }
}

/// GPU time per kernel at 3840x2160 RGBA8 against a copy kernel (`to_rgba` on RGBA8 input).
/// Each case runs as a chain alternating copy and the filter in one submission, so both see
/// the same device state (clocks, other work); the medians of each are reported.
/// `cargo test --release --test neighborhood -- --ignored --nocapture bench`
/// (`NEIGH_BENCH=prefix,prefix` selects cases).
#[test]
#[ignore]
fn bench_neighborhood_4k() {
    let pairs: usize = std::env::var("NEIGH_CHAIN")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(16);
    let backend = gpu_backend();
    let info = gpu().info();
    eprintln!(
        "device: {} ({}), workgroup memory {} bytes, subgroups {}",
        info.name,
        info.backend,
        info.max_workgroup_storage,
        gpu().has_subgroups()
    );
    let img = random_image(3840, 2160, PixelFormat::Rgba8, 1);
    let opts = RunOptions {
        timings: true,
        ..Default::default()
    };
    let only: Vec<String> = std::env::var("NEIGH_BENCH")
        .map(|s| s.split(',').map(String::from).collect())
        .unwrap_or_default();
    let median = |mut v: Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    let time = |f: Box<dyn Filter>| -> Result<(f64, f64), String> {
        let mut g = Graph::new();
        let mut p = g.source("in", img.desc()).map_err(|e| e.to_string())?;
        for _ in 0..pairs {
            p = g
                .add_boxed(Box::new(ToRgba), &[p])
                .map_err(|e| e.to_string())?[0];
            p = g.add_boxed(f.clone(), &[p]).map_err(|e| e.to_string())?[0];
        }
        g.output("out", p).map_err(|e| e.to_string())?;
        let mut best = (f64::INFINITY, 1.0);
        for _ in 0..2 {
            let r = backend
                .run(&g, &[("in", &img)], &opts)
                .map_err(|e| e.to_string())?;
            let t: Vec<f64> = r.timings.iter().map(|t| t.ms).collect();
            // skip the first quarter while clocks ramp up
            let skip = pairs / 4;
            let copy = median(t.iter().step_by(2).skip(skip).copied().collect());
            let case = median(t.iter().skip(1).step_by(2).skip(skip).copied().collect());
            if case < best.0 {
                best = (case, copy);
            }
        }
        Ok(best)
    };
    let mut cases: Vec<(String, Box<dyn Filter>)> = Vec::new();
    for sigma in [1.0f32, 2.0, 3.0, 5.0, 8.0, 12.0] {
        cases.push((
            format!("gaussian sigma={sigma} auto"),
            Box::new(GaussianBlur::new(sigma).unwrap()),
        ));
    }
    let tiles = [
        (8, 32, 8, 1),
        (16, 16, 8, 1),
        (16, 32, 8, 2),
        (16, 32, 16, 2),
        (16, 64, 8, 4),
        (16, 64, 16, 4),
        (32, 32, 8, 4),
        (32, 32, 16, 4),
        (32, 64, 8, 8),
    ];
    for sigma in [2.0f32, 3.0, 8.0] {
        for (tw, th, kh, kv) in tiles {
            let t = gaussian_blur::FusedTile { tw, th, kh, kv };
            cases.push((
                format!("gaussian sigma={sigma} {tw}x{th} kh{kh} kv{kv}"),
                Box::new(
                    GaussianBlur::new(sigma)
                        .unwrap()
                        .with_schedule(gaussian_blur::Schedule::Fused(t)),
                ),
            ));
        }
        cases.push((
            format!("gaussian sigma={sigma} two-pass"),
            Box::new(
                GaussianBlur::new(sigma)
                    .unwrap()
                    .with_schedule(gaussian_blur::Schedule::TwoPass),
            ),
        ));
    }
    for r in [1u32, 4, 15, 64] {
        cases.push((
            format!("box r={r} auto"),
            Box::new(BoxBlur::new(r).unwrap()),
        ));
        cases.push((
            format!("box r={r} ch2 strip32 scan"),
            Box::new(
                BoxBlur::new(r)
                    .unwrap()
                    .with_schedule(2, 32)
                    .with_subgroups(false),
            ),
        ));
        for (ch, sh) in [(1, 16), (1, 32), (1, 64), (2, 32), (2, 64), (4, 64)] {
            cases.push((
                format!("box r={r} ch{ch} strip{sh} subgroups"),
                Box::new(
                    BoxBlur::new(r)
                        .unwrap()
                        .with_schedule(ch, sh)
                        .with_subgroups(true),
                ),
            ));
        }
    }
    cases.push((
        "sobel".into(),
        Box::new(SobelEdgeDetection::new(1.0).unwrap()),
    ));
    for (name, f) in cases {
        if !only.is_empty() && !only.iter().any(|o| name.starts_with(o.as_str())) {
            continue;
        }
        match time(f) {
            Ok((t, copy)) => eprintln!(
                "{name:<44} {t:>8.4} ms  copy {copy:.4} ms  {:>5.2}x copy",
                t / copy
            ),
            Err(e) => eprintln!("{name:<44} skipped: {}", e.lines().next().unwrap_or("")),
        }
    }
}

/// Diagnostic: a copy kernel that also round-trips through `words` u32 of workgroup memory,
/// to see how workgroup-memory size affects a memory-bound kernel on this device. On H200
/// (Vulkan) a 256-invocation workgroup ran at copy speed up to 4 KiB, 1.3x slower at 8 KiB,
/// 2.4x at 16 KiB and 6.5x at 32 KiB: about 64 KiB per SM are shared by resident workgroups.
/// `cargo test --release --test neighborhood -- --ignored --nocapture diag`
#[derive(Clone, Debug)]
struct SharedDiag {
    words: u32,
    wg: u32,
}

static DIAG_DEF: texelflow::FilterDef = texelflow::FilterDef {
    name: "diag",
    family: texelflow::registry::Family::Convert,
    summary: "diagnostic",
    doc: "",
    gpuimage: "",
    params: &[],
    inputs: texelflow::registry::IMAGE,
    outputs: texelflow::registry::IMAGE,
    tolerance: texelflow::registry::EXACT_ENOUGH,
    build: |_| Err(texelflow::Error::invalid("diagnostic only")),
    uniforms: &[],
    test_inputs: None,
    schedules: &[],
};

impl Filter for SharedDiag {
    fn footprint(&self, _: &[texelflow::ValueDesc]) -> texelflow::registry::Footprint {
        texelflow::registry::Footprint::WholeImage
    }
    fn def(&self) -> &'static texelflow::FilterDef {
        &DIAG_DEF
    }
    fn output_descs(
        &self,
        inputs: &[texelflow::ValueDesc],
    ) -> texelflow::Result<Vec<texelflow::ValueDesc>> {
        Ok(inputs.to_vec())
    }
    fn run_cpu(&self, _: &[&Value], _: &[texelflow::ValueDesc]) -> texelflow::Result<Vec<Value>> {
        Err(texelflow::Error::invalid("diagnostic only"))
    }
    fn record_gpu(
        &self,
        rec: &mut texelflow::extend::NodeRecorder<'_>,
        inputs: &[texelflow::extend::GpuSlot],
        outputs: &[texelflow::extend::GpuSlot],
    ) -> texelflow::Result<()> {
        let (n, wg) = (self.words, self.wg);
        let src = format!(
            "@group(0) @binding(0) var<storage, read> src: array<u32>;\n@group(0) @binding(1) var<storage, read_write> dst: array<u32>;\nvar<workgroup> buf: array<u32, {n}>;\n\
             @compute @workgroup_size({wg})\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n\
             let i = linear_id(wid, nwg, lid, {wg}u);\n let n = arrayLength(&dst);\n var v = 0u;\n if (i < n) {{ v = src[i]; }}\n buf[lid * {s}u] = v;\n workgroupBarrier();\n if (i < n) {{ dst[i] = buf[(lid ^ 1u) * {s}u]; }}\n}}\n",
            s = n / wg
        );
        let mut k = texelflow::extend::Kernel::new(&format!("diag.{n}.{wg}"), &[], "main");
        k.generated = Some(src);
        let px = inputs[0]
            .desc
            .image()
            .map(|d| d.pixels() as u64)
            .unwrap_or(0);
        rec.dispatch(
            &k,
            &[&inputs[0].buffer, &outputs[0].buffer],
            &[],
            texelflow::extend::groups_1d(px, wg),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

#[test]
#[ignore]
fn diag_workgroup_memory_4k() {
    let backend = gpu_backend();
    let img = random_image(3840, 2160, PixelFormat::Rgba8, 1);
    let opts = RunOptions {
        timings: true,
        ..Default::default()
    };
    let time = |f: Box<dyn Filter>| -> Result<f64, String> {
        let mut g = Graph::new();
        let mut p = g.source("in", img.desc()).map_err(|e| e.to_string())?;
        for _ in 0..30 {
            p = g.add_boxed(f.clone(), &[p]).map_err(|e| e.to_string())?[0];
        }
        g.output("out", p).map_err(|e| e.to_string())?;
        let mut best = f64::INFINITY;
        for _ in 0..2 {
            let r = backend
                .run(&g, &[("in", &img)], &opts)
                .map_err(|e| e.to_string())?;
            let mut v: Vec<f64> = r.timings.iter().skip(10).map(|t| t.ms).collect();
            v.sort_by(|a, b| a.total_cmp(b));
            best = best.min(v[v.len() / 2]);
        }
        Ok(best)
    };
    eprintln!("copy {:.4} ms", time(Box::new(ToRgba)).unwrap());
    for wg in [256u32, 64] {
        for kib in [1u32, 4, 8, 12, 16, 24, 32, 48] {
            match time(Box::new(SharedDiag {
                words: kib * 256,
                wg,
            })) {
                Ok(t) => eprintln!("wg {wg:>3} shared {kib:>2} KiB {t:.4} ms"),
                Err(e) => eprintln!("wg {wg} {kib} KiB: {}", e.lines().next().unwrap_or("")),
            }
        }
    }
}

/// The bench-only ablations of `blocks` compile and run (their images are wrong on purpose).
#[test]
#[cfg(feature = "bench")] // the ablations exist only in benchmark builds
fn box_blur_blocks_ablations_run() {
    if !gpu().has_subgroups() {
        eprintln!("skipped: no subgroup operations on this device");
        return;
    }
    let img = random_image(132, 37, PixelFormat::Rgba8, 7);
    for variant in [
        "blocks_ablate_walk",
        "blocks_ablate_nobarrier",
        "blocks_ablate_noprime",
    ] {
        let o = vec![("box_blur".to_string(), variant.to_string())];
        for r in [4, 64] {
            run(
                &gpu_backend(),
                Box::new(BoxBlur::new(r).unwrap()),
                &img,
                &RunOptions {
                    schedules: o.clone(),
                    ..Default::default()
                },
            )
            .unwrap();
        }
    }
}

/// Smooth shading with sharp-edged shapes and a noisy alpha: the guided filter's real input
/// (random noise alone makes var(I) large and a small).
fn matte_scene(w: u32, h: u32, seed: u64) -> Image {
    let mut rng = Rng(seed);
    let mut px = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let inside = (x * 3 / w.max(1) + y * 2 / h.max(1)).is_multiple_of(2);
            let v = if inside {
                180 + (x % 7) as u8
            } else {
                40 + (y % 5) as u8
            };
            let a = if inside {
                235u8.saturating_add(rng.byte() % 20)
            } else {
                rng.byte() % 20
            };
            px.extend([v, v / 2 + 10, 255 - v, a]);
        }
    }
    Image::from_u8(w, h, PixelFormat::Rgba8, px).unwrap()
}

#[test]
fn guided_filter_matches_cpu_at_every_scale_and_awkward_sizes() {
    use texelflow::filters::neighborhood::GuidedFilter;
    let mut worst = 0;
    for (i, &(radius, eps, scale)) in [
        (1, 1e-4, 1),
        (4, 1e-4, 1),
        (8, 1e-2, 2),
        (40, 1e-4, 8),
        (5, 1e-4, 3),
        (100, 1e-3, 16),
    ]
    .iter()
    .enumerate()
    {
        for (w, h) in [(1, 1), (1, 9), (9, 1), (67, 43), (130, 17)] {
            for img in [
                random_image(w, h, PixelFormat::Rgba8, 70 + i as u64),
                matte_scene(w, h, i as u64),
            ] {
                let d = gpu_vs_cpu(
                    Box::new(GuidedFilter::new(radius, eps, scale).unwrap()),
                    &img,
                );
                worst = worst.max(d);
                assert!(d <= 2, "guided_filter radius {radius} eps {eps} scale {scale} at {w}x{h}: {d} levels from the twin");
            }
        }
    }
    eprintln!("guided_filter: worst GPU-CPU difference {worst} levels");
}

/// A flat alpha stays flat (a = 0, b = p) whatever the image.
#[test]
fn guided_filter_keeps_a_constant_alpha() {
    use texelflow::filters::neighborhood::GuidedFilter;
    let mut img = random_image(40, 30, PixelFormat::Rgba8, 5);
    let mut data = img.as_u8().to_vec();
    data.chunks_exact_mut(4).for_each(|p| p[3] = 200);
    img = Image::from_u8(40, 30, PixelFormat::Rgba8, data.clone()).unwrap();
    for backend in [gpu_backend(), Backend::Cpu] {
        for scale in [1, 4] {
            let (out, _) = run(
                &backend,
                Box::new(GuidedFilter::new(6, 1e-4, scale).unwrap()),
                &img,
                &RunOptions::default(),
            )
            .unwrap();
            for (o, i) in out.as_u8().chunks_exact(4).zip(data.chunks_exact(4)) {
                assert_eq!(&o[..3], &i[..3], "colour kept");
                assert!(
                    (o[3] as i32 - 200).abs() <= 1,
                    "alpha {} from a flat 200",
                    o[3]
                );
            }
        }
    }
}

/// Matting: a soft mask (the object's square blurred by a 9x9 box, as a low-resolution matte
/// upsampled) is pulled onto the object's sharp edge. The filter keeps local means of the mask
/// (its mean error to the true matte does not change), so what it does is the edge: the jump
/// between the two pixels across it grows from 29 levels to most of the range, and both move
/// toward the true matte.
#[test]
fn guided_filter_snaps_a_soft_mask_to_the_edge() {
    use texelflow::filters::neighborhood::GuidedFilter;
    let (w, h, lo, hi, blur) = (64i32, 64i32, 20i32, 44i32, 4i32);
    let mut rng = Rng(7);
    let obj = |x: i32, y: i32| {
        (lo..hi).contains(&x.clamp(0, w - 1)) && (lo..hi).contains(&y.clamp(0, h - 1))
    };
    let mut px = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let v = if obj(x, y) { 200 } else { 50 } + (rng.next() % 7) as u8;
            let inside = (-blur..=blur)
                .flat_map(|j| (-blur..=blur).map(move |i| (i, j)))
                .filter(|&(i, j)| obj(x + i, y + j))
                .count();
            px.extend([v, v, v, (inside as f64 * 255.0 / 81.0).round() as u8]);
        }
    }
    let img = Image::from_u8(w as u32, h as u32, PixelFormat::Rgba8, px).unwrap();
    let alpha = |im: &Image, x: i32, y: i32| im.as_u8()[((y * w + x) * 4 + 3) as usize] as i32;
    for backend in [gpu_backend(), Backend::Cpu] {
        for (radius, scale) in [(8, 1), (8, 2), (16, 4)] {
            let (out, _) = run(
                &backend,
                Box::new(GuidedFilter::new(radius, 1e-4, scale).unwrap()),
                &img,
                &RunOptions::default(),
            )
            .unwrap();
            for y in lo + 6..hi - 6 {
                for (outside, inside) in [(lo - 1, lo), (hi, hi - 1)] {
                    let (o0, i0) = (alpha(&img, outside, y), alpha(&img, inside, y));
                    let (o1, i1) = (alpha(&out, outside, y), alpha(&out, inside, y));
                    assert!(i1 - o1 >= 110 && o1 < o0 && i1 > i0, "radius {radius} scale {scale} row {y}: {o0} | {i0} across the edge became {o1} | {i1}");
                }
            }
        }
    }
}

#[test]
fn guided_filter_bad_parameters_are_one_line_errors() {
    use texelflow::filters::neighborhood::GuidedFilter;
    for e in [
        GuidedFilter::new(0, 1e-4, 1).unwrap_err(),
        GuidedFilter::new(4, 0.0, 1).unwrap_err(),
        GuidedFilter::new(4, 1e-4, 0).unwrap_err(),
        GuidedFilter::new(4, 1e-4, 17).unwrap_err(),
    ] {
        let m = e.to_string();
        assert!(
            !m.contains('\n') && m.contains("guided_filter") && m.contains("out of range ["),
            "{m}"
        );
    }
    let e = texelflow::registry::create("guided_filter(scale=1.5)")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(!e.is_empty() && !e.contains('\n'), "{e}");
}

/// The luminance stencils' scalar window (`rows4s`, their default on widths that are a multiple
/// of 4) gives the bytes of the vec4 window (`rows4`) exactly, on sizes spanning several strips
/// and row blocks, with random parameters.
#[test]
fn scalar_window_stencils_equal_the_vec4_window() {
    use texelflow::params::{Args, ParamKind, RawValue};
    let names = [
        "prewitt_edge_detection",
        "sketch",
        "threshold_edge_detection",
        "threshold_sketch",
        "xy_derivative",
        "local_binary_pattern",
    ];
    let mut rng = Rng(11);
    for name in names {
        let def = texelflow::registry::find(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(def.schedules.contains(&"rows4s"), "{name} declares rows4s");
        for (w, h, seed) in [(260, 37, 1), (516, 40, 2), (4, 3, 3)] {
            let raw: Vec<(String, RawValue)> = def
                .params
                .iter()
                .filter_map(|p| match p.kind {
                    ParamKind::Float { min, max, .. } => Some((
                        p.name.to_string(),
                        RawValue::Number(min + (max - min) * rng.unit()),
                    )),
                    _ => None,
                })
                .collect();
            let args = Args::resolve(def, &raw).unwrap_or_else(|e| panic!("{name}: {e}"));
            let img = random_image(w, h, PixelFormat::Rgba8, seed);
            let out = |variant: &str| {
                let opts = RunOptions {
                    poison: true,
                    schedules: vec![(name.to_string(), variant.to_string())],
                    ..Default::default()
                };
                run(&gpu_backend(), (def.build)(&args).unwrap(), &img, &opts)
                    .unwrap_or_else(|e| panic!("{name} {variant}: {e}"))
                    .0
            };
            assert_eq!(
                out("rows4s").as_u8(),
                out("rows4").as_u8(),
                "{name} {w}x{h} {args:?}"
            );
        }
    }
}

/// Bilateral: every schedule against the twin on an image several tiles wide and high, at
/// radii on both sides of where the tile stops fitting lavapipe's workgroup memory.
#[test]
fn bilateral_schedules_match_cpu() {
    use texelflow::filters::neighborhood::Bilateral;
    for format in [PixelFormat::Rgba8, PixelFormat::Gray8] {
        let img = random_image(141, 75, format, 5);
        for (radius, sc, ss) in [(5, 30.0, 3.0), (2, 8.0, 1.0), (7, 200.0, 6.0)] {
            for variant in ["direct", "tile", "tile_bh2", "tile_lut"] {
                let o = vec![("bilateral".to_string(), variant.to_string())];
                let f = Box::new(Bilateral::new(radius, sc, ss).unwrap());
                let d = gpu_vs_cpu_scheduled(f, &img, &o);
                assert!(d <= 1, "{format:?} r={radius} {variant}: {d}");
            }
        }
    }
}
