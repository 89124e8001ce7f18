//! Graph behaviour: fan-out, multi-input nodes, a reduction consumed on the GPU, fusion,
//! re-runs, timings, validation errors; and that GPU tests really ran on Vulkan.

mod common;

use common::*;
use texelflow::filters::blend::AlphaBlend;
use texelflow::filters::color::{Brightness, ColorInvert, Contrast, Gamma, Saturation};
use texelflow::params::Args;
use texelflow::{
    registry, Backend, Error, Graph, Image, ImageDesc, Pipeline, PixelFormat, RunOptions, Value,
};

fn by_name(name: &str) -> Box<dyn texelflow::Filter> {
    let d = registry::find(name).unwrap();
    (d.build)(&Args::defaults(d)).unwrap()
}

/// `Pipeline::run` with the schedule overrides `schedules` in the run's options.
fn run_scheduled(
    p: &Pipeline,
    backend: &Backend,
    input: &Image,
    schedules: Vec<(String, String)>,
) -> texelflow::Result<Value> {
    let opts = RunOptions {
        schedules,
        ..Default::default()
    };
    p.run_with(backend, input, &opts)
        .map(|mut r| r.take("output").expect("an output named `output`"))
}

fn assert_close(a: &Value, b: &Value, tol: f64) {
    let d = max_diff(a, b).unwrap();
    assert!(d <= tol, "max diff {d} > {tol}");
}

#[test]
fn gpu_tests_run_on_vulkan() {
    // Guards against silently testing GL or the CPU fallback.
    assert_eq!(
        gpu().backend(),
        wgpu::Backend::Vulkan,
        "GPU tests must run on a Vulkan adapter"
    );
    assert!(matches!(gpu_backend(), Backend::Gpu(_)));
}

#[test]
fn fan_out_and_two_input_node() {
    let a = random_image(67, 43, PixelFormat::Rgba8, 1);
    let mut g = Graph::new();
    let s = g.source("a", a.desc()).unwrap();
    let bright = g.add1(Brightness::new(0.2).unwrap(), &[s]).unwrap();
    let inv = g.add1(ColorInvert, &[s]).unwrap();
    let mix = g
        .add1(AlphaBlend::new(0.7).unwrap(), &[bright, inv])
        .unwrap();
    g.output("bright", bright).unwrap();
    g.output("mix", mix).unwrap();
    let opts = RunOptions {
        poison: true,
        ..Default::default()
    };
    let gpu = gpu_backend().run(&g, &[("a", &a)], &opts).unwrap();
    let cpu = Backend::Cpu.run(&g, &[("a", &a)], &opts).unwrap();
    assert_close(gpu.get("bright").unwrap(), cpu.get("bright").unwrap(), 1.0);
    assert_close(gpu.get("mix").unwrap(), cpu.get("mix").unwrap(), 1.0);
    // fan-out really produced different values from one source
    assert_ne!(gpu.get("bright"), gpu.get("mix"));
}

#[test]
fn fused_chain_equals_unfused_and_cpu() {
    let a = random_image(130, 17, PixelFormat::Rgba8, 2);
    let p = Pipeline::new()
        .then(Brightness::new(0.1).unwrap())
        .then(Contrast::new(1.2).unwrap())
        .then(Saturation::new(1.1).unwrap())
        .then(ColorInvert);
    let (g, imgs) = p.graph(&a).unwrap();
    let srcs: Vec<(&str, &Image)> = imgs.iter().map(|(n, i)| (n.as_str(), i)).collect();
    let fused = gpu_backend()
        .run(
            &g,
            &srcs,
            &RunOptions {
                timings: true,
                poison: true,
                fuse: true,
                ..Default::default()
            },
        )
        .unwrap();
    let unfused = gpu_backend()
        .run(
            &g,
            &srcs,
            &RunOptions {
                timings: true,
                poison: true,
                fuse: false,
                ..Default::default()
            },
        )
        .unwrap();
    let cpu = Backend::Cpu.run(&g, &srcs, &RunOptions::default()).unwrap();
    // Fusion re-quantises between steps, so it is bit-identical to the unfused chain.
    assert_eq!(fused.get("output"), unfused.get("output"));
    // Each step may round a tie differently by 1/255 (GPU and CPU float ops differ in the
    // last bit) and later gains (1.2, 1.1) carry it on: one step per filter at most.
    assert_close(
        fused.get("output").unwrap(),
        cpu.get("output").unwrap(),
        3.0,
    );
    if gpu().has_timestamps() {
        assert_eq!(
            fused.timings.len(),
            1,
            "4 per-pixel filters should run as one kernel: {:?}",
            fused.timings
        );
        assert_eq!(
            fused.timings[0].label,
            "brightness+contrast+saturation+color_invert"
        );
        assert_eq!(unfused.timings.len(), 4);
        assert!(unfused.timings.iter().all(|t| t.ms >= 0.0));
    }
}

/// Blends are per-pixel ops with a second image: they fuse with their neighbours (the second
/// images become extra bindings of the one kernel), bit-identical to one kernel per filter,
/// with a position-dependent filter (haze) in the run too.
#[test]
fn blends_fuse_with_neighbouring_per_pixel_filters() {
    let a = random_image(67, 43, PixelFormat::Rgba8, 5);
    let b = random_image(67, 43, PixelFormat::Rgba8, 6);
    let mut g = Graph::new();
    let sa = g.source("a", a.desc()).unwrap();
    let sb = g.source("b", b.desc()).unwrap();
    let inv = g.add1(ColorInvert, &[sb]).unwrap();
    let mut x = g.add1(Brightness::new(0.1).unwrap(), &[sa]).unwrap();
    x = g
        .add1(texelflow::filters::blend::MultiplyBlend, &[x, inv])
        .unwrap();
    x = g
        .add_boxed(
            registry::create("haze(distance=0.1, slope=0.2)").unwrap(),
            &[x],
        )
        .unwrap()[0];
    x = g.add1(AlphaBlend::new(0.6).unwrap(), &[x, sb]).unwrap();
    x = g.add1(Contrast::new(1.2).unwrap(), &[x]).unwrap();
    g.output("output", x).unwrap();
    let srcs = [("a", &a), ("b", &b)];
    let fused = gpu_backend()
        .run(
            &g,
            &srcs,
            &RunOptions {
                timings: true,
                poison: true,
                fuse: true,
                ..Default::default()
            },
        )
        .unwrap();
    let unfused = gpu_backend()
        .run(
            &g,
            &srcs,
            &RunOptions {
                timings: true,
                poison: true,
                fuse: false,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(fused.get("output"), unfused.get("output"));
    let cpu = Backend::Cpu.run(&g, &srcs, &RunOptions::default()).unwrap();
    // one level per step at most, carried on by the later gains (haze's 1 / (1 - d), contrast)
    assert_close(
        fused.get("output").unwrap(),
        cpu.get("output").unwrap(),
        5.0,
    );
    if gpu().has_timestamps() {
        let labels: Vec<&str> = fused.timings.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "color_invert",
                "brightness+multiply_blend+haze+alpha_blend+contrast"
            ]
        );
    }
}

/// A three-input op (blend_with_mask: second image and mask) fuses like a blend: both extra
/// images become bindings of the one kernel, bit-identical to one kernel per filter, at 8 and
/// 16 bits, with the mask given as a grey file (the pipeline widens it) and as RGBA.
#[test]
fn masked_blend_fuses_with_neighbouring_per_pixel_filters() {
    use texelflow::filters::blend::BlendWithMask;
    for (fmt, tol) in [(PixelFormat::Rgba8, 3.0), (PixelFormat::Rgba16, 16.0)] {
        let a = random_image(67, 43, fmt, 11);
        let b = random_image(67, 43, fmt, 12);
        for (mask, blend) in [
            (
                random_image(67, 43, PixelFormat::Gray8, 13),
                BlendWithMask::default(),
            ),
            (
                random_image(67, 43, fmt, 14),
                BlendWithMask::new(4, true).unwrap(),
            ),
        ] {
            let p = Pipeline::new()
                .then(Brightness::new(0.1).unwrap())
                .then_with(blend, vec![b.clone(), mask])
                .then(Contrast::new(1.2).unwrap());
            let (g, imgs) = p.graph(&a).unwrap();
            let srcs: Vec<(&str, &Image)> = imgs.iter().map(|(n, i)| (n.as_str(), i)).collect();
            let fused = gpu_backend()
                .run(
                    &g,
                    &srcs,
                    &RunOptions {
                        timings: true,
                        poison: true,
                        fuse: true,
                        ..Default::default()
                    },
                )
                .unwrap();
            let unfused = gpu_backend()
                .run(
                    &g,
                    &srcs,
                    &RunOptions {
                        timings: true,
                        poison: true,
                        fuse: false,
                        ..Default::default()
                    },
                )
                .unwrap();
            assert_eq!(fused.get("output"), unfused.get("output"), "{fmt:?}");
            assert_eq!(
                fused
                    .get("output")
                    .and_then(|v| v.as_image())
                    .map(|i| i.format()),
                Some(fmt)
            );
            let cpu = Backend::Cpu.run(&g, &srcs, &RunOptions::default()).unwrap();
            // brightness's one step carried through the mix and contrast 1.2 (16-bit: a few
            // 1/65535 steps per filter, likewise carried)
            assert_close(
                fused.get("output").unwrap(),
                cpu.get("output").unwrap(),
                tol,
            );
            if gpu().has_timestamps() {
                let labels: Vec<&str> = fused.timings.iter().map(|t| t.label.as_str()).collect();
                assert_eq!(labels, ["brightness+blend_with_mask+contrast"], "{fmt:?}");
            }
        }
    }
}

/// A slider over sigma compiles a bounded number of kernels: past the first sigmas of the
/// process (weights compiled in), new values of a radius share one kernel (weights in the
/// uniform).
#[test]
fn a_sigma_slider_compiles_a_bounded_number_of_kernels() {
    // a device of its own: other tests compile kernels on the shared one meanwhile
    let gpu_arc = private_gpu();
    let backend = Backend::Gpu(gpu_arc.clone());
    let a = random_image(67, 43, PixelFormat::Rgba8, 9);
    let blur = |sigma: f32| {
        Pipeline::new()
            .then(texelflow::filters::neighborhood::GaussianBlur::new(sigma).unwrap())
            .run(&backend, &a)
            .unwrap()
    };
    // 40 sigmas of radius 7, 2.01 ..= 2.322
    let sigmas: Vec<f32> = (0..40).map(|i| 2.01 + i as f32 * 0.008).collect();
    let start = gpu_arc.pipeline_count();
    for &s in &sigmas[..20] {
        blur(s);
    }
    let after_20 = gpu_arc.pipeline_count();
    for &s in &sigmas[20..] {
        blur(s);
    }
    assert_eq!(
        gpu_arc.pipeline_count(),
        after_20,
        "new pipelines for sigma values past the bound"
    );
    // (+2: the premultiply_alpha / unpremultiply_alpha pair around the blur, compiled once)
    assert!(
        after_20 - start <= 19,
        "{} kernels for 20 sigmas",
        after_20 - start
    );
}

/// The Gaussian's half kernel with its weights compiled in (`half_cw`, sigma in steady use)
/// and read from the uniform (`half_uw`, a new sigma) computes the same image, bit for bit.
#[test]
fn gaussian_half_kernels_agree_with_either_weights() {
    let a = random_image(130, 37, PixelFormat::Rgba8, 11);
    for sigma in [0.7f32, 2.0, 3.7] {
        let p = Pipeline::new()
            .then(texelflow::filters::neighborhood::GaussianBlur::new(sigma).unwrap());
        let run = |v: &str| {
            let o = vec![("gaussian_blur".to_string(), v.to_string())];
            run_scheduled(&p, &gpu_backend(), &a, o).unwrap()
        };
        assert_eq!(run("half_uw"), run("half_cw"), "sigma {sigma}");
        assert_eq!(run("half_f32_uw"), run("half_f32_cw"), "sigma {sigma}, f32");
    }
}

/// Parameters set through the public fields, past the constructors' checks, are errors when
/// the GPU work is recorded (the range is named), never overflows or panics.
#[test]
fn out_of_range_fields_are_errors_not_panics() {
    let a = random_image(40, 30, PixelFormat::Rgba8, 13);
    let mut b = texelflow::filters::neighborhood::BoxBlur::new(2).unwrap();
    b.radius = 200;
    let mut d = texelflow::filters::morphology::Dilation::new(1).unwrap();
    d.radius = 100;
    let mut g = texelflow::filters::neighborhood::GaussianBlur::new(1.0).unwrap();
    g.sigma = 1000.0;
    for (name, r) in [
        ("box_blur", Pipeline::new().then(b).run(&gpu_backend(), &a)),
        ("dilation", Pipeline::new().then(d).run(&gpu_backend(), &a)),
        (
            "gaussian_blur",
            Pipeline::new().then(g).run(&gpu_backend(), &a),
        ),
    ] {
        let e = r.expect_err(name).to_string();
        assert!(e.contains("out of range"), "{name}: {e}");
    }
}

/// A pipeline given a grey image widens it to RGBA8 before a filter that takes RGBA8 only
/// (as an explicit `to_rgba` would), and keeps it grey for filters that take grey.
#[test]
fn pipelines_widen_grey_images_for_rgba_filters() {
    let grey = random_image(37, 23, PixelFormat::Gray8, 17);
    let implicit = Pipeline::parse("dilation(1) | brightness(0.1)", &mut |_| unreachable!())
        .unwrap()
        .run(&gpu_backend(), &grey)
        .unwrap();
    let explicit = Pipeline::parse(
        "dilation(1) | to_rgba | brightness(0.1)",
        &mut |_| unreachable!(),
    )
    .unwrap()
    .run(&gpu_backend(), &grey)
    .unwrap();
    assert_eq!(implicit, explicit);
    assert_eq!(
        implicit.as_image().map(|i| i.format()),
        Some(PixelFormat::Rgba8)
    );
    // the Graph API stays strict
    let mut g = Graph::new();
    let s = g.source("g", grey.desc()).unwrap();
    assert!(g.add(Brightness::new(0.1).unwrap(), &[s]).is_err());
}

/// Many images through one pipeline, several at once: each result equals its own run, in
/// input order, and an image the pipeline rejects (not the size of the blend's second image)
/// fails alone.
#[test]
fn run_many_keeps_order_and_isolates_failures() {
    let top = random_image(24, 16, PixelFormat::Rgba8, 7);
    let p = Pipeline::parse(
        "gaussian_blur(sigma=1.5) | alpha_blend(with=top, mix=0.4) | contrast(1.2)",
        &mut |_| Ok(top.clone()),
    )
    .unwrap();
    let mut images: Vec<Image> = (0..6)
        .map(|k| random_image(24, 16, PixelFormat::Rgba8, 40 + k as u64))
        .collect();
    images.insert(3, random_image(25, 16, PixelFormat::Rgba8, 99));
    let got = p.run_many(&gpu_backend(), &images, 3);
    assert_eq!(got.len(), images.len());
    for (k, (img, r)) in images.iter().zip(&got).enumerate() {
        match (r, p.run(&gpu_backend(), img)) {
            (Ok(a), Ok(b)) => assert_eq!(*a, b, "image {k}"),
            (Err(_), Err(_)) => assert_eq!(k, 3),
            (a, b) => panic!("image {k}: batch {a:?}, single {b:?}"),
        }
    }
    assert_eq!(got.iter().filter(|r| r.is_err()).count(), 1);
}

/// The streaming form: items loaded on the workers, results handed over in input order even
/// when later items finish first, a load failure in its own place, and never more than
/// `2 × in_flight` items taken ahead of the results delivered.
#[test]
fn run_stream_delivers_in_order_with_bounded_lookahead() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let p = Pipeline::parse(
        "contrast(1.3) | gaussian_blur(sigma=1)",
        &mut |_| unreachable!(),
    )
    .unwrap();
    let be = gpu_backend();
    let loaded = AtomicUsize::new(0);
    let mut seen = Vec::new();
    let mut max_ahead = 0;
    p.run_stream(
        &be,
        0..20u64,
        |k| {
            loaded.fetch_add(1, Ordering::SeqCst);
            // early items are slow, so later ones finish first and must wait their turn
            std::thread::sleep(std::time::Duration::from_millis(if k < 3 { 30 } else { 1 }));
            if k == 5 {
                return Err(texelflow::Error::Image("item 5 is unreadable".into()));
            }
            Ok(random_image(9 + k as u32, 7, PixelFormat::Rgba8, k))
        },
        3,
        |k, r| {
            max_ahead = max_ahead.max(loaded.load(Ordering::SeqCst) - seen.len());
            let want = p.run(
                &be,
                &random_image(9 + k as u32, 7, PixelFormat::Rgba8, k as u64),
            );
            match (&r, want) {
                (Ok(a), Ok(b)) => assert_eq!(*a, b, "item {k}"),
                (Err(e), _) => assert!(
                    k == 5 && e.to_string().contains("unreadable"),
                    "item {k}: {e}"
                ),
                (Ok(_), Err(e)) => panic!("item {k}: {e}"),
            }
            seen.push(k);
        },
    );
    assert_eq!(seen, (0..20).collect::<Vec<_>>());
    assert!(max_ahead <= 6, "{max_ahead} items loaded ahead of delivery");
}

#[test]
fn gamma_table_is_bit_identical_to_the_per_pixel_kernel() {
    // every byte value in every channel (7 is odd, so p * 7 walks all 256 residues), three
    // workgroups of quads, the last quad partial
    let (w, h) = (301u32, 9u32);
    let data: Vec<u8> = (0..w * h * 4)
        .map(|i| ((i / 4) * 7 + (i % 4) * 61) as u8)
        .collect();
    let a = Image::from_u8(w, h, PixelFormat::Rgba8, data).unwrap();
    let sched = |v: &str| vec![("gamma".to_string(), v.to_string())];
    let run_as = |v: &str, p: &Pipeline| run_scheduled(p, &gpu_backend(), &a, sched(v)).unwrap();
    // bytes that differ (the images are too long to print)
    let differ = |x: &Value, y: &Value| {
        x.as_image()
            .unwrap()
            .as_u8()
            .iter()
            .zip(y.as_image().unwrap().as_u8())
            .filter(|(p, q)| p != q)
            .count()
    };
    for g in [0.0, 0.45, 1.0, 2.2, 3.0] {
        let p = Pipeline::new().then(Gamma::new(g).unwrap());
        let (pixel, table) = (run_as("pixel", &p), run_as("table", &p));
        assert_eq!(
            differ(&pixel, &table),
            0,
            "gamma {g}: table and per-pixel kernels differ"
        );
        assert_close(&table, &p.run(&Backend::Cpu, &a).unwrap(), 1.0);
    }
    // a fused chain of per-channel ops becomes one table (quantised between the steps)
    let p = Pipeline::new()
        .then(Gamma::new(0.5).unwrap())
        .then(Gamma::new(2.2).unwrap());
    let table = p
        .run_with(
            &gpu_backend(),
            &a,
            &RunOptions {
                timings: true,
                poison: true,
                fuse: true,
                schedules: sched("table"),
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(
        differ(table.get("output").unwrap(), &run_as("pixel", &p)),
        0,
        "fused chain: table and per-pixel kernels differ"
    );
    if gpu().has_timestamps() {
        assert_eq!(table.timings.len(), 1, "{:?}", table.timings);
    }
    let e = run_scheduled(
        &Pipeline::new().then(Gamma::new(2.0).unwrap()),
        &gpu_backend(),
        &a,
        sched("no_such_variant"),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("unknown schedule") && e.contains("table"), "{e}");
}

#[test]
fn tone_curves_read_their_tables_in_place_anywhere_in_a_fused_chain() {
    use texelflow::filters::color::ToneCurve;
    let a = random_image(67, 43, PixelFormat::Rgba8, 5);
    let id = [[0.0, 0.0], [1.0, 1.0]];
    let lift = ToneCurve::new(&id, &[[0.0, 0.1], [0.6, 0.7], [1.0, 1.0]], &id, &id).unwrap();
    let darken = ToneCurve::new(
        &[[0.0, 0.0], [0.5, 0.35], [1.0, 1.0]],
        &id,
        &id,
        &[[0.0, 0.0], [1.0, 0.8]],
    )
    .unwrap();
    // two tables as op0 and op2 of one kernel: around a filter that is not per-channel (the
    // per-pixel kernel) and around one that is (the table kernel)
    let middles: [Box<dyn texelflow::Filter>; 2] = [
        Box::new(Saturation::new(1.3).unwrap()),
        Box::new(Gamma::new(0.8).unwrap()),
    ];
    for middle in middles {
        let mut p = Pipeline::new().then(lift.clone());
        p.push(middle, vec![]);
        let p = p.then(darken.clone());
        let (g, imgs) = p.graph(&a).unwrap();
        let srcs: Vec<(&str, &Image)> = imgs.iter().map(|(n, i)| (n.as_str(), i)).collect();
        let fused = gpu_backend()
            .run(
                &g,
                &srcs,
                &RunOptions {
                    timings: true,
                    poison: true,
                    fuse: true,
                    ..Default::default()
                },
            )
            .unwrap();
        let unfused = gpu_backend()
            .run(
                &g,
                &srcs,
                &RunOptions {
                    timings: true,
                    poison: true,
                    fuse: false,
                    ..Default::default()
                },
            )
            .unwrap();
        let cpu = Backend::Cpu.run(&g, &srcs, &RunOptions::default()).unwrap();
        assert_eq!(fused.get("output"), unfused.get("output"));
        // the middle step may round a tie differently by 1/255; the last curve's slope is
        // below 2
        assert_close(
            fused.get("output").unwrap(),
            cpu.get("output").unwrap(),
            2.0,
        );
        if gpu().has_timestamps() {
            assert_eq!(fused.timings.len(), 1, "{:?}", fused.timings);
        }
    }
}

/// `bench --shader-stats` reads the kept modules: none are kept unless asked for, and once
/// asked, each new kernel's module is kept once, in compile order, with its cache key.
#[test]
fn compiled_kernels_are_kept_only_when_asked() {
    let gpu_arc = private_gpu();
    let a = random_image(16, 8, PixelFormat::Rgba8, 5);
    let be = Backend::Gpu(gpu_arc.clone());
    Pipeline::new()
        .then(Gamma::new(2.0).unwrap())
        .run(&be, &a)
        .unwrap();
    assert!(gpu_arc.pipeline_count() > 0);
    assert_eq!(gpu_arc.compiled_kernel_count(), 0);
    gpu_arc.keep_compiled_kernels();
    Pipeline::new()
        .then(Brightness::new(0.2).unwrap())
        .run(&be, &a)
        .unwrap();
    let kept = gpu_arc.compiled_kernels(0);
    assert_eq!(kept.len(), gpu_arc.compiled_kernel_count());
    assert!(
        !kept.is_empty()
            && kept
                .iter()
                .all(|k| k.source.contains(&format!("fn {}", k.entry))),
        "{:?}",
        kept.iter().map(|k| &k.key).collect::<Vec<_>>()
    );
    Pipeline::new()
        .then(Brightness::new(0.3).unwrap())
        .run(&be, &a)
        .unwrap();
    assert_eq!(
        gpu_arc.compiled_kernel_count(),
        kept.len(),
        "a cached kernel is not kept twice"
    );
    assert!(gpu_arc.compiled_kernels(kept.len()).is_empty());
}

#[test]
fn rerun_with_new_inputs_and_parameters_reuses_pipelines_and_buffers() {
    // its own device: the count below would see other tests' kernels on the shared one
    let gpu_arc = private_gpu();
    let a = random_image(64, 48, PixelFormat::Rgba8, 3);
    let b = random_image(64, 48, PixelFormat::Rgba8, 4);
    let mut g = Graph::new();
    // straight colour: the GPU-CPU comparison below holds to one level (dividing by a random
    // alpha after the blur would scale its differences; tests/alpha.rs covers that path)
    g.set_straight_alpha(true);
    let s = g.source("in", a.desc()).unwrap();
    let bright = g.add1(Brightness::new(0.1).unwrap(), &[s]).unwrap();
    let blur = g.add_boxed(by_name("gaussian_blur"), &[bright]).unwrap()[0];
    g.output("out", blur).unwrap();
    let be = Backend::Gpu(gpu_arc.clone());
    let r1 = be.run(&g, &[("in", &a)], &RunOptions::default()).unwrap();
    let compiled = gpu_arc.pipeline_count();
    let r2 = be.run(&g, &[("in", &b)], &RunOptions::default()).unwrap();
    assert_ne!(r1.get("out"), r2.get("out"));
    let cpu = Backend::Cpu
        .run(&g, &[("in", &b)], &RunOptions::default())
        .unwrap();
    assert_close(r2.get("out").unwrap(), cpu.get("out").unwrap(), 1.0);
    // new parameters without rebuilding the graph
    g.replace(g.node_of(bright), Box::new(Brightness::new(-0.3).unwrap()))
        .unwrap();
    let r3 = be.run(&g, &[("in", &b)], &RunOptions::default()).unwrap();
    let cpu3 = Backend::Cpu
        .run(&g, &[("in", &b)], &RunOptions::default())
        .unwrap();
    assert_close(r3.get("out").unwrap(), cpu3.get("out").unwrap(), 1.0);
    assert_ne!(r2.get("out"), r3.get("out"));
    assert_eq!(
        gpu_arc.pipeline_count(),
        compiled,
        "re-runs must not compile kernels again"
    );
}

#[test]
fn reduction_feeds_a_later_node_on_the_gpu() {
    let a = random_image(67, 43, PixelFormat::Rgba8, 5);
    let mut g = Graph::new();
    let s = g.source("in", a.desc()).unwrap();
    let t = g
        .add_boxed(by_name("average_luminance_threshold"), &[s])
        .unwrap()[0];
    g.output("out", t).unwrap();
    // the composite lowered to a reduction and its GPU consumer
    assert_eq!(g.filter_count(), 2, "{:?}", g.labels());
    let gpu = gpu_backend()
        .run(
            &g,
            &[("in", &a)],
            &RunOptions {
                poison: true,
                ..Default::default()
            },
        )
        .unwrap();
    let cpu = Backend::Cpu
        .run(&g, &[("in", &a)], &RunOptions::default())
        .unwrap();
    assert_eq!(gpu.get("out"), cpu.get("out"));
    let img = gpu.get("out").unwrap().as_image().unwrap();
    let whites = img.as_u8().chunks(4).filter(|p| p[0] == 255).count();
    assert!(
        whites > 0 && whites < 67 * 43,
        "threshold at the mean should split the image"
    );
}

#[test]
fn validation_errors_are_clear() {
    let d = ImageDesc::new(8, 8, PixelFormat::Rgba8);
    let mut g = Graph::new();
    let s = g.source("a", d).unwrap();
    let small = g
        .source("b", ImageDesc::new(4, 4, PixelFormat::Rgba8))
        .unwrap();
    // wrong number of inputs
    let e = g.add(Brightness::default(), &[s, s]).unwrap_err();
    assert!(e.to_string().contains("takes 1 input"), "{e}");
    // size mismatch on a two-input node
    let e = g.add(AlphaBlend::default(), &[s, small]).unwrap_err();
    assert!(e.to_string().contains("same size"), "{e}");
    // data into an image filter
    let h = g.add_boxed(by_name("histogram"), &[s]).unwrap()[0];
    let e = g.add(Brightness::default(), &[h]).unwrap_err();
    assert!(matches!(e, Error::Graph(_)), "{e}");
    // gray8 into an RGBA8-only filter
    let gray = g.add_boxed(by_name("to_gray"), &[s]).unwrap()[0];
    let e = g.add(Brightness::default(), &[gray]).unwrap_err();
    assert!(e.to_string().contains("rgba8"), "{e}");
    // a port from another graph
    let mut other = Graph::new();
    let foreign = other.source("x", d).unwrap();
    assert!(g.add(Brightness::default(), &[foreign]).is_err());
    // duplicate names
    assert!(g.source("a", d).is_err());
    g.output("o", s).unwrap();
    assert!(g.output("o", s).is_err());
    // wrong image at run time
    let wrong = random_image(5, 5, PixelFormat::Rgba8, 1);
    let e = Backend::Cpu
        .run(&g, &[("a", &wrong), ("b", &wrong)], &RunOptions::default())
        .unwrap_err();
    assert!(e.to_string().contains("declared as"), "{e}");
    // missing source
    let e = gpu_backend()
        .run(&g, &[], &RunOptions::default())
        .unwrap_err();
    assert!(e.to_string().contains("was not given"), "{e}");
    // no outputs
    let mut empty = Graph::new();
    let s2 = empty.source("a", d).unwrap();
    let _ = empty.add(Brightness::default(), &[s2]).unwrap();
    let img = random_image(8, 8, PixelFormat::Rgba8, 1);
    assert!(Backend::Cpu
        .run(&empty, &[("a", &img)], &RunOptions::default())
        .is_err());
}

#[test]
fn image_too_large_for_the_device_is_an_error_not_a_panic() {
    let limit = gpu().max_binding();
    // An upscale whose output needs more than one binding, then a filter that reads the whole
    // image (a resize alone runs in tiles: tests/geometry_tiles.rs).
    let side = 2048u32;
    let scale = ((limit as f64 / 4.0).sqrt() / side as f64 * 1.5)
        .ceil()
        .clamp(2.0, 16.0);
    let img = Image::zeroed(ImageDesc::new(side, side, PixelFormat::Rgba8));
    let spec = format!("resize(scale={scale}) | histogram_equalization");
    let p = Pipeline::parse(&spec, &mut |_| unreachable!()).unwrap();
    let out_side = (side as f64 * scale) as u64;
    if out_side * out_side * 4 <= limit {
        eprintln!("device allows {limit} bytes; cannot exceed it with a 16x upscale of {side}^2");
        return;
    }
    match p.run(&gpu_backend(), &img) {
        Err(Error::TooLarge { limit: l, .. }) => assert_eq!(l, limit),
        Err(other) => panic!("expected TooLarge, got {other}"),
        Ok(v) => panic!(
            "expected TooLarge, got a result ({:?})",
            v.as_image().map(|i| i.desc())
        ),
    }
}

#[test]
fn spec_errors_name_the_problem() {
    let mut no_load = |_: &str| -> texelflow::Result<Image> { unreachable!() };
    let e = Pipeline::parse("gausian_blur(sigma=2)", &mut no_load).unwrap_err();
    assert!(
        e.to_string().contains("did you mean `gaussian_blur`"),
        "{e}"
    );
    let e = Pipeline::parse("gaussian_blur(sigma=200)", &mut no_load).unwrap_err();
    assert!(e.to_string().contains("out of range [0.1, 32]"), "{e}");
    let e = Pipeline::parse("gaussian_blur(sigmaa=2)", &mut no_load).unwrap_err();
    assert!(e.to_string().contains("did you mean `sigma`"), "{e}");
    let e = Pipeline::parse("box_blur(radius=2.5)", &mut no_load).unwrap_err();
    assert!(e.to_string().contains("not an integer"), "{e}");
    let e = Pipeline::parse("alpha_blend(mix=0.5)", &mut no_load).unwrap_err();
    assert!(e.to_string().contains("is required"), "{e}");
    let e = Pipeline::parse("brightness(0.1, 0.2)", &mut no_load).unwrap_err();
    assert!(e.to_string().contains("too many positional"), "{e}");
    // positional values fill parameters in order
    let p = Pipeline::parse("brightness(0.25) | contrast(2)", &mut no_load).unwrap();
    assert_eq!(p.len(), 2);
    // extra images go through the loader
    let mut calls = Vec::new();
    let mut load = |path: &str| {
        calls.push(path.to_string());
        Ok(random_image(4, 4, PixelFormat::Rgba8, 9))
    };
    Pipeline::parse("alpha_blend(with=top.png, mix=0.3)", &mut load).unwrap();
    assert_eq!(calls, vec!["top.png".to_string()]);
}

#[test]
fn typed_constructors_check_ranges() {
    assert!(Brightness::new(1.5).is_err());
    assert!(Contrast::new(-0.1).is_err());
    assert!(Brightness::new(f32::NAN).is_err());
    assert!(Gamma::new(3.0).is_ok());
}

/// Without timings, steps share compute passes (`Passes::Merged`: wgpu orders the dependent
/// dispatches inside a pass); with timings each step has its own pass. Both must give the
/// same bits, across reductions whose buffers are cleared mid-graph (the shared pass ends
/// there: the second reduction reuses the first one's dead buffer, which the first
/// threshold must have read before the clear), multi-dispatch steps (two-pass morphology, the decimated Gaussian), one- and
/// two-pass composites, and with poisoned outputs (a pass per step again). (Each step's
/// agreement with the CPU twin is the equivalence matrix's; this chain thresholds, so a
/// tie moved by a level would show as 255 against the CPU.)
#[test]
fn steps_sharing_a_pass_equal_a_pass_per_step() {
    let spec = "brightness(0.1) | gaussian_blur(sigma=1.5) | average_luminance_threshold | dilation(radius=2) | box_blur(radius=3) \
                | gaussian_blur(sigma=6) | opening(radius=12) | sobel_edge_detection | erosion(radius=1) | contrast(1.2) \
                | gaussian_blur(sigma=2) | average_luminance_threshold";
    let p = Pipeline::parse(spec, &mut |_| unreachable!()).unwrap();
    for (w, h) in [(67, 43), (130, 9), (1, 23)] {
        let img = random_image(w, h, PixelFormat::Rgba8, 40 + w as u64);
        let run = |timings: bool, poison: bool| {
            p.run_with(
                &gpu_backend(),
                &img,
                &RunOptions {
                    timings,
                    poison,
                    fuse: true,
                    ..Default::default()
                },
            )
            .unwrap()
        };
        let merged = run(false, false);
        assert!(merged.timings.is_empty());
        let per_step = run(true, false);
        // (not assert_eq: a failure would print whole images)
        assert!(
            merged.get("output") == per_step.get("output"),
            "{w}x{h}: steps sharing passes differ from a pass per step"
        );
        assert!(
            merged.get("output") == run(false, true).get("output"),
            "{w}x{h}: poisoned outputs differ"
        );
    }
}

/// At 16 bits a fused run of per-pixel filters (a blend, a position-dependent filter and a
/// per-channel one whose 8-bit default is the `table` schedule among them) quantises to 16
/// bits between its steps, so it is bit-identical to one kernel per filter; and it stays
/// close to the CPU's 16-bit chain.
#[test]
fn fused_chains_at_16_bits_equal_unfused() {
    let a = random_image(67, 43, PixelFormat::Rgba16, 15);
    let b = random_image(67, 43, PixelFormat::Rgba16, 16);
    let mut g = Graph::new();
    let sa = g.source("a", a.desc()).unwrap();
    let sb = g.source("b", b.desc()).unwrap();
    let inv = g.add1(ColorInvert, &[sb]).unwrap();
    let mut x = g.add1(Brightness::new(0.1).unwrap(), &[sa]).unwrap();
    x = g.add1(Gamma::new(1.7).unwrap(), &[x]).unwrap();
    x = g
        .add1(texelflow::filters::blend::MultiplyBlend, &[x, inv])
        .unwrap();
    x = g
        .add_boxed(
            registry::create("haze(distance=0.1, slope=0.2)").unwrap(),
            &[x],
        )
        .unwrap()[0];
    x = g.add1(AlphaBlend::new(0.6).unwrap(), &[x, sb]).unwrap();
    x = g.add1(Contrast::new(1.2).unwrap(), &[x]).unwrap();
    g.output("output", x).unwrap();
    let srcs = [("a", &a), ("b", &b)];
    let fused = gpu_backend()
        .run(
            &g,
            &srcs,
            &RunOptions {
                timings: true,
                poison: true,
                fuse: true,
                ..Default::default()
            },
        )
        .unwrap();
    let unfused = gpu_backend()
        .run(
            &g,
            &srcs,
            &RunOptions {
                timings: true,
                poison: true,
                fuse: false,
                ..Default::default()
            },
        )
        .unwrap();
    let out = fused.get("output").and_then(|v| v.as_image()).unwrap();
    assert_eq!(out.format(), PixelFormat::Rgba16);
    assert_eq!(fused.get("output"), unfused.get("output"));
    assert!(out.as_u16().iter().any(|v| v % 257 != 0), "16 bits kept");
    let cpu = Backend::Cpu.run(&g, &srcs, &RunOptions::default()).unwrap();
    // a few 1/65535 steps per filter (f32 on both sides, pow by ulps), carried on by the later gains
    assert_close(
        fused.get("output").unwrap(),
        cpu.get("output").unwrap(),
        32.0,
    );
    if gpu().has_timestamps() {
        let labels: Vec<&str> = fused.timings.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "color_invert",
                "brightness+gamma+multiply_blend+haze+alpha_blend+contrast"
            ]
        );
    }
}

/// A pipeline keeps 16 bits through the filters that take them, widens an 8-bit blend image
/// beside a 16-bit one, and narrows a 16-bit image to 8 bits before a filter that takes 8-bit
/// images only, saying so in the run's notes.
#[test]
fn pipelines_narrow_16_bits_only_before_8_bit_filters() {
    let a = random_image(33, 21, PixelFormat::Rgba16, 17);
    let b = random_image(33, 21, PixelFormat::Rgba8, 18);
    let kept = Pipeline::new()
        .then(Brightness::new(0.1).unwrap())
        .then(texelflow::filters::neighborhood::GaussianBlur::new(1.5).unwrap())
        .then_with(texelflow::filters::blend::MultiplyBlend, vec![b.clone()])
        .then(texelflow::filters::neighborhood::BoxBlur::new(2).unwrap());
    for backend in [gpu_backend(), Backend::Cpu] {
        let r = kept.run_with(&backend, &a, &RunOptions::default()).unwrap();
        assert!(r.notes.is_empty(), "{:?}", r.notes);
        assert_eq!(
            r.get("output")
                .and_then(|v| v.as_image())
                .map(|i| i.format()),
            Some(PixelFormat::Rgba16)
        );
    }
    // (the 16-bit image straight into sobel: a 16-bit step before it could differ by a 1/65535
    // step across a narrowing boundary, which sobel's gradient then multiplies)
    let narrowed = Pipeline::new()
        .then(texelflow::filters::neighborhood::SobelEdgeDetection::default())
        .then(Contrast::new(1.1).unwrap());
    let gpu = narrowed
        .run_with(
            &gpu_backend(),
            &a,
            &RunOptions {
                poison: true,
                ..Default::default()
            },
        )
        .unwrap();
    let cpu = narrowed
        .run_with(&Backend::Cpu, &a, &RunOptions::default())
        .unwrap();
    assert_eq!(gpu.notes, ["`sobel_edge_detection` takes 8-bit images: the 16-bit image was narrowed to 8 bits before it"]);
    assert_eq!(gpu.notes, cpu.notes);
    let out = gpu.get("output").and_then(|v| v.as_image()).unwrap();
    assert_eq!(out.format(), PixelFormat::Rgba8);
    // the narrowing is exact on both sides; one level from sobel, carried on by contrast's gain
    assert_close(gpu.get("output").unwrap(), cpu.get("output").unwrap(), 2.0);
}

/// A long per-pixel chain fuses in kernels of at most 16 ops (the driver's compile time grows
/// as the square of a fused chain), bit-identical to the unfused chain; 40 ops: 16 + 16 + 8.
#[test]
fn long_chains_fuse_in_bounded_groups() {
    let a = random_image(67, 43, PixelFormat::Rgba8, 5);
    let mut g = Graph::new();
    let mut cur = g.source("a", a.desc()).unwrap();
    for k in 0..40 {
        cur = if k % 2 == 0 {
            g.add1(Brightness::new(0.01).unwrap(), &[cur]).unwrap()
        } else {
            g.add1(Gamma::new(1.01).unwrap(), &[cur]).unwrap()
        };
    }
    g.output("out", cur).unwrap();
    let srcs = [("a", &a)];
    let fused = gpu_backend()
        .run(
            &g,
            &srcs,
            &RunOptions {
                timings: true,
                poison: true,
                fuse: true,
                ..Default::default()
            },
        )
        .unwrap();
    let unfused = gpu_backend()
        .run(
            &g,
            &srcs,
            &RunOptions {
                timings: false,
                poison: true,
                fuse: false,
                ..Default::default()
            },
        )
        .unwrap();
    assert_eq!(fused.get("out"), unfused.get("out"));
    if gpu().has_timestamps() {
        let sizes: Vec<usize> = fused
            .timings
            .iter()
            .map(|t| t.label.split('+').count())
            .collect();
        assert_eq!(
            sizes,
            vec![16, 16, 8],
            "{:?}",
            fused.timings.iter().map(|t| &t.label).collect::<Vec<_>>()
        );
    }
}

/// Bounded work for any spec: past the node limit (10000 by default) a graph or a spec is
/// refused at once, with one line naming the limit.
#[test]
fn graphs_past_the_node_limit_are_refused_at_once() {
    let limit = texelflow::Limits::default().max_nodes;
    let t = std::time::Instant::now();
    let spec = vec!["brightness(0.1)"; limit + 1].join(" | ");
    let e = Pipeline::parse(&spec, &mut |p| Image::open(p))
        .unwrap_err()
        .to_string();
    assert!(e.contains(&format!("more than {limit} filters")), "{e}");
    let mut g = Graph::new();
    let mut cur = g
        .source("a", ImageDesc::new(4, 4, PixelFormat::Rgba8))
        .unwrap();
    let mut err = None;
    for _ in 0..limit + 1 {
        match g.add1(ColorInvert, &[cur]) {
            Ok(p) => cur = p,
            Err(e) => {
                err = Some(e);
                break;
            }
        }
    }
    let e = err.expect("refused past the limit").to_string();
    assert!(
        e.contains(&format!("more than {limit} nodes")) && !e.contains('\n'),
        "{e}"
    );
    assert!(
        t.elapsed().as_secs_f64() < 30.0,
        "refusing took {:?}",
        t.elapsed()
    );
}

/// Issue 31: texelflow on a device the caller opened (`Gpu::from_wgpu`) gives what its own
/// device gives, byte for byte; a caller's device with small limits (a 1 MiB storage binding,
/// as a cautious application might ask for) makes the run go in tiles, still equal; and the
/// caller's error handler stays its own (texelflow installs none on a caller's device).
#[test]
fn a_callers_device_runs_pipelines_as_our_own() {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN;
    desc.flags = wgpu::InstanceFlags::empty();
    let instance = wgpu::Instance::new(desc);
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))
        .expect("a Vulkan adapter (lavapipe in CI)");
    let open = |binding: u64| {
        let limits = wgpu::Limits {
            max_storage_buffer_binding_size: binding,
            max_buffer_size: binding,
            ..wgpu::Limits::downlevel_defaults()
        };
        // the features texelflow's schedules use (a device without f16 runs the blur in f32:
        // equal within the registry's tolerance, not byte for byte)
        let features = adapter.features()
            & (wgpu::Features::SUBGROUP
                | wgpu::Features::SHADER_F16
                | wgpu::Features::TIMESTAMP_QUERY);
        pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            required_limits: limits,
            required_features: features,
            ..Default::default()
        }))
        .expect("device")
    };
    let img = random_image(701, 333, PixelFormat::Rgba8, 31);
    let pipe = Pipeline::parse(
        "gaussian_blur(sigma=2) | saturation(1.2)",
        &mut |p: &str| Image::open(p),
    )
    .unwrap();
    let ours = pipe.run(&gpu_backend(), &img).unwrap();
    for binding in [128 << 20, 1 << 20] {
        let (device, queue) = open(binding);
        let errors = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = errors.clone();
        device.on_uncaptured_error(std::sync::Arc::new(move |_| {
            seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }));
        let gpu = texelflow::Gpu::from_wgpu(&adapter, device.clone(), queue, &Default::default());
        assert_eq!(gpu.max_binding(), binding);
        let theirs = pipe.run(&Backend::Gpu(gpu), &img).unwrap();
        assert_eq!(max_diff(&ours, &theirs), Ok(0.0), "binding {binding}");
        // an error on the caller's own work still reaches the caller's handler
        let _ = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 4,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        assert_eq!(errors.load(std::sync::atomic::Ordering::Relaxed), 1);
    }
}

/// Issue 31: a caller's texture read in place (`io::texture::run_texture`) gives what the same
/// image from host memory gives on that device, byte for byte, and so does a run from texture
/// to texture (`run_textures`: rgba8unorm out byte for byte, rgba16float within an f16 step;
/// `encode_textures`: recorded into the caller's encoder, two frames and the caller's own copy;
/// `run_buffers`: storage buffers in texelflow's layouts in and out, run and recorded):
/// rgba8unorm as RGBA8, r8unorm as
/// Gray8 (an odd width: rows padded in the buffer), rgba16float as RGBA16; a format it cannot
/// read and a texture without TEXTURE_BINDING are errors, and so is a run on the CPU reference.
#[test]
fn a_callers_texture_is_read_in_place() {
    use texelflow::io::texture::{run_texture, TextureSource};
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN;
    desc.flags = wgpu::InstanceFlags::empty();
    let instance = wgpu::Instance::new(desc);
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).unwrap();
    let features = adapter.features() & (wgpu::Features::SUBGROUP | wgpu::Features::SHADER_F16);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: adapter.limits(),
        required_features: features,
        ..Default::default()
    }))
    .unwrap();
    let gpu =
        texelflow::Gpu::from_wgpu(&adapter, device.clone(), queue.clone(), &Default::default());
    let texture = |w: u32, h: u32, format: wgpu::TextureFormat, bytes: &[u8], usage| {
        let t = device.create_texture(&wgpu::TextureDescriptor {
            label: None,
            size: wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: usage | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        queue.write_texture(
            t.as_image_copy(),
            bytes,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(bytes.len() as u32 / h),
                rows_per_image: Some(h),
            },
            t.size(),
        );
        t
    };
    let bind = wgpu::TextureUsages::TEXTURE_BINDING;
    let pipe = |spec: &str| Pipeline::parse(spec, &mut |p: &str| Image::open(p)).unwrap();
    // f16 bits of k / 256 (exact: at most 8 significant bits)
    let f16 = |k: u16| -> u16 {
        if k == 0 {
            return 0;
        }
        let e = 15 - k.leading_zeros() as u16; // k in [2^e, 2^(e+1))
        let exp = e + 15 - 8;
        let mantissa = (k - (1 << e)) << (10 - e);
        (exp << 10) | mantissa
    };
    let rgba = random_image(701, 333, PixelFormat::Rgba8, 41);
    let grey = random_image(37, 19, PixelFormat::Gray8, 42);
    let ks: Vec<u16> = (0..61 * 23 * 4).map(|i| (i * 37 % 256) as u16).collect();
    // as the host widens a float to 16 bits: k / 256 to the nearest of 65535 steps
    let half = Image::from_u16(
        61,
        23,
        ks.iter()
            .map(|&k| (f64::from(k) / 256.0 * 65535.0).round() as u16)
            .collect(),
    )
    .unwrap();
    let half_bytes: Vec<u8> = ks.iter().flat_map(|&k| f16(k).to_le_bytes()).collect();
    for (img, format, bytes, spec) in [
        (
            &rgba,
            wgpu::TextureFormat::Rgba8Unorm,
            rgba.as_u8().to_vec(),
            "gaussian_blur(sigma=2) | saturation(1.2)",
        ),
        (
            &grey,
            wgpu::TextureFormat::R8Unorm,
            grey.as_u8().to_vec(),
            "brightness(0.1) | box_blur(radius=2)",
        ),
        (
            &half,
            wgpu::TextureFormat::Rgba16Float,
            half_bytes,
            "brightness(0.1)",
        ),
    ] {
        let t = texture(img.width(), img.height(), format, &bytes, bind);
        let p = pipe(spec);
        let host = p.run(&Backend::Gpu(gpu.clone()), img).unwrap();
        let mut in_place = run_texture(&p, &gpu, &t, &Default::default()).unwrap();
        let v = in_place.take("output").unwrap();
        assert_eq!(max_diff(&host, &v), Ok(0.0), "{format:?}");
    }
    // textures in and out (`run_textures`): nothing but a status leaves the device
    let read_back = |t: &wgpu::Texture, bpp: u32| -> Vec<u8> {
        let (w, h) = (t.width(), t.height());
        let row = (w * bpp).div_ceil(256) * 256;
        let buf = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: u64::from(row * h),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = device.create_command_encoder(&Default::default());
        enc.copy_texture_to_buffer(
            t.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &buf,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row),
                    rows_per_image: Some(h),
                },
            },
            t.size(),
        );
        queue.submit([enc.finish()]);
        buf.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
        let data = buf.slice(..).get_mapped_range().unwrap().to_vec();
        data.chunks(row as usize)
            .flat_map(|r| r[..(w * bpp) as usize].to_vec())
            .collect()
    };
    let storage = wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC;
    let spec = "gaussian_blur(sigma=2) | saturation(1.2)";
    let input = texture(
        701,
        333,
        wgpu::TextureFormat::Rgba8Unorm,
        rgba.as_u8(),
        bind,
    );
    let host = pipe(spec).run(&Backend::Gpu(gpu.clone()), &rgba).unwrap();
    let host = host.as_image().unwrap();
    let out8 = texture(
        701,
        333,
        wgpu::TextureFormat::Rgba8Unorm,
        &vec![7; 701 * 333 * 4],
        storage,
    );
    texelflow::io::texture::run_textures(&pipe(spec), &gpu, &input, &out8, &Default::default())
        .unwrap();
    assert!(read_back(&out8, 4) == host.as_u8(), "rgba8unorm out");
    // rgba16float: each value within an f16 step of k / 255
    let out16 = texture(
        701,
        333,
        wgpu::TextureFormat::Rgba16Float,
        &vec![0; 701 * 333 * 8],
        storage,
    );
    texelflow::io::texture::run_textures(&pipe(spec), &gpu, &input, &out16, &Default::default())
        .unwrap();
    let f16_value = |b: u16| -> f32 {
        let (e, m) = (i32::from((b >> 10) & 31), f32::from(b & 1023));
        if e == 0 {
            m * 2f32.powi(-24)
        } else {
            (1.0 + m / 1024.0) * 2f32.powi(e - 15)
        }
    };
    let got16 = read_back(&out16, 8);
    for (k, c) in got16.chunks_exact(2).zip(host.as_u8()) {
        let v = f16_value(u16::from_le_bytes([k[0], k[1]]));
        let want = f32::from(*c) / 255.0;
        // one f16 step: the store's rounding is the device's (lavapipe truncates)
        assert!(
            (v - want).abs() <= want.max(1.0 / 1024.0) / 1024.0 + 1e-7,
            "{v} {want}"
        );
    }
    // recorded into the caller's encoder (`encode_textures`): two frames, then the caller's
    // own copy of the first output, all in one encoder and one submission
    let other = random_image(701, 333, PixelFormat::Rgba8, 43);
    let input2 = texture(
        701,
        333,
        wgpu::TextureFormat::Rgba8Unorm,
        other.as_u8(),
        bind,
    );
    let host2 = pipe(spec).run(&Backend::Gpu(gpu.clone()), &other).unwrap();
    let frame1 = texture(
        701,
        333,
        wgpu::TextureFormat::Rgba8Unorm,
        &vec![7; 701 * 333 * 4],
        storage,
    );
    let frame2 = texture(
        701,
        333,
        wgpu::TextureFormat::Rgba8Unorm,
        &vec![7; 701 * 333 * 4],
        storage,
    );
    let mut enc = device.create_command_encoder(&Default::default());
    let p = pipe(spec);
    texelflow::io::texture::encode_textures(
        &p,
        &gpu,
        &input,
        &frame1,
        &mut enc,
        &Default::default(),
    )
    .unwrap();
    texelflow::io::texture::encode_textures(
        &p,
        &gpu,
        &input2,
        &frame2,
        &mut enc,
        &Default::default(),
    )
    .unwrap();
    // a texelflow run submitted meanwhile takes none of the recorded runs' buffers
    let between = pipe(spec).run(&Backend::Gpu(gpu.clone()), &other).unwrap();
    assert_eq!(max_diff(&between, &host2), Ok(0.0));
    let row = (701 * 4u32).div_ceil(256) * 256;
    let copy = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: u64::from(row * 333),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    enc.copy_texture_to_buffer(
        frame1.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &copy,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: Some(333),
            },
        },
        frame1.size(),
    );
    queue.submit([enc.finish()]);
    copy.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let copied: Vec<u8> = copy
        .slice(..)
        .get_mapped_range()
        .unwrap()
        .chunks(row as usize)
        .flat_map(|r| r[..701 * 4].to_vec())
        .collect();
    assert!(
        copied == host.as_u8(),
        "frame 1, copied in the caller's encoder"
    );
    assert!(
        read_back(&frame2, 4) == host2.as_image().unwrap().as_u8(),
        "frame 2"
    );
    // storage buffers in and out, in texelflow's layouts (`run_buffers`), run and recorded
    let storage_buffer = |bytes: &[u8]| {
        let b = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: (bytes.len() as u64).div_ceil(16) * 16,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        queue.write_buffer(&b, 0, bytes);
        b
    };
    let read_buffer = |b: &wgpu::Buffer, n: usize| -> Vec<u8> {
        let r = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: b.size(),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut enc = device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(b, 0, &r, 0, b.size());
        queue.submit([enc.finish()]);
        r.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
        let v = r.slice(..).get_mapped_range().unwrap()[..n].to_vec();
        v
    };
    let in_buf = storage_buffer(rgba.as_u8());
    let out_buf = storage_buffer(&vec![7; 701 * 333 * 4]);
    let d = texelflow::io::texture::run_buffers(
        &pipe(spec),
        &gpu,
        &in_buf,
        rgba.desc(),
        &out_buf,
        None,
        &Default::default(),
    )
    .unwrap();
    assert_eq!(d, host.desc());
    assert!(
        read_buffer(&out_buf, 701 * 333 * 4) == host.as_u8(),
        "buffer out"
    );
    let out_buf2 = storage_buffer(&vec![7; 701 * 333 * 4]);
    let mut enc = device.create_command_encoder(&Default::default());
    texelflow::io::texture::run_buffers(
        &pipe(spec),
        &gpu,
        &in_buf,
        rgba.desc(),
        &out_buf2,
        Some(&mut enc),
        &Default::default(),
    )
    .unwrap();
    queue.submit([enc.finish()]);
    assert!(
        read_buffer(&out_buf2, 701 * 333 * 4) == host.as_u8(),
        "buffer out, recorded"
    );
    let e = texelflow::io::texture::run_buffers(
        &pipe(spec),
        &gpu,
        &in_buf,
        rgba.desc(),
        &storage_buffer(&[0; 64]),
        None,
        &Default::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("the image needs"), "{e}");
    // a result of another size than the output texture
    let small = texture(8, 8, wgpu::TextureFormat::Rgba8Unorm, &[0; 256], storage);
    let e = texelflow::io::texture::run_textures(
        &pipe(spec),
        &gpu,
        &input,
        &small,
        &Default::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("701x333") && e.contains("8x8"), "{e}");
    // what it cannot read
    let t = texture(4, 4, wgpu::TextureFormat::Rg8Unorm, &[0; 32], bind);
    let e = TextureSource::new(&t).unwrap_err().to_string();
    assert!(e.contains("Rg8Unorm") && e.contains("rgba8unorm"), "{e}");
    let t = texture(
        4,
        4,
        wgpu::TextureFormat::Rgba8Unorm,
        &[0; 64],
        wgpu::TextureUsages::empty(),
    );
    let e = TextureSource::new(&t).unwrap_err().to_string();
    assert!(e.contains("TEXTURE_BINDING"), "{e}");
    let t = texture(4, 4, wgpu::TextureFormat::Rgba8Unorm, &[0; 64], bind);
    let e = pipe("brightness(0.1)")
        .try_run_produced(
            &Backend::Cpu,
            Box::new(TextureSource::new(&t).unwrap()),
            &Default::default(),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("runs on the GPU that owns it"), "{e}");
}

/// A device opened by the caller (Vulkan: lavapipe in CI) with the adapter's limits and the
/// features texelflow's schedules use, and texelflow on it (`Gpu::from_wgpu`).
fn callers_device() -> (wgpu::Device, wgpu::Queue, std::sync::Arc<texelflow::Gpu>) {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN;
    desc.flags = wgpu::InstanceFlags::empty();
    let instance = wgpu::Instance::new(desc);
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))
        .expect("a Vulkan adapter (lavapipe in CI)");
    let features = adapter.features()
        & (wgpu::Features::SUBGROUP | wgpu::Features::SHADER_F16 | wgpu::Features::TIMESTAMP_QUERY);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: adapter.limits(),
        required_features: features,
        ..Default::default()
    }))
    .expect("device");
    let gpu =
        texelflow::Gpu::from_wgpu(&adapter, device.clone(), queue.clone(), &Default::default());
    (device, queue, gpu)
}

/// A `w` x `h` texture of `format` holding `bytes` (rows packed), with `usage` and COPY_DST.
fn filled_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    (w, h): (u32, u32),
    format: wgpu::TextureFormat,
    bytes: &[u8],
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    let t = device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: usage | wgpu::TextureUsages::COPY_DST,
        view_formats: &[],
    });
    queue.write_texture(
        t.as_image_copy(),
        bytes,
        wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(bytes.len() as u32 / h),
            rows_per_image: Some(h),
        },
        t.size(),
    );
    t
}

/// Records into `enc` the copy of texture `t` (`bpp` bytes a texel) into a new mappable buffer
/// at rows of a multiple of 256 bytes; returns the buffer and its row stride.
fn copy_out(
    device: &wgpu::Device,
    enc: &mut wgpu::CommandEncoder,
    t: &wgpu::Texture,
    bpp: u32,
) -> (wgpu::Buffer, u32) {
    let row = (t.width() * bpp).div_ceil(256) * 256;
    let buf = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: u64::from(row * t.height()),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    enc.copy_texture_to_buffer(
        t.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buf,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: Some(t.height()),
            },
        },
        t.size(),
    );
    (buf, row)
}

/// Maps `buf` (after its submission) and returns its rows of `row` bytes cut to `packed` bytes.
fn mapped_rows(device: &wgpu::Device, buf: &wgpu::Buffer, row: u32, packed: u32) -> Vec<u8> {
    buf.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let data = buf.slice(..).get_mapped_range().unwrap();
    data.chunks(row as usize)
        .flat_map(|r| r[..packed as usize].to_vec())
        .collect()
}

/// Issue 31: a Gray8 result into a caller's r8unorm texture (no storage-texture format: the
/// rows are re-laid at a 256-byte stride in a buffer and copied in, `NodeRecorder::
/// copy_buffer_to_texture`) equals the host path byte for byte, run (`run_textures`) and
/// recorded into the caller's encoder (`encode_textures`, the caller's own copy of the result
/// after it in the same encoder), untimed, timed (a compute pass a step) and poisoned, at an awkward size (rows padded twice over) and at a width of
/// 256 (rows copied as they lie); an RGBA result, a texture of another size and one without
/// COPY_DST are clear errors.
#[test]
fn a_gray_result_goes_into_a_callers_r8unorm_texture() {
    use texelflow::io::texture::{encode_textures, run_textures};
    let (device, queue, gpu) = callers_device();
    let spec = "to_gray | gaussian_blur(sigma=1.5)";
    let pipe = |spec: &str| Pipeline::parse(spec, &mut |p: &str| Image::open(p)).unwrap();
    let bind = wgpu::TextureUsages::TEXTURE_BINDING;
    let r8 = wgpu::TextureFormat::R8Unorm;
    let out_usage = wgpu::TextureUsages::COPY_SRC;
    for (w, h, seed) in [(45, 29, 51), (256, 7, 52)] {
        let img = random_image(w, h, PixelFormat::Rgba8, seed);
        let host = pipe(spec).run(&Backend::Gpu(gpu.clone()), &img).unwrap();
        let host = host.as_image().unwrap();
        assert_eq!(host.format(), PixelFormat::Gray8);
        let input = filled_texture(
            &device,
            &queue,
            (w, h),
            wgpu::TextureFormat::Rgba8Unorm,
            img.as_u8(),
            bind,
        );
        let junk = vec![7; (w * h) as usize];
        // steps sharing a compute pass (untimed), a pass each (timed), poisoned outputs
        let timed = texelflow::RunOptions {
            timings: true,
            ..Default::default()
        };
        let poisoned = texelflow::RunOptions {
            poison: true,
            ..Default::default()
        };
        for opts in [texelflow::RunOptions::default(), timed, poisoned] {
            let out = filled_texture(&device, &queue, (w, h), r8, &junk, out_usage);
            run_textures(&pipe(spec), &gpu, &input, &out, &opts).unwrap();
            let mut enc = device.create_command_encoder(&Default::default());
            let (buf, row) = copy_out(&device, &mut enc, &out, 1);
            queue.submit([enc.finish()]);
            assert!(
                mapped_rows(&device, &buf, row, w) == host.as_u8(),
                "{w}x{h}, run (timings {}, poison {})",
                opts.timings,
                opts.poison
            );
        }
        // recorded: the caller's copy of the result in the same encoder, one submission
        let out2 = filled_texture(&device, &queue, (w, h), r8, &junk, out_usage);
        let mut enc = device.create_command_encoder(&Default::default());
        encode_textures(
            &pipe(spec),
            &gpu,
            &input,
            &out2,
            &mut enc,
            &Default::default(),
        )
        .unwrap();
        let (buf, row) = copy_out(&device, &mut enc, &out2, 1);
        queue.submit([enc.finish()]);
        assert!(
            mapped_rows(&device, &buf, row, w) == host.as_u8(),
            "{w}x{h}, recorded"
        );
    }
    let input = filled_texture(
        &device,
        &queue,
        (45, 29),
        wgpu::TextureFormat::Rgba8Unorm,
        &[0; 45 * 29 * 4],
        bind,
    );
    let out = filled_texture(&device, &queue, (45, 29), r8, &[0; 45 * 29], out_usage);
    // an RGBA result
    let e = run_textures(
        &pipe("gaussian_blur(sigma=1.5)"),
        &gpu,
        &input,
        &out,
        &Default::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("r8unorm") && e.contains("Gray8"), "{e}");
    // another size
    let small = filled_texture(&device, &queue, (44, 29), r8, &[0; 44 * 29], out_usage);
    let mut enc = device.create_command_encoder(&Default::default());
    let e = encode_textures(
        &pipe(spec),
        &gpu,
        &input,
        &small,
        &mut enc,
        &Default::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("45x29") && e.contains("44x29"), "{e}");
    // no COPY_DST
    let bare = device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d {
            width: 45,
            height: 29,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: r8,
        usage: wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    });
    let e = run_textures(&pipe(spec), &gpu, &input, &bare, &Default::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("COPY_DST"), "{e}");
}

/// Issue 31: memory exported for CUDA (`Gpu::export_buffer`) is an ordinary storage buffer to
/// texelflow: a run from one exported buffer into another (poisoned first) equals the host path
/// byte for byte; the descriptor is an open file, given once; the device reports a UUID. A
/// driver without VK_KHR_external_memory_fd gives one clear error instead.
#[test]
fn exported_buffers_run_like_any_other() {
    use std::os::fd::AsRawFd;
    let (device, queue, gpu) = callers_device();
    let img = random_image(45, 29, PixelFormat::Rgba8, 5);
    let pipe = Pipeline::parse("gaussian_blur(sigma=1.5) | color_invert", &mut |p: &str| {
        Image::open(p)
    })
    .unwrap();
    let want = pipe.run(&Backend::Gpu(gpu.clone()), &img).unwrap();
    let want = want.as_image().unwrap();
    let bytes = img.desc().format.gpu_bytes(45, 29);
    let mut input = match gpu.export_buffer(bytes) {
        Ok(b) => b,
        Err(e) => {
            assert!(e.to_string().contains("VK_KHR_external_memory_fd"), "{e}");
            return;
        }
    };
    assert!(gpu.device_uuid().is_some());
    let fd = input.take_fd().expect("a descriptor");
    assert!(input.take_fd().is_none(), "the descriptor is given once");
    assert!(std::fs::metadata(format!("/proc/self/fd/{}", fd.as_raw_fd())).is_ok());
    assert!(input.allocation_size() >= bytes);
    let output = gpu.export_buffer(bytes).unwrap();
    queue.write_buffer(input.buffer(), 0, img.as_u8());
    queue.write_buffer(output.buffer(), 0, &vec![7; bytes as usize]);
    let d = texelflow::io::texture::run_buffers(
        &pipe,
        &gpu,
        input.buffer(),
        img.desc(),
        output.buffer(),
        None,
        &Default::default(),
    )
    .unwrap();
    assert_eq!(d, want.desc());
    let read = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut enc = device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(output.buffer(), 0, &read, 0, bytes);
    queue.submit([enc.finish()]);
    read.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let got = read.slice(..).get_mapped_range().unwrap().to_vec();
    assert!(got == want.as_u8(), "exported buffer out");
    // a zero-sized buffer is an error, not a panic
    assert!(gpu.export_buffer(0).is_err());

    // a batch in one submission (`run_buffer_batch`): three Gray8 images of an odd width at
    // 4-byte-aligned steps in one buffer, their results at other steps, each equal to its own
    // host-path run; a step too short for a result is an error
    let gray = Pipeline::parse(
        "gaussian_blur(sigma=1.2) | box_blur(radius=1)",
        &mut |p: &str| Image::open(p),
    )
    .unwrap();
    let imgs: Vec<Image> = (0..3)
        .map(|k| random_image(37, 11, PixelFormat::Gray8, 40 + k))
        .collect();
    let bytes = imgs[0].desc().format.gpu_bytes(37, 11);
    let (in_step, out_step) = (bytes + 8, bytes + 20);
    let batch_in = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 3 * in_step,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    for (k, im) in imgs.iter().enumerate() {
        queue.write_buffer(&batch_in, k as u64 * in_step, &im.to_gpu_bytes());
    }
    let batch_out = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 3 * out_step,
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_DST
            | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    queue.write_buffer(&batch_out, 0, &vec![7; 3 * out_step as usize]);
    let d = texelflow::io::texture::run_buffer_batch(
        &gray,
        &gpu,
        (&batch_in, in_step),
        imgs[0].desc(),
        (&batch_out, out_step),
        3,
        &Default::default(),
    )
    .unwrap();
    assert_eq!(d, imgs[0].desc());
    let read = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 3 * out_step,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut enc = device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&batch_out, 0, &read, 0, 3 * out_step);
    queue.submit([enc.finish()]);
    read.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let got = read.slice(..).get_mapped_range().unwrap().to_vec();
    for (k, im) in imgs.iter().enumerate() {
        let want = gray.run(&Backend::Gpu(gpu.clone()), im).unwrap();
        let at = k * out_step as usize;
        assert!(
            got[at..at + bytes as usize] == *want.as_image().unwrap().to_gpu_bytes(),
            "batch image {k}"
        );
        // the bytes between results are untouched
        assert!(got[at + bytes as usize..at + out_step as usize]
            .iter()
            .all(|&b| b == 7));
    }
    let e = texelflow::io::texture::run_buffer_batch(
        &gray,
        &gpu,
        (&batch_in, in_step),
        imgs[0].desc(),
        (&batch_out, bytes - 4),
        3,
        &Default::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("bytes apart"), "{e}");
}

/// Reads `bytes` of `buffer` (which has COPY_SRC usage) back to the host.
fn read_buffer(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    bytes: u64,
) -> Vec<u8> {
    let read = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: bytes,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut enc = device.create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(buffer, 0, &read, 0, bytes);
    queue.submit([enc.finish()]);
    read.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let got = read.slice(..).get_mapped_range().unwrap().to_vec();
    got
}

/// Issue 31: a prepared run (`prepare_buffer_batch`, `prepare_textures`) replays the same
/// commands on whatever its buffers or textures hold at each run: new images each time give
/// each its own host-path result byte for byte (outputs poisoned before every run), one image
/// at a buffer's start is read and written in place (no copies: the output has a slot's room)
/// and the input is left as it was, a batch at odd offsets goes through copies, and the replay is still right after 100
/// runs; temporal filters and images of the pipeline's own are clear errors.
#[test]
fn prepared_runs_replay_on_new_inputs() {
    use texelflow::io::texture::{prepare_buffer_batch, prepare_textures, run_textures};
    let (device, queue, gpu) = callers_device();
    let usage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC;
    let buffer = |size: u64| {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage,
            mapped_at_creation: false,
        })
    };
    let backend = Backend::Gpu(gpu.clone());
    for (spec, format) in [
        (
            "gaussian_blur(sigma=1.5) | color_invert",
            PixelFormat::Rgba8,
        ),
        (
            "gaussian_blur(sigma=1.2) | box_blur(radius=1)",
            PixelFormat::Gray8,
        ),
        ("sobel_edge_detection", PixelFormat::Rgba8),
    ] {
        let pipe = Pipeline::parse(spec, &mut |p: &str| Image::open(p)).unwrap();
        // one image at the buffers' start: read and written in place
        let (w, h) = (45, 29);
        let bytes = format.gpu_bytes(w, h);
        let out_bytes = pipe
            .output_desc(random_image(w, h, format, 0).desc())
            .unwrap();
        let out_bytes = out_bytes.format.gpu_bytes(w, h);
        // the output's room covers a slot (a kernel may write a slot's padding)
        let (input, output) = (buffer(bytes), buffer(out_bytes + 4096));
        let desc = random_image(w, h, format, 0).desc();
        let (prepared, out) = prepare_buffer_batch(
            &pipe,
            &gpu,
            (&input, 0),
            desc,
            (&output, 0),
            1,
            &Default::default(),
        )
        .unwrap();
        for k in 0..103u64 {
            let img = random_image(w, h, format, 500 + k);
            queue.write_buffer(&input, 0, &img.to_gpu_bytes());
            queue.write_buffer(&output, 0, &vec![7; out_bytes as usize]);
            prepared.run().unwrap();
            // every run is checked for the first three and the last; the rest only run
            if k < 3 || k == 102 {
                let want = pipe.run(&backend, &img).unwrap();
                let want = want.as_image().unwrap();
                assert_eq!(out, want.desc());
                let got = read_buffer(&device, &queue, &output, out_bytes);
                assert!(got == *want.to_gpu_bytes(), "{spec}: run {k}");
                let kept = read_buffer(&device, &queue, &input, bytes);
                assert!(
                    kept == *img.to_gpu_bytes(),
                    "{spec}: run {k} changed its input"
                );
            }
        }
        // a batch of three at steps past the images: copies in and out
        let (in_step, out_step) = (bytes + 12, out_bytes + 4);
        let (batch_in, batch_out) = (buffer(3 * in_step), buffer(3 * out_step));
        let (prepared, _) = prepare_buffer_batch(
            &pipe,
            &gpu,
            (&batch_in, in_step),
            desc,
            (&batch_out, out_step),
            3,
            &Default::default(),
        )
        .unwrap();
        for round in 0..2u64 {
            let imgs: Vec<Image> = (0..3)
                .map(|k| random_image(w, h, format, 900 + 10 * round + k))
                .collect();
            for (k, im) in imgs.iter().enumerate() {
                queue.write_buffer(&batch_in, k as u64 * in_step, &im.to_gpu_bytes());
            }
            queue.write_buffer(&batch_out, 0, &vec![7; 3 * out_step as usize]);
            prepared.run().unwrap();
            let got = read_buffer(&device, &queue, &batch_out, 3 * out_step);
            for (k, im) in imgs.iter().enumerate() {
                let want = pipe.run(&backend, im).unwrap();
                let at = k * out_step as usize;
                assert!(
                    got[at..at + out_bytes as usize] == *want.as_image().unwrap().to_gpu_bytes(),
                    "{spec}: batch round {round} image {k}"
                );
            }
        }
    }
    // a per-pixel filter from an input at a buffer's start into an output with room: one
    // kernel, no copy on either side; without the room the result is copied out
    let invert = Pipeline::parse("color_invert", &mut |p: &str| Image::open(p)).unwrap();
    let d = random_image(45, 29, PixelFormat::Rgba8, 0).desc();
    let (input, output) = (buffer(8192), buffer(8192));
    let (direct, _) = prepare_buffer_batch(
        &invert,
        &gpu,
        (&input, 0),
        d,
        (&output, 0),
        1,
        &Default::default(),
    )
    .unwrap();
    assert_eq!(direct.dispatches(), 1);
    let tight = buffer(d.format.gpu_bytes(45, 29));
    let (copied, _) = prepare_buffer_batch(
        &invert,
        &gpu,
        (&input, 0),
        d,
        (&tight, 0),
        1,
        &Default::default(),
    )
    .unwrap();
    assert_eq!(copied.dispatches(), 2);
    // textures: the prepared run, encoded into the caller's encoder, equals `run_textures`
    // on every new frame
    let pipe = Pipeline::parse(
        "gaussian_blur(sigma=2) | saturation(1.2)",
        &mut |p: &str| Image::open(p),
    )
    .unwrap();
    let (w, h) = (70, 33);
    let first = random_image(w, h, PixelFormat::Rgba8, 3);
    let rgba8 = wgpu::TextureFormat::Rgba8Unorm;
    let input = filled_texture(
        &device,
        &queue,
        (w, h),
        rgba8,
        first.as_u8(),
        wgpu::TextureUsages::TEXTURE_BINDING,
    );
    let out_usage = wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC;
    let shown = filled_texture(
        &device,
        &queue,
        (w, h),
        rgba8,
        &vec![7; (w * h * 4) as usize],
        out_usage,
    );
    let check = filled_texture(
        &device,
        &queue,
        (w, h),
        rgba8,
        &vec![7; (w * h * 4) as usize],
        out_usage,
    );
    let frame = prepare_textures(&pipe, &gpu, &input, &shown, &Default::default()).unwrap();
    for k in 0..3u64 {
        let img = random_image(w, h, PixelFormat::Rgba8, 60 + k);
        queue.write_texture(
            input.as_image_copy(),
            img.as_u8(),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(w * 4),
                rows_per_image: Some(h),
            },
            input.size(),
        );
        run_textures(&pipe, &gpu, &input, &check, &Default::default()).unwrap();
        let mut enc = device.create_command_encoder(&Default::default());
        frame.encode(&mut enc);
        let (a, row) = copy_out(&device, &mut enc, &shown, 4);
        let (b, _) = copy_out(&device, &mut enc, &check, 4);
        queue.submit([enc.finish()]);
        let (a, b) = (
            mapped_rows(&device, &a, row, w * 4),
            mapped_rows(&device, &b, row, w * 4),
        );
        assert!(a == b, "frame {k}");
    }
    // what a prepared run cannot replay is refused in one line
    let temporal =
        Pipeline::parse("low_pass(strength=0.5)", &mut |p: &str| Image::open(p)).unwrap();
    let e = prepare_textures(&temporal, &gpu, &input, &shown, &Default::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("state"), "{e}");
}

/// Issue 31: a prepared run ordered by an exported timeline semaphore (`submit_between`, how
/// CUDA and texelflow take turns with no host wait) does not start before the semaphore
/// reaches its wait value, then sets it to its signal value with the host-path result in the
/// output; again with a new input and higher values. The host stands in for CUDA's signals.
#[cfg(target_os = "linux")]
#[test]
fn a_prepared_run_waits_for_and_signals_a_shared_semaphore() {
    use std::time::Duration;
    let gpu = texelflow::Gpu::new(&texelflow::GpuOptions {
        backend: Some("vulkan".into()),
        semaphore_export: true,
        ..Default::default()
    })
    .unwrap();
    let mut semaphore = match gpu.export_semaphore() {
        Ok(s) => s,
        Err(e) => {
            // a driver without exportable timeline semaphores says so in one line
            eprintln!("skipped: {e}");
            assert!(e.to_string().contains("semaphore"), "{e}");
            return;
        }
    };
    let fd = semaphore.take_fd().expect("a descriptor");
    assert!(std::fs::metadata(format!(
        "/proc/self/fd/{}",
        std::os::fd::AsRawFd::as_raw_fd(&fd)
    ))
    .is_ok());
    assert!(
        semaphore.take_fd().is_none(),
        "the descriptor is given once"
    );
    let pipe = Pipeline::parse("gaussian_blur(sigma=1.5) | color_invert", &mut |p: &str| {
        Image::open(p)
    })
    .unwrap();
    let (w, h) = (45, 29);
    let bytes = PixelFormat::Rgba8.gpu_bytes(w, h);
    let buffer = |size: u64| {
        gpu.device().create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        })
    };
    let (input, output) = (buffer(bytes), buffer(bytes + 4096));
    let desc = random_image(w, h, PixelFormat::Rgba8, 0).desc();
    let (prepared, _) = texelflow::io::texture::prepare_buffer_batch(
        &pipe,
        &gpu,
        (&input, 0),
        desc,
        (&output, 0),
        1,
        &Default::default(),
    )
    .unwrap();
    let backend = Backend::Gpu(gpu.clone());
    for round in 0..2u64 {
        let img = random_image(w, h, PixelFormat::Rgba8, 70 + round);
        gpu.queue().write_buffer(&input, 0, &img.to_gpu_bytes());
        gpu.queue()
            .write_buffer(&output, 0, &vec![7; bytes as usize]);
        let (wait, signal) = (2 * round + 1, 2 * round + 2);
        prepared.submit_between(&semaphore, wait, signal).unwrap();
        // nothing runs before the wait value is reached
        assert!(!semaphore.wait(signal, Duration::from_millis(50)).unwrap());
        assert_eq!(semaphore.value().unwrap(), 2 * round);
        semaphore.signal(wait).unwrap();
        assert!(semaphore.wait(signal, Duration::from_secs(20)).unwrap());
        let want = pipe.run(&backend, &img).unwrap();
        let got = read_buffer(gpu.device(), gpu.queue(), &output, bytes);
        assert!(
            got == *want.as_image().unwrap().to_gpu_bytes(),
            "round {round}"
        );
    }
}

/// Issue 33: the awaited run (`Pipeline::run_async`, the browser's API, here natively through
/// pollster) gives what the blocking run gives, on the GPU and on the CPU twins, images and data.
#[test]
fn awaited_runs_equal_blocking_runs() {
    let img = random_image(61, 37, PixelFormat::Rgba8, 9);
    let gpu = Backend::Gpu(
        texelflow::Gpu::new(&texelflow::GpuOptions {
            backend: Some("vulkan".into()),
            ..Default::default()
        })
        .unwrap(),
    );
    for backend in [gpu, Backend::Cpu] {
        for spec in [
            "gaussian_blur(sigma=2) | sepia",
            "median(radius=1)",
            "histogram",
        ] {
            let pipe = Pipeline::parse(spec, &mut |p: &str| Image::open(p)).unwrap();
            let want = pipe.run_with(&backend, &img, &Default::default()).unwrap();
            let got =
                pollster::block_on(pipe.run_async(&backend, &img, &Default::default())).unwrap();
            assert_eq!(got.outputs.len(), want.outputs.len());
            for ((_, a), (_, b)) in got.outputs.iter().zip(&want.outputs) {
                match (a, b) {
                    (Value::Image(a), Value::Image(b)) => assert!(a.as_u8() == b.as_u8(), "{spec}"),
                    (Value::Data(a), Value::Data(b)) => assert_eq!(
                        texelflow::json::data_json(a),
                        texelflow::json::data_json(b),
                        "{spec}"
                    ),
                    _ => panic!("{spec}: different kinds of output"),
                }
            }
        }
    }
}

/// The catalogue as JSON (the web playground's list) names every registered filter once, with
/// every parameter, and numeric defaults inside their ranges.
#[test]
fn the_catalogue_json_lists_every_filter_and_parameter() {
    let cat = texelflow::registry::catalogue_json();
    let filters = cat["filters"].as_array().unwrap();
    assert_eq!(filters.len(), texelflow::registry::all().len());
    for (f, def) in filters.iter().zip(texelflow::registry::all()) {
        assert_eq!(f["name"], def.name);
        let params = f["params"].as_array().unwrap();
        assert_eq!(params.len(), def.params.len(), "{}", def.name);
        for p in params {
            if let (Some(min), Some(max), Some(d)) = (
                p["range"][0].as_f64(),
                p["range"][1].as_f64(),
                p["default"].as_f64(),
            ) {
                assert!(min <= d && d <= max, "{}.{}", def.name, p["name"]);
            }
        }
        assert!(f["tolerance"]["max_diff"].as_u64().is_some());
    }
}
