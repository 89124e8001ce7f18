//! Golden images: fixed pipelines on a fixed input, compared with PNGs that were reviewed by
//! eye (`golden/cases.txt` says where each came from). The GPU-vs-CPU matrix cannot catch a
//! formula that is wrong on both sides; these can. The CPU twin must match each file exactly,
//! the GPU within the largest tolerance of the pipeline's filters.
//!
//! `UPDATE_GOLDEN=1 cargo test --test golden` writes the files that do not exist yet (from the
//! CPU twin) and a contact sheet `golden/sheet.png` to review them; existing files are never
//! rewritten: delete one on purpose to change it.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use texelflow::{registry, Backend, Image, Pipeline, Value};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// `(file, spec, GPU tolerance override)`.
fn cases() -> Vec<(String, String, Option<u8>)> {
    let text = std::fs::read_to_string(dir().join("cases.txt")).expect("golden/cases.txt");
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (file, rest) = l.split_once('|').expect("`file | spec`");
            // `| gpu<=N` at the end: a chain whose per-step differences grow (the reason is in cases.txt)
            let (spec, tol) = match rest.rsplit_once("| gpu<=") {
                Some((s, t)) => (s, Some(t.trim().parse().expect("gpu<=N"))),
                None => (rest, None),
            };
            (file.trim().to_string(), spec.trim().to_string(), tol)
        })
        .collect()
}

fn load(path: &str) -> texelflow::Result<Image> {
    Image::open(dir().join(path))
}

/// The largest per-sample tolerance among the spec's filters.
fn tolerance(spec: &str) -> u8 {
    texelflow::graph::spec::parse(spec)
        .expect("spec")
        .iter()
        .map(|c| registry::find(&c.name).expect("filter").tolerance.max_diff)
        .max()
        .unwrap_or(0)
}

fn image(v: Value) -> Image {
    v.into_image().expect("an image output")
}

fn max_sample_diff(a: &Image, b: &Image) -> Option<u8> {
    (a.desc() == b.desc()).then(|| {
        a.as_u8()
            .iter()
            .zip(b.as_u8())
            .map(|(x, y)| x.abs_diff(*y))
            .max()
            .unwrap_or(0)
    })
}

#[test]
fn pipelines_reproduce_their_golden_images() {
    let input = load("input.png").expect("golden/input.png");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let gpu = gpu_backend();
    let mut failures = Vec::new();
    let mut written = Vec::new();
    for (file, spec, tol_override) in cases() {
        let p = Pipeline::parse(&spec, &mut |path| load(path))
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        let cpu = image(
            p.run(&Backend::Cpu, &input)
                .unwrap_or_else(|e| panic!("{file}: cpu: {e}")),
        );
        let path = dir().join(&file);
        if !path.exists() {
            if update {
                cpu.save(&path).expect("write golden");
                written.push(file.clone());
            } else {
                failures.push(format!(
                    "{file}: missing (UPDATE_GOLDEN=1 writes it from the CPU twin)"
                ));
            }
            continue;
        }
        let want = load(&file).expect("golden readable");
        match max_sample_diff(&cpu, &want) {
            Some(0) => {}
            Some(d) => failures.push(format!(
                "{file} ({spec}): CPU differs from the golden image by up to {d}"
            )),
            None => failures.push(format!(
                "{file}: CPU gives {:?}, golden is {:?}",
                cpu.desc(),
                want.desc()
            )),
        }
        let g = image(
            p.run(&gpu, &input)
                .unwrap_or_else(|e| panic!("{file}: gpu: {e}")),
        );
        let tol = tol_override.unwrap_or_else(|| tolerance(&spec));
        match max_sample_diff(&g, &want) {
            Some(d) if d <= tol => {}
            Some(d) => failures.push(format!(
                "{file} ({spec}): GPU differs from the golden image by {d} > {tol}"
            )),
            None => failures.push(format!(
                "{file}: GPU gives {:?}, golden is {:?}",
                g.desc(),
                want.desc()
            )),
        }
    }
    if update {
        write_sheet(&input);
        eprintln!("wrote {} golden images: {written:?}", written.len());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every golden image next to the input, 4 to a row, for review by eye.
fn write_sheet(input: &Image) {
    let mut tiles = vec![input.clone()];
    for (file, _, _) in cases() {
        if let Ok(img) = load(&file) {
            tiles.push(img);
        }
    }
    let (tw, th) = (input.width() as usize + 4, input.height() as usize + 4);
    let cols = 6;
    let rows = tiles.len().div_ceil(cols);
    let mut sheet = image::RgbaImage::from_pixel(
        (cols * tw) as u32,
        (rows * th) as u32,
        image::Rgba([128, 128, 128, 255]),
    );
    for (k, t) in tiles.iter().enumerate() {
        let rgba = t.to_dynamic().to_rgba8();
        image::imageops::overlay(
            &mut sheet,
            &rgba,
            ((k % cols) * tw) as i64,
            ((k / cols) * th) as i64,
        );
    }
    sheet.save(dir().join("sheet.png")).expect("sheet");
}
