//! Resize schedules against the CPU twin at the shapes where the row-walking kernel's tiling is
//! partial: output widths of 4 (one column quad), quads that leave the last 64-wide workgroup
//! partly empty, heights that are not multiples of the rows per invocation, 1-pixel inputs,
//! non-integer ratios, ratio 1, and (`rows_any`) reductions and mixed ratios. Outputs are
//! poisoned before each GPU run; every schedule must also equal the default GPU kernel bit for
//! bit (they compute the same f32 values, only shared differently).

mod common;

use common::*;
use texelflow::filters::geometry::Resize;
use texelflow::{Backend, Graph, Image, PixelFormat, RunOptions};

/// Resize alone, colour straight: these tests hold the kernels to the twin and to known values
/// (the premultiplied path around it: tests/alpha.rs).
fn run(backend: &Backend, img: &Image, ow: u32, oh: u32) -> Image {
    run_scheduled(backend, img, ow, oh, &[])
}

/// `run` with the schedule overrides `schedules` in the run's options.
fn run_scheduled(
    backend: &Backend,
    img: &Image,
    ow: u32,
    oh: u32,
    schedules: &[(String, String)],
) -> Image {
    let mut g = Graph::new();
    g.set_straight_alpha(true);
    let s = g.source("in", img.desc()).unwrap();
    let o = g.add1(Resize::to(ow, oh).unwrap(), &[s]).unwrap();
    g.output("out", o).unwrap();
    let mut r = backend
        .run(
            &g,
            &[("in", img)],
            &RunOptions {
                poison: true,
                schedules: schedules.to_vec(),
                ..Default::default()
            },
        )
        .unwrap();
    r.take("out").unwrap().into_image().unwrap()
}

/// (input w, h, output w, h)
const UP: &[(u32, u32, u32, u32)] = &[
    (1, 1, 4, 1),
    (1, 1, 4, 9),
    (1, 9, 8, 17),
    (9, 1, 12, 1),
    (2, 3, 4, 7),
    (3, 2, 8, 5),
    (7, 5, 12, 13),
    (4, 3, 4, 3),
    (100, 60, 100, 60),
    (67, 43, 132, 86),
    (130, 17, 260, 34),
    (260, 37, 520, 74),
    (67, 43, 260, 101),
    (33, 70, 36, 71),
    (5, 4, 1028, 3),
    (960, 540, 1920, 1080),
];

/// Shapes that shrink at least one side: `rows` leaves them to the default kernel.
const DOWN: &[(u32, u32, u32, u32)] = &[
    (67, 43, 32, 20),
    (260, 37, 100, 9),
    (130, 17, 4, 1),
    (9, 1, 4, 1),
    (20, 40, 40, 20),
    (40, 20, 20, 41),
    (1024, 9, 260, 30),
];

fn check(variant: &str, shapes: &[(u32, u32, u32, u32)]) {
    let overrides = vec![("resize".to_string(), variant.to_string())];
    for (i, &(w, h, ow, oh)) in shapes.iter().enumerate() {
        let img = random_image(w, h, PixelFormat::Rgba8, 40 + i as u64);
        let cpu = run(&Backend::Cpu, &img, ow, oh);
        let default = run(&gpu_backend(), &img, ow, oh);
        let gpu = run_scheduled(&gpu_backend(), &img, ow, oh, &overrides);
        assert_eq!((gpu.width(), gpu.height()), (ow, oh));
        let diff = gpu
            .as_u8()
            .iter()
            .zip(cpu.as_u8())
            .map(|(a, b)| (*a as i32 - *b as i32).abs())
            .max()
            .unwrap();
        assert!(
            diff <= 1,
            "{variant} {w}x{h} -> {ow}x{oh}: max diff {diff} against the CPU twin"
        );
        let first = gpu
            .as_u8()
            .iter()
            .zip(default.as_u8())
            .position(|(a, b)| a != b);
        assert!(
            first.is_none(),
            "{variant} {w}x{h} -> {ow}x{oh}: differs from the default kernel at byte {first:?}"
        );
    }
}

#[test]
fn rows_schedules_match_cpu_at_partial_tiles() {
    for v in ["quads", "rows", "rows16", "rows_any", "rows16_mu"] {
        check(v, UP);
    }
}

#[test]
fn rows_any_matches_cpu_when_shrinking() {
    check("rows_any", DOWN);
    check("rows", DOWN);
}

/// Schedule `tile` (seed 004's workgroup-memory kernel): bit-identical to the default kernel at
/// partial blocks, enlargements, reductions within the tile (down to 1/2) and past it (blocks
/// that read the source directly).
#[test]
fn tile_schedule_matches_cpu_and_default() {
    check("tile", UP);
    check("tile", DOWN);
    check(
        "tile",
        &[
            (64, 48, 32, 24),
            (65, 47, 33, 23),
            (100, 100, 17, 100),
            (300, 7, 61, 7),
        ],
    );
}

fn run_with(backend: &Backend, img: &Image, spec: &str, schedules: &[(String, String)]) -> Image {
    let mut g = Graph::new();
    g.set_straight_alpha(true);
    let s = g.source("in", img.desc()).unwrap();
    let o = g
        .add_boxed(texelflow::registry::create(spec).unwrap(), &[s])
        .unwrap()[0];
    g.output("out", o).unwrap();
    let mut r = backend
        .run(
            &g,
            &[("in", img)],
            &RunOptions {
                poison: true,
                schedules: schedules.to_vec(),
                ..Default::default()
            },
        )
        .unwrap();
    r.take("out").unwrap().into_image().unwrap()
}

/// Every method and alignment against the CPU twin at awkward shapes: 1-pixel sides, odd
/// ratios, mixed enlarge/shrink (area switches to its area-bilinear), large reductions (area's
/// many taps) and single-row outputs.
#[test]
fn methods_match_cpu() {
    // (67, 43, 150, 19): shrinking rows by 2.3, the largest step whose 16-row blocks fit the tile
    let shapes: &[(u32, u32, u32, u32)] = &[
        (1, 1, 5, 3),
        (9, 1, 4, 7),
        (67, 43, 132, 86),
        (67, 43, 20, 13),
        (130, 17, 7, 40),
        (260, 37, 9, 2),
        (5, 4, 1, 1),
        (40, 30, 40, 30),
        (67, 43, 150, 19),
        // enlarging (`general_rows`): widths that are and are not multiples of 4, single rows
        (13, 9, 30, 19),
        (260, 37, 520, 74),
        (5, 4, 1028, 3),
        (3, 1, 8, 1),
        // exact halvings (`half` for bilinear and area), and one whose width is not a multiple of 4
        (16, 8, 8, 4),
        (72, 10, 36, 5),
        (8, 2, 4, 1),
        (20, 6, 10, 3),
    ];
    for method in ["nearest", "bilinear", "bicubic", "lanczos3", "area"] {
        for align in ["false", "true"] {
            if method == "area" && align == "true" {
                continue;
            }
            for (i, &(w, h, ow, oh)) in shapes.iter().enumerate() {
                let img = random_image(w, h, PixelFormat::Rgba8, 70 + i as u64);
                let spec = format!(
                    "resize(width={ow}, height={oh}, method={method}, align_corners={align})"
                );
                let cpu = run_with(&Backend::Cpu, &img, &spec, &[]);
                // the default (bicubic and lanczos3: `general_rows` where no side shrinks),
                // row sums shared in workgroup memory where a block's rows fit, and the
                // one-output-per-invocation kernel
                for variant in [
                    "default",
                    "general_rows",
                    "general_rows2",
                    "general_tile",
                    "general_direct",
                ] {
                    let overrides = if variant == "default" {
                        vec![]
                    } else {
                        vec![("resize".to_string(), variant.to_string())]
                    };
                    let gpu = run_with(&gpu_backend(), &img, &spec, &overrides);
                    assert_eq!((gpu.width(), gpu.height()), (ow, oh), "{spec}");
                    let diff = gpu
                        .as_u8()
                        .iter()
                        .zip(cpu.as_u8())
                        .map(|(a, b)| (*a as i32 - *b as i32).abs())
                        .max()
                        .unwrap();
                    assert!(
                        diff <= 1,
                        "{spec} [{variant}] on {w}x{h}: max diff {diff} against the CPU twin"
                    );
                }
            }
        }
    }
}

/// Nearest and area at integer factors are exact selections / averages: nearest 2x picks
/// floor(d / 2) (OpenCV INTER_NEAREST), area 1/2 averages 2x2 blocks rounded half up.
#[test]
fn nearest_and_area_known_values() {
    let img = random_image(6, 4, PixelFormat::Rgba8, 9);
    let s = img.as_u8();
    for b in [Backend::Cpu, gpu_backend()] {
        let up = run_with(&b, &img, "resize(width=12, height=8, method=nearest)", &[]);
        for (i, px) in up.as_u8().chunks(4).enumerate() {
            let (x, y) = (i % 12 / 2, i / 12 / 2);
            assert_eq!(px, &s[(y * 6 + x) * 4..(y * 6 + x) * 4 + 4]);
        }
        let down = run_with(&b, &img, "resize(width=3, height=2, method=area)", &[]);
        for (i, px) in down.as_u8().chunks(4).enumerate() {
            let (x, y) = (i % 3 * 2, i / 3 * 2);
            for c in 0..4 {
                let sum: u32 = [(0, 0), (1, 0), (0, 1), (1, 1)]
                    .iter()
                    .map(|(dx, dy)| s[((y + dy) * 6 + x + dx) * 4 + c] as u32)
                    .sum();
                assert!(
                    (px[c] as i32 - ((sum + 2) / 4) as i32).abs() <= 1,
                    "area pixel {i} channel {c}"
                );
            }
        }
    }
}

/// Exact halvings (`half`, bilinear and area): the 2x2 mean rounded half up, which the twins
/// compute exactly in f32, so the GPU must equal them byte for byte (the tolerance of 1 the
/// other tests allow would hide a rounding slip).
#[test]
fn halving_equals_the_twin_exactly() {
    for method in ["bilinear", "area"] {
        for (i, &(w, h)) in [(16u32, 8u32), (72, 10), (8, 2), (264, 6)]
            .iter()
            .enumerate()
        {
            let img = random_image(w, h, PixelFormat::Rgba8, 90 + i as u64);
            let spec = format!("resize(width={}, height={}, method={method})", w / 2, h / 2);
            let cpu = run_with(&Backend::Cpu, &img, &spec, &[]);
            for variant in ["default", "half"] {
                let overrides = if variant == "default" {
                    vec![]
                } else {
                    vec![("resize".to_string(), variant.to_string())]
                };
                let gpu = run_with(&gpu_backend(), &img, &spec, &overrides);
                assert_eq!(gpu.as_u8(), cpu.as_u8(), "{spec} [{variant}] on {w}x{h}");
            }
        }
    }
}
