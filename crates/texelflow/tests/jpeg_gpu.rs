//! The GPU-assisted JPEG decode (issue 30): the coefficients entropy-decoded by libjpeg-turbo
//! on the host, the rest on the GPU. Its kernels against the CPU twin bit for bit, and the
//! whole path (`Image::load_for_device`, `Pipeline::try_run_produced`) against libjpeg-turbo's
//! own decode (what PIL and the host path give) for every sampling, progressive files,
//! restart intervals, odd sizes and EXIF orientations; CMYK goes to the host and says why.
#![cfg(feature = "turbojpeg")]

mod common;

use common::turbo::{tj_compress, TjParams};
use common::*;
use texelflow::io::jpeg_coef::{read_coefficients, JpegDecode};
use texelflow::io::ForDevice;
use texelflow::{Backend, Graph, Image, LoadOptions, Pipeline, RunOptions, Value};

/// How a test file is encoded (libjpeg-turbo's TurboJPEG 3 API, for restart intervals).
#[derive(Clone, Copy)]
struct Enc {
    sub: i32,
    quality: i32,
    progressive: bool,
    restart_blocks: i32,
    restart_rows: i32,
}

const GRAY: i32 = turbojpeg_sys::TJSAMP_TJSAMP_GRAY;
const S444: i32 = turbojpeg_sys::TJSAMP_TJSAMP_444;
const S422: i32 = turbojpeg_sys::TJSAMP_TJSAMP_422;
const S440: i32 = turbojpeg_sys::TJSAMP_TJSAMP_440;
const S420: i32 = turbojpeg_sys::TJSAMP_TJSAMP_420;

fn enc(sub: i32) -> Enc {
    Enc {
        sub,
        quality: 85,
        progressive: false,
        restart_blocks: 0,
        restart_rows: 0,
    }
}

/// A photo-like test image (smooth gradients, edges and some noise).
fn pixels(w: usize, h: usize, ch: usize) -> Vec<u8> {
    (0..w * h * ch)
        .map(|i| {
            let (p, c) = (i / ch, i % ch);
            let (x, y) = (p % w, p / w);
            let edge = if (x / 5 + y / 3) % 2 == 0 { 40 } else { 0 };
            ((x * 7 + y * 11 + c * 50 + edge + (i * 7919 % 23)) % 256) as u8
        })
        .collect()
}

fn jpeg(w: usize, h: usize, e: Enc) -> Vec<u8> {
    let ch = if e.sub == GRAY { 1 } else { 3 };
    let p = TjParams {
        sub: e.sub,
        quality: e.quality,
        progressive: e.progressive,
        restart_blocks: e.restart_blocks,
        restart_rows: e.restart_rows,
    };
    tj_compress(&pixels(w, h, ch), w, h, p)
}

/// `jpeg` with an EXIF APP1 segment holding `orientation`, after the SOI marker.
fn with_orientation(jpeg: &[u8], orientation: u16) -> Vec<u8> {
    let mut tiff = b"II*\0\x08\0\0\0".to_vec();
    tiff.extend_from_slice(&1u16.to_le_bytes()); // one entry
    tiff.extend_from_slice(&0x0112u16.to_le_bytes()); // Orientation
    tiff.extend_from_slice(&3u16.to_le_bytes()); // SHORT
    tiff.extend_from_slice(&1u32.to_le_bytes());
    tiff.extend_from_slice(&orientation.to_le_bytes());
    tiff.extend_from_slice(&[0, 0, 0, 0, 0, 0]); // value padding, no next IFD
    let mut app1 = b"Exif\0\0".to_vec();
    app1.extend_from_slice(&tiff);
    let mut out = jpeg[..2].to_vec();
    out.extend_from_slice(&[0xFF, 0xE1]);
    out.extend_from_slice(&((app1.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(&app1);
    out.extend_from_slice(&jpeg[2..]);
    out
}

fn decode_node(backend: &Backend, node: &JpegDecode) -> Image {
    let mut g = Graph::new();
    g.set_straight_alpha(true);
    let out = g.add_boxed(Box::new(node.clone()), &[]).expect("node");
    g.output("out", out[0]).expect("output");
    let opts = RunOptions {
        poison: true,
        ..Default::default()
    };
    let r = backend.run(&g, &[], &opts).expect("run");
    match r.outputs.into_iter().next() {
        Some((_, Value::Image(i))) => i,
        _ => panic!("no image"),
    }
}

fn differing(a: &Image, b: &Image) -> usize {
    assert_eq!(a.desc(), b.desc(), "descriptions differ");
    a.as_u8()
        .iter()
        .zip(b.as_u8())
        .filter(|(x, y)| x != y)
        .count()
}

fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("texelflow-jpeg-gpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    path
}

#[test]
fn the_gpu_decode_equals_its_twin_bit_for_bit() {
    let gpu = gpu_backend();
    for sub in [GRAY, S444, S422, S440, S420] {
        for (w, h) in [(1, 1), (2, 3), (4, 5), (17, 9), (61, 35), (4001, 3)] {
            let c = read_coefficients(&jpeg(w, h, enc(sub)), 1 << 24).expect("coefficients");
            let node = JpegDecode::new(c, 1).expect("supported");
            let (a, b) = (decode_node(&gpu, &node), decode_node(&Backend::Cpu, &node));
            let wrong = differing(&a, &b);
            assert_eq!(
                wrong, 0,
                "{sub} {w}x{h}: {wrong} samples differ from the twin"
            );
        }
    }
    // coefficients over 1 MB go through the device's kept staging buffers (`upload_staged`):
    // twice, so that the second run reuses the first's buffer
    for sub in [S444, S420] {
        let c = read_coefficients(&jpeg(720, 560, enc(sub)), 1 << 24).expect("coefficients");
        assert!(c.data.len() * 2 > 1 << 20, "large enough to be staged");
        let node = JpegDecode::new(c, 1).expect("supported");
        let b = decode_node(&Backend::Cpu, &node);
        for run in 0..2 {
            let a = decode_node(&gpu, &node);
            assert_eq!(differing(&a, &b), 0, "{sub} 720x560, run {run}");
        }
    }
    // the blank images that compile the kernels ahead of a batch: mid-grey on both
    for grey in [false, true] {
        let node = JpegDecode::blank(grey);
        let (a, b) = (decode_node(&gpu, &node), decode_node(&Backend::Cpu, &node));
        assert_eq!(differing(&a, &b), 0, "blank grey={grey}");
        let channels = if grey { 1 } else { 4 };
        assert!(
            a.as_u8()
                .chunks(channels)
                .all(|p| p[..channels.min(3)].iter().all(|&v| v == 128)),
            "blank grey={grey} is mid-grey"
        );
    }
    // every orientation, on a size whose axes differ
    for sub in [GRAY, S420] {
        for o in 1..=8u8 {
            let c = read_coefficients(&jpeg(19, 6, enc(sub)), 1 << 24).expect("coefficients");
            let node = JpegDecode::new(c, o).expect("supported");
            let (a, b) = (decode_node(&gpu, &node), decode_node(&Backend::Cpu, &node));
            assert_eq!(differing(&a, &b), 0, "{sub} orientation {o}");
        }
    }
}

/// The device path (`load_for_device` + the node on the GPU) against `Image::load`, which
/// decodes with libjpeg-turbo (ISLOW IDCT, fancy upsampling, as PIL does) and turns the
/// image upright by its EXIF orientation: equal, sample for sample.
#[test]
fn the_device_path_equals_libjpeg_turbo() {
    let gpu = gpu_backend();
    let mut cases: Vec<(String, usize, usize, Enc, u16)> = Vec::new();
    for (name, sub) in [
        ("grey", GRAY),
        ("444", S444),
        ("422", S422),
        ("440", S440),
        ("420", S420),
    ] {
        for (w, h) in [(1, 1), (17, 9), (4001, 3), (64, 48)] {
            cases.push((format!("{name} {w}x{h}"), w, h, enc(sub), 1));
        }
        let progressive = Enc {
            progressive: true,
            ..enc(sub)
        };
        cases.push((format!("{name} progressive"), 45, 29, progressive, 1));
        let restarts = Enc {
            restart_blocks: 3,
            ..enc(sub)
        };
        cases.push((format!("{name} restart every 3 MCUs"), 45, 29, restarts, 1));
        let rows = Enc {
            restart_rows: 1,
            quality: 50,
            ..enc(sub)
        };
        cases.push((
            format!("{name} restart every MCU row, q50"),
            33,
            40,
            rows,
            1,
        ));
        let best = Enc {
            quality: 100,
            ..enc(sub)
        };
        cases.push((format!("{name} q100"), 30, 21, best, 1));
        for o in 2..=8u16 {
            cases.push((format!("{name} orientation {o}"), 23, 10, enc(sub), o));
        }
    }
    for (i, (name, w, h, e, o)) in cases.iter().enumerate() {
        let mut bytes = jpeg(*w, *h, *e);
        if *o != 1 {
            bytes = with_orientation(&bytes, *o);
        }
        let path = temp_file(&format!("{i}.jpg"), &bytes);
        let host = Image::load(&path, &LoadOptions::default()).expect("host decode");
        let node = match Image::load_for_device(&path, &LoadOptions::default()).expect("load") {
            ForDevice::Jpeg { decode, .. } => decode,
            ForDevice::Host { why, .. } => panic!("{name}: decoded on the host: {why:?}"),
        };
        let device = decode_node(&gpu, &node);
        let wrong = differing(&device, &host.image);
        assert_eq!(
            wrong, 0,
            "{name}: {wrong} samples differ from libjpeg-turbo"
        );
        let _ = std::fs::remove_file(path);
    }
}

/// A pipeline fed by the decode node gives what it gives on the host-decoded image; a CMYK
/// file is decoded on the host, and says so.
#[test]
fn a_pipeline_runs_on_the_device_decode_and_cmyk_goes_to_the_host() {
    let gpu = gpu_backend();
    let pipe = Pipeline::parse("gaussian_blur(sigma=1.5) | color_invert", &mut |p| {
        Image::open(p)
    })
    .expect("pipeline");
    let opts = RunOptions::default();
    for sub in [GRAY, S420] {
        let path = temp_file(&format!("pipe{sub}.jpg"), &jpeg(40, 27, enc(sub)));
        let host = Image::load(&path, &LoadOptions::default()).expect("host decode");
        let want = pipe.run_with(&gpu, &host.image, &opts).expect("run");
        let ForDevice::Jpeg { decode, .. } =
            Image::load_for_device(&path, &LoadOptions::default()).expect("load")
        else {
            panic!("decoded on the host")
        };
        let got = pipe
            .try_run_produced(&gpu, Box::new(decode), &opts)
            .expect("run")
            .expect("a whole run");
        let (Some((_, Value::Image(a))), Some((_, Value::Image(b)))) =
            (got.outputs.first(), want.outputs.first())
        else {
            panic!("no images")
        };
        assert_eq!(differing(a, b), 0, "{sub}");
    }
    let cmyk =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/jpeg/cmyk_adobe.jpg");
    match Image::load_for_device(&cmyk, &LoadOptions::default()).expect("load") {
        ForDevice::Host { why, loaded } => {
            let why = why.expect("a reason");
            assert!(why.contains("CMYK"), "{why}");
            let reference = Image::load(&cmyk, &LoadOptions::default()).expect("host");
            assert_eq!(differing(&loaded.image, &reference.image), 0);
        }
        ForDevice::Jpeg { .. } => panic!("a CMYK file went to the GPU"),
    }
}
