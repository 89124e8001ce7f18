//! Where the time of a long chain of filters goes (docs/perf-notes.md, issue 20): spec parsing,
//! graph building, a first run (kernel compiles included) and a second, and naga's parse and
//! validation of each kernel compiled.
//!
//! `cargo run --release -p texelflow --example chain_timing -- 500 "brightness(0.001)" [cpu]`
//! (`TEXELFLOW_MAX_FUSED=N` sets the most filters fused into one kernel).

use std::time::Instant;

use texelflow::{Backend, Gpu, GpuOptions, Image, Pipeline, RunOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(100);
    let op = args.next().unwrap_or_else(|| "brightness(0.001)".into());
    let cpu = args.next().is_some_and(|a| a == "cpu");
    let img = Image::open(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/sample.png"
    ))?;
    let spec = vec![op.as_str(); n].join(" | ");
    let t = Instant::now();
    let pipe = Pipeline::parse(&spec, &mut |p| Image::open(p))?;
    let parse = t.elapsed();
    let t = Instant::now();
    let (g, _) = pipe.graph(&img)?;
    println!(
        "{n} x {op}: parse {parse:?}, graph {:?} ({} nodes)",
        t.elapsed(),
        g.filter_count()
    );
    if cpu {
        let t = Instant::now();
        pipe.run(&Backend::Cpu, &img)?;
        println!("CPU reference: {:?}", t.elapsed());
        return Ok(());
    }
    let gpu = Gpu::new(&GpuOptions::default())?;
    gpu.keep_compiled_kernels();
    let be = Backend::Gpu(gpu.clone());
    for run in ["first", "second"] {
        let t = Instant::now();
        let r = pipe.run_with(&be, &img, &RunOptions::default())?;
        println!(
            "{run} run {:?}: record (and compile) {:.1} ms, wait {:.1} ms",
            t.elapsed(),
            r.host.record_ms,
            r.host.wait_ms
        );
    }
    for k in gpu.compiled_kernels(0) {
        let t = Instant::now();
        let module = naga::front::wgsl::parse_str(&k.source)?;
        let parse = t.elapsed();
        let t = Instant::now();
        let valid = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .is_ok();
        println!(
            "kernel of {} chars: naga parse {parse:?}, validate {:?} ({})",
            k.source.len(),
            t.elapsed(),
            if valid { "valid" } else { "invalid" }
        );
    }
    Ok(())
}
