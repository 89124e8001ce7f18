//! Resize schedules against the CPU twin at the shapes where the row-walking kernel's tiling is
//! partial: output widths of 4 (one column quad), quads that leave the last 64-wide workgroup
//! partly empty, heights that are not multiples of the rows per invocation, 1-pixel inputs,
//! non-integer ratios, ratio 1, and (`rows_any`) reductions and mixed ratios. Outputs are
//! poisoned before each GPU run; every schedule must also equal the default GPU kernel bit for
//! bit (they compute the same f32 values, only shared differently).

mod common;

use common::*;
use pixelflow::filters::geometry::Resize;
use pixelflow::runtime::schedule;
use pixelflow::{Backend, Graph, Image, PixelFormat, RunOptions};

fn run(backend: &Backend, img: &Image, ow: u32, oh: u32) -> Image {
    let mut g = Graph::new();
    let s = g.source("in", img.desc()).unwrap();
    let o = g.add1(Resize::to(ow, oh).unwrap(), &[s]).unwrap();
    g.output("out", o).unwrap();
    let mut r = backend.run(&g, &[("in", img)], &RunOptions { poison: true, ..Default::default() }).unwrap();
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
const DOWN: &[(u32, u32, u32, u32)] = &[(67, 43, 32, 20), (260, 37, 100, 9), (130, 17, 4, 1), (9, 1, 4, 1), (20, 40, 40, 20), (40, 20, 20, 41), (1024, 9, 260, 30)];

fn check(variant: &str, shapes: &[(u32, u32, u32, u32)]) {
    let overrides = vec![("resize".to_string(), variant.to_string())];
    for (i, &(w, h, ow, oh)) in shapes.iter().enumerate() {
        let img = random_image(w, h, PixelFormat::Rgba8, 40 + i as u64);
        let cpu = run(&Backend::Cpu, &img, ow, oh);
        let default = run(&gpu_backend(), &img, ow, oh);
        let gpu = schedule::with_overrides(&overrides, || run(&gpu_backend(), &img, ow, oh));
        assert_eq!((gpu.width(), gpu.height()), (ow, oh));
        let diff = gpu.as_u8().iter().zip(cpu.as_u8()).map(|(a, b)| (*a as i32 - *b as i32).abs()).max().unwrap();
        assert!(diff <= 1, "{variant} {w}x{h} -> {ow}x{oh}: max diff {diff} against the CPU twin");
        let first = gpu.as_u8().iter().zip(default.as_u8()).position(|(a, b)| a != b);
        assert!(first.is_none(), "{variant} {w}x{h} -> {ow}x{oh}: differs from the default kernel at byte {first:?}");
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
