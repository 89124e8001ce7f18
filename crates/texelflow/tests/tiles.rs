//! Images in tiles with halos (`Pipeline::run_tiled`): for every filter in the registry, tiny
//! tiles give the untiled result bit for bit (through the geometry of resizes, crops, flips and
//! turns: tests/geometry_tiles.rs), or the filter is refused with a reason (a change of size
//! that is not windowed, a whole-image read, position dependence, data that does not merge). Plus chains,
//! whose halos add up, and reductions whose per-tile partials merge exactly
//! (`Pipeline::run_tiled_data`).

mod common;

use common::*;
use texelflow::params::ParamKind;
use texelflow::registry;
use texelflow::{Backend, Data, Image, Pipeline, PixelFormat, Value};

fn pipe(spec: &str) -> texelflow::Result<Pipeline> {
    Pipeline::parse(spec, &mut |p| Image::open(p))
}

/// A spec running `def` with defaults, a second image (of the input's size) where it takes one;
/// `None` for filters that need a file of their own.
fn spec_for(def: &registry::FilterDef, with: &str) -> Option<String> {
    let mut args = Vec::new();
    for p in def.params {
        match p.kind {
            ParamKind::Image => args.push(format!("{}={with}", p.name)),
            ParamKind::Path { required: true, .. } => return None,
            _ => {}
        }
    }
    Some(if args.is_empty() {
        def.name.to_string()
    } else {
        format!("{}({})", def.name, args.join(", "))
    })
}

#[test]
fn every_filter_tiles_bit_identically_or_says_why_not() {
    let dir = std::env::temp_dir().join(format!("texelflow-tiles-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (w, h) = (67, 43);
    let with = dir.join("with.png");
    random_image(w, h, PixelFormat::Rgba8, 2)
        .save(&with)
        .unwrap();
    let input = random_image(w, h, PixelFormat::Rgba8, 1);
    let b = gpu_backend();
    let (mut tiled, mut merged, mut refused, mut failures) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for def in registry::all() {
        let Some(spec) = spec_for(def, with.to_str().unwrap()) else {
            continue;
        };
        let Ok(p) = pipe(&spec) else { continue };
        let Ok(whole) = p.run(&b, &input) else {
            continue;
        };
        match p.run_tiled_value(&b, &input, 16, 3) {
            Ok(Value::Image(t)) => match whole.as_image() {
                Some(whole) if whole.as_u8() == t.as_u8() && whole.desc() == t.desc() => {
                    tiled.push(def.name)
                }
                _ => failures.push(format!("{spec}: tiles differ from the whole image")),
            },
            // data: the merged partials equal the whole image's, and every pixel was counted once
            Ok(Value::Data(t)) => match whole.as_data() {
                Some(whole) if *whole == t && counted(&t) == Some((w * h) as u64) => {
                    merged.push(def.name)
                }
                _ => failures.push(format!(
                    "{spec}: merged tiles {t:?} differ from the whole image's {whole:?}"
                )),
            },
            Err(e) if e.to_string().contains("cannot run in tiles") => {
                refused.push(format!("{}: {e}", def.name))
            }
            Err(e) => failures.push(format!("{spec}: {e}")),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "{} filters tile, {} merge partials ({}), {} refused:\n{}",
        tiled.len(),
        merged.len(),
        merged.join(", "),
        refused.len(),
        refused.join("\n")
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for name in ["reduce", "histogram", "mean_saturation"] {
        assert!(merged.contains(&name), "{name} should merge its partials");
    }
    // data that does not merge stays refused, saying why
    for name in [
        "corner_points",
        "dominant_color",
        "intensity_range",
        "color_fingerprint",
        "photo_metrics",
    ] {
        assert!(
            refused
                .iter()
                .any(|r| r.starts_with(&format!("{name}: ")) && r.contains("does not merge")),
            "{name} should be refused: {refused:?}"
        );
    }
    // the per-pixel filters, blends, blurs, stencils and morphology at least
    // ... and, through their geometry (`chain.rs`), resizing, cropping, flips and turns
    for name in [
        "brightness",
        "alpha_blend",
        "gaussian_blur",
        "box_blur",
        "sobel_edge_detection",
        "dilation",
        "median",
        "bilateral",
        "unsharp_mask",
        "harris_corner_detection",
        "vignette",
        "haze",
        "tilt_shift",
        "linear_gradient",
        "resize",
        "crop",
        "flip",
        "rotate90",
        "rotate180",
        "rotate270",
        "transpose",
        "transform",
        "pad",
        "canvas",
    ] {
        assert!(tiled.contains(&name), "{name} should tile");
    }
    assert!(tiled.len() > 60, "only {} filters tile", tiled.len());
}

#[test]
fn chains_add_their_halos_and_any_tile_size_works() {
    let input = random_image(97, 61, PixelFormat::Rgba8, 9);
    let b = gpu_backend();
    let p =
        pipe("gaussian_blur(sigma=3) | sobel_edge_detection | dilation(radius=2) | contrast(1.3)")
            .unwrap();
    let (halo, _) = p.tile_halo(&input).unwrap();
    assert!(halo >= 9 + 1 + 2, "halo {halo}");
    let whole = p.run(&b, &input).unwrap().into_image().unwrap();
    for tile in [1, 7, 32, 96, 500] {
        assert_eq!(
            p.run_tiled(&b, &input, tile, 4).unwrap().as_u8(),
            whole.as_u8(),
            "tile {tile}"
        );
    }
    // 16-bit and grey images tile too
    let wide = random_image(40, 30, PixelFormat::Rgba16, 4);
    let p16 = pipe("gaussian_blur(sigma=2) | brightness(0.1)").unwrap();
    assert_eq!(
        p16.run_tiled(&b, &wide, 9, 2).unwrap(),
        p16.run(&b, &wide).unwrap().into_image().unwrap()
    );
    let grey = random_image(40, 30, PixelFormat::Gray8, 5);
    let pg = pipe("box_blur(radius=3) | erosion(radius=1)").unwrap();
    assert_eq!(
        pg.run_tiled(&b, &grey, 11, 2).unwrap(),
        pg.run(&b, &grey).unwrap().into_image().unwrap()
    );
}

#[test]
fn untileable_pipelines_say_why() {
    let input = random_image(30, 20, PixelFormat::Rgba8, 3);
    let b = gpu_backend();
    for (spec, why) in [
        ("ios_blur", "change of size"),
        ("reduce", "data"),
        ("histogram_equalization", "whole image"),
        ("low_pass", "state"),
    ] {
        let e = pipe(spec)
            .unwrap()
            .run_tiled(&b, &input, 8, 2)
            .expect_err(spec)
            .to_string();
        assert!(
            e.contains("cannot run in tiles") && e.contains(why),
            "{spec}: {e}"
        );
    }
    // reductions: those that do not merge, and mergeable ones after what cannot tile
    for (spec, why) in [
        ("corner_points", "points data, which does not merge"),
        ("dominant_color", "color data, which does not merge"),
        (
            "histogram | range_from_histogram",
            "range data, which does not merge",
        ),
        ("resize(scale=0.5) | histogram", "size"),
        ("histogram_equalization | mean_saturation", "whole image"),
    ] {
        let e = pipe(spec)
            .unwrap()
            .run_tiled_data(&b, &input, 8, 2)
            .expect_err(spec)
            .to_string();
        assert!(
            e.contains("cannot run in tiles") && e.contains(why),
            "{spec}: {e}"
        );
    }
}

/// Pixels a mergeable result counted (the histogram's Y channel; unweighted histograms only).
fn counted(d: &Data) -> Option<u64> {
    match d {
        Data::Stats(s) => Some(s.count),
        Data::Histogram(h) => Some(h.total(3)),
        Data::Mean { count, .. } => Some(*count),
        _ => None,
    }
}

/// Reductions, alone and after neighbourhood filters, on tiles of awkward sizes: the merged
/// partials equal the untiled data exactly on the GPU and on the CPU, and the two backends agree.
#[test]
fn reductions_merge_per_tile_partials_exactly() {
    let specs = [
        "reduce",
        "histogram",
        "histogram(weight=alpha)",
        "mean_saturation",
        "gaussian_blur(sigma=3) | histogram",
        "sobel_edge_detection | reduce",
        "box_blur(radius=2) | dilation(radius=1) | mean_saturation",
    ];
    let gpu = gpu_backend();
    for (w, h, tiles) in [
        (67, 43, &[16, 7][..]),
        (1, 37, &[16, 5]),
        (37, 1, &[16]),
        (16, 16, &[16, 3]),
    ] {
        let input = random_image(w, h, PixelFormat::Rgba8, 11 + w as u64);
        for spec in specs {
            let p = pipe(spec).unwrap();
            let whole = p.run(&gpu, &input).unwrap();
            let whole = whole.as_data().unwrap_or_else(|| panic!("{spec}: no data"));
            if !spec.contains("alpha") {
                assert_eq!(counted(whole), Some((w * h) as u64), "{spec} {w}x{h}");
            }
            // the reductions are exact on both backends; a blur before one may differ by one
            // level between them (its tolerance), so chains compare each backend with itself
            let cpu_whole = p.run(&Backend::Cpu, &input).unwrap();
            let cpu_whole = cpu_whole
                .as_data()
                .unwrap_or_else(|| panic!("{spec}: no data"));
            if !spec.contains('|') {
                assert_eq!(cpu_whole, whole, "{spec} {w}x{h}: CPU and GPU differ");
            }
            for &tile in tiles {
                assert_eq!(
                    &p.run_tiled_data(&gpu, &input, tile, 3).unwrap(),
                    whole,
                    "{spec} {w}x{h} tile {tile} (GPU)"
                );
                assert_eq!(
                    &p.run_tiled_data(&Backend::Cpu, &input, tile, 2).unwrap(),
                    cpu_whole,
                    "{spec} {w}x{h} tile {tile} (CPU)"
                );
            }
        }
    }
    // the image part really ran before the reduction (the comparison above is not vacuous)
    let input = random_image(67, 43, PixelFormat::Rgba8, 3);
    let plain = pipe("histogram")
        .unwrap()
        .run_tiled_data(&gpu, &input, 16, 2)
        .unwrap();
    let blurred = pipe("gaussian_blur(sigma=3) | histogram")
        .unwrap()
        .run_tiled_data(&gpu, &input, 16, 2)
        .unwrap();
    assert_ne!(plain, blurred);
    // grey and 16-bit inputs, converted for the reduction after each tile's crop
    for (format, spec) in [
        (PixelFormat::Gray8, "box_blur(radius=2) | histogram"),
        (PixelFormat::Rgba16, "gaussian_blur(sigma=2) | reduce"),
    ] {
        let input = random_image(45, 29, format, 6);
        let p = pipe(spec).unwrap();
        let whole = p.run(&gpu, &input).unwrap();
        assert_eq!(
            p.run_tiled_value(&gpu, &input, 8, 3).unwrap(),
            whole,
            "{spec} on {format:?}"
        );
    }
}

/// `run_with` tiles a mergeable reduction by itself where an image exceeds the binding limit.
#[test]
fn reductions_beyond_the_binding_limit_run_in_tiles_by_themselves() {
    let gpu = texelflow::Gpu::new_with_binding_limit(
        &texelflow::GpuOptions {
            backend: Some("vulkan".into()),
            adapter: None,
            ..Default::default()
        },
        64 * 1024,
    )
    .unwrap();
    let small = Backend::Gpu(gpu);
    let input = random_image(200, 150, PixelFormat::Rgba8, 8);
    for spec in ["gaussian_blur(sigma=2) | histogram", "reduce"] {
        let p = pipe(spec).unwrap();
        let r = p
            .run_with(&small, &input, &texelflow::RunOptions::default())
            .unwrap();
        assert!(
            r.notes
                .iter()
                .any(|n| n.contains("tiles") && n.contains("merged")),
            "{spec}: {:?}",
            r.notes
        );
        let whole = p.run(&gpu_backend(), &input).unwrap();
        assert_eq!(r.get("output"), Some(&whole), "{spec}");
        assert_eq!(whole.as_data().and_then(counted), Some(200 * 150));
    }
    // one that does not merge keeps the clear limit error
    let e = pipe("dominant_color")
        .unwrap()
        .run(&small, &input)
        .unwrap_err()
        .to_string();
    assert!(e.contains("binding"), "{e}");
}

/// `run_with` tiles by itself where one buffer would exceed the GPU's binding limit, and says so.
#[test]
fn images_beyond_the_binding_limit_run_in_tiles_by_themselves() {
    // a GPU whose bindings hold 64 KiB: a 200x150 RGBA8 image (120 KB) no longer fits one
    let gpu = texelflow::Gpu::new_with_binding_limit(
        &texelflow::GpuOptions {
            backend: Some("vulkan".into()),
            adapter: None,
            ..Default::default()
        },
        64 * 1024,
    )
    .unwrap();
    let small = texelflow::Backend::Gpu(gpu);
    let input = random_image(200, 150, PixelFormat::Rgba8, 8);
    let p = pipe("gaussian_blur(sigma=2) | sobel_edge_detection").unwrap();
    let r = p
        .run_with(&small, &input, &texelflow::RunOptions::default())
        .unwrap();
    assert!(r.notes.iter().any(|n| n.contains("tiles")), "{:?}", r.notes);
    let whole = p.run(&gpu_backend(), &input).unwrap();
    assert_eq!(r.get("output"), Some(&whole));
    // one that cannot tile keeps the clear limit error
    let e = pipe("ios_blur")
        .unwrap()
        .run(&small, &input)
        .unwrap_err()
        .to_string();
    assert!(e.contains("binding"), "{e}");
}

/// `Data::merge` itself: exact sums, minima and maxima (means recomputed from them), and errors
/// for what does not add up.
#[test]
fn data_merge_is_exact_or_an_error() {
    use texelflow::{Histogram, HistogramSpace, Points, Stats};
    let mut a = Data::Stats(Stats {
        count: 2,
        min: [10, 20, 30, 40, 50],
        max: [100; 5],
        sum: [110, 120, 130, 140, 150],
    });
    let b = Data::Stats(Stats {
        count: 1,
        min: [5, 25, 30, 41, 0],
        max: [200, 99, 100, 0, 255],
        sum: [200, 99, 100, 0, 255],
    });
    a.merge(&b).unwrap();
    let Data::Stats(s) = &a else { panic!("{a:?}") };
    assert_eq!(
        (s.count, s.min, s.max, s.sum),
        (
            3,
            [5, 20, 30, 40, 0],
            [200, 100, 100, 100, 255],
            [310, 219, 230, 140, 405]
        )
    );
    assert_eq!(s.mean(0), 310.0 / 3.0);
    let mut m = Data::Mean { sum: 7, count: 2 };
    m.merge(&Data::Mean { sum: 5, count: 4 }).unwrap();
    assert_eq!(m, Data::Mean { sum: 12, count: 6 });
    let mut h = Histogram {
        bins: [[0; 256]; 5],
        space: HistogramSpace::Rgb,
    };
    h.bins[3][7] = u32::MAX;
    let mut one = h.clone();
    one.bins[3][7] = 1;
    let e = Data::Histogram(h)
        .merge(&Data::Histogram(one))
        .unwrap_err()
        .to_string();
    assert!(e.contains("overflows the 32-bit histogram bin"), "{e}");
    let e = m.merge(&a).unwrap_err().to_string();
    assert!(e.contains("cannot merge stats data into mean data"), "{e}");
    let e = Data::Points(Points::default())
        .merge(&Data::Points(Points::default()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("points data does not merge"), "{e}");
}

/// A GPU memory budget (`TilePolicy::max_gpu_memory`, the CLI's `--max-gpu-memory`): a run that
/// would exceed it goes in tiles (streamed runs in narrower tiles and lower bands), with the
/// untiled result; one that cannot run in tiles is a clear error.
#[test]
fn a_gpu_memory_budget_tiles_runs_that_exceed_it() {
    let gpu = texelflow::Gpu::new(&texelflow::GpuOptions {
        backend: Some("vulkan".into()),
        adapter: None,
        ..Default::default()
    })
    .unwrap();
    let input = random_image(400, 300, PixelFormat::Rgba8, 8);
    let p = pipe("gaussian_blur(sigma=2) | sobel_edge_detection").unwrap();
    let whole = p.run(&Backend::Gpu(gpu.clone()), &input).unwrap();
    // the whole run's values take over 2 MB; 1 MiB holds three tiles of them
    let budget = texelflow::RunOptions {
        tiling: texelflow::TilePolicy {
            max_gpu_memory: Some(1 << 20),
            ..Default::default()
        },
        ..Default::default()
    };
    assert_eq!(budget.tiling.max_gpu_memory, Some(1 << 20));
    let b = Backend::Gpu(gpu.clone());
    let r = p.run_with(&b, &input, &budget).unwrap();
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("tiles") && n.contains("--max-gpu-memory")),
        "{:?}",
        r.notes
    );
    assert_eq!(r.get("output"), Some(&whole));
    let plan = p.plan_stream(&b, input.desc(), &budget.tiling).unwrap();
    let unbounded = p
        .plan_stream(
            &Backend::Gpu(
                texelflow::Gpu::new(&texelflow::GpuOptions {
                    backend: Some("vulkan".into()),
                    adapter: None,
                    ..Default::default()
                })
                .unwrap(),
            ),
            input.desc(),
            &texelflow::TilePolicy::default(),
        )
        .unwrap();
    assert!(
        plan.band_rows < unbounded.band_rows,
        "bands {} under the budget, {} without",
        plan.band_rows,
        unbounded.band_rows
    );
    // a composite that resizes inside cannot run in tiles: the budget's error says so
    let e = pipe("ios_blur")
        .unwrap()
        .run_with(&b, &input, &budget)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--max-gpu-memory") && e.contains("cannot run in tiles"),
        "{e}"
    );
    // resizing tiles through its geometry under the budget
    let resize = pipe("resize(scale=2)").unwrap();
    let r = resize.run_with(&b, &input, &budget).unwrap();
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("geometry") && n.contains("--max-gpu-memory")),
        "{:?}",
        r.notes
    );
    assert_eq!(r.get("output"), Some(&resize.run(&b, &input).unwrap()));
}
