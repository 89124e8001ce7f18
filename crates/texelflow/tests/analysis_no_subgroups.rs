//! The reductions' fallback for devices without subgroup operations (every invocation adds
//! its own partial to workgroup memory), forced with `GpuOptions::no_subgroups` on whatever
//! device the tests use.

mod common;

use common::*;
use texelflow::filters::analysis::{
    AverageLuminanceThreshold, Histogram, MeanSaturation, PhotoAssessment, PhotoMetrics, Reduce,
};
use texelflow::{Backend, Filter, Graph, PixelFormat, RunOptions};

#[test]
fn reductions_without_subgroups_match_cpu() {
    let backend = std::env::var("TEXELFLOW_TEST_BACKEND").unwrap_or_else(|_| "vulkan".into());
    let gpu = Backend::Gpu(
        texelflow::Gpu::new(&texelflow::GpuOptions {
            backend: Some(backend),
            no_subgroups: true,
            ..Default::default()
        })
        .expect("a GPU"),
    );
    for (w, h) in [(1, 1), (67, 43), (255, 255)] {
        let img = random_image(w, h, PixelFormat::Rgba8, 5 + w as u64);
        let filters: Vec<Box<dyn Filter>> = vec![
            Box::new(Reduce),
            Box::new(Histogram::new()),
            Box::new(MeanSaturation),
            Box::new(AverageLuminanceThreshold::new(1.1).unwrap()),
            Box::new(PhotoMetrics::new()),
            Box::new(PhotoAssessment::new(2, 3).unwrap()),
        ];
        for f in filters {
            let name = f.def().name;
            let mut g = Graph::new();
            let s = g.source("in", img.desc()).unwrap();
            // every output (photo_assessment has two)
            for (k, o) in g.add_boxed(f, &[s]).unwrap().into_iter().enumerate() {
                g.output(&format!("out{k}"), o).unwrap();
            }
            let opts = RunOptions {
                poison: true,
                ..Default::default()
            };
            let a = gpu.run(&g, &[("in", &img)], &opts).unwrap();
            let b = Backend::Cpu.run(&g, &[("in", &img)], &opts).unwrap();
            assert_eq!(a.outputs, b.outputs, "{name} at {w}x{h}");
        }
    }
}
