//! Gray8 input for the blurs and the stencil filters (GPUImage's single-component blur): the
//! result is one channel, and equals the red channel of the filter run on the image widened
//! to RGBA (v, v, v, 255), exactly, on the CPU reference. The GPU side against the CPU is in
//! the equivalence matrix (it runs every format a filter takes).

mod common;

use common::*;
use texelflow::params::Args;
use texelflow::registry::{self, Family};
use texelflow::{Backend, Image, PixelFormat, Value};

fn run_cpu(call: &str, img: &Image) -> Image {
    let f = registry::create(call).unwrap_or_else(|e| panic!("{call}: {e}"));
    let mut g = texelflow::Graph::new();
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

fn takes_gray(name: &str) -> bool {
    let def = registry::find(name).unwrap();
    let f = (def.build)(&Args::defaults(def)).unwrap();
    f.output_descs(&[texelflow::ValueDesc::Image(texelflow::ImageDesc::new(
        4,
        4,
        PixelFormat::Gray8,
    ))])
    .is_ok()
}

#[test]
fn gray_results_are_the_red_channel_of_the_widened_image() {
    let gray = random_image(37, 23, PixelFormat::Gray8, 5);
    let wide = gray.convert(PixelFormat::Rgba8);
    let mut checked = 0;
    for call in [
        "gaussian_blur(sigma=1.5)",
        "gaussian_blur(sigma=9)",
        "box_blur(radius=3)",
        "box_blur(radius=30)",
        "gaussian_blur(sigma=2, border=reflect)",
        "sharpen(sharpness=1.5)",
        "laplacian",
        "emboss",
        "convolution_3x3(kernel=[1,2,1,0,0,0,-1,-2,-1])",
        "prewitt_edge_detection",
        "sketch",
        "threshold_edge_detection",
        "threshold_sketch",
        "toon",
        "median_3x3",
        "median_5x5",
        "local_binary_pattern",
        "non_maximum_suppression",
        "thresholded_non_maximum_suppression(threshold=0.5)",
        "sharpen(sharpness=1, border=reflect)",
    ] {
        let g = run_cpu(call, &gray);
        assert_eq!(g.format(), PixelFormat::Gray8, "{call}");
        let w = run_cpu(call, &wide);
        let red: Vec<u8> = w.as_u8().chunks_exact(4).map(|p| p[0]).collect();
        assert_eq!(g.as_u8(), &red[..], "{call}");
        checked += 1;
    }
    assert_eq!(checked, 20);
}

#[test]
fn which_filters_take_gray8() {
    for name in [
        "gaussian_blur",
        "box_blur",
        "sharpen",
        "laplacian",
        "sketch",
        "toon",
        "median_3x3",
        "local_binary_pattern",
        "pad",
        "crop",
        "bilateral",
    ] {
        assert!(takes_gray(name), "{name}");
    }
    // their red channel alone means nothing: the pipeline widens the image before them
    for name in ["xy_derivative", "color_local_binary_pattern", "median"] {
        assert!(!takes_gray(name), "{name}");
    }
    // every stencil-shaped neighbourhood filter but those two, the two blurs and bilateral (its
    // one-channel form, OpenCV's)
    let n = registry::all()
        .iter()
        .filter(|d| {
            d.family == Family::Neighborhood
                && d.params.iter().any(|p| p.name == "border")
                && takes_gray(d.name)
        })
        .count();
    assert_eq!(n, 17, "14 stencils, the two blurs and bilateral");
}

#[test]
fn a_grey_image_stays_grey_through_the_blurs() {
    let gray = random_image(40, 30, PixelFormat::Gray8, 8);
    let p = texelflow::Pipeline::parse(
        "gaussian_blur(sigma=2) | box_blur(radius=2) | sharpen(sharpness=0.5)",
        &mut |_| unreachable!(),
    )
    .unwrap();
    let (g, _) = p.graph(&gray).unwrap();
    assert_eq!(
        g.labels(),
        ["gaussian_blur", "box_blur", "sharpen"],
        "no to_rgba"
    );
    let out = p.run(&gpu_backend(), &gray).unwrap();
    let cpu = p.run(&Backend::Cpu, &gray).unwrap();
    assert_eq!(out.as_image().unwrap().format(), PixelFormat::Gray8);
    assert!(max_diff(&out, &cpu).unwrap() <= 1.0);
}
