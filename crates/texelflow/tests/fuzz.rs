//! Property tests of bad input, bounded in time (seconds in a debug build) and memory: the spec
//! parser on arbitrary text (unicode, long nesting, huge numbers), and every file reader on
//! truncations, bit flips, byte runs and absurd headers of valid files: PNG (8 and 16-bit),
//! JPEG (baseline, progressive, 4:2:0, and the CMYK, Adobe CMYK and YCCK fixtures), WebP, TIFF,
//! BMP, GIF (not a supported format: an error), `.cube` LUTs and `.acv` curves. Every case must
//! end in `Ok` or a one-line `Err`, never a panic or an abort, within `CASE_TIME` and with the
//! heap under `PEAK_HEAP` (issue 29: "a bounded fuzz run of the spec parser and every loader").
//! Fixed seeds and case counts; `PROPTEST_CASES=N` runs more.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Cursor;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{RngAlgorithm, RngSeed};
use texelflow::{Image, LoadOptions, Pipeline};

/// The heap of this test process, counted: current and peak bytes (Rust allocations; the C
/// decoders' own working memory is libjpeg-turbo's, bounded by the image size it checked).
struct Counting;
static HEAP: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            let now = HEAP.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        HEAP.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}
#[global_allocator]
static ALLOC: Counting = Counting;

/// The most heap the whole process may reach while the cases run (every test of this file at
/// once): each case's files are a few kilobytes and its limits (`fuzz_limits`) allow 64 MiB.
const PEAK_HEAP: usize = 1 << 30;
/// The most one case may take in a debug build on a loaded machine (they take milliseconds).
const CASE_TIME: Duration = Duration::from_secs(30);

/// Limits for every fuzzed file: small, so that a damaged header cannot make a case big.
fn fuzz_limits() -> texelflow::Limits {
    texelflow::Limits {
        max_pixels: 1 << 22,
        max_memory: 64 << 20,
        max_nodes: 1000,
    }
}

/// Runs `f` on a thread of its own: a panic fails the test with the case named, as does a
/// case still running after `CASE_TIME` or a heap peak over `PEAK_HEAP`.
fn bounded<T: Send + 'static>(what: String, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    let handle = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            let _ = tx.send(f());
        })
        .expect("thread");
    let r = match rx.recv_timeout(CASE_TIME) {
        Ok(r) => r,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what}: still running after {CASE_TIME:?}")
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            let why = handle.join().err().map(|e| {
                e.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            });
            panic!("{what}: panicked: {why:?}")
        }
    };
    let _ = handle.join();
    let peak = PEAK.load(Ordering::Relaxed);
    assert!(peak < PEAK_HEAP, "{what}: the heap reached {peak} bytes");
    r
}

/// Cases per property unless `PROPTEST_CASES` says otherwise: enough to reach the decoders'
/// error paths, few enough for CI. The seed is fixed (proptest's deterministic RNG): CI runs
/// the same cases every time.
fn config(default_cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default_cases);
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::ChaCha,
        // PROPTEST_RNG_SEED=N runs other cases
        rng_seed: match ProptestConfig::default().rng_seed {
            RngSeed::Random => RngSeed::Fixed(29),
            fixed => fixed,
        },
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

/// A valid file of each format, as bytes (made once).
fn valid_files() -> &'static [(&'static str, Vec<u8>)] {
    static FILES: OnceLock<Vec<(&'static str, Vec<u8>)>> = OnceLock::new();
    FILES.get_or_init(make_valid_files)
}

fn make_valid_files() -> Vec<(&'static str, Vec<u8>)> {
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
    // the CMYK, Adobe CMYK and YCCK JPEGs of tests/jpeg.rs
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/jpeg");
    for name in ["cmyk_plain", "cmyk_adobe", "ycck"] {
        out.push((
            "jpg",
            std::fs::read(dir.join(format!("{name}.jpg"))).expect("fixture"),
        ));
    }
    // progressive and 4:2:0 JPEGs (libjpeg-turbo's other decoding paths)
    #[cfg(feature = "turbojpeg")]
    for progressive in [false, true] {
        let rgb = img.to_rgb8();
        let mut c = turbojpeg::Compressor::new().expect("compressor");
        c.set_subsamp(turbojpeg::Subsamp::Sub2x2).expect("4:2:0");
        c.set_progressive(progressive).expect("progressive");
        let jpeg = c
            .compress_to_vec(turbojpeg::Image {
                pixels: rgb.as_raw().as_slice(),
                width: 23,
                pitch: 23 * 3,
                height: 17,
                format: turbojpeg::PixelFormat::RGB,
            })
            .expect("encodes");
        out.push(("jpg", jpeg));
    }
    // a 2x2 GIF, not a format texelflow reads: an error however damaged
    out.push((
        "gif",
        b"GIF89a\x02\x00\x02\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff,\x00\x00\x00\x00\x02\x00\x02\x00\x00\x02\x02\x84\x51\x00;"
            .to_vec(),
    ));
    out
}

/// A valid 3D `.cube` LUT (size 2, with a title, a comment and a domain).
const CUBE: &str =
    "TITLE \"fuzz\"\n# a comment\nLUT_3D_SIZE 2\nDOMAIN_MIN 0 0 0\nDOMAIN_MAX 1 1 1\n\
0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n";

/// A valid `.acv` file: version 4, two curves (composite of 3 points, red of 2).
const ACV: &[u8] = &[
    0, 4, 0, 2, 0, 3, 0, 0, 0, 0, 0, 140, 0, 120, 0, 255, 0, 255, 0, 2, 0, 10, 0, 0, 0, 250, 0, 255,
];

/// Reads `bytes` as the file of `filter(file=...)` (`lut_cube`'s `.cube`, `tone_curve`'s
/// `.acv`) through the spec, as the CLI does, and runs what parsed on the CPU: an image or a
/// one-line error, bounded as `load_bytes` is.
fn check_param_file(bytes: &[u8], filter: &'static str, ext: &str, tag: &str) {
    let path = temp(&format!("{tag}.{ext}"));
    std::fs::write(&path, bytes).expect("writes");
    let spec = format!("{filter}(file={})", path.display());
    bounded(format!("{filter}: {bytes:?}"), move || {
        let mut load = |p: &str| Image::open(p);
        match Pipeline::parse(&spec, &mut load) {
            Ok(p) => {
                let img = Image::from_u8(
                    3,
                    2,
                    texelflow::PixelFormat::Rgba8,
                    (0..24).map(|i| i * 10).collect(),
                )
                .expect("sized");
                if let Err(e) = p.run(&texelflow::Backend::Cpu, &img) {
                    assert!(!e.to_string().contains('\n'), "{e}");
                }
            }
            Err(e) => assert!(!e.to_string().contains('\n'), "{e}"),
        }
    });
    let _ = std::fs::remove_file(&path);
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("texelflow-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d.join(name)
}

/// Loads `bytes` as a file named `*.ext` (with `fuzz_limits`, bounded in time and memory):
/// an image or a one-line error, never a panic.
fn load_bytes(bytes: &[u8], ext: &str, tag: &str, allow_truncated: bool) -> Result<Image, String> {
    let path = temp(&format!("{tag}.{ext}"));
    std::fs::write(&path, bytes).expect("writes");
    let p = path.clone();
    let r = bounded(format!("{tag}.{ext}, {} bytes", bytes.len()), move || {
        load_path(&p, allow_truncated)
    });
    let _ = std::fs::remove_file(&path);
    r
}

fn load_path(path: &std::path::Path, allow_truncated: bool) -> Result<Image, String> {
    let options = LoadOptions {
        limits: Some(fuzz_limits()),
        allow_truncated,
        ..Default::default()
    };
    let r = Image::load(path, &options)
        .map(|l| l.image)
        .map_err(|e| e.to_string());
    // the same file read by rows (PNG and TIFF stream; the rest decode whole), in two pieces
    let by_rows = texelflow::io::rows::open_rows(path, &options).and_then(|(mut src, _)| {
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
    if let Err(e) = &r {
        assert!(!e.contains('\n'), "a multi-line error: {e}");
    }
    r
}

proptest! {
    #![proptest_config(config(1024))]

    /// Any prefix of a valid file loads or fails cleanly; with `allow_truncated` too.
    #[test]
    fn truncated_files_fail_cleanly(which in any::<prop::sample::Index>(), cut in 0.0f64..1.0, allow in any::<bool>()) {
        let files = valid_files();
        let which = which.index(files.len());
        let (ext, bytes) = &files[which];
        let keep = (bytes.len() as f64 * cut) as usize;
        let r = load_bytes(&bytes[..keep], ext, &format!("cut-{which}-{keep}"), allow);
        if let Ok(img) = r {
            prop_assert!(img.width() > 0 && img.height() > 0);
        }
    }

    /// Flipped bits anywhere in a valid file (headers included) load or fail cleanly.
    #[test]
    fn bit_flips_fail_cleanly(which in any::<prop::sample::Index>(), flips in prop::collection::vec((0.0f64..1.0, 0u8..8), 1..6), allow in any::<bool>()) {
        let files = valid_files();
        let which = which.index(files.len());
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

    /// Runs of bytes overwritten (a header field set to 0x00 or 0xFF: sizes, counts, lengths)
    /// and spans cut out or repeated, in a valid file: loads or fails cleanly.
    #[test]
    fn mutated_files_fail_cleanly(which in any::<prop::sample::Index>(), at in 0.0f64..1.0, len in 1usize..8, how in 0u8..4, allow in any::<bool>()) {
        let files = valid_files();
        let which = which.index(files.len());
        let (ext, bytes) = &files[which];
        let b = mutate(bytes, at, len, how);
        let _ = load_bytes(&b, ext, &format!("mut-{which}"), allow);
    }

    /// `.cube` and `.acv` files cut short, with flipped bits or mutated runs: a LUT or curve
    /// that runs, or one line.
    #[test]
    fn damaged_cube_and_acv_files_fail_cleanly(acv in any::<bool>(), cut in 0.0f64..=1.0, flips in prop::collection::vec((0.0f64..1.0, 0u8..8), 0..3), at in 0.0f64..1.0, len in 0usize..6, how in 0u8..4) {
        let (valid, filter, ext) = if acv { (ACV, "tone_curve", "acv") } else { (CUBE.as_bytes(), "lut_cube", "cube") };
        let mut b = mutate(valid, at, len, how);
        for (at, bit) in &flips {
            let i = ((b.len() as f64 * at) as usize).min(b.len().saturating_sub(1));
            if let Some(x) = b.get_mut(i) {
                *x ^= 1 << bit;
            }
        }
        b.truncate((b.len() as f64 * cut) as usize);
        check_param_file(&b, filter, ext, "param");
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

    /// Valid specs with a character (any Unicode scalar) put in, or one taken out, anywhere.
    #[test]
    fn edited_specs_fail_cleanly(which in any::<prop::sample::Index>(), at in any::<prop::sample::Index>(), c in any::<char>(), insert in any::<bool>()) {
        let valid = [
            "gaussian_blur(sigma=2.5) | brightness(0.1)",
            "crop(x=0.1, y=0.2, width=0.5, height=0.5) | resize(scale=2)",
            "tone_curve(rgb=[0,0,0.5,0.6,1,1]) | alpha_blend(with=a.png, mix=0.5)",
            "histogram(bins=16)",
        ];
        let spec = valid[which.index(valid.len())];
        let chars: Vec<char> = spec.chars().collect();
        let i = at.index(chars.len());
        let mut edited = chars.clone();
        if insert {
            edited.insert(i, c);
        } else {
            edited.remove(i);
        }
        check_spec(&edited.into_iter().collect::<String>());
    }

    /// Specs nested past any real use (brackets and parentheses thousands deep), numbers past
    /// any float (thousands of digits, exponents far out of range) and long chains: `Ok` or one
    /// line, within the case's time.
    #[test]
    fn deep_and_huge_specs_fail_cleanly(depth in 0usize..20_000, open in prop::sample::select(vec!["(", "[", "([", "{"]), digits in 1usize..5_000, calls in 1usize..200) {
        let close: String = open.chars().rev().map(|c| match c { '(' => ')', '[' => ']', _ => '}' }).collect();
        check_spec(&format!("tone_curve(rgb={}0{})", open.repeat(depth), close.repeat(depth)));
        check_spec(&format!("brightness({})", "9".repeat(digits)));
        check_spec(&format!("resize(width=1{}, height=0.{}1)", "0".repeat(digits), "0".repeat(digits)));
        check_spec(&format!("brightness(1e{0}) | contrast(-1e-{0})", "9".repeat(digits)));
        check_spec(&vec!["brightness(0.01)"; calls].join(" | "));
    }
}

/// `bytes` with `len` bytes at `at` (a fraction of the length) set to 0x00 (`how` 0) or 0xFF
/// (1), cut out (2) or repeated (3).
fn mutate(bytes: &[u8], at: f64, len: usize, how: u8) -> Vec<u8> {
    let mut b = bytes.to_vec();
    let i = ((b.len() as f64 * at) as usize).min(b.len());
    let j = (i + len).min(b.len());
    match how {
        0 => b[i..j].fill(0),
        1 => b[i..j].fill(0xFF),
        2 => {
            b.drain(i..j);
        }
        _ => {
            let run = b[i..j].to_vec();
            b.splice(i..i, run);
        }
    }
    b
}

/// Parses `spec` and builds its graph: `Ok` or a one-line error, bounded as `load_bytes` is.
fn check_spec(spec: &str) {
    let owned = spec.to_string();
    bounded(format!("spec {spec:?}"), move || check_spec_now(&owned));
}

fn check_spec_now(spec: &str) {
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
            ..Default::default()
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
