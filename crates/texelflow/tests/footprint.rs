//! Every registered filter states its footprint (what an output pixel reads), and the
//! statement is true: changing every input pixel outside the footprint of one output pixel
//! leaves that output pixel unchanged (CPU twins, default and random parameters).

mod common;

use common::*;
use texelflow::params::{Args, ParamKind, RawValue};
use texelflow::registry::{self, FilterDef, Footprint, PortKind};
use texelflow::{Backend, Graph, Image, PixelFormat, RunOptions, ValueDesc};

fn run(def: &FilterDef, args: &Args, images: &[Image]) -> Option<Image> {
    let f = (def.build)(args).ok()?;
    let mut g = Graph::new();
    let ports: Vec<_> = images
        .iter()
        .enumerate()
        .map(|(i, im)| g.source(&format!("s{i}"), im.desc()).unwrap())
        .collect();
    let out = g.add_boxed(f, &ports).ok()?[0];
    g.output("o", out).unwrap();
    let names: Vec<String> = (0..images.len()).map(|i| format!("s{i}")).collect();
    let srcs: Vec<(&str, &Image)> = names.iter().map(|n| n.as_str()).zip(images).collect();
    Backend::Cpu
        .run(&g, &srcs, &RunOptions::default())
        .ok()?
        .outputs
        .into_iter()
        .next()?
        .1
        .into_image()
}

fn pixel(img: &Image, x: u32, y: u32) -> Vec<u8> {
    let c = img.format().channels();
    let i = (y as usize * img.width() as usize + x as usize) * c;
    img.as_u8()[i..i + c].to_vec()
}

/// Input 0 with every pixel outside `keep` replaced by noise.
fn perturbed(img: &Image, seed: u64, keep: impl Fn(u32, u32) -> bool) -> Image {
    let noise = random_image(img.width(), img.height(), img.format(), seed);
    let c = img.format().channels();
    let mut bytes = img.as_u8().to_vec();
    for y in 0..img.height() {
        for x in 0..img.width() {
            if !keep(x, y) {
                let i = (y as usize * img.width() as usize + x as usize) * c;
                bytes[i..i + c].copy_from_slice(&noise.as_u8()[i..i + c]);
            }
        }
    }
    Image::from_u8(img.width(), img.height(), img.format(), bytes).unwrap()
}

fn check(def: &FilterDef, args: &Args, seed: u64) -> Result<bool, String> {
    let (w, h) = (29, 23);
    let mut images = vec![random_image(w, h, PixelFormat::Rgba8, seed)];
    match def.test_inputs {
        Some(f) => images.extend(f(w, h, seed)),
        None => images.extend(
            (1..def.inputs.len()).map(|k| random_image(w, h, PixelFormat::Rgba8, seed + k as u64)),
        ),
    }
    let f = (def.build)(args).map_err(|e| e.to_string())?;
    let descs: Vec<ValueDesc> = images.iter().map(|i| ValueDesc::Image(i.desc())).collect();
    let fp = f.footprint(&descs);
    let Some(out) = run(def, args, &images) else {
        return Ok(false);
    };
    let (px, py) = (out.width() / 2, out.height() / 2);
    // the input window the output pixel may read
    let keep: Box<dyn Fn(u32, u32) -> bool> = match fp {
        Footprint::WholeImage => return Ok(false),
        Footprint::Pixel => Box::new(move |x, y| x == px && y == py),
        Footprint::Radius(r) => Box::new(move |x, y| x.abs_diff(px) <= r && y.abs_diff(py) <= r),
        Footprint::Resample {
            scale,
            offset,
            margin,
        } => {
            let cx = (px as f64 + 0.5) * scale[0] + offset[0] - 0.5;
            let cy = (py as f64 + 0.5) * scale[1] + offset[1] - 0.5;
            Box::new(move |x, y| {
                (x as f64 - cx).abs() <= margin as f64 + 0.5
                    && (y as f64 - cy).abs() <= margin as f64 + 0.5
            })
        }
    };
    for s in 0..3 {
        let mut changed = images.clone();
        changed[0] = perturbed(&images[0], seed * 101 + s, &keep);
        let other = run(def, args, &changed).ok_or("second run failed")?;
        if pixel(&other, px, py) != pixel(&out, px, py) {
            return Err(format!(
                "{fp:?}: output ({px}, {py}) changed when only pixels outside it changed"
            ));
        }
    }
    Ok(true)
}

#[test]
fn every_footprint_is_declared_and_true() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for def in registry::all() {
        if def
            .inputs
            .iter()
            .chain(def.outputs)
            .any(|p| p.kind != PortKind::Image)
        {
            continue; // reductions and their readers: whole-image by nature
        }
        if def
            .params
            .iter()
            .any(|p| matches!(p.kind, ParamKind::Image))
            && def.test_inputs.is_none()
            && def.inputs.len() == 1
        {
            continue;
        }
        if def
            .params
            .iter()
            .any(|p| matches!(p.kind, ParamKind::Path { required: true, .. }))
        {
            continue; // filters built from a file (lut_cube: per pixel; the matrix covers it)
        }
        let mut rng = Rng(def.name.len() as u64 * 7919 + 3);
        let mut arg_sets = vec![Args::defaults(def)];
        let raw: Vec<(String, RawValue)> = def
            .params
            .iter()
            .filter_map(|p| match p.kind {
                ParamKind::Float { min, max, .. } => Some((
                    p.name.to_string(),
                    RawValue::Number(min + (max - min) * rng.unit()),
                )),
                ParamKind::Int { min, max, .. } => Some((
                    p.name.to_string(),
                    RawValue::Number(
                        (min + (rng.next() % (max.min(min + 6) - min + 1) as u64) as i64) as f64,
                    ),
                )),
                _ => None,
            })
            .collect();
        // a combination the filter rejects when built (canny_edge_detection's lower above upper) is skipped
        if let Ok(a) = Args::resolve(def, &raw) {
            if !matches!((def.build)(&a), Err(texelflow::Error::BadParam { .. })) {
                arg_sets.push(a);
            }
        }
        for (k, args) in arg_sets.iter().enumerate() {
            match check(def, args, 7 + k as u64) {
                Ok(true) => checked += 1,
                Ok(false) => {}
                Err(e) => failures.push(format!("{} {args:?}: {e}", def.name)),
            }
        }
    }
    assert!(checked >= 40, "only {checked} footprints checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
