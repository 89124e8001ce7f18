//! JPEG decoding of what libjpeg-turbo's RGBA path does not cover (issue 29): CMYK, Adobe's
//! inverted CMYK and YCCK files against Pillow's decoding of them (item 2), headers larger
//! than a JPEG can be (item 17), and small files whose headers claim huge images.
//! The fixtures are tests/data/jpeg (made by its make_fixtures.py and `make_ycck_fixture`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use texelflow::{Image, LoadOptions};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/jpeg")
        .join(name)
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("texelflow-jpeg-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d.join(name)
}

fn load(path: &Path) -> Result<Image, String> {
    Image::load(path, &LoadOptions::default())
        .map(|l| l.image)
        .map_err(|e| e.to_string())
}

/// The largest difference of any channel between an RGBA8 image and an RGB reference PNG.
fn max_error(img: &Image, reference: &Path) -> u8 {
    let r = image::open(reference).expect("reference").to_rgb8();
    assert_eq!((img.width(), img.height()), r.dimensions());
    assert_eq!(img.format(), texelflow::PixelFormat::Rgba8);
    img.as_u8()
        .chunks_exact(4)
        .zip(r.pixels())
        .flat_map(|(a, b)| (0..3).map(move |c| a[c].abs_diff(b[c])))
        .max()
        .unwrap_or(0)
}

/// Issue 29, item 2: CMYK (no Adobe marker), Adobe-inverted CMYK and YCCK JPEGs decode within
/// 2 levels of Pillow's `Image.open(f).convert('RGB')` (the `.ref.png` beside each), where they
/// came out as stripes with the last quarter black (mean error 84). Every caller (input,
/// second image, `analyze`, Python) reads files through `Image::load`.
#[test]
fn cmyk_and_ycck_jpegs_decode_as_pillow_does() {
    for name in ["cmyk_plain", "cmyk_adobe", "ycck"] {
        let img = load(&data(&format!("{name}.jpg"))).expect(name);
        let e = max_error(&img, &data(&format!("{name}.ref.png")));
        assert!(e <= 2, "{name}: {e} levels from Pillow's decoding");
    }
}

/// A baseline JPEG with its frame header's size replaced.
fn with_size(jpeg: &[u8], w: u16, h: u16) -> Vec<u8> {
    let mut b = jpeg.to_vec();
    let sof = b
        .windows(2)
        .position(|m| m == [0xFF, 0xC0])
        .expect("a baseline frame header");
    b[sof + 5..sof + 7].copy_from_slice(&h.to_be_bytes());
    b[sof + 7..sof + 9].copy_from_slice(&w.to_be_bytes());
    b
}

fn small_jpeg() -> Vec<u8> {
    let img = image::RgbImage::from_fn(16, 8, |x, y| image::Rgb([x as u8 * 9, y as u8 * 20, 90]));
    let mut out = Vec::new();
    image::DynamicImage::ImageRgb8(img)
        .write_to(
            &mut std::io::Cursor::new(&mut out),
            image::ImageFormat::Jpeg,
        )
        .expect("encodes");
    out
}

/// Issue 29, item 17: a JPEG header wider or taller than 65500 (libjpeg's limit; the header's
/// fields reach 65535) is a damaged file, refused in one line; it decoded with exit 0.
#[test]
fn jpeg_sides_over_65500_are_refused() {
    for (w, h) in [(65535, 1), (1, 65535), (65501, 8)] {
        for allow_truncated in [false, true] {
            let path = temp(&format!("wide-{w}-{h}.jpg"));
            std::fs::write(&path, with_size(&small_jpeg(), w, h)).expect("writes");
            let e = Image::load(
                &path,
                &LoadOptions {
                    limits: None,
                    allow_truncated,
                    ..Default::default()
                },
            )
            .map(|_| ())
            .expect_err("refused")
            .to_string();
            assert!(
                e.contains("at most 65500 pixels a side") && !e.contains('\n'),
                "{e}"
            );
        }
    }
    // 65500 itself is a JPEG size: refused only for its missing data
    let path = temp("wide-65500.jpg");
    std::fs::write(&path, with_size(&small_jpeg(), 65500, 8)).expect("writes");
    let e = load(&path).expect_err("no data for it");
    assert!(!e.contains("65500 pixels a side"), "{e}");
}

/// Issue 29: a 1 KB JPEG whose header claims 30000x30000 took 22 s and 3.5 GB before failing;
/// it fails at once now, naming `--allow-truncated`, for baseline and progressive files.
#[test]
fn a_small_file_claiming_a_huge_image_fails_fast() {
    let mut files = vec![("baseline", with_size(&small_jpeg(), 30000, 30000))];
    #[cfg(feature = "turbojpeg")]
    {
        let mut c = turbojpeg::Compressor::new().expect("compressor");
        c.set_progressive(true).expect("progressive");
        let px = vec![128u8; 16 * 8 * 3];
        let p = c
            .compress_to_vec(turbojpeg::Image {
                pixels: px.as_slice(),
                width: 16,
                pitch: 48,
                height: 8,
                format: turbojpeg::PixelFormat::RGB,
            })
            .expect("encodes");
        let sof = p.windows(2).position(|m| m == [0xFF, 0xC2]).expect("SOF2");
        let mut p2 = p.clone();
        p2[sof + 5..sof + 9].copy_from_slice(&[0x75, 0x30, 0x75, 0x30]);
        files.push(("progressive", p2));
    }
    for (kind, bytes) in files {
        let path = temp(&format!("huge-{kind}.jpg"));
        std::fs::write(&path, &bytes).expect("writes");
        let t = Instant::now();
        let e = load(&path).expect_err("refused");
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "{kind}: {:?}",
            t.elapsed()
        );
        assert!(
            e.contains("30000x30000") && e.contains("--allow-truncated"),
            "{kind}: {e}"
        );
    }
}

/// The bound on the data of `a_small_file_claiming_a_huge_image_fails_fast` holds for the
/// smallest real files: flat images at quality 1 with optimised tables, baseline, progressive
/// (EOBRUN), grey and colour, 4:2:0 and 4:4:4, all still decode. (Arithmetic-coded and lossless
/// files have no bound; zune-jpeg's header reader, which reads every JPEG first, refuses them.)
#[cfg(feature = "turbojpeg")]
#[test]
fn the_data_bound_passes_the_smallest_real_files() {
    let (w, h) = (512usize, 264usize);
    let px = vec![77u8; w * h * 3];
    for progressive in [false, true] {
        for subsamp in [
            turbojpeg::Subsamp::Gray,
            turbojpeg::Subsamp::None,
            turbojpeg::Subsamp::Sub2x2,
        ] {
            let mut c = turbojpeg::Compressor::new().expect("compressor");
            c.set_quality(1).expect("quality");
            c.set_subsamp(subsamp).expect("subsampling");
            c.set_optimize(true).expect("optimize");
            c.set_progressive(progressive).expect("progressive");
            let jpeg = c
                .compress_to_vec(turbojpeg::Image {
                    pixels: px.as_slice(),
                    width: w,
                    pitch: w * 3,
                    height: h,
                    format: turbojpeg::PixelFormat::RGB,
                })
                .expect("encodes");
            let path = temp("flat.jpg");
            std::fs::write(&path, &jpeg).expect("writes");
            let case = format!(
                "progressive {progressive}, {subsamp:?}: {} bytes",
                jpeg.len()
            );
            let img = load(&path).unwrap_or_else(|e| panic!("{case}: {e}"));
            assert_eq!((img.width(), img.height()), (w as u32, h as u32), "{case}");
        }
    }
}

/// Writes tests/data/jpeg/ycck.jpg: libjpeg-turbo's compressor given CMYK pixels writes YCCK
/// (Adobe APP14 transform 2), 4:2:0. The pixels are the Adobe convention's inverted samples of
/// cmyk_adobe's colours with a K ramp. Run with `--ignored`, then make_fixtures.py for its
/// reference.
#[cfg(feature = "turbojpeg")]
#[test]
#[ignore]
fn make_ycck_fixture() {
    let src = image::open(data("cmyk_adobe.ref.png"))
        .expect("reference")
        .to_rgb8();
    let (w, h) = src.dimensions();
    let cmyk: Vec<u8> = src
        .enumerate_pixels()
        .flat_map(|(x, _, p)| [p[0], p[1], p[2], 255 - (x * 5) as u8])
        .collect();
    let mut c = turbojpeg::Compressor::new().expect("compressor");
    c.set_quality(92).expect("quality");
    c.set_subsamp(turbojpeg::Subsamp::Sub2x2)
        .expect("subsampling");
    let jpeg = c
        .compress_to_vec(turbojpeg::Image {
            pixels: cmyk.as_slice(),
            width: w as usize,
            pitch: w as usize * 4,
            height: h as usize,
            format: turbojpeg::PixelFormat::CMYK,
        })
        .expect("encodes");
    std::fs::write(data("ycck.jpg"), jpeg).expect("writes");
}
