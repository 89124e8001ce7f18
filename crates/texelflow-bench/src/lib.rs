//! The GPU benchmark harness behind `texelflow bench`, on texelflow's public API and its GPU
//! tracing (`texelflow::trace`) alone.
//!
//! Method (see BENCHMARKS.md): every case runs on `sets` independent input/output buffer
//! sets in rotation, so the working set is several times the L2 cache; warm-up runs first;
//! the timed runs are recorded back to back into one submission (after a spin that raises
//! the GPU's clocks, `clock`), each run's GPU time read from timestamp queries (first pass
//! begin to last pass end); median and minimum over `runs`. A copy kernel (16-byte loads
//! and stores) runs in the same process as the yardstick.
//!
//! `default_cases` is the standard set, `experiment_cases` the kernel-shape experiments and
//! alternative schedules; `run_case` times a case on the GPU, `time_cpu` its CPU reference,
//! and `json` writes the results as `texelflow bench --json` does.

use std::sync::Arc;

use texelflow::extend::GpuInfo;
use texelflow::trace::{Op, Timing, Traced};
use texelflow::{Error, Gpu, Image, PixelFormat, Result, RunOptions};

mod cases;
mod clock;
mod experiments;

pub use cases::{
    default_cases, line_scene, npp_paired_cases, photo_image, random_image, write_inputs,
};
pub use experiments::experiment_cases;

use cases::case_graph;
use clock::{spin, spin_fmas, spin_iters_per_ms, PROBE_ITERS, SPIN_MS};

/// Settings of a benchmark run.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    /// Input width of the cases without a size of their own.
    pub width: u32,
    /// Input height of the cases without a size of their own.
    pub height: u32,
    /// Timed runs per case.
    pub runs: usize,
    /// Untimed runs before them.
    pub warmup: usize,
    /// Independent source sets the runs rotate through (so caches do not hold the input).
    pub sets: usize,
}

impl Default for BenchConfig {
    fn default() -> Self {
        Self {
            width: 3840,
            height: 2160,
            runs: 30,
            warmup: 3,
            sets: 8,
        }
    }
}

/// One thing to time: a pipeline spec on an input of a given size.
#[derive(Clone, Debug)]
pub struct BenchCase {
    /// Short name, e.g. `gaussian_blur s=2`.
    pub name: String,
    /// Pipeline spec; `@random` stands for a random image of the input's size, `@lut` for a
    /// graded 512x512 lookup image. The special spec `copy` is the copy kernel.
    pub spec: String,
    /// Input size (default: the config's).
    pub size: Option<(u32, u32)>,
    /// Schedule overrides in force for this case (see `runtime::schedule`).
    pub schedule: Vec<(String, String)>,
    /// Format of the main input: `Rgba8` (the random image) or `Gray8` (its luminance), for
    /// cases compared with NPP's single-channel functions.
    pub input: PixelFormat,
    /// What the main input shows.
    pub content: Content,
}

/// The picture a case runs on (each at the case's size, one per buffer set).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Content {
    /// `random_image`: noise plus gradients.
    Random,
    /// `line_scene` (straight lines for the Hough cases): grey lines on a noisy ground
    /// (RGBA8), or a binary edge map (Gray8).
    Lines,
    /// `photo_image`: smooth shading, hard-edged shapes and mild noise, opaque.
    Photo,
}

impl Content {
    /// The case's main input of set `k` (0-based), `w` x `h`, in `format` (Rgba8 or Gray8).
    pub fn image(self, w: u32, h: u32, k: usize, format: PixelFormat) -> Image {
        let seed = 1 + k as u64;
        let gray = format == PixelFormat::Gray8;
        let input = match self {
            Content::Lines => return line_scene(w, h, seed, gray),
            Content::Random => random_image(w, h, seed),
            Content::Photo => photo_image(w, h, seed),
        };
        if gray {
            input.convert(PixelFormat::Gray8)
        } else {
            input
        }
    }
    /// Short name (file names of `--write-inputs`, case names).
    pub fn name(self) -> &'static str {
        match self {
            Content::Random => "random",
            Content::Lines => "lines",
            Content::Photo => "photo",
        }
    }
}

impl BenchCase {
    /// A case on the configured input size.
    pub fn new(name: &str, spec: &str) -> Self {
        Self {
            name: name.into(),
            spec: spec.into(),
            size: None,
            schedule: Vec::new(),
            input: PixelFormat::Rgba8,
            content: Content::Random,
        }
    }
    /// A case on a `w` x `h` input.
    pub fn sized(name: &str, spec: &str, w: u32, h: u32) -> Self {
        Self {
            name: name.into(),
            spec: spec.into(),
            size: Some((w, h)),
            schedule: Vec::new(),
            input: PixelFormat::Rgba8,
            content: Content::Random,
        }
    }
    /// The same case on a Gray8 input (the random image's luminance).
    pub fn gray8(mut self) -> Self {
        self.input = PixelFormat::Gray8;
        self
    }
    /// The same case on `line_scene` (a binary edge map when Gray8).
    pub fn on_lines(mut self) -> Self {
        self.content = Content::Lines;
        self
    }
    /// The same case on `photo_image`.
    pub fn on_photo(mut self) -> Self {
        self.content = Content::Photo;
        self
    }
    /// The same case under schedule overrides `key=value,...`.
    pub fn scheduled(mut self, overrides: &str) -> Self {
        self.schedule = texelflow::extend::parse_schedules(overrides);
        self
    }
}

/// Timing of one case.
#[derive(Clone, Debug)]
pub struct BenchResult {
    /// The case's name.
    pub name: String,
    /// The pipeline spec.
    pub spec: String,
    /// Input width.
    pub width: u32,
    /// Input height.
    pub height: u32,
    /// Median wall time of a run, ms.
    pub median_ms: f64,
    /// Fastest run, ms.
    pub min_ms: f64,
    /// Bytes that must move: every source read once, every output written once.
    pub bytes: u64,
    /// Median per step (nodes, fused runs joined by `+`).
    pub steps: Vec<(String, f64)>,
    /// FMA rate of a short arithmetic kernel right after the timed runs, TFLOP/s: shows the
    /// SM clock the case ran at (H200 at 1980 MHz: about 67 at full occupancy).
    pub probe_tflops: f64,
}

impl BenchResult {
    /// Effective bandwidth: `bytes` over the median time, GB/s.
    pub fn gbps(&self) -> f64 {
        self.bytes as f64 / (self.median_ms * 1e-3) / 1e9
    }
}

/// Times one case.
pub fn run_case(gpu: &Arc<Gpu>, case: &BenchCase, cfg: &BenchConfig) -> Result<BenchResult> {
    if !gpu.has_timestamps() {
        return Err(Error::Gpu(
            "this adapter has no timestamp queries; cannot benchmark".into(),
        ));
    }
    let (graph, sets) = case_graph(case, cfg)?;
    let refs: Vec<Vec<(&str, &Image)>> = sets
        .iter()
        .map(|images| images.iter().map(|(n, i)| (n.as_str(), i)).collect())
        .collect();
    // the case's schedule overrides, in force while its runs are recorded
    let opts = RunOptions {
        schedules: case.schedule.clone(),
        ..Default::default()
    };
    // One buffer set per input set, its sources uploaded once and kept.
    let mut traced = Traced::new(gpu, &graph, &refs, &opts)?;
    let n_sets = traced.sets();
    let spin_rate = spin_iters_per_ms(&mut traced)?;
    // A run is timed as the library runs it without timings (steps sharing compute passes,
    // `Timing::Whole`: one timestamp pair per run); the same runs are then repeated with a
    // pass per step (`Timing::PerStep`) for the per-step times, which include the pass
    // boundaries' cost.
    // Timed runs are recorded back to back into ONE submission (each buffer set in turn),
    // so the GPU is busy for the whole measurement and its clocks stay up; a submission of
    // one short run at a time leaves it idle most of the time and it clocks down (seen on
    // the H200: 345 MHz idle). Timestamps are written at the bottom of the pipe, so a run's
    // interval starts when everything before it has finished.
    let rounds = cfg.runs.div_ceil(n_sets).max(1);
    let spin_ahead = spin((SPIN_MS * spin_rate).clamp(1.0, 4e9) as u32);
    let probe = spin(PROBE_ITERS);
    let mut totals = Vec::new();
    let mut per_step: Vec<Vec<f64>> = Vec::new();
    let mut labels = Vec::new();
    let mut warm_rounds = 0usize;
    // GPU time of one round, from the warm-up's timestamps: sizes the untimed lead-in.
    let mut round_ms = 0.0f64;
    let mut probe_tflops = 0.0f64;
    loop {
        // Warm-up: compiles the kernels and measures a round; the clocks are brought up by
        // the spin at the head of the timed submission (see `clock::SPIN_WGSL`).
        let warming = warm_rounds * n_sets < cfg.warmup.max(1);
        let n_rounds = if warming { 1 } else { rounds };
        // Untimed rounds ahead of the timed ones in the same submission, about 20 ms of GPU
        // work, so clocks are up when timing starts even for 20-microsecond kernels.
        let lead_in = if warming || round_ms <= 0.0 {
            0
        } else {
            ((5.0 / round_ms).ceil() as usize).clamp(1, 100)
        };
        let runs = |timing| {
            (0..n_rounds * n_sets).map(move |r| Op::Run {
                set: r % n_sets,
                timing,
            })
        };
        let mut ops = Vec::new();
        if !warming {
            ops.push(Op::Kernel {
                dispatch: &spin_ahead,
                timed: false,
            });
        }
        ops.extend((0..lead_in * n_sets).map(|r| Op::Run {
            set: r % n_sets,
            timing: Timing::Untimed,
        }));
        ops.extend(runs(Timing::Whole));
        if !warming {
            ops.extend(runs(Timing::PerStep));
            ops.push(Op::Kernel {
                dispatch: &probe,
                timed: true,
            });
        }
        let traces = traced.submit(&ops)?;
        let (whole, rest) = traces.split_at((n_rounds * n_sets).min(traces.len()));
        if warming {
            if let (Some(first), Some(last)) = (whole.first(), whole.last()) {
                round_ms = last.start_ms + last.ms - first.start_ms;
            }
            warm_rounds += 1;
            continue;
        }
        let (stepped, probed) = rest.split_at(rest.len().saturating_sub(1));
        if let Some(p) = probed.first() {
            if p.ms > 0.0 {
                probe_tflops = 2.0 * spin_fmas(PROBE_ITERS) / (p.ms * 1e-3) / 1e12;
            }
        }
        totals.extend(whole.iter().map(|t| t.ms));
        for t in stepped {
            if per_step.len() < t.steps.len() {
                per_step.resize(t.steps.len(), Vec::new());
            }
            for (i, s) in t.steps.iter().enumerate() {
                per_step[i].push(s.ms);
            }
            labels = t.steps.iter().map(|s| s.label.clone()).collect();
        }
        break;
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    let min_ms = totals.iter().copied().fold(f64::INFINITY, f64::min);
    let median_ms = median(&mut totals);
    let bytes = traced.bytes();
    let (w, h) = case.size.unwrap_or((cfg.width, cfg.height));
    Ok(BenchResult {
        name: case.name.clone(),
        spec: case.spec.clone(),
        width: w,
        height: h,
        median_ms,
        min_ms,
        bytes,
        steps: labels
            .into_iter()
            .zip(per_step.iter_mut().map(median))
            .collect(),
        probe_tflops,
    })
}

/// Wall time of the CPU reference (`Backend::Cpu`, the twins, on all cores through rayon) on
/// the case's first input set: the median of `runs` runs after one untimed run, in ms.
pub fn time_cpu(case: &BenchCase, cfg: &BenchConfig, runs: usize) -> Result<f64> {
    let one = BenchConfig {
        sets: 1,
        ..cfg.clone()
    };
    let (graph, sets) = case_graph(case, &one)?;
    let images = sets
        .into_iter()
        .next()
        .ok_or_else(|| Error::invalid("no sets"))?;
    let refs: Vec<(&str, &Image)> = images.iter().map(|(n, i)| (n.as_str(), i)).collect();
    let backend = texelflow::Backend::Cpu;
    let opts = RunOptions {
        schedules: case.schedule.clone(),
        ..Default::default()
    };
    backend.run(&graph, &refs, &opts)?;
    let mut times = Vec::with_capacity(runs.max(1));
    for _ in 0..runs.max(1) {
        let t = std::time::Instant::now();
        backend.run(&graph, &refs, &opts)?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(|a, b| a.total_cmp(b));
    Ok(times[times.len() / 2])
}

/// The results of a benchmark run as `texelflow bench --json` writes them: the adapter, the
/// configuration, the copy kernel's median (`copy_ms`, the yardstick of `x_copy`), and per
/// case its times, bytes, GB/s, clock probe, CPU twin's time (from `cpu_twin_ms`, by case
/// name) and step medians.
pub fn json(
    info: &GpuInfo,
    cfg: &BenchConfig,
    copy_ms: Option<f64>,
    results: &[BenchResult],
    cpu_twin_ms: &[(String, f64)],
) -> serde_json::Value {
    let copy = copy_ms.unwrap_or(f64::NAN);
    serde_json::json!({
        "adapter": info.name, "backend": info.backend, "driver": info.driver, "driver_info": info.driver_info,
        "width": cfg.width, "height": cfg.height, "runs": cfg.runs, "sets": cfg.sets, "copy_ms": copy,
        "results": results.iter().map(|r| serde_json::json!({
            "name": r.name, "spec": r.spec, "width": r.width, "height": r.height,
            "median_ms": r.median_ms, "min_ms": r.min_ms, "bytes": r.bytes, "gbps": r.gbps(),
            "x_copy": r.median_ms / copy, "probe_tflops": r.probe_tflops,
            "cpu_twin_ms": cpu_twin_ms.iter().find(|(n, _)| *n == r.name).map(|(_, ms)| *ms),
            "steps": r.steps.iter().map(|(l, ms)| serde_json::json!({"label": l, "median_ms": ms})).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use texelflow::GpuOptions;

    /// The test GPU (`TEXELFLOW_TEST_BACKEND`, default Vulkan: lavapipe where there is no
    /// GPU); panics when there is none.
    pub(crate) fn gpu() -> Arc<Gpu> {
        match Gpu::new(&GpuOptions {
            backend: Some(
                std::env::var("TEXELFLOW_TEST_BACKEND").unwrap_or_else(|_| "vulkan".into()),
            ),
            ..Default::default()
        }) {
            Ok(g) => g,
            Err(e) => panic!(
                "GPU tests need a Vulkan adapter (install mesa-vulkan-drivers for lavapipe): {e}"
            ),
        }
    }

    fn small() -> BenchConfig {
        BenchConfig {
            width: 64,
            height: 48,
            runs: 3,
            warmup: 1,
            sets: 2,
        }
    }

    /// The copy yardstick and a case of several steps: times, bytes, step labels.
    #[test]
    fn cases_are_timed_with_their_steps() {
        let gpu = gpu();
        let cfg = small();
        let copy = run_case(&gpu, &BenchCase::new("copy", "copy"), &cfg).expect("copy");
        assert_eq!((copy.width, copy.height), (64, 48));
        // one image read, one written
        assert_eq!(copy.bytes, 2 * 64 * 48 * 4);
        assert!(
            copy.median_ms > 0.0 && copy.min_ms <= copy.median_ms,
            "{copy:?}"
        );
        assert_eq!(copy.steps.len(), 1, "{copy:?}");
        let case = BenchCase::new(
            "gaussian_blur s=2 reflect",
            "gaussian_blur(sigma=2, border=reflect)",
        );
        let r = run_case(&gpu, &case, &cfg).expect("reflect");
        // pad, the blur, crop
        assert!(r.steps.len() >= 3, "{r:?}");
        assert!(r.steps.iter().any(|(l, _)| l.contains("pad")), "{r:?}");
        assert!(r.steps.iter().all(|(_, ms)| *ms >= 0.0), "{r:?}");
        // a case on its own size, on Gray8 input
        let gray = BenchCase::sized("box_blur gray8", "box_blur(radius=4)", 32, 16).gray8();
        let r = run_case(&gpu, &gray, &cfg).expect("gray8");
        assert_eq!((r.width, r.height, r.bytes), (32, 16, 2 * 32 * 16));
        let v = json(&gpu.info(), &cfg, Some(copy.median_ms), &[copy, r], &[]);
        assert_eq!(v["results"].as_array().map(Vec::len), Some(2));
        assert_eq!(v["results"][0]["x_copy"].as_f64(), Some(1.0));
        assert_eq!(v["width"].as_u64(), Some(64));
    }

    /// A case's schedule overrides reach its recording (`RunOptions::schedules`): an
    /// unknown variant fails the case, a known one runs.
    #[test]
    fn schedule_overrides_apply() {
        let gpu = gpu();
        let cfg = small();
        let bad = BenchCase::new("box_blur", "box_blur(radius=4)").scheduled("box_blur=no_such");
        let e = run_case(&gpu, &bad, &cfg).expect_err("unknown variant");
        assert!(e.to_string().contains("no_such"), "{e}");
        let good = BenchCase::new("box_blur", "box_blur(radius=4)").scheduled("box_blur=blocks");
        run_case(&gpu, &good, &cfg).expect("known variant");
        // the experiments run as cases too
        let exp = experiment_cases(64, 48);
        let read = exp
            .iter()
            .find(|c| c.spec == "@exp:read_vec4_flat")
            .expect("case");
        run_case(&gpu, read, &cfg).expect("experiment");
    }

    #[test]
    fn cpu_twin_is_timed() {
        let cfg = small();
        let ms = time_cpu(&BenchCase::new("brightness", "brightness(0.1)"), &cfg, 2).expect("cpu");
        assert!(ms > 0.0);
    }

    #[test]
    fn default_cases_are_named_once_per_spec() {
        let cases = default_cases(3840, 2160);
        assert_eq!(cases[0].spec, "copy");
        assert!(cases
            .iter()
            .any(|c| c.name == "latency: 10-node chain 1080p"));
        assert!(experiment_cases(3840, 2160)
            .iter()
            .any(|c| !c.schedule.is_empty()));
    }
}
