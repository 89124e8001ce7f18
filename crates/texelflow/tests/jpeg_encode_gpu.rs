//! The GPU half of the GPU-assisted JPEG encode (issue 30): `io::jpeg_encode`'s kernel against
//! its CPU twin, bit for bit, outputs poisoned first (the twin itself writes libjpeg-turbo's
//! file byte for byte: the unit tests of `io::jpeg_encode`), for grey, 4:4:4, 4:2:2 and 4:2:0
//! at awkward sizes; and the file from the GPU's blocks is the twin's, and TurboJPEG's.
#![cfg(feature = "turbojpeg")]

mod common;

use common::*;
use texelflow::io::jpeg_encode::{encode, encode_gpu, EncodeOptions, JpegEncode, Layout};
use texelflow::io::jpeg_file::{file_bytes, JpegFile};
use texelflow::value::Data;
use texelflow::{Backend, Graph, Image, PixelFormat, RunOptions, Subsampling, Value};

const LAYOUTS: [Layout; 4] = [
    Layout::Grey,
    Layout::Colour(Subsampling::S444),
    Layout::Colour(Subsampling::S422),
    Layout::Colour(Subsampling::S420),
];

/// Noise (`photo` false) or smooth gradients with an edge and a little noise; alpha random.
fn image(w: u32, h: u32, photo: bool, format: PixelFormat) -> Image {
    let mut rng = Rng(0x9e37_79b9 ^ (w as u64) << 20 ^ h as u64);
    let mut px = Vec::with_capacity((w * h * 4) as usize);
    for y in 0..h {
        for x in 0..w {
            let n = rng.next();
            if !photo {
                px.extend_from_slice(&n.to_le_bytes()[..4]);
                continue;
            }
            let noise = (n % 7) as i32 - 3;
            let edge = if x * 5 > w * 2 + y * 3 { 70 } else { 0 };
            let r = 30 + (180 * x / w.max(1)) as i32 + edge + noise;
            let g = 60 + (150 * y / h.max(1)) as i32 + noise;
            let b = 220 - (100 * (x + y) / (w + h)) as i32 - edge + noise;
            px.extend_from_slice(&[
                r.clamp(0, 255) as u8,
                g.clamp(0, 255) as u8,
                b.clamp(0, 255) as u8,
                (n >> 40) as u8,
            ]);
        }
    }
    let rgba = Image::from_u8(w, h, PixelFormat::Rgba8, px).expect("image");
    if format == PixelFormat::Gray8 {
        let g: Vec<u8> = rgba.as_u8().chunks(4).map(|p| p[1]).collect();
        return Image::from_u8(w, h, PixelFormat::Gray8, g).expect("image");
    }
    rgba
}

/// `node` on `input` (outputs poisoned first): the graph's one output.
fn run_node(backend: &Backend, node: Box<dyn texelflow::extend::Filter>, input: &Image) -> Value {
    let mut g = Graph::new();
    g.set_straight_alpha(true);
    let s = g.source("in", input.desc()).expect("source");
    let out = g.add_boxed(node, &[s]).expect("node");
    g.output("out", out[0]).expect("output");
    let opts = RunOptions {
        poison: true,
        ..Default::default()
    };
    let r = backend.run(&g, &[("in", input)], &opts).expect("run");
    r.outputs.into_iter().next().expect("an output").1
}

fn blocks(backend: &Backend, node: &JpegEncode, input: &Image) -> Image {
    match run_node(backend, Box::new(node.clone()), input) {
        Value::Image(i) => i,
        _ => panic!("no blocks"),
    }
}

#[test]
fn the_gpu_blocks_equal_the_twins_bit_for_bit() {
    let gpu = gpu_backend();
    let mut failures = Vec::new();
    for (w, h) in [
        (1, 1),
        (2, 3),
        (17, 9),
        (9, 17),
        (61, 35),
        (33, 2),
        (1001, 3),
    ] {
        for photo in [false, true] {
            for layout in LAYOUTS {
                let formats: &[PixelFormat] = if layout == Layout::Grey {
                    &[PixelFormat::Rgba8, PixelFormat::Gray8]
                } else {
                    &[PixelFormat::Rgba8]
                };
                for &format in formats {
                    let input = image(w, h, photo, format);
                    for quality in [50u8, 90, 100] {
                        let node = JpegEncode::new(EncodeOptions::new(quality, layout));
                        let a = blocks(&gpu, &node, &input);
                        let b = blocks(&Backend::Cpu, &node, &input);
                        assert_eq!(a.desc(), node.blocks_desc(w, h));
                        let wrong = a
                            .as_u8()
                            .chunks(2)
                            .zip(b.as_u8().chunks(2))
                            .filter(|(x, y)| x != y)
                            .count();
                        if wrong != 0 {
                            failures.push(format!(
                                "{layout:?} {format:?} {w}x{h} photo {photo} q{quality}: \
                                 {wrong} coefficients differ from the twin"
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The whole GPU path (blocks read back, the shim) writes the twin path's file, and that is
/// TurboJPEG's own; with optimised tables and progressive too.
#[test]
fn the_gpu_path_writes_the_twin_paths_file() {
    let gpu = gpu_backend();
    for (w, h) in [(17, 9), (61, 35)] {
        let input = image(w, h, true, PixelFormat::Rgba8);
        for layout in LAYOUTS {
            for (optimise, progressive) in [(false, false), (true, false), (true, true)] {
                let options = EncodeOptions {
                    optimise,
                    progressive,
                    ..EncodeOptions::new(90, layout)
                };
                let from_gpu = encode_gpu(&gpu, &input, &options).expect("GPU encode");
                let from_twin = encode(&input, &options).expect("twin encode");
                assert_eq!(
                    from_gpu, from_twin,
                    "{layout:?} {w}x{h} optimise {optimise} progressive {progressive}"
                );
                if !optimise {
                    let mut c = turbojpeg::Compressor::new().expect("compressor");
                    c.set_quality(90).expect("quality");
                    c.set_subsamp(match layout {
                        Layout::Grey => turbojpeg::Subsamp::Gray,
                        Layout::Colour(Subsampling::S444) => turbojpeg::Subsamp::None,
                        Layout::Colour(Subsampling::S422) => turbojpeg::Subsamp::Sub2x1,
                        Layout::Colour(Subsampling::S420) => turbojpeg::Subsamp::Sub2x2,
                    })
                    .expect("subsamp");
                    let want = c
                        .compress_to_vec(turbojpeg::Image {
                            pixels: input.as_u8(),
                            width: w as usize,
                            pitch: w as usize * 4,
                            height: h as usize,
                            format: turbojpeg::PixelFormat::RGBA,
                        })
                        .expect("compress");
                    assert_eq!(from_gpu, want, "{layout:?} {w}x{h}: not TurboJPEG's file");
                }
            }
        }
    }
}

/// TurboJPEG's file for `image` (RGBA8 as RGBA, alpha ignored; Gray8 as grey) at `quality`:
/// what the host path writes (its own map of the layouts: the oracle does not use the
/// library's).
fn turbo_file(image: &Image, quality: u8, layout: Layout) -> Vec<u8> {
    let mut c = turbojpeg::Compressor::new().expect("compressor");
    c.set_quality(quality as i32).expect("quality");
    c.set_subsamp(match layout {
        Layout::Grey => turbojpeg::Subsamp::Gray,
        Layout::Colour(Subsampling::S444) => turbojpeg::Subsamp::None,
        Layout::Colour(Subsampling::S422) => turbojpeg::Subsamp::Sub2x1,
        Layout::Colour(Subsampling::S420) => turbojpeg::Subsamp::Sub2x2,
    })
    .expect("subsampling");
    let grey = image.format() == PixelFormat::Gray8;
    let w = image.width() as usize;
    c.compress_to_vec(turbojpeg::Image {
        pixels: image.as_u8(),
        width: w,
        pitch: if grey { w } else { 4 * w },
        height: image.height() as usize,
        format: if grey {
            turbojpeg::PixelFormat::GRAY
        } else {
            turbojpeg::PixelFormat::RGBA
        },
    })
    .expect("compress")
}

fn stream(backend: &Backend, node: &JpegFile, input: &Image) -> texelflow::value::Bytes {
    match run_node(backend, Box::new(node.clone()), input) {
        Value::Data(Data::Bytes(b)) => b,
        _ => panic!("no stream"),
    }
}

/// `image` opaque; with `grey`, R = G = B (the green channel's).
fn opaque(image: &Image, grey: bool) -> Image {
    let px: Vec<u8> = image
        .as_u8()
        .chunks(4)
        .flat_map(|p| {
            if grey {
                [p[1], p[1], p[1], 255]
            } else {
                [p[0], p[1], p[2], 255]
            }
        })
        .collect();
    Image::from_u8(image.width(), image.height(), PixelFormat::Rgba8, px).expect("image")
}

/// The whole encode on the device (`JpegFile`: grey or colour decided there, blocks, Huffman
/// coding) gives the twin's stream bit for bit, and `file_bytes` makes TurboJPEG's file byte
/// for byte, for grey (RGBA8 with R = G = B, and Gray8), 4:4:4, 4:2:2 and 4:2:0, at sizes that
/// leave dummy blocks at the right and bottom edges, photo-like and noise (noise at quality 100
/// codes to more than the first read-back takes: the rest is read in a second round trip).
#[test]
fn the_whole_file_made_on_the_gpu_is_turbojpegs() {
    let gpu = gpu_backend();
    let mut failures = Vec::new();
    let sizes = [
        (1, 1),
        (2, 3),
        (17, 9),
        (9, 17),
        (61, 35),
        (33, 2),
        (40, 24),
        (1001, 3),
    ];
    for (w, h) in sizes {
        for photo in [true, false] {
            let base = image(w, h, photo, PixelFormat::Rgba8);
            let inputs = [
                (opaque(&base, true), Layout::Grey),
                (image(w, h, photo, PixelFormat::Gray8), Layout::Grey),
                (opaque(&base, false), Layout::Colour(Subsampling::S444)),
                (opaque(&base, false), Layout::Colour(Subsampling::S422)),
                (opaque(&base, false), Layout::Colour(Subsampling::S420)),
            ];
            for (input, layout) in &inputs {
                for quality in [50u8, 90, 100] {
                    let sub = match layout {
                        Layout::Colour(s) => *s,
                        Layout::Grey => Subsampling::S420,
                    };
                    let node = JpegFile::new(quality, sub).expect("node");
                    let on_gpu = stream(&gpu, &node, input);
                    let twin = stream(&Backend::Cpu, &node, input);
                    let case = format!(
                        "{w}x{h} photo {photo} {:?} {layout:?} q{quality}",
                        input.format()
                    );
                    if on_gpu != twin {
                        failures.push(format!("{case}: the GPU's stream is not the twin's"));
                        continue;
                    }
                    let file = file_bytes(&on_gpu, quality, sub)
                        .expect("file")
                        .expect("opaque");
                    if file != turbo_file(input, quality, *layout) {
                        failures.push(format!("{case}: not TurboJPEG's file"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// An image with transparency is not coded for the file: the stream says so (the host encodes
/// it over its background), on the GPU as on the CPU.
#[test]
fn a_transparent_image_is_left_to_the_host() {
    let gpu = gpu_backend();
    let mut input = opaque(&image(19, 7, true, PixelFormat::Rgba8), false);
    let mut px = input.as_u8().to_vec();
    px[4 * 30 + 3] = 128;
    input = Image::from_u8(19, 7, PixelFormat::Rgba8, px).expect("image");
    let node = JpegFile::new(90, Subsampling::S444).expect("node");
    for backend in [&gpu, &Backend::Cpu] {
        let s = stream(backend, &node, &input);
        assert_eq!(file_bytes(&s, 90, Subsampling::S444).expect("file"), None);
    }
}

/// `Pipeline::try_run_then` declines (`None`, the caller runs as usual) where the JPEG node's
/// own buffers would not fit the GPU memory budget although the pipeline alone does.
#[test]
fn the_encode_node_is_declined_where_its_buffers_do_not_fit() {
    let gpu = gpu_backend();
    let input = opaque(&image(64, 64, true, PixelFormat::Rgba8), false);
    let pipe =
        texelflow::Pipeline::parse("brightness(0.1)", &mut |p: &str| Image::open(p)).expect("spec");
    let node = || Box::new(JpegFile::new(90, Subsampling::S444).expect("node"));
    let mut opts = RunOptions::default();
    assert!(pipe
        .try_run_then(&gpu, &input, node(), &opts)
        .expect("run")
        .is_some());
    // the pipeline alone: two 16 KiB images; with the node: its 192 blocks and their stream too
    opts.tiling.max_gpu_memory = Some(48 << 10);
    let alone = pipe.run_with(&gpu, &input, &opts).expect("run");
    assert!(alone.notes.is_empty(), "{:?}", alone.notes);
    assert!(pipe
        .try_run_then(&gpu, &input, node(), &opts)
        .expect("run")
        .is_none());
}
