//! The JPEG entropy decode on the device (issue 30, `io::jpeg_huffdec`): the coefficients the
//! GPU decodes from the file's bytes equal libjpeg-turbo's (`read_coefficients`) bit for bit,
//! for grey, 4:4:4, 4:2:2 and 4:2:0, odd sizes, qualities 50/92/100, photo-like and noise
//! content, with and without restart intervals, and with tiny subsequences and few rounds
//! (synchronisation over several rounds, and the in-order walk after them); the decoded image
//! through `JpegDecode::from_file` equals the host decode; progressive files are not taken.
#![cfg(feature = "turbojpeg")]

mod common;

use common::turbo::{tj_compress, TjParams};
use common::*;
use texelflow::io::jpeg_coef::{read_coefficients, JpegDecode};
use texelflow::io::jpeg_huffdec::{HuffScan, JpegCoefficients, Tuning};
use texelflow::value::Data;
use texelflow::{Backend, Graph, Image, RunOptions, Value};

const GRAY: i32 = turbojpeg_sys::TJSAMP_TJSAMP_GRAY;
const S444: i32 = turbojpeg_sys::TJSAMP_TJSAMP_444;
const S422: i32 = turbojpeg_sys::TJSAMP_TJSAMP_422;
const S420: i32 = turbojpeg_sys::TJSAMP_TJSAMP_420;

#[derive(Clone, Copy, Debug)]
struct Enc {
    sub: i32,
    quality: i32,
    noise: bool,
    progressive: bool,
    restart_blocks: i32,
    restart_rows: i32,
}

fn pixels(w: usize, h: usize, ch: usize, noise: bool) -> Vec<u8> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (w * 31 + h) as u64);
    (0..w * h * ch)
        .map(|i| {
            if noise {
                return (rng.next() >> 24) as u8;
            }
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
    tj_compress(&pixels(w, h, ch, e.noise), w, h, p)
}

fn poisoned() -> RunOptions {
    RunOptions {
        poison: true,
        ..Default::default()
    }
}

/// The device's coefficients of `file` (little-endian i16s), the synchronisation's report
/// (rounds that changed a state, | 1 << 16 where the in-order walk ran), and the damage found
/// (`DAMAGE_*` bits).
fn device_decode(backend: &Backend, file: &[u8], tuning: Tuning) -> (Vec<u8>, u32, u32) {
    let node = JpegCoefficients::new(file.to_vec(), 1 << 28, tuning).expect("taken");
    let mut g = Graph::new();
    let out = g.add_boxed(Box::new(node), &[]).expect("node");
    g.output("out", out[0]).expect("output");
    g.output("status", out[1]).expect("output");
    let mut r = backend.run(&g, &[], &poisoned()).expect("run");
    let status = match r.take("status") {
        Some(Value::Data(Data::Bytes(b))) => b.words[0],
        _ => panic!("no status"),
    };
    match r.take("out") {
        Some(Value::Data(Data::Bytes(b))) => (b.bytes, b.words[0], status),
        _ => panic!("no coefficients"),
    }
}

/// `device_decode` without the status.
fn device_coefficients(backend: &Backend, file: &[u8], tuning: Tuning) -> (Vec<u8>, u32) {
    let (c, report, _) = device_decode(backend, file, tuning);
    (c, report)
}

/// Whether the device's coefficients of `file` equal libjpeg-turbo's and no damage was found,
/// and the report.
fn check(backend: &Backend, name: &str, file: &[u8], tuning: Tuning) -> (bool, u32) {
    let want = read_coefficients(file, 1 << 28).expect("host decode");
    let want: &[u8] = bytemuck::cast_slice(&want.data);
    let (got, report, status) = device_decode(backend, file, tuning);
    if status != 0 {
        eprintln!("{name}: an undamaged file flagged {status:#x}");
        return (false, report);
    }
    if got.len() != want.len() {
        eprintln!("{name}: {} bytes, want {}", got.len(), want.len());
        return (false, report);
    }
    let wrong: Vec<usize> = (0..want.len() / 2)
        .filter(|&i| got[2 * i..2 * i + 2] != want[2 * i..2 * i + 2])
        .collect();
    if !wrong.is_empty() {
        let i = wrong[0];
        eprintln!(
            "{name}: {} of {} coefficients differ, first block {} index {}: got {} want {}",
            wrong.len(),
            want.len() / 2,
            i / 64,
            i % 64,
            i16::from_le_bytes([got[2 * i], got[2 * i + 1]]),
            i16::from_le_bytes([want[2 * i], want[2 * i + 1]]),
        );
        return (false, report);
    }
    (true, report)
}

#[test]
fn device_coefficients_equal_libjpeg_turbos() {
    let backend = gpu_backend();
    let mut failures = 0;
    let mut cases = 0;
    let variants = [
        (50, false, 0, 0),
        (92, true, 0, 1),
        (100, true, 2, 0),
        (92, false, 1, 0),
        (100, false, 0, 0),
        (50, true, 0, 1),
    ];
    for (si, sub) in [GRAY, S444, S422, S420].into_iter().enumerate() {
        for (zi, (w, h)) in [(1, 1), (17, 9), (61, 35), (1001, 3), (250, 130)]
            .into_iter()
            .enumerate()
        {
            // three of the variants per sampling and size, rotating
            for k in 0..3 {
                let (quality, noise, restart_blocks, restart_rows) =
                    variants[(si + zi + 2 * k) % variants.len()];
                let e = Enc {
                    sub,
                    quality,
                    noise,
                    progressive: false,
                    restart_blocks,
                    restart_rows,
                };
                let file = jpeg(w, h, e);
                cases += 1;
                if !check(
                    &backend,
                    &format!("{w}x{h} {e:?}"),
                    &file,
                    Tuning::default(),
                )
                .0
                {
                    failures += 1;
                }
            }
        }
    }
    assert_eq!(failures, 0, "{failures} of {cases} files differ");
}

#[test]
fn synchronisation_over_several_rounds_and_the_walk_after_them() {
    let backend = gpu_backend();
    let mut failures = 0;
    let noise = |sub, w, h, restart_rows| {
        jpeg(
            w,
            h,
            Enc {
                sub,
                quality: 100,
                noise: true,
                progressive: false,
                restart_blocks: 0,
                restart_rows,
            },
        )
    };
    // short reaches (each round carries a state a subsequence or two), tiny subsequences:
    // several rounds, and no walk after them
    for (sub, restart_rows) in [(S420, 0), (S444, 0), (GRAY, 0), (S422, 1)] {
        let file = noise(sub, 250, 130, restart_rows);
        for (sub_words, reach, min_rounds) in [(32, 2, 3), (1, 8, 2), (2, 16, 2), (16, 64, 1)] {
            let t = Tuning {
                sub_words,
                rounds: 64,
                reach,
            };
            let (ok, report) = check(&backend, &format!("{sub} {t:?}"), &file, t);
            let (rounds, walked) = (report & 0xffff, report >> 16);
            if !ok || rounds < min_rounds || walked != 0 {
                eprintln!(
                    "{sub} {restart_rows} {t:?}: {rounds} rounds changed states, walk {walked}"
                );
                failures += 1;
            }
        }
    }
    // one round: the in-order walk finishes (small: llvmpipe stops long loops)
    let walk = Tuning {
        sub_words: 1,
        rounds: 1,
        reach: 1,
    };
    for sub in [S420, S444, GRAY] {
        let (ok, report) = check(
            &backend,
            &format!("{sub} walk"),
            &noise(sub, 24, 16, 0),
            walk,
        );
        if !ok || report >> 16 != 1 {
            eprintln!("{sub} walk: report {report:x}");
            failures += 1;
        }
    }
    assert_eq!(failures, 0);
}

fn decode_node(backend: &Backend, node: &JpegDecode) -> Image {
    let mut g = Graph::new();
    g.set_straight_alpha(true);
    let out = g.add_boxed(Box::new(node.clone()), &[]).expect("node");
    g.output("out", out[0]).expect("output");
    let r = backend.run(&g, &[], &poisoned()).expect("run");
    match r.outputs.into_iter().next() {
        Some((_, Value::Image(i))) => i,
        _ => panic!("no image"),
    }
}

#[test]
fn the_file_decode_equals_the_host_decode() {
    let gpu = gpu_backend();
    for (sub, w, h, restart_blocks) in [
        (GRAY, 61, 35, 0),
        (S444, 17, 9, 0),
        (S422, 250, 130, 3),
        (S420, 61, 35, 0),
        (S420, 250, 130, 2),
    ] {
        let e = Enc {
            sub,
            quality: 92,
            noise: false,
            progressive: false,
            restart_blocks,
            restart_rows: 0,
        };
        let file = jpeg(w, h, e);
        let host = JpegDecode::new(read_coefficients(&file, 1 << 28).expect("host"), 6)
            .expect("taken")
            .decode_cpu()
            .expect("twin");
        let node = JpegDecode::from_file(file, 6, 1 << 28).expect("taken");
        let twin = node.decode_cpu().expect("twin");
        let device = decode_node(&gpu, &node);
        assert_eq!(twin.as_u8(), host.as_u8(), "{e:?}: the twin");
        assert_eq!(device.desc(), host.desc(), "{e:?}");
        assert!(
            device.as_u8() == host.as_u8(),
            "{e:?}: the device decode differs"
        );
    }
}

#[test]
fn what_the_device_decode_does_not_take() {
    let e = Enc {
        sub: S420,
        quality: 90,
        noise: false,
        progressive: true,
        restart_blocks: 0,
        restart_rows: 0,
    };
    let progressive = jpeg(40, 24, e);
    assert!(HuffScan::parse(&progressive, 1 << 28).is_none());
    assert!(JpegDecode::from_file(progressive, 1, 1 << 28).is_none());
    let base = jpeg(
        40,
        24,
        Enc {
            progressive: false,
            ..e
        },
    );
    assert!(HuffScan::parse(&base, 1 << 28).is_some());
    // over the cap, truncated, garbage, every prefix: none panics
    assert!(HuffScan::parse(&base, 100).is_none());
    assert!(HuffScan::parse(b"not a jpeg", 1 << 28).is_none());
    for n in 0..base.len() {
        assert!(HuffScan::parse(&base[..n], 1 << 28).is_none(), "prefix {n}");
    }
    let mut rng = Rng(7);
    for _ in 0..200 {
        let mut bad = base.clone();
        for _ in 0..4 {
            let at = (rng.next() as usize) % bad.len();
            bad[at] = rng.next() as u8;
        }
        let _ = HuffScan::parse(&bad, 1 << 28);
    }
}

/// Damage inside the entropy-coded data (the markers intact) is decoded into something, on
/// the device too: no hang, no panic, no out-of-range write.
#[test]
fn damaged_entropy_data_decodes_without_harm() {
    let gpu = gpu_backend();
    let file = jpeg(
        61,
        35,
        Enc {
            sub: S420,
            quality: 92,
            noise: true,
            progressive: false,
            restart_blocks: 2,
            restart_rows: 0,
        },
    );
    // the scan's data: after the SOS segment
    let sos = file
        .windows(2)
        .position(|w| w == [0xff, 0xda])
        .expect("SOS");
    let start = sos + 2 + (usize::from(file[sos + 2]) << 8 | usize::from(file[sos + 3]));
    let mut rng = Rng(11);
    let mut taken = 0;
    for _ in 0..12 {
        let mut bad = file.clone();
        for _ in 0..6 {
            let at = start + (rng.next() as usize) % (bad.len() - 2 - start);
            let v = rng.next() as u8;
            // no new markers
            if v != 0xff && bad[at] != 0xff && (at == 0 || bad[at - 1] != 0xff) {
                bad[at] = v;
            }
        }
        for tuning in [
            Tuning::default(),
            Tuning {
                sub_words: 1,
                rounds: 2,
                reach: 2,
            },
        ] {
            if let Some(node) = JpegCoefficients::new(bad.clone(), 1 << 28, tuning) {
                taken += 1;
                let mut g = Graph::new();
                let out = g.add_boxed(Box::new(node), &[]).expect("node");
                g.output("out", out[0]).expect("output");
                gpu.run(&g, &[], &poisoned()).expect("run");
            }
        }
    }
    assert!(taken > 0);
}

#[test]
fn load_for_device_with_the_entropy_decode_on_the_device() {
    let gpu = gpu_backend();
    let dir = std::env::temp_dir().join(format!("texelflow-huffdec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (name, sub, restart_rows) in [("420.jpg", S420, 0), ("grey.jpg", GRAY, 1)] {
        let file = jpeg(
            97,
            45,
            Enc {
                sub,
                quality: 90,
                noise: false,
                progressive: false,
                restart_blocks: 0,
                restart_rows,
            },
        );
        let path = dir.join(name);
        std::fs::write(&path, &file).expect("write");
        let host = Image::load(&path, &Default::default()).expect("host load");
        let f = Image::load_for_device_with(&path, &Default::default(), true).expect("load");
        let texelflow::io::ForDevice::Jpeg { decode, .. } = f else {
            panic!("{name}: not decoded on the device");
        };
        let device = decode_node(&gpu, &decode);
        assert_eq!(device.desc(), host.image.desc(), "{name}");
        assert!(
            device.as_u8() == host.image.as_u8(),
            "{name}: differs from the host decode"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where the scan's entropy-coded data starts (after the SOS segment), and where each RST
/// marker is.
fn scan_layout(file: &[u8]) -> (usize, Vec<usize>) {
    let sos = file
        .windows(2)
        .position(|w| w == [0xff, 0xda])
        .expect("SOS");
    let start = sos + 2 + (usize::from(file[sos + 2]) << 8 | usize::from(file[sos + 3]));
    let rst = (start..file.len() - 1)
        .filter(|&i| file[i] == 0xff && (0xd0..=0xd7).contains(&file[i + 1]))
        .collect();
    (start, rst)
}

/// A place from `at` on (downwards with `down`) where `n` bytes of entropy-coded data may be
/// replaced or cut without touching a marker or a stuffed byte: no 0xFF among them or before.
fn clean_run(file: &[u8], mut at: usize, n: usize, down: bool) -> usize {
    while file[at - 1] == 0xff || file[at..at + n].contains(&0xff) {
        at = if down { at - 1 } else { at + 1 };
    }
    at
}

/// The device decode's damage bits for `file`, or `None` where it does not take the file.
fn status_of(backend: &Backend, file: &[u8], tuning: Tuning) -> Option<u32> {
    HuffScan::parse_tuned(file, 1 << 28, tuning)?;
    Some(device_decode(backend, file, tuning).2)
}

/// Damage within the entropy-coded data that libjpeg-turbo warns about (so the host path
/// decodes such a file with its policy for damaged files) is flagged by the device decode, or
/// the file is not taken; never decoded silently. (Undamaged files are never flagged: `check`.)
#[test]
fn damaged_entropy_data_is_flagged() {
    use texelflow::io::jpeg_coef::{DAMAGE_BAD_CODE, DAMAGE_EXTRA, DAMAGE_SHORT};
    let gpu = gpu_backend();
    let tunings = [
        Tuning::default(),
        Tuning {
            sub_words: 1,
            rounds: 4,
            reach: 8,
        },
    ];
    let mut failures = Vec::new();
    for (sub, w, h) in [(S420, 61, 35), (GRAY, 45, 29), (S444, 33, 17)] {
        for restart_blocks in [0, 2] {
            let file = jpeg(
                w,
                h,
                Enc {
                    sub,
                    quality: 92,
                    noise: false,
                    progressive: false,
                    restart_blocks,
                    restart_rows: 0,
                },
            );
            let (start, rst) = scan_layout(&file);
            let eoi = file.len() - 2;
            // (name, file, the bit expected: 0 where the parse is to refuse it)
            let mut cases: Vec<(String, Vec<u8>, u32)> = Vec::new();
            // 32 one bits (0xFF stuffed) in the middle: a code longer than 16 bits
            let at = clean_run(&file, (start + eoi) / 2, 8, false);
            let mut bad = file.clone();
            bad[at..at + 8].copy_from_slice(&[0xff, 0, 0xff, 0, 0xff, 0, 0xff, 0]);
            cases.push(("bad code".into(), bad, DAMAGE_BAD_CODE));
            // truncated mid-scan: no EOI (refused), or an EOI after the cut
            let cut = clean_run(&file, (start + eoi) / 2, 1, false);
            cases.push(("truncated".into(), file[..cut].to_vec(), 0));
            let mut eoi_cut = file[..cut].to_vec();
            eoi_cut.extend_from_slice(&[0xff, 0xd9]);
            // with restart intervals, markers are missing: refused
            let want = if rst.is_empty() { DAMAGE_SHORT } else { 0 };
            cases.push(("truncated, EOI after".into(), eoi_cut, want));
            // extraneous bytes before EOI
            let mut extra = file.clone();
            extra.splice(eoi..eoi, [0x5a; 64]);
            cases.push(("bytes before EOI".into(), extra, DAMAGE_EXTRA));
            if let Some(&k) = rst.get(1) {
                // an interval cut short before its RST marker
                let at = clean_run(&file, k - 3, 3, true);
                let mut short = file.clone();
                short.drain(at..at + 3);
                cases.push(("interval cut short".into(), short, DAMAGE_SHORT));
                // garbage bytes before an RST marker: one, and several
                for n in [1, 5] {
                    let mut extra = file.clone();
                    extra.splice(k..k, std::iter::repeat_n(0x5a, n));
                    cases.push((format!("{n} bytes before RST"), extra, DAMAGE_EXTRA));
                }
            }
            for (name, bad, want) in cases {
                let what = format!("{w}x{h} sub {sub} restart {restart_blocks}: {name}");
                // the host path sees it as damaged too, but for one byte before a marker:
                // libjpeg-turbo counts it, but warns only at its next search for a marker, which
                // does not come where its bit buffer has read the marker already (flagged
                // anyway: the host then decodes it as libjpeg-turbo does)
                if read_coefficients(&bad, 1 << 28).is_ok() && !name.starts_with("1 byte") {
                    failures.push(format!("{what}: libjpeg-turbo does not warn"));
                }
                for t in tunings {
                    match (status_of(&gpu, &bad, t), want) {
                        (None, 0) => {}
                        (Some(s), want) if want != 0 && s & want != 0 => {}
                        (got, _) => failures.push(format!("{what} {t:?}: {got:?}, want {want}")),
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The flag reaches the caller: `Pipeline::try_run_produced` on a damaged file's node is
/// `Error::ProducerRejected` (the caller decodes on the host), on the undamaged one a result.
#[test]
fn a_flagged_decode_is_rejected_by_the_pipeline() {
    let gpu = gpu_backend();
    let file = jpeg(
        61,
        35,
        Enc {
            sub: S420,
            quality: 92,
            noise: false,
            progressive: false,
            restart_blocks: 2,
            restart_rows: 0,
        },
    );
    let (_, rst) = scan_layout(&file);
    let mut bad = file.clone();
    bad.insert(rst[0], 0x5a);
    let pipe =
        texelflow::Pipeline::parse("color_invert", &mut |p: &str| Image::open(p)).expect("pipe");
    let run = |bytes: Vec<u8>| {
        let node = JpegDecode::from_file(bytes, 1, 1 << 28).expect("taken");
        pipe.try_run_produced(&gpu, Box::new(node), &RunOptions::default())
    };
    let good = run(file).expect("run").expect("whole");
    assert!(good.get("output").is_some() && good.outputs.len() == 1);
    match run(bad) {
        Err(texelflow::Error::ProducerRejected { status }) => assert_eq!(
            status,
            texelflow::io::jpeg_coef::DAMAGE_EXTRA,
            "{}",
            texelflow::io::jpeg_coef::damage_why(status)
        ),
        other => panic!(
            "not rejected: {:?}",
            other.map(|r| r.map(|r| r.outputs.len()))
        ),
    }
}

/// Informal timings (debug build, llvmpipe: not GPU claims): the host's parse and layout, the
/// device decode of the coefficients, libjpeg-turbo's entropy decode.
#[test]
#[ignore]
fn timings() {
    let gpu = gpu_backend();
    let file = jpeg(
        1920,
        1080,
        Enc {
            sub: S420,
            quality: 90,
            noise: false,
            progressive: false,
            restart_blocks: 0,
            restart_rows: 0,
        },
    );
    let t = std::time::Instant::now();
    let scan = HuffScan::parse(&file, 1 << 30).expect("taken");
    let parse = t.elapsed();
    let t = std::time::Instant::now();
    let host = read_coefficients(&file, 1 << 30).expect("host");
    let libjpeg = t.elapsed();
    let _ = device_coefficients(&gpu, &file, Tuning::default());
    let t = std::time::Instant::now();
    let (got, report) = device_coefficients(&gpu, &file, Tuning::default());
    let device = t.elapsed();
    assert!(got == bytemuck::cast_slice::<i16, u8>(&host.data));
    eprintln!(
        "{} bytes, {} blocks: parse {parse:?}, read_coefficients {libjpeg:?}, device (llvmpipe) {device:?}, report {report:x}",
        file.len(),
        scan.blocks()
    );
}
