//! GPU tracing (`texelflow::trace`): runs of a graph on rotating source sets and caller
//! kernels in one submission, a trace per timed op, per-step labels as the executor's.

mod common;

use common::*;
use texelflow::extend::Kernel;
use texelflow::trace::{Dispatch, Op, Timing, Traced};
use texelflow::{Image, Pipeline, PixelFormat, RunOptions};

fn chain() -> Pipeline {
    Pipeline::parse(
        "gaussian_blur(sigma=2) | sobel_edge_detection | color_invert",
        &mut |p| Image::open(p),
    )
    .unwrap()
}

#[test]
fn runs_and_kernels_are_traced_in_order() {
    let gpu = gpu();
    let inputs: Vec<Image> = (0..3)
        .map(|k| random_image(40, 24, PixelFormat::Rgba8, k))
        .collect();
    let (graph, _) = chain().graph(&inputs[0]).unwrap();
    let sets: Vec<Vec<(&str, &Image)>> = inputs.iter().map(|i| vec![("input", i)]).collect();
    let mut traced = Traced::new(&gpu, &graph, &sets, &RunOptions::default()).unwrap();
    assert_eq!(traced.sets(), 3);
    // one image read, one written
    assert_eq!(traced.bytes(), 2 * 40 * 24 * 4);

    // the executor's per-step labels, for comparison
    let timed = RunOptions {
        timings: true,
        ..Default::default()
    };
    let want: Vec<String> = gpu_backend()
        .run(&graph, &sets[0], &timed)
        .unwrap()
        .timings
        .into_iter()
        .map(|t| t.label)
        .collect();
    assert!(want.len() >= 2, "{want:?}");

    let one = traced.run(2).unwrap();
    let labels: Vec<&str> = one.steps.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, want);
    assert_eq!(one.start_ms, 0.0);
    assert!(one.ms >= one.steps.iter().map(|s| s.ms).fold(0.0, f64::max));

    let mut k = Kernel::new("test.trace.fill", &[], "main");
    k.generated = Some(
        "@group(0) @binding(0) var<storage, read_write> buf: array<u32>;
@group(0) @binding(1) var<uniform> n: vec4<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) { if (g.x < n.x) { buf[g.x] = g.x; } }"
            .into(),
    );
    let fill = Dispatch {
        kernel: k,
        scratch: vec![64 * 4],
        uniform: bytemuck::bytes_of(&[64u32, 0, 0, 0]).to_vec(),
        groups: [1, 1, 1],
    };
    let ops = [
        Op::Kernel {
            dispatch: &fill,
            timed: false,
        },
        Op::Run {
            set: 0,
            timing: Timing::Untimed,
        },
        Op::Run {
            set: 1,
            timing: Timing::Whole,
        },
        Op::Run {
            set: 2,
            timing: Timing::PerStep,
        },
        Op::Run {
            set: 0,
            timing: Timing::Whole,
        },
        Op::Kernel {
            dispatch: &fill,
            timed: true,
        },
    ];
    let traces = traced.submit(&ops).unwrap();
    // the timed ops, in order: whole, per step, whole, kernel
    assert_eq!(traces.len(), 4);
    assert!(traces[0].steps.is_empty() && traces[2].steps.is_empty() && traces[3].steps.is_empty());
    assert_eq!(traces[1].steps.len(), want.len());
    assert_eq!(traces[0].start_ms, 0.0);
    // recorded in order, so they start in order
    for w in traces.windows(2) {
        assert!(w[1].start_ms >= w[0].start_ms, "{traces:?}");
    }
    assert!(traces.iter().all(|t| t.ms >= 0.0));

    // untimed only: nothing to report
    assert!(traced
        .submit(&[Op::Run {
            set: 1,
            timing: Timing::Untimed
        }])
        .unwrap()
        .is_empty());
    // a set that is not there
    let e = traced
        .submit(&[Op::Run {
            set: 3,
            timing: Timing::Whole,
        }])
        .unwrap_err();
    assert!(e.to_string().contains("source set 3"), "{e}");
}

#[test]
fn schedules_and_sources_are_checked() {
    let gpu = gpu();
    let img = random_image(32, 16, PixelFormat::Rgba8, 7);
    let (graph, _) = Pipeline::parse("box_blur(radius=2)", &mut |p| Image::open(p))
        .unwrap()
        .graph(&img)
        .unwrap();
    let sets = vec![vec![("input", &img)]];
    // no sets
    assert!(Traced::new(&gpu, &graph, &[], &RunOptions::default()).is_err());
    // a source of another size
    let small = random_image(8, 8, PixelFormat::Rgba8, 1);
    assert!(Traced::new(
        &gpu,
        &graph,
        &[vec![("input", &small)]],
        &RunOptions::default()
    )
    .is_err());
    // the schedule overrides of the options are in force while runs are recorded
    let opts = |v: &str| RunOptions {
        schedules: vec![("box_blur".to_string(), v.to_string())],
        ..Default::default()
    };
    let mut bad = Traced::new(&gpu, &graph, &sets, &opts("no_such_variant")).unwrap();
    let e = bad.run(0).unwrap_err();
    assert!(e.to_string().contains("no_such_variant"), "{e}");
    let mut good = Traced::new(&gpu, &graph, &sets, &opts("blocks")).unwrap();
    assert!(!good.run(0).unwrap().steps.is_empty());
}
