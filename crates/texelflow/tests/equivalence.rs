//! GPU-vs-CPU equivalence for every registered filter: random images at awkward sizes,
//! outputs poisoned before each GPU run, 8-bit outputs within the registry's tolerance,
//! 16-bit outputs within `TOLERANCE16` (or the registry's 8-bit tolerance scaled to 16 bits),
//! data outputs (histograms, statistics) exactly equal.

mod common;

use common::*;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};

use texelflow::params::{Args, ParamKind, ParamValue, RawValue};
use texelflow::registry::{self, FilterDef, PortKind};
use texelflow::{Backend, Graph, Image, PixelFormat, RunOptions};

// Awkward sizes, plus widths that are multiples of 4 (16-byte row schedules) spanning several
// workgroup strips and row blocks.
const SIZES: &[(u32, u32)] = &[
    (1, 1),
    (1, 9),
    (9, 1),
    (67, 43),
    (130, 17),
    (4, 3),
    (260, 37),
    (68, 130),
];
/// RGBA16 cases: a single pixel, an odd single column (the kernels take two pixels per
/// invocation) and an odd 2D size.
const SIZES16: &[(u32, u32)] = &[(1, 1), (1, 9), (67, 43)];

/// Agreement at 16 bits, in 1/65535 steps, where a filter declares the 8-bit minimum (one
/// level): both sides compute in f32 from the same inputs, but the GPU may contract a
/// multiply-add into an FMA and its `pow`/`exp`/`sqrt` differ from Rust's by a few ulps,
/// which at 16 bits moves a result across a rounding boundary (one step), or a few steps
/// where a function is steep (a gamma near 0). A filter declaring more at 8 bits gets that
/// many 8-bit levels (each 257 steps).
const TOLERANCE16: f64 = 4.0;

/// Runs one filter on GPU (poisoned outputs) and CPU, under the schedule overrides `schedules`;
/// returns the max diff per output.
fn compare(
    def: &FilterDef,
    args: &Args,
    w: u32,
    h: u32,
    seed: u64,
    fmt: PixelFormat,
    schedules: &[(String, String)],
) -> Result<(), String> {
    let filter = (def.build)(args).map_err(|e| format!("build: {e}"))?;
    let main = random_image(w, h, fmt, seed);
    let mut images: Vec<Image> = vec![main.clone()];
    let extra_ports = def
        .inputs
        .iter()
        .skip(1)
        .filter(|p| p.kind == PortKind::Image)
        .count();
    match def.test_inputs {
        Some(f) => images.extend(f(w, h, seed)),
        // a blend's second image in the first's format (16-bit with 16-bit)
        None => images.extend((0..extra_ports).map(|k| {
            random_image(
                w,
                h,
                if fmt == PixelFormat::Rgba16 {
                    fmt
                } else {
                    PixelFormat::Rgba8
                },
                seed + 100 + k as u64,
            )
        })),
    }
    let mut g = Graph::new();
    let sources: Vec<_> = images
        .iter()
        .enumerate()
        .map(|(i, im)| g.source(&format!("s{i}"), im.desc()).unwrap())
        .collect();
    // Image ports take the sources in order; a data port (e.g. statistics feeding a threshold)
    // takes the output of a registered filter that makes that kind of data from the main input:
    // from the image itself, or from data made so (a solver's curves from a histogram).
    let mut next_source = sources.iter();
    let mut ports = Vec::new();
    for pd in def.inputs {
        match pd.kind {
            PortKind::Image => {
                ports.push(*next_source.next().ok_or("fewer images than image inputs")?)
            }
            PortKind::Data(kind) => ports.push(produce(&mut g, kind, sources[0], 3)?),
        }
    }
    let outs = match g.add_boxed(filter, &ports) {
        // a composite checks combinations of its parameters when its primitives are built
        // (draw_hough_lines: Canny's lower above upper), the one-line error the CLI shows: skipped
        // as run_matrix skips combinations a filter rejects when built
        Err(texelflow::Error::BadParam { .. }) => return Ok(()),
        other => other.map_err(|e| format!("graph: {e}"))?,
    };
    for (i, p) in outs.iter().enumerate() {
        g.output(&format!("o{i}"), *p).unwrap();
    }
    let names: Vec<String> = (0..images.len()).map(|i| format!("s{i}")).collect();
    let opts = RunOptions {
        poison: true,
        schedules: schedules.to_vec(),
        ..Default::default()
    };
    // Temporal filters (graphs with state) run as a sequence of frames on each side, a new
    // random main image each frame, and every frame is compared.
    let frames = if g.has_state() { 4 } else { 1 };
    let (gpu_seq, cpu_seq) = (texelflow::Sequence::new(), texelflow::Sequence::new());
    for frame in 0..frames {
        let mut images = images.clone();
        if frame > 0 {
            images[0] = random_image(w, h, fmt, seed + 7919 * frame);
        }
        let srcs: Vec<(&str, &Image)> = names
            .iter()
            .map(|n| n.as_str())
            .zip(images.iter())
            .collect();
        let (gpu, cpu) = if frames == 1 {
            (
                gpu_backend().run(&g, &srcs, &opts),
                Backend::Cpu.run(&g, &srcs, &opts),
            )
        } else {
            (
                gpu_seq.run_frame(&gpu_backend(), &g, &srcs, &opts, frame),
                cpu_seq.run_frame(&Backend::Cpu, &g, &srcs, &opts, frame),
            )
        };
        let gpu = gpu.map_err(|e| format!("gpu run (frame {frame}): {e}"))?;
        let cpu = cpu.map_err(|e| format!("cpu run (frame {frame}): {e}"))?;
        compare_outputs(def, &gpu, &cpu).map_err(|e| format!("frame {frame}: {e}"))?;
    }
    Ok(())
}

/// Every output of a GPU run within the registry's tolerance of the CPU run's.
fn compare_outputs(
    def: &FilterDef,
    gpu: &texelflow::RunResult,
    cpu: &texelflow::RunResult,
) -> Result<(), String> {
    for ((name, a), (_, b)) in gpu.outputs.iter().zip(&cpu.outputs) {
        // a filter given premultiplied colour (registry::PREMULTIPLIED_ALPHA): the division by
        // alpha after it scales its one-level differences by 1/alpha, so the outputs are
        // compared as they show, premultiplied (one more level for the rounding of that division)
        let premultiplied = def.premultiplied()
            && a.as_image()
                .is_some_and(|i| matches!(i.format(), PixelFormat::Rgba8 | PixelFormat::Rgba16));
        let d = if premultiplied {
            premultiplied_diff(a, b)? - 1.0
        } else {
            max_diff(a, b)?
        };
        let tol = match a.as_image().map(|i| i.format()) {
            Some(PixelFormat::Rgba16) if def.tolerance.max_diff > 1 => {
                def.tolerance.max_diff as f64 * 257.0
            }
            Some(PixelFormat::Rgba16) => TOLERANCE16,
            Some(f) if f.is_8bit() => def.tolerance.max_diff as f64,
            Some(_) => 1e-3,
            None => 0.0,
        };
        if d > tol {
            return Err(format!("output {name}: max diff {d} > {tol}"));
        }
    }
    Ok(())
}

/// The largest difference of two RGBA8 or RGBA16 images as premultiplied colour (c·a/max) and
/// alpha, in levels of their format.
fn premultiplied_diff(a: &texelflow::Value, b: &texelflow::Value) -> Result<f64, String> {
    let (Some(a), Some(b)) = (a.as_image(), b.as_image()) else {
        return Err("not images".into());
    };
    if a.desc() != b.desc() {
        return Err(format!("{} vs {}", a.desc(), b.desc()));
    }
    let samples = |i: &Image| -> (Vec<f64>, f64) {
        if i.format() == PixelFormat::Rgba16 {
            (i.as_u16().iter().map(|&v| v as f64).collect(), 65535.0)
        } else {
            (i.as_u8().iter().map(|&v| v as f64).collect(), 255.0)
        }
    };
    let ((x, max), (y, _)) = (samples(a), samples(b));
    let mut d = 0f64;
    for (p, q) in x.chunks_exact(4).zip(y.chunks_exact(4)) {
        for c in 0..3 {
            d = d.max((p[c] * p[3] - q[c] * q[3]).abs() / max);
        }
        d = d.max((p[3] - q[3]).abs());
    }
    Ok(d)
}

/// A port carrying `kind` data made from `image`: by the first registered filter that makes it
/// from one image, else from one input of data that can be made so (at most `depth` steps).
fn produce(
    g: &mut Graph,
    kind: texelflow::DataKind,
    image: texelflow::Port,
    depth: u32,
) -> Result<texelflow::Port, String> {
    let makes = |d: &&&FilterDef| {
        d.inputs.len() == 1 && d.outputs.len() == 1 && d.outputs[0].kind == PortKind::Data(kind)
    };
    let build =
        |d: &FilterDef| (d.build)(&Args::defaults(d)).map_err(|e| format!("build {}: {e}", d.name));
    if let Some(d) = registry::all()
        .iter()
        .filter(makes)
        .find(|d| d.inputs[0].kind == PortKind::Image)
    {
        return Ok(g
            .add_boxed(build(d)?, &[image])
            .map_err(|e| format!("graph: {e}"))?[0]);
    }
    if depth > 0 {
        for d in registry::all().iter().filter(makes) {
            if let PortKind::Data(from) = d.inputs[0].kind {
                if let Ok(p) = produce(g, from, image, depth - 1) {
                    return Ok(g
                        .add_boxed(build(d)?, &[p])
                        .map_err(|e| format!("graph: {e}"))?[0]);
                }
            }
        }
    }
    Err(format!(
        "no registered filter produces {} data",
        kind.name()
    ))
}

fn formats(def: &FilterDef) -> Vec<PixelFormat> {
    // Filters that accept gray8 are also tested on it.
    let g = Graph::new();
    let _ = g;
    let mut v = vec![PixelFormat::Rgba8];
    let desc = texelflow::ValueDesc::Image(texelflow::ImageDesc::new(4, 4, PixelFormat::Gray8));
    let mut ins = vec![desc];
    ins.extend(
        def.inputs.iter().skip(1).map(|_| {
            texelflow::ValueDesc::Image(texelflow::ImageDesc::new(4, 4, PixelFormat::Rgba8))
        }),
    );
    if def.test_inputs.is_none()
        && (def.build)(&Args::defaults(def))
            .map(|f| f.output_descs(&ins).is_ok())
            .unwrap_or(false)
    {
        v.push(PixelFormat::Gray8);
    }
    // and on rgba16 (a blend's second image rgba16 too)
    let wide = texelflow::ValueDesc::Image(texelflow::ImageDesc::new(4, 4, PixelFormat::Rgba16));
    let ins16 = vec![wide; def.inputs.len()];
    if def.test_inputs.is_none()
        && def.inputs.iter().all(|p| p.kind == PortKind::Image)
        && (def.build)(&Args::defaults(def))
            .map(|f| f.output_descs(&ins16).is_ok())
            .unwrap_or(false)
    {
        v.push(PixelFormat::Rgba16);
    }
    v
}

/// Arguments naming the files a filter reads (its required path parameters), one list per
/// variant the matrix runs, written afresh for `seed`; filters without such parameters run
/// once with none. A filter with one and no generator here fails the matrix, not skips it.
fn file_variants(def: &FilterDef, seed: u64) -> Result<Vec<Vec<(String, RawValue)>>, String> {
    let required: Vec<&str> = def
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Path { required: true, .. }))
        .map(|p| p.name)
        .collect();
    match (required.as_slice(), def.name) {
        ([], _) => Ok(vec![vec![]]),
        // 3D cubes of 5 and 17 (the latter with a narrowed domain) and a 1D table of 2 to 301
        (["file"], "lut_cube") => Ok([(3, 5), (3, 17), (1, 2 + seed as usize % 300)].iter().map(|&(dims, size)| vec![("file".to_string(), RawValue::Text(write_cube(dims, size, seed)))]).collect()),
        _ => Err(format!("{} has required path parameters {required:?} and no test file generator in equivalence.rs", def.name)),
    }
}

/// A random `.cube` LUT in the temp folder (3D when `dims` is 3, else 1D): the identity
/// with every value moved by up to 0.3 either way (some outside [0, 1]), so interpolation
/// sees uneven neighbours. Returns its path.
fn write_cube(dims: u32, size: usize, seed: u64) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (size as u64 * 7919) | 1);
    let mut text = format!("# random test LUT\nTITLE \"random {dims}D {size}\"\n");
    let entries = if dims == 3 {
        text += &format!("LUT_3D_SIZE {size}\n");
        size * size * size
    } else {
        text += &format!("LUT_1D_SIZE {size}\n");
        size
    };
    if size == 17 {
        text += "DOMAIN_MIN 0.05 0 0.1\nDOMAIN_MAX 0.95 1 1\n";
    }
    for i in 0..entries {
        let grid = if dims == 3 {
            [i % size, i / size % size, i / (size * size)]
        } else {
            [i; 3]
        };
        let v = grid.map(|g| g as f64 / (size - 1) as f64 + (rng.unit() - 0.5) * 0.6);
        writeln!(text, "{:.6} {:.6} {:.6}", v[0], v[1], v[2]).expect("string write");
    }
    let path = std::env::temp_dir().join(format!(
        "texelflow-equivalence-{}-{}.cube",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, text).expect("temp folder writable");
    path.to_string_lossy().into_owned()
}

fn run_matrix(
    filter_args: impl Fn(&FilterDef, &mut Rng) -> Option<Vec<(String, RawValue)>>,
    seeds: u64,
) {
    let mut failures = Vec::new();
    let mut checked = 0;
    // TEXELFLOW_TEST_FILTERS=a,b narrows the matrix while iterating on a kernel; CI runs all.
    let only: Option<Vec<String>> = std::env::var("TEXELFLOW_TEST_FILTERS")
        .ok()
        .map(|s| s.split(',').map(|x| x.trim().to_string()).collect());
    for def in registry::all() {
        if only
            .as_ref()
            .is_some_and(|o| !o.iter().any(|n| n == def.name))
        {
            continue;
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
        // the default schedule, then every alternative the filter declares
        let variants: Vec<Option<&str>> = std::iter::once(None)
            .chain(def.schedules.iter().map(|s| Some(*s)))
            .collect();
        for variant in variants {
            let overrides: Vec<(String, String)> = variant
                .map(|v| vec![(def.name.to_string(), v.to_string())])
                .unwrap_or_default();
            for fmt in formats(def) {
                let sizes = if fmt == PixelFormat::Rgba16 {
                    SIZES16
                } else {
                    SIZES
                };
                for (i, &(w, h)) in sizes.iter().enumerate() {
                    for s in 0..seeds {
                        let seed = 1 + i as u64 * 31 + s * 1000;
                        let mut rng = Rng(seed * 7919 + 17);
                        let Some(raw) = filter_args(def, &mut rng) else {
                            continue;
                        };
                        let files = match file_variants(def, seed) {
                            Ok(f) => f,
                            Err(e) => {
                                failures.push(e);
                                continue;
                            }
                        };
                        for file_args in files {
                            let all: Vec<(String, RawValue)> =
                                raw.iter().chain(&file_args).cloned().collect();
                            // filters may reject combinations (e.g. a crop outside the image, or
                            // canny_edge_detection's lower above upper, a one-line error when built): skip those
                            let args = Args::resolve(def, &all).ok().filter(|a| {
                                !matches!((def.build)(a), Err(texelflow::Error::BadParam { .. }))
                            });
                            if let Some(args) = args {
                                checked += 1;
                                if let Err(e) = compare(def, &args, w, h, seed, fmt, &overrides) {
                                    failures.push(format!(
                                        "{} [schedule {}] {:?} {w}x{h} {} args={args:?}: {e}",
                                        def.name,
                                        variant.unwrap_or("default"),
                                        fmt,
                                        seed
                                    ));
                                }
                            }
                            for (_, v) in &file_args {
                                if let RawValue::Text(path) = v {
                                    let _ = std::fs::remove_file(path);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 0);
    assert!(
        failures.is_empty(),
        "{} of {checked} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{checked} GPU-vs-CPU cases passed");
}

#[test]
fn every_filter_matches_cpu_with_default_parameters() {
    run_matrix(|_, _| Some(Vec::new()), 1);
}

/// Random parameters within each declared range (the property test over parameters; the
/// `proptest` suite in `properties.rs` adds shrinking for a few filters).
#[test]
fn every_filter_matches_cpu_with_random_parameters() {
    run_matrix(
        |def, rng| {
            let mut raw = Vec::new();
            for p in def.params {
                let v = match p.kind {
                    ParamKind::Float { min, max, .. } => {
                        RawValue::Number(min + (max - min) * rng.unit())
                    }
                    ParamKind::Int { min, max, .. } => {
                        // keep neighbourhoods modest so the CPU reference stays quick
                        let hi = max.min(min + 12);
                        RawValue::Number((min + (rng.next() % (hi - min + 1) as u64) as i64) as f64)
                    }
                    ParamKind::Bool { .. } => {
                        RawValue::Text(if rng.next() % 2 == 0 { "true" } else { "false" }.into())
                    }
                    ParamKind::Choice { options, .. } => {
                        RawValue::Text(options[(rng.next() % options.len() as u64) as usize].into())
                    }
                    ParamKind::Floats { default, min, max } => RawValue::List(
                        default
                            .iter()
                            .map(|_| min + (max - min) * rng.unit())
                            .collect(),
                    ),
                    ParamKind::Points { max_points, .. } => {
                        // 2 to max_points points, one per equal slot of [0, 1], so x strictly increases
                        let n = 2 + (rng.next() % (max_points as u64 - 1)) as usize;
                        RawValue::List(
                            (0..n)
                                .flat_map(|k| {
                                    [(k as f64 + 0.9 * rng.unit()) / n as f64, rng.unit()]
                                })
                                .collect(),
                        )
                    }
                    // required files come from `file_variants`; optional ones stay unset, and
                    // so do a user kernel's code and named values (`pixel_kernel` is then the
                    // identity, with a CPU twin; `tests/user_kernel.rs` tests real kernels)
                    ParamKind::Image
                    | ParamKind::Path { .. }
                    | ParamKind::Text
                    | ParamKind::Named => continue,
                };
                raw.push((p.name.to_string(), v));
            }
            Some(raw)
        },
        2,
    );
}

#[test]
fn registry_defaults_are_in_range_and_documented() {
    for def in registry::all() {
        assert!(!def.summary.is_empty(), "{} has no summary", def.name);
        for p in def.params {
            assert!(!p.doc.is_empty(), "{}.{} has no doc", def.name, p.name);
            if let Some(v) = p.default_value() {
                let raw = match v {
                    ParamValue::Float(x) => RawValue::Number(x),
                    ParamValue::Int(x) => RawValue::Number(x as f64),
                    ParamValue::Bool(b) => RawValue::Text(b.to_string()),
                    ParamValue::Choice(c) => RawValue::Text(c),
                    ParamValue::Floats(f) => RawValue::List(f),
                    ParamValue::Points(p) => texelflow::params::points_raw(&p),
                    ParamValue::ImagePath(s) | ParamValue::Path(s) | ParamValue::Text(s) => {
                        RawValue::Text(s)
                    }
                };
                p.check(def.name, &raw)
                    .unwrap_or_else(|e| panic!("{}: default out of range: {e}", def.name));
            }
        }
        if def.tolerance.max_diff > 1 {
            assert!(
                !def.tolerance.why.is_empty(),
                "{} loosens its tolerance without saying why",
                def.name
            );
        }
    }
}

/// Which filters take RGBA16 (what `texelflow help` lists as their formats): every per-pixel
/// filter (a blend's second image 16-bit too), both blurs, `to_rgba` (which narrows it), and
/// composites made of those alone (`adaptive_threshold`: grayscale, box blur, threshold; the
/// position blurs: a Gaussian, a mask and `blend_with_mask`; `unsharp_mask`: a Gaussian and
/// `add_weighted`), the copies `crop` and `pad` (which `border=reflect` puts around the blurs) and
/// the permutations (`flip`, `transpose`, `rotate90`/`180`/`270`), and the temporal filters made of
/// per-pixel steps and a state (`low_pass`, `high_pass`, `frame_difference`); no other filter, so pipelines narrow before those.
#[test]
fn rgba16_is_taken_by_per_pixel_filters_and_the_blurs() {
    let mut per_pixel = 0;
    for def in registry::all() {
        let Ok(f) = (def.build)(&Args::defaults(def)) else {
            continue;
        };
        per_pixel += f.pixel_op().is_some() as usize;
        let expected = f.pixel_op().is_some()
            || [
                "gaussian_blur",
                "box_blur",
                "crop",
                "pad",
                "to_rgba",
                "adaptive_threshold",
                "gaussian_selective_blur",
                "gaussian_blur_position",
                "tilt_shift",
                "unsharp_mask",
                "flip",
                "transpose",
                "rotate90",
                "rotate180",
                "rotate270",
                "low_pass",
                "high_pass",
                "frame_difference",
            ]
            .contains(&def.name);
        assert_eq!(
            formats(def).contains(&PixelFormat::Rgba16),
            expected,
            "{}",
            def.name
        );
    }
    assert!(per_pixel > 20, "{per_pixel} per-pixel filters");
}
