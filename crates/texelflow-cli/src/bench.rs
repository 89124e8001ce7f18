//! `texelflow bench`: times cases on the GPU (the `texelflow-bench` crate: see it for the
//! method) and prints ms, effective GB/s and time as a multiple of the copy kernel of the same run.

use anyhow::{bail, Context, Result};
use texelflow_bench::{default_cases, run_case, BenchConfig, BenchResult};

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Comma-separated filter names or case names to run (default: all); the copy kernel always runs
    #[arg(long)]
    filters: Option<String>,
    /// Image size, WIDTHxHEIGHT
    #[arg(long, default_value = "3840x2160")]
    size: String,
    /// Timed runs per case (after warm-up)
    #[arg(long, default_value_t = 30)]
    runs: usize,
    /// Rotating input/output buffer sets
    #[arg(long, default_value_t = 8)]
    sets: usize,
    /// Also run the kernel-shape experiments (schedules, wgpu runtime checks)
    #[arg(long)]
    experiments: bool,
    /// Run the whole case list this many times (run-to-run spread within one process)
    #[arg(long, default_value_t = 1)]
    repeat: usize,
    /// Schedule overrides for every case, `filter=variant,...` (see `texelflow::extend::parse_schedules`)
    #[arg(long)]
    schedule: Option<String>,
    /// Run the operations raced against NPP instead (`bench/peers/npp_same.cu`), each on the
    /// random and on the photo-like picture
    #[arg(long)]
    npp_paired: bool,
    /// Also write the inputs of every case (before `--filters`) under this folder as raw pixels
    /// (`<content>_<format>_<w>x<h>_<set>.raw`, each once), for a peer to read the same pictures
    #[arg(long, value_name = "DIR")]
    write_inputs: Option<std::path::PathBuf>,
    /// Also write the results as JSON
    #[arg(long)]
    json: Option<std::path::PathBuf>,
    /// Also compile every kernel the cases used on the Vulkan driver with statistics on, and
    /// write what it reports (registers, shared and local memory, ...) to this folder:
    /// `shader_stats.txt`, one section per case
    #[arg(long)]
    shader_stats: Option<std::path::PathBuf>,
    /// Also time the CPU reference (the filters' twins, all cores) on each case, median of N
    /// runs, and print the CPU/GPU ratio (copy cases excepted)
    #[arg(long, value_name = "N")]
    cpu_twin: Option<usize>,
}

pub fn run(cli: &crate::Cli, a: &BenchArgs) -> Result<()> {
    if cli.cpu {
        bail!("bench measures the GPU; drop --cpu");
    }
    let (w, h) = a
        .size
        .split_once(['x', 'X'])
        .and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)))
        .context("--size must look like 3840x2160")?;
    if w == 0 || h == 0 {
        bail!("--size must be at least 1x1");
    }
    if a.runs < 1 || a.sets < 1 {
        bail!("--runs and --sets must be at least 1");
    }
    // sizes that cannot work are refused before anything is allocated: every case keeps `sets`
    // input images (and as many outputs and second images) on the host and the GPU
    let limits = crate::limits();
    limits.check_pixels("the benchmark image", w, h)?;
    let image_bytes = w as u64 * h as u64 * 4;
    limits.check_memory(
        &format!("benchmarking {w}x{h} with {} buffer sets", a.sets),
        image_bytes.saturating_mul(a.sets as u64).saturating_mul(3),
    )?;
    let gpu = crate::open_gpu(cli)?;
    if image_bytes > gpu.max_binding() {
        bail!("{w}x{h} RGBA8 is {} bytes, more than this GPU binds in one buffer ({} bytes); choose a smaller --size", image_bytes, gpu.max_binding());
    }
    let info = gpu.info();
    let cfg = BenchConfig {
        width: w,
        height: h,
        runs: a.runs,
        sets: a.sets,
        ..Default::default()
    };
    let mut cases = if a.npp_paired {
        texelflow_bench::npp_paired_cases(w, h)
    } else {
        default_cases(w, h)
    };
    if a.experiments {
        cases.splice(1..1, texelflow_bench::experiment_cases(w, h));
    }
    // every case's inputs, whatever `--filters` keeps: a peer reads them all
    if let Some(dir) = &a.write_inputs {
        let names = texelflow_bench::write_inputs(&cases, &cfg, dir)?;
        outln!("wrote {} input files under {}", names.len(), dir.display());
    }

    if let Some(f) = &a.filters {
        let wanted: Vec<&str> = f.split(',').map(str::trim).collect();
        cases.retain(|c| {
            c.spec == "copy"
                || (c.spec.starts_with("@exp:") && wanted.contains(&"exp"))
                || wanted.iter().any(|n| {
                    c.name == *n
                        || c.spec.split(['(', ' ', '|']).next() == Some(n)
                        || c.name.split(' ').next() == Some(n)
                })
        });
        if cases
            .iter()
            .all(|c| c.spec == "copy" || c.spec.starts_with("@exp:"))
            && !wanted.contains(&"copy")
        {
            bail!("no benchmark case matches `{f}`");
        }
    }
    if let Some(s) = &a.schedule {
        let o = texelflow::extend::parse_schedules(s);
        if o.is_empty() {
            bail!("--schedule must look like filter=variant[,filter=variant]");
        }
        for c in &mut cases {
            c.schedule.splice(0..0, o.iter().cloned());
        }
    }
    if a.repeat > 1 {
        let once = cases.clone();
        for _ in 1..a.repeat {
            cases.extend(once.iter().cloned());
        }
    }
    outln!(
        "adapter: {} ({}, {}) driver: {} {}",
        info.name,
        info.backend,
        info.device_type,
        info.driver,
        info.driver_info
    );
    outln!("probe: FMA TFLOP/s of a short arithmetic kernel right after each case's timed runs (the SM clock it ran at; each timed submission starts with ~150 ms of it to raise the clocks)");
    outln!("image {w}x{h} rgba8, {} rotating buffer sets, median/min of {} runs (whole rounds of the sets) after a warm-up of >= 300 ms, GPU timestamps", cfg.sets, cfg.runs.div_ceil(cfg.sets) * cfg.sets);
    outln!(
        "{:<44} {:>9} {:>9} {:>9} {:>8} {:>7}  {}",
        "case",
        "median ms",
        "min ms",
        "GB/s",
        "x copy",
        "probe",
        "steps (median ms)"
    );
    let mut results: Vec<BenchResult> = Vec::new();
    let mut failed: Vec<String> = Vec::new();
    let mut copy_ms = None;
    let mut cpu_ms: Vec<(String, f64)> = Vec::new();
    // per case, the kernels it compiled (a kernel an earlier case compiled is listed there)
    let mut case_kernels: Vec<(String, Vec<texelflow::extend::CompiledKernel>)> = Vec::new();
    if a.shader_stats.is_some() {
        gpu.keep_compiled_kernels();
    }
    let progress = Progress::new(cases.len());
    for (k, case) in cases.iter().enumerate() {
        progress.start(k, &case.name);
        let compiled_before = gpu.compiled_kernel_count();
        let outcome = run_case(&gpu, case, &cfg);
        if a.shader_stats.is_some() {
            case_kernels.push((case.name.clone(), gpu.compiled_kernels(compiled_before)));
        }
        match outcome {
            Ok(r) => {
                if case.spec == "copy" {
                    copy_ms = Some(r.median_ms);
                }
                // The yardstick is the copy of one full-size image in this run.
                let ratio = copy_ms.map(|c| r.median_ms / c);
                let mut steps = if r.steps.len() > 1 {
                    r.steps
                        .iter()
                        .map(|(l, ms)| format!("{l} {ms:.3}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                } else {
                    String::new()
                };
                if let (Some(n), false) = (
                    a.cpu_twin,
                    case.spec == "copy" || case.spec.starts_with("@exp:"),
                ) {
                    match texelflow_bench::time_cpu(case, &cfg, n) {
                        Ok(cpu) => {
                            steps = format!(
                                "cpu twin {cpu:.2} ms (cpu/gpu {:.1}){}{steps}",
                                cpu / r.median_ms,
                                if steps.is_empty() { "" } else { "; " }
                            );
                            cpu_ms.push((r.name.clone(), cpu));
                        }
                        Err(e) => steps = format!("cpu twin failed: {e}; {steps}"),
                    }
                }
                progress.bar.suspend(|| {
                    outln!(
                        "{:<44} {:>9.4} {:>9.4} {:>9.1} {:>8} {:>7.1}  {}",
                        r.name,
                        r.median_ms,
                        r.min_ms,
                        r.gbps(),
                        ratio.map_or("-".into(), |x| format!("{x:.2}")),
                        r.probe_tflops,
                        steps
                    )
                });
                results.push(r);
            }
            Err(e) => {
                progress
                    .bar
                    .suspend(|| outln!("{:<44} failed: {e}", case.name));
                failed.push(case.name.clone());
            }
        }
    }
    progress.bar.finish_and_clear();
    if let Some(path) = &a.json {
        let v = texelflow_bench::json(&info, &cfg, copy_ms, &results, &cpu_ms);
        std::fs::write(path, serde_json::to_string_pretty(&v)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    // after the JSON, so a device without the extension still leaves the timings
    if let Some(dir) = &a.shader_stats {
        write_shader_stats(dir, &case_kernels, &info.name)?;
    }
    if !failed.is_empty() {
        bail!(
            "{} of {} cases failed: {}",
            failed.len(),
            cases.len(),
            failed.join(", ")
        );
    }
    Ok(())
}

/// `--shader-stats`: the driver's statistics of each case's kernels (see
/// `texelflow::extend::driver_stats`), one section per case.
fn write_shader_stats(
    dir: &std::path::Path,
    case_kernels: &[(String, Vec<texelflow::extend::CompiledKernel>)],
    adapter: &str,
) -> Result<()> {
    use std::fmt::Write as _;
    let ds = texelflow::extend::driver_stats::DriverStats::open(adapter)?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut text = format!(
        "driver statistics from {} (VK_KHR_pipeline_executable_properties)\n",
        ds.device_name
    );
    for (case, kernels) in case_kernels {
        let _ = writeln!(text, "\n## {case}");
        for k in kernels {
            match ds.kernel(k) {
                Ok(s) => {
                    for (exe, stats) in &s.executables {
                        let list = stats
                            .iter()
                            .map(|st| format!("{}={}", st.name, st.value))
                            .collect::<Vec<_>>()
                            .join(", ");
                        let _ = writeln!(text, "{} [{exe}]: {list}", k.key);
                    }
                }
                Err(e) => {
                    let _ = writeln!(text, "{}: {e}", k.key);
                }
            }
        }
    }
    let path = dir.join("shader_stats.txt");
    std::fs::write(&path, &text).with_context(|| format!("writing {}", path.display()))?;
    out!("{text}");
    Ok(())
}

/// Progress through the cases on stderr, so a long run (a slow GPU, a software rasterizer, a
/// large `--size`) is never silent: a bar where stderr is a terminal, else a line per case as
/// it starts (`bench: case 3/57 gaussian_blur(sigma=2), 12 s so far`).
struct Progress {
    bar: indicatif::ProgressBar,
    terminal: bool,
    cases: usize,
    t0: std::time::Instant,
}

impl Progress {
    fn new(cases: usize) -> Progress {
        use std::io::IsTerminal;
        let terminal = std::io::stderr().is_terminal();
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(cases as u64),
            if terminal {
                indicatif::ProgressDrawTarget::stderr()
            } else {
                indicatif::ProgressDrawTarget::hidden()
            },
        );
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} cases  eta {eta}  {msg}")
        {
            bar.set_style(style);
        }
        Progress {
            bar,
            terminal,
            cases,
            t0: std::time::Instant::now(),
        }
    }

    /// Case `k` (from 0), named `name`, starts.
    fn start(&self, k: usize, name: &str) {
        if self.terminal {
            self.bar.set_position(k as u64);
            self.bar.set_message(name.to_string());
        } else {
            eprintln!(
                "bench: case {}/{} {name}, {:.0} s so far",
                k + 1,
                self.cases,
                self.t0.elapsed().as_secs_f64()
            );
        }
    }
}
