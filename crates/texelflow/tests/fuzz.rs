//! Property tests of bad input, bounded in time (a few seconds in a debug build): the spec
//! parser on arbitrary text, and the image loaders on truncations, bit flips and absurd
//! headers of valid PNG, JPEG, WebP, TIFF and BMP files. Every case must end in `Ok` or a
//! one-line `Err`, never a panic or an abort. `PROPTEST_CASES=N` runs more.

use std::io::Cursor;
use std::path::PathBuf;

use proptest::prelude::*;
use texelflow::{Image, LoadOptions, Pipeline};

/// Cases per property unless `PROPTEST_CASES` says otherwise: enough to reach the decoders'
/// error paths, few enough for CI.
fn config(default_cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default_cases);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A small image with edges, gradients and some transparency.
fn sample(w: u32, h: u32) -> image::RgbaImage {
    image::RgbaImage::from_fn(w, h, |x, y| {
        image::Rgba([
            (x * 9) as u8,
            (y * 13) as u8,
            ((x ^ y) * 7) as u8,
            if x % 5 == 0 { 128 } else { 255 },
        ])
    })
}

/// A valid file of each format, as bytes.
fn valid_files() -> Vec<(&'static str, Vec<u8>)> {
    let img = image::DynamicImage::ImageRgba8(sample(23, 17));
    let mut out = Vec::new();
    for (ext, format) in [
        ("png", image::ImageFormat::Png),
        ("webp", image::ImageFormat::WebP),
        ("tif", image::ImageFormat::Tiff),
        ("bmp", image::ImageFormat::Bmp),
    ] {
        let mut bytes = Vec::new();
        img.write_to(&mut Cursor::new(&mut bytes), format)
            .expect("encodes");
        out.push((ext, bytes));
    }
    let mut jpeg = Vec::new();
    image::DynamicImage::ImageRgb8(img.to_rgb8())
        .write_to(&mut Cursor::new(&mut jpeg), image::ImageFormat::Jpeg)
        .expect("encodes");
    out.push(("jpg", jpeg));
    // a 16-bit PNG takes the RGBA16 path
    let mut png16 = Vec::new();
    image::DynamicImage::ImageRgba16(img.to_rgba16())
        .write_to(&mut Cursor::new(&mut png16), image::ImageFormat::Png)
        .expect("encodes");
    out.push(("png", png16));
    out
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("texelflow-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d.join(name)
}

/// Loads `bytes` as a file named `*.ext`: an image or a one-line error, never a panic.
fn load_bytes(bytes: &[u8], ext: &str, tag: &str, allow_truncated: bool) -> Result<Image, String> {
    let path = temp(&format!("{tag}.{ext}"));
    std::fs::write(&path, bytes).expect("writes");
    let r = Image::load(
        &path,
        &LoadOptions {
            limits: None,
            allow_truncated,
        },
    )
    .map(|l| l.image)
    .map_err(|e| e.to_string());
    // the same file read by rows (PNG and TIFF stream; the rest decode whole), in two pieces
    let by_rows = texelflow::io::rows::open_rows(
        &path,
        &LoadOptions {
            limits: None,
            allow_truncated,
        },
    )
    .and_then(|(mut src, _)| {
        let d = src.desc();
        let rb = texelflow::io::rows::row_bytes(d);
        let mut bytes = vec![0u8; rb * d.height as usize];
        let half = rb * (d.height as usize / 2);
        src.read_rows(&mut bytes[..half])?;
        src.read_rows(&mut bytes[half..])
    });
    if let Err(e) = &by_rows {
        assert!(
            !e.to_string().contains('\n'),
            "a multi-line error by rows: {e}"
        );
    }
    let _ = std::fs::remove_file(&path);
    if let Err(e) = &r {
        assert!(!e.contains('\n'), "a multi-line error: {e}");
    }
    r
}

proptest! {
    #![proptest_config(config(256))]

    /// Any prefix of a valid file loads or fails cleanly; with `allow_truncated` too.
    #[test]
    fn truncated_files_fail_cleanly(which in 0usize..6, cut in 0.0f64..1.0, allow in any::<bool>()) {
        let files = valid_files();
        let (ext, bytes) = &files[which];
        let keep = (bytes.len() as f64 * cut) as usize;
        let r = load_bytes(&bytes[..keep], ext, &format!("cut-{which}-{keep}"), allow);
        if let Ok(img) = r {
            prop_assert!(img.width() > 0 && img.height() > 0);
        }
    }

    /// Flipped bits anywhere in a valid file (headers included) load or fail cleanly.
    #[test]
    fn bit_flips_fail_cleanly(which in 0usize..6, flips in prop::collection::vec((0.0f64..1.0, 0u8..8), 1..6), allow in any::<bool>()) {
        let files = valid_files();
        let (ext, bytes) = &files[which];
        let mut b = bytes.clone();
        for (at, bit) in &flips {
            let i = ((b.len() as f64 * at) as usize).min(b.len() - 1);
            b[i] ^= 1 << bit;
        }
        let _ = load_bytes(&b, ext, &format!("flip-{which}"), allow);
    }

    /// A PNG header claiming any size (a valid CRC, no pixel data to speak of) is refused or
    /// read before pixel memory is taken for it: never an abort.
    #[test]
    fn absurd_png_headers_are_refused(w in 1u32..=u32::MAX >> 1, h in 1u32..=u32::MAX >> 1) {
        let r = load_bytes(&png_with_header(w, h), "png", "absurd", false);
        prop_assert!(r.is_err(), "{w}x{h}: a PNG without pixel data loaded");
    }

    /// The spec parser and the pipeline builder on arbitrary text: `Ok` or one line.
    #[test]
    fn arbitrary_specs_fail_cleanly(spec in "\\PC{0,80}") {
        check_spec(&spec);
    }

    /// Specs that look almost right: names, parentheses, values and separators shuffled.
    #[test]
    fn near_specs_fail_cleanly(parts in prop::collection::vec(prop::sample::select(vec![
        "gaussian_blur", "brightness", "crop", "resize", "alpha_blend", "(", ")", "=", ",", "|", "[", "]", "\"",
        "sigma", "scale", "x", "width", "units", "px", "norm", "0", "-1", "1e308", "NaN", "inf", "0.01", "99999999",
        "with", "a.png", " ", "lut_cube", "file", "tone_curve", "rgb", "[0,0,1,1]", "histogram", "reduce",
    ]), 0..24)) {
        check_spec(&parts.concat());
    }
}

fn check_spec(spec: &str) {
    let mut load = |p: &str| {
        Err(texelflow::Error::ImageIo {
            path: p.into(),
            message: "not loaded in this test".into(),
        })
    };
    match Pipeline::parse(spec, &mut load) {
        Ok(p) => {
            // a parsed pipeline also builds its graph, or says why not, on a small image
            let img = Image::from_u8(7, 5, texelflow::PixelFormat::Rgba8, vec![100; 7 * 5 * 4])
                .expect("sized");
            if let Err(e) = p.graph(&img) {
                assert!(!e.to_string().contains('\n'), "{spec:?}: {e}");
            }
        }
        Err(e) => assert!(!e.to_string().contains('\n'), "{spec:?}: {e}"),
    }
}

/// A PNG of the signature, an IHDR chunk claiming `w` x `h` RGBA8 (with its CRC), an empty
/// IDAT and IEND.
fn png_with_header(w: u32, h: u32) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = |kind: &[u8; 4], data: &[u8]| {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32(&body).to_be_bytes());
    };
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 6, 0, 0, 0]);
    chunk(b"IHDR", &ihdr);
    chunk(b"IDAT", &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]);
    chunk(b"IEND", &[]);
    out
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut c = 0xFFFF_FFFFu32;
    for &b in bytes {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// The decompression bomb of the issue: a 100000 x 100000 header is refused by arithmetic,
/// before any allocation, naming the limit; a size within the limits passes the same check.
#[test]
fn a_decompression_bomb_is_refused_before_allocating() {
    let e = load_bytes(&png_with_header(100_000, 100_000), "png", "bomb", false).unwrap_err();
    assert!(
        e.contains("more than the limit") && e.contains("--max-pixels"),
        "{e}"
    );
    let limits = texelflow::Limits {
        max_pixels: texelflow::limits::DEFAULT_MAX_PIXELS,
        max_memory: 16 << 30,
        max_nodes: 10,
    };
    assert!(
        limits.check_decode(20_000, 20_000, 4).is_ok(),
        "a 20000x20000 PNG fits 16 GiB"
    );
    assert!(
        limits.check_decode(32_768, 32_768, 4).is_ok(),
        "texelflow reads back the largest image it writes"
    );
}

/// A JPEG cut short: an error by default naming `--allow-truncated`; with it, the image and a warning.
#[test]
fn truncated_jpeg_is_an_error_unless_allowed() {
    // large enough that two thirds of the file end inside the scan, past the headers
    let mut jpeg = Vec::new();
    image::DynamicImage::ImageRgba8(sample(230, 170))
        .to_rgb8()
        .write_to(&mut Cursor::new(&mut jpeg), image::ImageFormat::Jpeg)
        .expect("encodes");
    let jpeg = &jpeg;
    let cut = &jpeg[..jpeg.len() * 2 / 3];
    let e = load_bytes(cut, "jpg", "trunc", false).unwrap_err();
    assert!(
        e.contains("truncated") && e.contains("--allow-truncated"),
        "{e}"
    );
    let path = temp("trunc-ok.jpg");
    std::fs::write(&path, cut).expect("writes");
    let l = Image::load(
        &path,
        &LoadOptions {
            limits: None,
            allow_truncated: true,
        },
    )
    .expect("accepted");
    let _ = std::fs::remove_file(&path);
    assert_eq!((l.image.width(), l.image.height()), (230, 170));
    assert!(
        l.warnings.iter().any(|w| w.contains("truncated")),
        "{:?}",
        l.warnings
    );
    // the whole file loads with no warning
    assert!(load_bytes(jpeg, "jpg", "whole", false).is_ok());
}

/// Every float parameter takes its declared bounds, written as the docs write them (`0.01`),
/// through the spec and through the typed check (an f32, whose nearest value to 0.01 lies
/// just outside [0.01, ...] in f64): ranges are checked without rounding surprises.
#[test]
fn every_declared_bound_is_accepted() {
    let mut checked = 0;
    for def in texelflow::registry::all() {
        for p in def.params {
            let texelflow::params::ParamKind::Float { min, max, .. } = p.kind else {
                continue;
            };
            for v in [min, max] {
                assert!(
                    texelflow::params::check_float(def, p.name, v as f32).is_ok(),
                    "{}.{} = {v} as f32",
                    def.name,
                    p.name
                );
                let call = format!("{}({}={v})", def.name, p.name);
                let Ok(calls) = texelflow::graph::spec::parse(&call) else {
                    panic!("{call}: does not parse")
                };
                if let Err(e) =
                    texelflow::graph::spec::resolve(texelflow::registry::catalogue(), &calls[0])
                        .and_then(|(d, a)| (d.build)(&a).map(|_| ()))
                {
                    let e = e.to_string();
                    // other parameters' requirements (a file to give) are not this test's concern
                    assert!(!e.contains("out of range"), "{call}: {e}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked}");
}
