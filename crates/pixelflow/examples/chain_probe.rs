//! Temporary probe: where the time of a long chain goes.
use pixelflow::{Backend, GpuOptions, Image, Pipeline, RunOptions, Gpu};
use std::time::Instant;
fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(100);
    let op = std::env::args().nth(2).unwrap_or("brightness(0.001)".into());
    let cpu = std::env::args().nth(3).is_some();
    let img = Image::open("assets/sample.png").unwrap();
    let spec = vec![op.as_str(); n].join(" | ");
    let t = Instant::now();
    let calls = pixelflow::graph::spec::parse(&spec).unwrap();
    let parse = t.elapsed();
    let t = Instant::now();
    let pipe = Pipeline::parse(&spec, &mut |p| Image::open(p)).unwrap();
    let build_pipe = t.elapsed();
    let t = Instant::now();
    let (g, _) = pipe.graph(&img).unwrap();
    let graph = t.elapsed();
    println!("n={n} calls={} parse {:?} Pipeline::parse {:?} graph {:?} nodes {}", calls.len(), parse, build_pipe, graph, g.filter_count());
    if cpu {
        let t = Instant::now();
        pipe.run(&Backend::Cpu, &img).unwrap();
        println!("cpu run {:?}", t.elapsed());
        return;
    }
    let gpu = Gpu::new(&GpuOptions::default()).unwrap();
    gpu.keep_compiled_kernels();
    let be = Backend::Gpu(gpu.clone());
    let t = Instant::now();
    let r = pipe.run_with(&be, &img, &RunOptions::default()).unwrap();
    println!("gpu run {:?} host {:?}", t.elapsed(), r.host);
    let t = Instant::now();
    let r = pipe.run_with(&be, &img, &RunOptions::default()).unwrap();
    println!("gpu second run {:?} host {:?}", t.elapsed(), r.host);
    for k in gpu.compiled_kernels(0) {
        let t = Instant::now();
        let m = naga::front::wgsl::parse_str(&k.source).unwrap();
        let tp = t.elapsed();
        let t = Instant::now();
        let _ = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all()).validate(&m);
        println!("kernel {} chars: naga parse {:?} validate {:?}", k.source.len(), tp, t.elapsed());
    }
}
