//! The GPU half of the GPU-assisted JPEG decode (issue 30, first slice): `io::jpeg_coef`'s
//! kernels against its CPU twin, bit for bit (the twin itself equals libjpeg-turbo's decode:
//! the unit tests of `io::jpeg_coef`), for grey and every sampling the path takes, at odd sizes.
#![cfg(feature = "turbojpeg")]

mod common;

use common::*;
use texelflow::io::jpeg_coef::{read_coefficients, JpegDecode};
use texelflow::{Backend, Graph, Image, PixelFormat, RunOptions, Value};

fn jpeg(w: usize, h: usize, sub: turbojpeg::Subsamp) -> Vec<u8> {
    let grey = sub == turbojpeg::Subsamp::Gray;
    let ch = if grey { 1 } else { 3 };
    let pixels: Vec<u8> = (0..w * h * ch)
        .map(|i| ((i % (w * ch)) * 7 + (i / (w * ch)) * 11 + (i * 7919 % 97)) as u8)
        .collect();
    let mut c = turbojpeg::Compressor::new().expect("compressor");
    c.set_quality(85).expect("quality");
    c.set_subsamp(sub).expect("subsamp");
    let format = if grey {
        turbojpeg::PixelFormat::GRAY
    } else {
        turbojpeg::PixelFormat::RGB
    };
    let image = turbojpeg::Image {
        pixels: pixels.as_slice(),
        width: w,
        pitch: w * ch,
        height: h,
        format,
    };
    c.compress_to_vec(image).expect("compress")
}

fn decode(backend: &Backend, node: &JpegDecode, w: u32, h: u32) -> Image {
    let dummy = Image::zeroed(texelflow::ImageDesc::new(w, h, PixelFormat::Rgba8));
    let mut g = Graph::new();
    g.set_straight_alpha(true);
    let s = g.source("in", dummy.desc()).expect("source");
    let out = g.add_boxed(Box::new(node.clone()), &[s]).expect("node");
    g.output("out", out[0]).expect("output");
    let opts = RunOptions {
        poison: true,
        ..Default::default()
    };
    let r = backend.run(&g, &[("in", &dummy)], &opts).expect("run");
    match r.outputs.into_iter().next() {
        Some((_, Value::Image(i))) => i,
        _ => panic!("no image"),
    }
}

#[test]
fn the_gpu_decode_equals_its_twin_bit_for_bit() {
    use turbojpeg::Subsamp::*;
    let gpu = gpu_backend();
    for sub in [Gray, None, Sub2x1, Sub1x2, Sub2x2] {
        for (w, h) in [(1, 1), (2, 3), (4, 5), (17, 9), (61, 35)] {
            let c = read_coefficients(&jpeg(w, h, sub), 1 << 24).expect("coefficients");
            let node = JpegDecode::new(c).expect("supported");
            let a = decode(&gpu, &node, w as u32, h as u32);
            let b = decode(&Backend::Cpu, &node, w as u32, h as u32);
            let wrong = a
                .as_u8()
                .iter()
                .zip(b.as_u8())
                .filter(|(x, y)| x != y)
                .count();
            assert_eq!(
                wrong, 0,
                "{sub:?} {w}x{h}: {wrong} samples differ from the twin"
            );
        }
    }
}
