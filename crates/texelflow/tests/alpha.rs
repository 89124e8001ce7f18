//! Premultiplied alpha for the filters that average colours (`registry::PREMULTIPLIED_ALPHA`):
//! at the edge of a transparent region the colour hidden under the transparent pixels must not
//! bleed into what is visible (as libvips and Pillow do). Golden images of a transparent edge
//! (`golden/alpha_edge_*.png`, written by `UPDATE_GOLDEN=1` from the CPU twin); the CPU must
//! match them exactly, the GPU within the filters' tolerance.

mod common;

use std::path::Path;

use common::*;
use texelflow::{registry, Backend, Graph, Image, Pipeline, PixelFormat, RunOptions};

/// Opaque white on the left, fully transparent on the right with red hidden under it.
fn edge() -> Image {
    let (w, h) = (24u32, 16u32);
    let data = (0..w * h)
        .flat_map(|i| {
            if i % w < 12 {
                [255, 255, 255, 255]
            } else {
                [255, 0, 0, 0]
            }
        })
        .collect();
    Image::from_u8(w, h, PixelFormat::Rgba8, data).expect("sized")
}

const SPECS: &[(&str, &str)] = &[
    ("gaussian", "gaussian_blur(sigma=2)"),
    ("box", "box_blur(radius=2)"),
    ("resize", "resize(width=37, height=11)"),
    ("motion", "motion_blur(blur_size=1, angle=0)"),
];

/// The worst visible fringe: the lowest green or blue among pixels with alpha >= 16 (white
/// is 255; red bleeding in pulls green and blue down).
fn fringe(img: &Image) -> u8 {
    img.as_u8()
        .chunks_exact(4)
        .filter(|p| p[3] >= 16)
        .map(|p| p[1].min(p[2]))
        .min()
        .unwrap_or(255)
}

#[test]
fn averaging_filters_do_not_bleed_hidden_colour() {
    let input = edge();
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    for (name, spec) in SPECS {
        let p = Pipeline::parse(spec, &mut |path| Image::open(path))
            .unwrap_or_else(|e| panic!("{spec}: {e}"));
        let (g, _) = p.graph(&input).unwrap();
        assert!(
            g.labels().iter().any(|l| l.ends_with("premultiply_alpha"))
                && g.labels()
                    .iter()
                    .any(|l| l.ends_with("unpremultiply_alpha")),
            "{spec}: {:?}",
            g.labels()
        );
        let cpu = p.run(&Backend::Cpu, &input).unwrap().into_image().unwrap();
        let gpu = p.run(&gpu_backend(), &input).unwrap().into_image().unwrap();
        for (which, img) in [("cpu", &cpu), ("gpu", &gpu)] {
            assert!(
                fringe(img) >= 250,
                "{spec} ({which}): the hidden red bleeds into the edge (green/blue down to {})",
                fringe(img)
            );
        }
        let tol = texelflow::graph::spec::parse(spec)
            .unwrap()
            .iter()
            .map(|c| registry::find(&c.name).unwrap().tolerance.max_diff)
            .max()
            .unwrap_or(1);
        let d = gpu
            .as_u8()
            .iter()
            .zip(cpu.as_u8())
            .map(|(a, b)| a.abs_diff(*b))
            .max()
            .unwrap_or(0);
        // one level of the filter, and one of the division by alpha
        assert!(d <= tol + 1, "{spec}: GPU and CPU differ by {d}");
        let golden = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/golden/alpha_edge_{name}.png"));
        if !golden.exists() && update {
            cpu.save(&golden).unwrap();
        }
        let want =
            Image::open(&golden).unwrap_or_else(|e| panic!("{e} (UPDATE_GOLDEN=1 writes it)"));
        assert_eq!(
            want,
            cpu,
            "{spec}: the CPU twin differs from {}",
            golden.display()
        );
        // straight colour (the behaviour before) does bleed: the check above can fail
        let mut straight = p.clone();
        straight.set_straight_alpha(true);
        let s = straight
            .run(&Backend::Cpu, &input)
            .unwrap()
            .into_image()
            .unwrap();
        assert!(
            fringe(&s) < 200,
            "{spec}: straight alpha shows no fringe ({}), so the test proves nothing",
            fringe(&s)
        );
    }
}

/// An opaque image is unchanged by the premultiplied path, bit for bit (CPU and GPU), and
/// grey images get no premultiplied nodes.
#[test]
fn opaque_and_grey_images_are_unaffected() {
    let mut img = random_image(67, 43, PixelFormat::Rgba8, 3);
    for p in img.as_u8_mut().chunks_exact_mut(4) {
        p[3] = 255;
    }
    for (_, spec) in SPECS {
        let p = Pipeline::parse(spec, &mut |path| Image::open(path)).unwrap();
        let mut straight = p.clone();
        straight.set_straight_alpha(true);
        for b in [Backend::Cpu, gpu_backend()] {
            assert_eq!(
                p.run(&b, &img).unwrap(),
                straight.run(&b, &img).unwrap(),
                "{spec}"
            );
        }
    }
    let grey = random_image(20, 10, PixelFormat::Gray8, 4);
    let mut g = Graph::new();
    let s = g.source("g", grey.desc()).unwrap();
    let out = g
        .add_boxed(registry::create("gaussian_blur(sigma=1)").unwrap(), &[s])
        .unwrap()[0];
    g.output("o", out).unwrap();
    assert!(
        !g.labels().iter().any(|l| l.contains("premultiply")),
        "{:?}",
        g.labels()
    );
    assert!(gpu_backend()
        .run(&g, &[("g", &grey)], &RunOptions::default())
        .is_ok());
}

/// Every name in the list is a registered filter.
#[test]
fn the_premultiplied_list_names_filters() {
    for name in registry::PREMULTIPLIED_ALPHA {
        assert!(registry::find(name).is_ok(), "{name} is not a filter");
    }
}
