//! GPU benchmark harness behind `texelflow bench`.
//!
//! Method (see BENCHMARKS.md): every case runs on `sets` independent input/output buffer
//! sets in rotation, so the working set is several times the L2 cache; warm-up runs first;
//! each timed run is one submission whose GPU time is read from timestamp queries (first
//! pass begin to last pass end); median and minimum over `runs`. A copy kernel (16-byte
//! loads and stores) runs in the same process as the yardstick.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::filters::registry::{Family, Filter, FilterDef, EXACT_ENOUGH, IMAGE};
use crate::graph::execute::{
    check_limits, encode_steps, step_times, upload_sources, Passes, RunBuffers,
};
use crate::graph::plan::plan;
use crate::image::{Image, ImageDesc, PixelFormat};
use crate::runtime::{groups_1d, Gpu, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};
use crate::{Graph, Pipeline};

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
    /// The main input is `line_scene` (straight lines for the Hough cases) instead of the
    /// random image: grey lines on a noisy ground (RGBA8), or a binary edge map (Gray8).
    pub lines: bool,
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
            lines: false,
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
            lines: false,
        }
    }
    /// The same case on a Gray8 input (the random image's luminance).
    pub fn gray8(mut self) -> Self {
        self.input = PixelFormat::Gray8;
        self
    }
    /// The same case on `line_scene` (a binary edge map when Gray8).
    pub fn on_lines(mut self) -> Self {
        self.lines = true;
        self
    }
    /// The same case under schedule overrides `key=value,...`.
    pub fn scheduled(mut self, overrides: &str) -> Self {
        self.schedule = crate::runtime::schedule::parse(overrides);
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

/// The standard set: every registered filter at defaults plus the operations of the
/// performance targets (issue 3) and NPP's reference list.
pub fn default_cases(width: u32, height: u32) -> Vec<BenchCase> {
    let mut v = vec![BenchCase::new("copy", "copy")];
    let named: &[(&str, &str)] = &[
        ("gaussian_blur s=2", "gaussian_blur(sigma=2)"),
        ("gaussian_blur s=3", "gaussian_blur(sigma=3)"),
        ("gaussian_blur s=4", "gaussian_blur(sigma=4)"),
        ("gaussian_blur s=8", "gaussian_blur(sigma=8)"),
        ("gaussian_blur s=32", "gaussian_blur(sigma=32)"),
        ("box_blur 9x9", "box_blur(radius=4)"),
        ("box_blur 31x31", "box_blur(radius=15)"),
        ("box_blur 129x129", "box_blur(radius=64)"),
        // border=reflect runs as pad, the filter, crop: its cost over the replicate cases above
        (
            "gaussian_blur s=2 reflect",
            "gaussian_blur(sigma=2, border=reflect)",
        ),
        ("box_blur 9x9 reflect", "box_blur(radius=4, border=reflect)"),
        (
            "pad 16 reflect101",
            "pad(top=16, bottom=16, left=16, right=16, mode=reflect101)",
        ),
        ("dilation 3x3", "dilation(radius=1)"),
        ("dilation 15x15", "dilation(radius=7)"),
        ("dilation 23x23", "dilation(radius=11)"),
        ("dilation 31x31", "dilation(radius=15)"),
        ("dilation 65x65", "dilation(radius=32)"),
        ("erosion 15x15", "erosion(radius=7)"),
        ("median 7x7", "median(radius=3)"),
        ("median 15x15", "median(radius=7)"),
        // the default radius, and r5 and r10 as aoce quotes them (catalogue 3.3)
        ("kuwahara r4 (GPUImage default)", "kuwahara(radius=4)"),
        ("kuwahara r5", "kuwahara(radius=5)"),
        ("kuwahara r10", "kuwahara(radius=10)"),
        // aoce's fast guided filter at its defaults (scale 8, box 10 at 1/8 = radius 40; aoce
        // quotes about 1 ms at 1080p on an RTX 2070, catalogue 3.3), a finer grid, and the exact filter
        ("guided_filter scale 8 r40 (default)", "guided_filter"),
        (
            "guided_filter scale 4 r20",
            "guided_filter(radius=20, scale=4)",
        ),
        ("guided_filter exact r8", "guided_filter(radius=8, scale=1)"),
        (
            "guided_filter exact r40",
            "guided_filter(radius=40, scale=1)",
        ),
        ("resize 4K->1080p", "resize(scale=0.5)"),
        ("lookup 512 LUT", "lookup(lut=@lut)"),
        ("alpha_blend", "alpha_blend(with=@random)"),
        ("multiply_blend", "multiply_blend(with=@random)"),
        // iterative: 100 passes, so the time per iteration is this case's time / 100
        (
            "poisson_blend 100 it",
            "poisson_blend(with=@random, iterations=100)",
        ),
        // FAST on one-byte luma (to_gray's time included; its own step time is in the steps)
        (
            "fast_corner_detection gray8",
            "to_gray | fast_corner_detection",
        ),
        (
            "fast corners as data",
            "fast_corner_detection | corner_points",
        ),
        (
            "chain of 5 per-pixel",
            "brightness(0.1) | contrast(1.2) | saturation(1.3) | gamma(1.1) | color_invert",
        ),
        // the histogram solver nodes after their histogram (data in, data out: one workgroup each)
        ("range_from_histogram", "histogram | range_from_histogram"),
        (
            "levels_lut",
            "histogram | range_from_histogram | levels_lut",
        ),
        ("grey_world_lut", "histogram | grey_world_lut"),
        ("equalization_lut", "histogram | equalization_lut"),
        (
            "auto_levels | auto_white_balance",
            "auto_levels | auto_white_balance",
        ),
    ];
    for (n, s) in named {
        v.push(BenchCase::new(n, s));
    }
    v.push(BenchCase::sized(
        "resize 1080p->4K",
        "resize(scale=2)",
        width / 2,
        height / 2,
    ));
    // issue 17's NPP targets (H100, 3840x2160 output for the enlargements, input for area):
    // bicubic and lanczos up x2 against nppiResize_8u_C4R NPPI_INTER_CUBIC / NPPI_INTER_LANCZOS,
    // area down x2 against NPPI_INTER_SUPER
    v.push(BenchCase::sized(
        "resize bicubic 1080p->4K",
        "resize(scale=2, method=bicubic)",
        width / 2,
        height / 2,
    ));
    v.push(BenchCase::sized(
        "resize lanczos3 1080p->4K",
        "resize(scale=2, method=lanczos3)",
        width / 2,
        height / 2,
    ));
    v.push(BenchCase::new(
        "resize area 4K->1080p",
        "resize(scale=0.5, method=area)",
    ));
    v.push(BenchCase::new(
        "resize nearest 4K->1080p",
        "resize(scale=0.5, method=nearest)",
    ));
    v.push(BenchCase::new(
        "transform rotate 30",
        "transform(rotate=30)",
    ));
    v.push(BenchCase::new(
        "transform perspective",
        "transform(src=[0,0, 3839,0, 3839,2159, 0,2159], dst=[200,100, 3600,0, 3839,2159, 0,2000])",
    ));
    // the Hough transform (and FAST and Canny) on a scene of straight lines (on the random image's noise every other
    // pixel is an edge, which no edge detector gives): on a binary edge map, after Canny (with
    // per-step times), and drawn
    let hough = [
        BenchCase::new(
            "hough_line_detection edge map (lines scene)",
            "hough_line_detection",
        )
        .gray8()
        .on_lines(),
        BenchCase::new(
            "hough_line_detection after canny (lines scene)",
            "canny_edge_detection | hough_line_detection",
        )
        .on_lines(),
        BenchCase::new("draw_hough_lines (lines scene)", "draw_hough_lines").on_lines(),
        // the detectors on a structured picture (24 lines on a mildly noisy ground), beside the noise cases
        BenchCase::new(
            "fast_corner_detection (lines scene)",
            "fast_corner_detection",
        )
        .on_lines(),
        BenchCase::new(
            "canny_edge_detection 50/150 (lines scene)",
            "canny_edge_detection(sigma=0, lower=0.196078431, upper=0.588235294)",
        )
        .on_lines(),
    ];
    // jfa_voronoi: at most 2048 wide (its map encoding), so sized below instead of by name
    let hough_names = ["hough_line_detection", "draw_hough_lines", "jfa_voronoi"];
    v.extend(hough);
    // the generators that draw data, after the nodes making it (their own time in the steps)
    v.push(
        BenchCase::new(
            "crosshair (FAST corners as data)",
            "fast_corner_detection | corner_points | crosshair",
        )
        .on_lines(),
    );
    v.push(
        BenchCase::new(
            "line (lines scene)",
            "canny_edge_detection | hough_line_detection(max=20) | line",
        )
        .on_lines(),
    );
    v.push(BenchCase::new(
        "histogram_generator",
        "histogram | histogram_generator",
    ));
    for d in crate::filters::registry::all() {
        if hough_names.contains(&d.name) {
            continue;
        }
        // filters that need an image or a file of their own are benchmarked only by name above
        let needs_image = d.params.iter().any(|p| {
            matches!(
                p.kind,
                crate::graph::params::ParamKind::Image
                    | crate::graph::params::ParamKind::Path { required: true, .. }
            )
        });
        let covered = named
            .iter()
            .any(|(_, s)| !s.contains('|') && s.split('(').next() == Some(d.name));
        // (a filter reading data is benchmarked after its producer, by name above)
        if !needs_image
            && !covered
            && d.inputs.len() == 1
            && d.inputs[0].kind == crate::filters::registry::PortKind::Image
        {
            v.push(BenchCase::new(d.name, d.name));
        }
        // blends: their second image random, like alpha_blend's above
        let only_with = d
            .params
            .iter()
            .filter(|p| matches!(p.kind, crate::graph::params::ParamKind::Image))
            .map(|p| p.name)
            .eq(["with"]);
        if d.family == Family::Blend && only_with && !covered {
            v.push(BenchCase::new(d.name, &format!("{}(with=@random)", d.name)));
        }
        // a masked blend: second image and mask random (four images move where copy moves two)
        let with_mask = d
            .params
            .iter()
            .filter(|p| matches!(p.kind, crate::graph::params::ParamKind::Image))
            .map(|p| p.name)
            .eq(["with", "mask"]);
        if d.family == Family::Blend && with_mask && !covered {
            v.push(BenchCase::new(
                d.name,
                &format!("{}(with=@random, mask=@random)", d.name),
            ));
        }
    }
    // NPP's nppiFilterCannyBorder_8u_C1R as the lead's NPP peer times it (`canny_gray`: 8-bit
    // grey, Sobel 3x3, L2, thresholds 50 and 150, replicated borders)
    // CLAHE on one-byte grey, OpenCV's usual input (the RGBA8 case runs by name above)
    v.push(BenchCase::new("clahe gray8", "clahe").gray8());
    // Voronoi by jump flooding on GPUImage's largest square map; seeds: the random image's
    // brightest pixels. The consumer on a random map (its seeds anywhere): the cost of the lookups.
    v.push(BenchCase::sized(
        "jfa_voronoi 2048x2048 (luminance >= 0.9 seeds)",
        "luminance_threshold(0.9) | jfa_voronoi",
        2048,
        2048,
    ));
    v.push(BenchCase::new(
        "voronoi_consumer",
        "voronoi_consumer(map=@random)",
    ));
    v.push(BenchCase::new("mosaic", "mosaic(tiles=@random)"));
    v.push(
        BenchCase::new(
            "canny_edge_detection gray8 50/150 (NPP)",
            "canny_edge_detection(sigma=0, lower=0.196078431, upper=0.588235294)",
        )
        .gray8(),
    );
    // FAST on a grey image, as OpenCV's FAST takes one (the RGBA8 case adds the luma on the fly)
    v.push(BenchCase::new("fast_corner_detection on gray8", "fast_corner_detection").gray8());
    // NPP's nppiFilterBilateralGaussBorder_8u_C1R (radius 5) as the NPP peer's `bilateral_r5_gray`
    v.push(BenchCase::new("bilateral gray8", "bilateral").gray8());
    // the one-channel blurs and a stencil on Gray8 (GPUImage's single-component blur; NPP's
    // nppiFilterGaussBorder_8u_C1R, nppiFilterBoxBorder_8u_C1R, nppiFilterSharpenBorder_8u_C1R)
    v.push(BenchCase::new("gaussian_blur s=2 gray8", "gaussian_blur(sigma=2)").gray8());
    v.push(BenchCase::new("gaussian_blur s=8 gray8", "gaussian_blur(sigma=8)").gray8());
    v.push(BenchCase::new("box_blur 9x9 gray8", "box_blur(radius=4)").gray8());
    v.push(BenchCase::new("box_blur 31x31 gray8", "box_blur(radius=15)").gray8());
    v.push(BenchCase::new("sharpen gray8", "sharpen(sharpness=1)").gray8());
    // seed 003: the assessment on a copy shrunk to 500x500 first (resize included), against full size
    v.push(BenchCase::new(
        "photo_metrics on 500x500 (resize first)",
        "resize(width=500, height=500) | photo_metrics",
    ));
    v.push(BenchCase::new(
        "color_fingerprint on 500x500 (resize first)",
        "resize(width=500, height=500) | color_fingerprint",
    ));
    // issue 16's target, the whole assessment <= 3x copy: the fused pass (what `assess` runs)
    // against the two nodes it replaces in one graph (their two passes, the pass boundary and
    // the fingerprint's clear between them), on the random image and on the lines scene (few
    // colours per tile: contention on hot fingerprint bins, as in smooth photos)
    v.push(BenchCase::new(
        "assessment fused (photo_assessment)",
        ASSESS_FUSED,
    ));
    v.push(BenchCase::new(
        "assessment two passes (photo_metrics + color_fingerprint)",
        ASSESS_TWO_PASS,
    ));
    v.push(BenchCase::new("assessment fused (lines scene)", ASSESS_FUSED).on_lines());
    v.push(BenchCase::new("assessment two passes (lines scene)", ASSESS_TWO_PASS).on_lines());
    v.push(BenchCase::sized(
        "latency: 10-node chain 1080p",
        "brightness(0.1) | gaussian_blur(sigma=1) | contrast(1.1) | sobel_edge_detection | saturation(1.2) | box_blur(radius=2) | gamma(1.2) | dilation(radius=1) | exposure(0.3) | color_invert",
        1920,
        1080,
    ));
    v
}

/// The one-pass assessment: `assess::build_fused_assessment_graph`.
const ASSESS_FUSED: &str = "@assess:fused";
/// The whole assessment as `assess` runs it (two nodes): `assess::build_assessment_graph`.
const ASSESS_TWO_PASS: &str = "@assess:two-pass";

/// Noise plus gradients, never all zero; deterministic per seed.
pub fn random_image(w: u32, h: u32, seed: u64) -> Image {
    let mut s = seed.wrapping_mul(0x9E3779B97F4A7C15) | 1;
    let mut data = vec![0u8; w as usize * h as usize * 4];
    for (i, px) in data.chunks_exact_mut(4).enumerate() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let x = (i % w as usize) as u64;
        let y = (i / w as usize) as u64;
        px[0] = ((s & 63) + x * 255 / w as u64 / 2) as u8;
        px[1] = (((s >> 8) & 63) + y * 255 / h as u64 / 2) as u8;
        px[2] = ((s >> 16) as u8) | 1;
        px[3] = 200 + ((s >> 24) & 55) as u8;
    }
    Image::from_u8(w, h, PixelFormat::Rgba8, data)
        .unwrap_or_else(|_| Image::zeroed(ImageDesc::new(w, h, PixelFormat::Rgba8)))
}

/// Straight lines for the Hough benchmarks: 24 segments between random points of the border
/// region, 2 pixels wide at level 220 on a ground of 80-120 noise (RGBA8 grey), or 1 pixel
/// wide at 255 on 0 with 0.2% noise pixels (`binary`: a Gray8 edge map).
pub fn line_scene(w: u32, h: u32, seed: u64, binary: bool) -> Image {
    let mut s = seed.wrapping_mul(0x9E3779B97F4A7C15) | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let (wu, hu) = (w as usize, h as usize);
    let mut v: Vec<u8> = (0..wu * hu)
        .map(|_| {
            if binary {
                if next() % 1000 < 2 {
                    255
                } else {
                    0
                }
            } else {
                80 + (next() % 41) as u8
            }
        })
        .collect();
    for _ in 0..24 {
        let (x0, y0, x1, y1) = (
            (next() % w as u64) as i64,
            (next() % h as u64) as i64,
            (next() % w as u64) as i64,
            (next() % h as u64) as i64,
        );
        let steps = (x1 - x0).abs().max((y1 - y0).abs()).max(1);
        for i in 0..=steps {
            let (x, y) = (x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps);
            let widths: &[i64] = if binary { &[0] } else { &[0, 1] };
            for &d in widths {
                let xx = (x + d).min(w as i64 - 1) as usize;
                v[y as usize * wu + xx] = if binary { 255 } else { 220 };
            }
        }
    }
    let img = if binary {
        Image::from_u8(w, h, PixelFormat::Gray8, v)
    } else {
        Image::from_u8(
            w,
            h,
            PixelFormat::Rgba8,
            v.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        )
    };
    img.unwrap_or_else(|_| {
        Image::zeroed(ImageDesc::new(
            w,
            h,
            if binary {
                PixelFormat::Gray8
            } else {
                PixelFormat::Rgba8
            },
        ))
    })
}

/// Registry-shaped declaration for the benchmark-only kernels below (never registered).
static COPY_DEF: FilterDef = FilterDef {
    name: "copy",
    family: Family::Convert,
    summary: "benchmark yardstick",
    doc: "",
    gpuimage: "",
    params: &[],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |_| Ok(Box::new(copy_kernel())),
    uniforms: &[],
    test_inputs: None,
    schedules: &[],
};

/// The copy yardstick: 16-byte loads and stores, one `vec4<u32>` (4 pixels) per invocation,
/// with the device's default runtime checks like every other kernel.
fn copy_kernel() -> Experiment {
    Experiment {
        name: "copy",
        wgsl: EXP_COPY_VEC4.into(),
        per_thread: 4,
        checks: None,
        grid: None,
    }
}

/// Source sets of a case: per set, each source's name and image.
type SourceSets = Vec<Vec<(String, Image)>>;

/// Builds the graph of a case and `sets` independent source sets.
fn case_graph(case: &BenchCase, cfg: &BenchConfig) -> Result<(Graph, SourceSets)> {
    let (w, h) = case.size.unwrap_or((cfg.width, cfg.height));
    let mut sets = Vec::new();
    let mut graph = None;
    for k in 0..cfg.sets {
        let input = if case.lines {
            line_scene(w, h, 1 + k as u64, case.input == PixelFormat::Gray8)
        } else {
            let input = random_image(w, h, 1 + k as u64);
            if case.input == PixelFormat::Gray8 {
                input.convert(PixelFormat::Gray8)
            } else {
                input
            }
        };
        // the assessment graphs: one source, two data outputs (no pipeline spec branches)
        let assess = match case.spec.as_str() {
            ASSESS_FUSED => Some(
                crate::assess::build_fused_assessment_graph
                    as fn(ImageDesc, crate::assess::AssessOptions) -> Result<Graph>,
            ),
            ASSESS_TWO_PASS => Some(
                crate::assess::build_assessment_graph
                    as fn(ImageDesc, crate::assess::AssessOptions) -> Result<Graph>,
            ),
            _ => None,
        };
        if let Some(build) = assess {
            if graph.is_none() {
                graph = Some(build(
                    input.desc(),
                    crate::assess::AssessOptions::default(),
                )?);
            }
            sets.push(vec![("image".to_string(), input)]);
            continue;
        }
        let pipeline = if case.spec == "copy" {
            Pipeline::new().then(copy_kernel())
        } else if let Some(name) = case.spec.strip_prefix("@exp:") {
            let e = experiments()
                .into_iter()
                .find(|e| e.name == name)
                .ok_or_else(|| Error::invalid(format!("no experiment {name}")))?;
            Pipeline::new().then(e)
        } else {
            let mut load = |p: &str| -> Result<Image> {
                match p {
                    "@random" => Ok(random_image(w, h, 1000 + k as u64)),
                    "@lut" => {
                        let def = crate::filters::registry::find("lookup")?;
                        let f = def
                            .test_inputs
                            .ok_or_else(|| Error::invalid("lookup has no test LUT"))?;
                        f(w, h, 7 + k as u64)
                            .into_iter()
                            .next()
                            .ok_or_else(|| Error::invalid("no LUT"))
                    }
                    other => Image::open(other),
                }
            };
            Pipeline::parse(&case.spec, &mut load)?
        };
        // the filters' own kernels are timed (as NPP's, which premultiply nothing): no
        // premultiplied-alpha passes around the averaging filters
        let mut pipeline = pipeline;
        pipeline.set_straight_alpha(true);
        let (g, images) = pipeline.graph(&input)?;
        if graph.is_none() {
            graph = Some(g);
        }
        sets.push(images);
    }
    Ok((graph.ok_or_else(|| Error::invalid("no sets"))?, sets))
}

/// Times one case, under its schedule overrides (`BenchCase::schedule`, in the run's plan:
/// every step's recorder carries them).
pub fn run_case(gpu: &Arc<Gpu>, case: &BenchCase, cfg: &BenchConfig) -> Result<BenchResult> {
    if !gpu.has_timestamps() {
        return Err(Error::Gpu(
            "this adapter has no timestamp queries; cannot benchmark".into(),
        ));
    }
    let (graph, sets) = case_graph(case, cfg)?;
    check_limits(gpu, None, &graph)?;
    let plan = plan(
        &graph,
        &crate::graph::RunOptions {
            schedules: case.schedule.clone(),
            ..Default::default()
        },
    );
    // A run is timed as the library runs it without timings (steps sharing compute passes,
    // `Passes::Merged`: one timestamp pair per run); the same runs are then repeated with a
    // pass per step for the per-step times, which include the pass boundaries' cost.
    let per_run = 2u32;
    let per_steps = (plan.steps.len() * 2) as u32;
    // Timed runs are recorded back to back into ONE submission (each buffer set in turn),
    // so the GPU is busy for the whole measurement and its clocks stay up; a submission of
    // one short run at a time leaves it idle most of the time and it clocks down (seen on
    // the H200: 345 MHz idle). Timestamps are written at the bottom of the pipe, so a run's
    // interval starts when everything before it has finished.
    let rounds = cfg.runs.div_ceil(cfg.sets).max(1);
    let runs_total = (rounds * cfg.sets) as u32;
    // two more queries: the clock probe after the timed runs
    let n_q = (per_run + per_steps) * runs_total + 2;
    let spin = Spin::new(gpu);
    let spin_rate = spin_iters_per_ms(gpu, &spin)?;
    let qs = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
        label: Some("bench"),
        ty: wgpu::QueryType::Timestamp,
        count: n_q,
    });
    let resolve = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("bench.resolve"),
        size: n_q as u64 * 8,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    // One buffer set (own free list) per input set; sources pinned so no step overwrites them.
    let mut bufs: Vec<RunBuffers<'_>> = Vec::new();
    let mut sources = Vec::new();
    for images in &sets {
        let mut b = RunBuffers::new(gpu);
        let refs: Vec<(&str, &Image)> = images.iter().map(|(n, i)| (n.as_str(), i)).collect();
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("texelflow.bench.upload"),
            });
        let (slots, staged) = upload_sources(gpu, &graph, &refs, &mut b, &mut encoder)?;
        let index = gpu.queue.submit([encoder.finish()]);
        gpu.wait_for(Some(index))?;
        gpu.recycle_uploads(staged);
        b.pinned = slots.values().map(|s| s.buffer.clone()).collect();
        sources.push(slots);
        bufs.push(b);
    }
    let mut totals = Vec::new();
    let mut per_step: Vec<Vec<f64>> = vec![Vec::new(); plan.steps.len()];
    let mut labels = Vec::new();
    let period = gpu.queue.get_timestamp_period() as f64;
    let mut warm_rounds = 0usize;
    // GPU time of one round, from the warm-up's timestamps: sizes the untimed lead-in.
    let mut round_ms = 0.0f64;
    let mut probe_tflops = 0.0f64;
    loop {
        // Warm-up: compiles the kernels and measures a round; the clocks are brought up by
        // the spin at the head of the timed submission (see `SPIN_WGSL`).
        let warming = warm_rounds * cfg.sets < cfg.warmup.max(1);
        let n_rounds = if warming { 1 } else { rounds };
        // Untimed rounds ahead of the timed ones in the same submission, about 20 ms of GPU
        // work, so clocks are up when timing starts even for 20-microsecond kernels.
        let lead_in = if warming || round_ms <= 0.0 {
            0
        } else {
            ((5.0 / round_ms).ceil() as usize).clamp(1, 100)
        };
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let (encoded, staging) = gpu.scoped(|| -> Result<_> {
            if !warming {
                spin.record(
                    gpu,
                    &mut encoder,
                    (SPIN_MS * spin_rate).clamp(1.0, 4e9) as u32,
                    None,
                )?;
            }
            for _ in 0..lead_in {
                for k in 0..cfg.sets {
                    let e = encode_steps(
                        gpu,
                        &graph,
                        &plan,
                        &mut encoder,
                        &mut bufs[k],
                        sources[k].clone(),
                        None,
                        None,
                        Passes::Merged,
                    )?;
                    for (_, slot) in e.slots.iter() {
                        bufs[k].give(slot.buffer.clone());
                    }
                }
            }
            let mut all = Vec::new();
            for r in 0..n_rounds {
                for k in 0..cfg.sets {
                    let run = (r * cfg.sets + k) as u32;
                    let e = encode_steps(
                        gpu,
                        &graph,
                        &plan,
                        &mut encoder,
                        &mut bufs[k],
                        sources[k].clone(),
                        Some((&qs, run * per_run)),
                        None,
                        Passes::Merged,
                    )?;
                    // Outputs return to their set's free list: the next round of this set
                    // reuses them (wgpu orders the accesses).
                    for (_, slot) in e.slots.iter() {
                        bufs[k].give(slot.buffer.clone());
                    }
                    all.push(e);
                }
            }
            let mut used = per_run * (n_rounds * cfg.sets) as u32;
            let mut stepped = Vec::new();
            if !warming {
                for r in 0..n_rounds {
                    for k in 0..cfg.sets {
                        let run = (r * cfg.sets + k) as u32;
                        let e = encode_steps(
                            gpu,
                            &graph,
                            &plan,
                            &mut encoder,
                            &mut bufs[k],
                            sources[k].clone(),
                            Some((&qs, used + run * per_steps)),
                            None,
                            Passes::PerStep,
                        )?;
                        for (_, slot) in e.slots.iter() {
                            bufs[k].give(slot.buffer.clone());
                        }
                        stepped.push(e);
                    }
                }
                used += per_steps * (n_rounds * cfg.sets) as u32;
            }
            if !warming {
                spin.record(gpu, &mut encoder, PROBE_ITERS, Some((&qs, used)))?;
                used += 2;
            }
            encoder.resolve_query_set(&qs, 0..used, &resolve, 0);
            let st = gpu.read_buffers(&mut encoder, &[(&resolve, used as u64 * 8)]);
            Ok(((all, stepped), st))
        })??;
        let (encoded, stepped) = encoded;
        gpu.scoped(|| gpu.queue.submit([encoder.finish()]))?;
        let raw = gpu.map_all(&staging)?;
        let t: Vec<u64> = raw[0]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect();
        if warming {
            if let (Some(first), Some(last)) = (
                t.first(),
                t.get((per_run as usize * cfg.sets).saturating_sub(1)),
            ) {
                round_ms = last.saturating_sub(*first) as f64 * period / 1e6;
            }
            warm_rounds += 1;
            continue;
        }
        if let [.., a, b] = t.as_slice() {
            let ms = b.saturating_sub(*a) as f64 * period / 1e6;
            if ms > 0.0 {
                probe_tflops = 2.0 * Spin::fmas(PROBE_ITERS) / (ms * 1e-3) / 1e12;
            }
        }
        for j in 0..encoded.len() {
            let r = &t[j * per_run as usize..(j + 1) * per_run as usize];
            totals.push(r[1].saturating_sub(r[0]) as f64 * period / 1e6);
        }
        let steps_base = per_run as usize * encoded.len();
        for (j, e) in stepped.into_iter().enumerate() {
            let r =
                &t[steps_base + j * per_steps as usize..steps_base + (j + 1) * per_steps as usize];
            let bytes: Vec<u8> = r.iter().flat_map(|v| v.to_le_bytes()).collect();
            for (i, s) in step_times(gpu, &bytes, e.labels.clone()).iter().enumerate() {
                per_step[i].push(s.ms);
            }
            labels = e.labels;
        }
        break;
    }
    for b in &mut bufs {
        b.pinned.clear();
        b.release();
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    let min_ms = totals.iter().copied().fold(f64::INFINITY, f64::min);
    let median_ms = median(&mut totals);
    let mut bytes: u64 = graph
        .sources()
        .map(|(_, n)| graph.nodes[n].outputs[0].gpu_bytes())
        .sum();
    bytes += graph
        .outputs
        .iter()
        .map(|(_, p)| graph.desc(*p).gpu_bytes())
        .sum::<u64>();
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
    let backend = crate::graph::Backend::Cpu;
    // the twins have no schedules: the case's overrides go with the run all the same
    let opts = crate::graph::RunOptions {
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

/// Kernel-shape experiments (`texelflow bench --experiments`): the same trivial work in
/// different schedules and with different wgpu runtime checks, to find out what the
/// driver makes slow. Each reads and writes one RGBA8 image (the `read_*` probes only read
/// it: their output binding is written only under a condition that never holds, so the
/// case's GB/s, which counts an output, is twice the real rate); see docs/perf-notes.md.
#[derive(Clone, Debug)]
struct Experiment {
    name: &'static str,
    wgsl: std::borrow::Cow<'static, str>,
    /// Pixels per invocation (of a one-pass grid; see `grid`).
    per_thread: u32,
    checks: Option<wgpu::ShaderRuntimeChecks>,
    /// `Some(g)`: a grid-stride kernel of exactly `g` workgroups of 256, whose uniform holds
    /// the loop step in invocations (`n.y`); `None`: one invocation per `per_thread` pixels.
    grid: Option<u32>,
}

const EXP_HEADER: &str = "
@group(0) @binding(0) var<storage, read> src4: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst4: array<vec4<u32>>;
@group(0) @binding(2) var<uniform> n: vec4<u32>;
";
const EXP_HEADER1: &str = "
@group(0) @binding(0) var<storage, read> src: array<u32>;
@group(0) @binding(1) var<storage, read_write> dst: array<u32>;
@group(0) @binding(2) var<uniform> n: vec4<u32>;
";
const EXP_COPY_U32: &str = "
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i < n.x) { dst[i] = src[i]; }
}";
const EXP_INVERT_U32: &str = "
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i < n.x) { let c = unpack4x8unorm(src[i]); dst[i] = pack4x8unorm(vec4<f32>(1.0 - c.rgb, c.a)); }
}";
const EXP_INVERT_LOOP: &str = "
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= n.x) { return; }
    let s = src4[i];
    var o: vec4<u32>;
    for (var k = 0u; k < 4u; k++) {
        let c = unpack4x8unorm(s[k]);
        o[k] = pack4x8unorm(vec4<f32>(1.0 - c.rgb, c.a));
    }
    dst4[i] = o;
}";
const EXP_INVERT_UNROLLED: &str = "
fn inv(p: u32) -> u32 { let c = unpack4x8unorm(p); return pack4x8unorm(vec4<f32>(1.0 - c.rgb, c.a)); }
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= n.x) { return; }
    let s = src4[i];
    dst4[i] = vec4<u32>(inv(s.x), inv(s.y), inv(s.z), inv(s.w));
}";
const EXP_COPY_VEC4: &str = "
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i < n.x) { dst4[i] = src4[i]; }
}";
/// Write-only probe, the copy's shape: one 16-byte store per invocation of a value made from
/// its index (the input is bound, as every kernel here binds it, and never read).
const EXP_WRITE_VEC4: &str = "
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= n.x) { return; }
    if (i == 0xFFFFFFFFu) { dst4[0] = src4[0]; }
    dst4[i] = vec4<u32>(i, i ^ 0x55555555u, i * 3u, ~i);
}";
/// End of the read-only probes: what was read must be used, or the compiler drops the
/// loads; a store under a comparison with a constant no xor of image words will equal
/// (2^-128 odds per invocation) keeps them, and nothing is written.
const EXP_READ_SINK: &str = "    if (all(acc == vec4<u32>(0x9e3779b9u, 0x7f4a7c15u, 0xf39cc060u, 0x5ced1d2bu))) { dst4[i] = acc; }\n}\n";
/// Read-only probe, the copy's shape: one 16-byte load per invocation, one invocation per
/// quad (many workgroups).
fn exp_read_flat() -> String {
    String::from("
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= n.x) { return; }
    let acc = src4[i];
") + EXP_READ_SINK
}
/// Read-only probe, a fixed grid: each invocation walks the quads `i, i + n.y, ...` with
/// `loads` independent 16-byte loads per iteration (all issued before any is used), xored
/// into an accumulator; its last 0..loads-1 quads are loaded together under bounds checks,
/// so every quad of the image is read exactly once.
fn exp_read_grid(loads: u32) -> String {
    let mut s = String::from("
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    let st = n.y;
    var acc = vec4<u32>(0u);
    var q = i;
");
    s += &format!(
        "    for (; q + {}u * st < n.x; q += {loads}u * st) {{\n",
        loads - 1
    );
    for k in 0..loads {
        s += &format!("        let a{k} = src4[q + {k}u * st];\n");
    }
    s += &format!(
        "        acc ^= {};\n    }}\n",
        (0..loads)
            .map(|k| format!("a{k}"))
            .collect::<Vec<_>>()
            .join(" ^ ")
    );
    for k in 0..loads - 1 {
        s += &format!("    var b{k} = vec4<u32>(0u);\n    if (q + {k}u * st < n.x) {{ b{k} = src4[q + {k}u * st]; }}\n");
    }
    s += &format!(
        "    acc ^= {};\n",
        (0..loads - 1)
            .map(|k| format!("b{k}"))
            .collect::<Vec<_>>()
            .join(" ^ ")
    );
    s + EXP_READ_SINK
}
/// Gather probe, the floor of `lookup`'s `cells` schedule with random colours: the copy's
/// shape (16-byte load and store per invocation) plus, per pixel, one `bytes`-byte gather
/// (16 or 32) at a random place in a table of 2^18 entries (the 8 MiB of the cell table at
/// 32 bytes; the table is the head of the input buffer, so nothing else has to be bound). The
/// index comes from the pixel itself, as the lookup's cell does.
fn exp_gather(bytes: u32) -> String {
    let per = bytes / 16;
    let mut s = String::from("
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, 256u);
    if (i >= n.x) { return; }
    let s = src4[i];
    var o: vec4<u32>;
");
    for k in 0..4 {
        s += &format!(
            "    {{
        let e = (s[{k}] & 0x3FFFFu) * {per}u;
        var g = src4[e];
"
        );
        for j in 1..per {
            s += &format!(
                "        g ^= src4[e + {j}u];
"
            );
        }
        s += &format!(
            "        o[{k}] = g.x ^ g.y ^ g.z ^ g.w;
    }}
"
        );
    }
    s + "    dst4[i] = o;
}
"
}
/// Workgroups of the grid-stride read probes: 8 per SM of an H100/H200 (132 SMs), a full
/// wave of 2048 invocations per SM.
const EXP_READ_GROUPS: u32 = 132 * 8;

impl Filter for Experiment {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::WholeImage
    }
    fn def(&self) -> &'static FilterDef {
        &COPY_DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        Ok(vec![inputs[0]])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        Ok(vec![inputs[0].clone()])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let px = inputs[0].desc.gpu_bytes() / 4;
        let n = px.div_ceil(self.per_thread as u64) as u32;
        let header = if self.per_thread == 4 {
            EXP_HEADER
        } else {
            EXP_HEADER1
        };
        let mut k = Kernel::new(&format!("exp_{}", self.name), &[header], "main");
        k.generated = Some(self.wgsl.to_string());
        k.checks = self.checks;
        let (groups, stride) = match self.grid {
            Some(g) => ([g, 1, 1], g * 256),
            None => (groups_1d(n as u64, 256), 0),
        };
        rec.dispatch(
            &k,
            &[&inputs[0].buffer, &outputs[0].buffer],
            bytemuck::bytes_of(&[n, stride, 0, 0]),
            groups,
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

fn experiments() -> Vec<Experiment> {
    let all = Some(wgpu::ShaderRuntimeChecks::checked());
    let none = Some(wgpu::ShaderRuntimeChecks::unchecked());
    let e = |name, wgsl: &'static str, per_thread, checks| Experiment {
        name,
        wgsl: wgsl.into(),
        per_thread,
        checks,
        grid: None,
    };
    // read-only probes (`reduce`'s ceiling), with the device's default checks like the copy
    let read = |name, wgsl: String, grid| Experiment {
        name,
        wgsl: wgsl.into(),
        per_thread: 4,
        checks: None,
        grid,
    };
    vec![
        e("copy_vec4_checked", EXP_COPY_VEC4, 4, all),
        e("copy_vec4_unchecked", EXP_COPY_VEC4, 4, none),
        e("copy_u32_checked", EXP_COPY_U32, 1, all),
        e("copy_u32_unchecked", EXP_COPY_U32, 1, none),
        e("invert_u32_checked", EXP_INVERT_U32, 1, all),
        e("invert_u32_unchecked", EXP_INVERT_U32, 1, none),
        e("invert_vec4_loop_checked", EXP_INVERT_LOOP, 4, all),
        e("invert_vec4_loop_default", EXP_INVERT_LOOP, 4, None),
        e("invert_vec4_loop_unchecked", EXP_INVERT_LOOP, 4, none),
        e("invert_vec4_unrolled_checked", EXP_INVERT_UNROLLED, 4, all),
        e(
            "invert_vec4_unrolled_unchecked",
            EXP_INVERT_UNROLLED,
            4,
            none,
        ),
        read("read_vec4_flat", exp_read_flat(), None),
        // write-only: the floor of kernels that write an image and read little (resize up,
        // the decimated Gaussian's interpolation pass)
        e("write_vec4", EXP_WRITE_VEC4, 4, None),
        read("read_vec4_grid_u4", exp_read_grid(4), Some(EXP_READ_GROUPS)),
        read("read_vec4_grid_u8", exp_read_grid(8), Some(EXP_READ_GROUPS)),
        // copy plus one random gather per pixel from a 2^18-entry table: the `lookup` floor
        Experiment {
            name: "gather32_8mib",
            wgsl: exp_gather(32).into(),
            per_thread: 4,
            checks: None,
            grid: None,
        },
        Experiment {
            name: "gather16_4mib",
            wgsl: exp_gather(16).into(),
            per_thread: 4,
            checks: None,
            grid: None,
        },
    ]
}

/// The experiment cases: kernel shapes named `exp:<name>`, then every filter's alternative
/// schedules (`runtime::schedule`) on the operations of the performance targets, named
/// `<case> [<filter>=<variant>]`, so defaults and alternatives are timed in one run.
pub fn experiment_cases(width: u32, height: u32) -> Vec<BenchCase> {
    let mut v: Vec<BenchCase> = experiments()
        .iter()
        .map(|e| BenchCase::new(&format!("exp:{}", e.name), &format!("@exp:{}", e.name)))
        .collect();
    for (name, spec, overrides) in schedule_variants() {
        let label = format!("{name} [{overrides}]");
        // the upscaling case starts from a half-size image, as in `default_cases`
        let case = if name.contains("1080p->4K") {
            BenchCase::sized(&label, spec, width / 2, height / 2)
        } else {
            BenchCase::new(&label, spec)
        };
        // the Gray8 cases on the random image's luminance, as in `default_cases`
        let case = if name.ends_with("gray8") {
            case.gray8()
        } else {
            case
        };
        v.push(case.scheduled(overrides));
    }
    v
}

/// Alternative schedules worth timing against the defaults: (case name, spec, overrides).
fn schedule_variants() -> Vec<(&'static str, &'static str, &'static str)> {
    vec![
        // previous defaults, by name (docs/perf-notes.md, run 8 and 9; g5 for reduce's
        // scalar u4q16 and average_luminance_threshold's full reduce)
        ("reduce", "reduce", "reduce=u4q16"),
        ("reduce", "reduce", "reduce=swar"),
        // `dp4` with other loop shapes (the default is u4q16; q8 fills a wave at 4K, q32 a quarter)
        ("reduce", "reduce", "reduce=dp4_u8q16"),
        // software-pipelined loop (`_pf`, session 6) in several shapes
        ("reduce", "reduce", "reduce=dp4_pf"),
        ("reduce", "reduce", "reduce=dp4_pf_u2q16"),
        ("reduce", "reduce", "reduce=dp4_pf_u4q8"),
        ("reduce", "reduce", "reduce=dp4_pf_u2q8"),
        ("reduce", "reduce", "reduce=dp4_pf_u8q32"),
        ("reduce", "reduce", "reduce=swar_pf"),
        (
            "average_luminance_threshold",
            "average_luminance_threshold",
            "average_luminance_threshold=ysum_pf",
        ),
        (
            "average_luminance_threshold",
            "average_luminance_threshold",
            "average_luminance_threshold=reduce",
        ),
        ("histogram", "histogram", "histogram=u1q16"),
        ("mean_saturation", "mean_saturation", "mean_saturation=u1q8"),
        (
            "sobel_edge_detection",
            "sobel_edge_detection",
            "sobel_edge_detection=tile",
        ),
        ("lookup 512 LUT", "lookup(lut=@lut)", "lookup=tile"),
        // box_blur (session 8): the kernels with their marked loops unrolled (the defaults,
        // `sweep_short` below BLOCKS_FROM and `blocks_lb2` from it) against the same kernels
        // with loops (`_loops`, the defaults before: private arrays in local memory on
        // NVIDIA), and the other shapes unrolled
        ("box_blur 9x9", "box_blur(radius=4)", "box_blur=sweep_short"),
        (
            "box_blur 13x13",
            "box_blur(radius=6)",
            "box_blur=sweep_short_loops",
        ),
        (
            "box_blur 13x13",
            "box_blur(radius=6)",
            "box_blur=blocks_lb2",
        ),
        (
            "box_blur 17x17",
            "box_blur(radius=8)",
            "box_blur=sweep_short_loops",
        ),
        (
            "box_blur 17x17",
            "box_blur(radius=8)",
            "box_blur=blocks_lb2",
        ),
        (
            "box_blur 21x21",
            "box_blur(radius=10)",
            "box_blur=sweep_short_loops",
        ),
        (
            "box_blur 21x21",
            "box_blur(radius=10)",
            "box_blur=blocks_lb2",
        ),
        ("box_blur 9x9", "box_blur(radius=4)", "box_blur=blocks_lb2"),
        (
            "box_blur 31x31",
            "box_blur(radius=15)",
            "box_blur=sweep_short_loops",
        ),
        (
            "box_blur 31x31",
            "box_blur(radius=15)",
            "box_blur=blocks_lb2",
        ),
        ("box_blur 31x31", "box_blur(radius=15)", "box_blur=blocks"),
        (
            "box_blur 129x129",
            "box_blur(radius=64)",
            "box_blur=blocks_lb2_loops",
        ),
        ("box_blur 129x129", "box_blur(radius=64)", "box_blur=blocks"),
        (
            "box_blur 129x129",
            "box_blur(radius=64)",
            "box_blur=sweep_short",
        ),
        // bench-only ablation of `blocks` (wrong images): the walk without the horizontal pass
        (
            "box_blur 9x9",
            "box_blur(radius=4)",
            "box_blur=blocks_ablate_walk",
        ),
        // gaussian: the decimated schedule (default from sigma ~5.1, where its bound first
        // allows a node spacing) against the previous default, the register-blocked two
        // passes (`tile` names the default choice); one of its knobs
        // (gaussian_blur::DecimateOptions), the row pass from workgroup memory; and each of
        // its passes alone (bench-only ablations, wrong images)
        (
            "gaussian_blur s=5.5",
            "gaussian_blur(sigma=5.5)",
            "gaussian_blur=tile",
        ),
        (
            "gaussian_blur s=5.5",
            "gaussian_blur(sigma=5.5)",
            "gaussian_blur=twopass",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=twopass_packed",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=decimate_packed",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=decimate_h_only",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=decimate_v_only",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=decimate_up_only",
        ),
        // the f16 direct filter (`half`, the default from session 6) and its shapes, against
        // the f32 choice (fused tile, two passes) and f32 arithmetic in the same shape
        (
            "gaussian_blur s=2",
            "gaussian_blur(sigma=2)",
            "gaussian_blur=f32",
        ),
        (
            "gaussian_blur s=2",
            "gaussian_blur(sigma=2)",
            "gaussian_blur=half_f32",
        ),
        (
            "gaussian_blur s=2",
            "gaussian_blur(sigma=2)",
            "gaussian_blur=half_wg96",
        ),
        (
            "gaussian_blur s=2",
            "gaussian_blur(sigma=2)",
            "gaussian_blur=half_late",
        ),
        // session 8: finer occupancy steps at sigma 3 (111 registers: 4 workgroups of 128 per SM)
        (
            "gaussian_blur s=3",
            "gaussian_blur(sigma=3)",
            "gaussian_blur=half_wg96",
        ),
        (
            "gaussian_blur s=3",
            "gaussian_blur(sigma=3)",
            "gaussian_blur=half_early",
        ),
        (
            "gaussian_blur s=2.5",
            "gaussian_blur(sigma=2.5)",
            "gaussian_blur=half_early",
        ),
        (
            "gaussian_blur s=2.5",
            "gaussian_blur(sigma=2.5)",
            "gaussian_blur=half_late",
        ),
        (
            "gaussian_blur s=4",
            "gaussian_blur(sigma=4)",
            "gaussian_blur=half_late",
        ),
        (
            "gaussian_blur s=2",
            "gaussian_blur(sigma=2)",
            "gaussian_blur=half_nb2",
        ),
        (
            "gaussian_blur s=2",
            "gaussian_blur(sigma=2)",
            "gaussian_blur=half_nf3",
        ),
        (
            "gaussian_blur s=3",
            "gaussian_blur(sigma=3)",
            "gaussian_blur=f32",
        ),
        (
            "gaussian_blur s=3",
            "gaussian_blur(sigma=3)",
            "gaussian_blur=half_f32",
        ),
        (
            "gaussian_blur s=3",
            "gaussian_blur(sigma=3)",
            "gaussian_blur=half_nb2",
        ),
        (
            "gaussian_blur s=4",
            "gaussian_blur(sigma=4)",
            "gaussian_blur=f32",
        ),
        (
            "gaussian_blur s=4",
            "gaussian_blur(sigma=4)",
            "gaussian_blur=tile",
        ),
        (
            "gaussian_blur s=4",
            "gaussian_blur(sigma=4)",
            "gaussian_blur=half_f32",
        ),
        (
            "gaussian_blur s=4",
            "gaussian_blur(sigma=4)",
            "gaussian_blur=half_nf4",
        ),
        (
            "gaussian_blur s=4.6",
            "gaussian_blur(sigma=4.6)",
            "gaussian_blur=f32",
        ),
        (
            "gaussian_blur s=4.6",
            "gaussian_blur(sigma=4.6)",
            "gaussian_blur=tile",
        ),
        (
            "gaussian_blur s=4.6",
            "gaussian_blur(sigma=4.6)",
            "gaussian_blur=half_f32",
        ),
        // radius 15 in f16 (session 7: sigma 4.7-5.0, before it the decimated schedule at 4.7
        // and 4.8 and the two passes at 4.9 and 5.0)
        (
            "gaussian_blur s=4.8",
            "gaussian_blur(sigma=4.8)",
            "gaussian_blur=tile",
        ),
        (
            "gaussian_blur s=4.8",
            "gaussian_blur(sigma=4.8)",
            "gaussian_blur=decimate",
        ),
        (
            "gaussian_blur s=5",
            "gaussian_blur(sigma=5)",
            "gaussian_blur=tile",
        ),
        (
            "gaussian_blur s=5",
            "gaussian_blur(sigma=5)",
            "gaussian_blur=twopass",
        ),
        (
            "gaussian_blur s=5",
            "gaussian_blur(sigma=5)",
            "gaussian_blur=half_nf4",
        ),
        // the column pass first (default from session 6) against the row pass first (`rf`)
        // at every node spacing of the targets' sigmas; row-pass B and node rows transposed
        (
            "gaussian_blur s=5.5",
            "gaussian_blur(sigma=5.5)",
            "gaussian_blur=decimate_rf",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=decimate_rf",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=decimate_cf_b4",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=decimate_cf_b6",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=decimate_cf_v_only",
        ),
        (
            "gaussian_blur s=8",
            "gaussian_blur(sigma=8)",
            "gaussian_blur=decimate_cf_h_only",
        ),
        (
            "gaussian_blur s=12",
            "gaussian_blur(sigma=12)",
            "gaussian_blur=decimate_rf",
        ),
        (
            "gaussian_blur s=12",
            "gaussian_blur(sigma=12)",
            "gaussian_blur=decimate_cf_b5",
        ),
        (
            "gaussian_blur s=12",
            "gaussian_blur(sigma=12)",
            "gaussian_blur=decimate_cf_b7",
        ),
        (
            "gaussian_blur s=16",
            "gaussian_blur(sigma=16)",
            "gaussian_blur=decimate_rf",
        ),
        (
            "gaussian_blur s=16",
            "gaussian_blur(sigma=16)",
            "gaussian_blur=decimate_cf_b5",
        ),
        (
            "gaussian_blur s=24",
            "gaussian_blur(sigma=24)",
            "gaussian_blur=decimate_rf",
        ),
        (
            "gaussian_blur s=24",
            "gaussian_blur(sigma=24)",
            "gaussian_blur=decimate_cf_b5",
        ),
        (
            "gaussian_blur s=32",
            "gaussian_blur(sigma=32)",
            "gaussian_blur=decimate_rf",
        ),
        (
            "gaussian_blur s=32",
            "gaussian_blur(sigma=32)",
            "gaussian_blur=decimate_cf_b3",
        ),
        (
            "gaussian_blur s=32",
            "gaussian_blur(sigma=32)",
            "gaussian_blur=decimate_cf_b5",
        ),
        (
            "gaussian_blur s=32",
            "gaussian_blur(sigma=32)",
            "gaussian_blur=decimate_cf_tr",
        ),
        (
            "gaussian_blur s=12",
            "gaussian_blur(sigma=12)",
            "gaussian_blur=tile",
        ),
        (
            "gaussian_blur s=12",
            "gaussian_blur(sigma=12)",
            "gaussian_blur=twopass_packed",
        ),
        (
            "gaussian_blur s=16",
            "gaussian_blur(sigma=16)",
            "gaussian_blur=tile",
        ),
        (
            "gaussian_blur s=24",
            "gaussian_blur(sigma=24)",
            "gaussian_blur=tile",
        ),
        (
            "gaussian_blur s=32",
            "gaussian_blur(sigma=32)",
            "gaussian_blur=twopass_packed",
        ),
        (
            "gaussian_blur s=32",
            "gaussian_blur(sigma=32)",
            "gaussian_blur=decimate_h_only",
        ),
        (
            "gaussian_blur s=32",
            "gaussian_blur(sigma=32)",
            "gaussian_blur=decimate_v_only",
        ),
        (
            "gaussian_blur s=32",
            "gaussian_blur(sigma=32)",
            "gaussian_blur=decimate_up_only",
        ),
        // the medians' block networks (median_net.rs; the default u32_4x2) against each other and the forgetful selection per output they replaced
        // (`rows4p` the 3x3 default before, `tile` the 5x5 one)
        ("median_3x3", "median_3x3", "median_3x3=rows4p"),
        ("median_3x3", "median_3x3", "median_3x3=tile"),
        ("median_3x3", "median_3x3", "median_3x3=f16_4x1"),
        ("median_3x3", "median_3x3", "median_3x3=f16_4x4"),
        ("median_3x3", "median_3x3", "median_3x3=u32_4x1"),
        ("median_3x3", "median_3x3", "median_3x3=f16_4x2"),
        ("median_3x3", "median_3x3", "median_3x3=u32_4x4"),
        ("median_5x5", "median_5x5", "median_5x5=tile"),
        ("median_5x5", "median_5x5", "median_5x5=f16_4x1"),
        ("median_5x5", "median_5x5", "median_5x5=f16_2x2"),
        ("median_5x5", "median_5x5", "median_5x5=u32_4x1"),
        ("median_5x5", "median_5x5", "median_5x5=f16_4x2"),
        ("median_5x5", "median_5x5", "median_5x5=u32_2x2"),
        // bilateral r=5 (issue 15): the kernel before the tile kernels (`direct`), the tile with
        // 4 output rows per invocation (the default has 2), and the range weight from OpenCV's table
        ("bilateral", "bilateral", "bilateral=direct"),
        ("bilateral", "bilateral", "bilateral=tile"),
        ("bilateral", "bilateral", "bilateral=tile_lut"),
        ("bilateral gray8", "bilateral", "bilateral=direct"),
        ("bilateral gray8", "bilateral", "bilateral=tile"),
        ("bilateral gray8", "bilateral", "bilateral=tile_lut"),
        // the luminance stencils' vec4 window (`rows4`, the default before `rows4s`'s scalars)
        (
            "prewitt_edge_detection",
            "prewitt_edge_detection",
            "prewitt_edge_detection=rows4",
        ),
        ("sketch", "sketch", "sketch=rows4"),
        (
            "threshold_edge_detection",
            "threshold_edge_detection",
            "threshold_edge_detection=rows4",
        ),
        (
            "threshold_sketch",
            "threshold_sketch",
            "threshold_sketch=rows4",
        ),
        ("xy_derivative", "xy_derivative", "xy_derivative=rows4"),
        (
            "local_binary_pattern",
            "local_binary_pattern",
            "local_binary_pattern=rows4",
        ),
        // per-channel ops through a 256-entry table in workgroup memory (filters::pixel)
        ("gamma", "gamma", "gamma=pixel"),
        // morphology, one pass alone (bench-only ablations that give wrong images; see
        // ROWS_ONLY in filters/morphology/separable.rs)
        ("dilation 15x15", "dilation(radius=7)", "dilation=rows_only"),
        ("dilation 15x15", "dilation(radius=7)", "dilation=cols_only"),
        (
            "dilation 65x65",
            "dilation(radius=32)",
            "dilation=rows_only",
        ),
        (
            "dilation 65x65",
            "dilation(radius=32)",
            "dilation=cols_only",
        ),
        // morphology: one pass for small radii (`window`, session 6) and its shapes
        // (the default at radius 1) against the two passes, and at radius 2
        ("dilation 3x3", "dilation(radius=1)", "dilation=twopass"),
        ("dilation 3x3", "dilation(radius=1)", "dilation=window_th32"),
        ("dilation 5x5", "dilation(radius=2)", "dilation=twopass"),
        ("dilation 5x5", "dilation(radius=2)", "dilation=window"),
        // morphology: wider row tiles, blocks of up to 33 in the row pass, and the streaming
        // column pass (filters/morphology/separable.rs: WIDE, WIDE16, VSTREAM; the default
        // picks by radius), against `twopass`, the default before run g3
        ("dilation 15x15", "dilation(radius=7)", "dilation=wide"),
        ("dilation 31x31", "dilation(radius=15)", "dilation=twopass"),
        (
            "dilation 31x31",
            "dilation(radius=15)",
            "dilation=wide_vstream",
        ),
        ("dilation 65x65", "dilation(radius=32)", "dilation=twopass"),
        ("dilation 65x65", "dilation(radius=32)", "dilation=wide"),
        (
            "dilation 65x65",
            "dilation(radius=32)",
            "dilation=wide16_vstream",
        ),
        // morphology in one pass (`onepass`, session 7: van Herk down the columns in
        // registers, along the rows from workgroup memory; the default from radius 2 to
        // ONEPASS_UP_TO) against the two passes, around the switch, and shapes
        ("dilation 3x3", "dilation(radius=1)", "dilation=onepass_nv"),
        (
            "dilation 5x5",
            "dilation(radius=2)",
            "dilation=onepass_nv_m3",
        ),
        ("dilation 7x7", "dilation(radius=3)", "dilation=twopass"),
        (
            "dilation 7x7",
            "dilation(radius=3)",
            "dilation=onepass_nv_m2",
        ),
        ("dilation 15x15", "dilation(radius=7)", "dilation=twopass"),
        ("dilation 15x15", "dilation(radius=7)", "dilation=onepass"),
        (
            "dilation 15x15",
            "dilation(radius=7)",
            "dilation=onepass_nv_hb4",
        ),
        ("dilation 17x17", "dilation(radius=8)", "dilation=twopass"),
        (
            "dilation 17x17",
            "dilation(radius=8)",
            "dilation=onepass_nv",
        ),
        ("dilation 19x19", "dilation(radius=9)", "dilation=twopass"),
        (
            "dilation 19x19",
            "dilation(radius=9)",
            "dilation=onepass_nv",
        ),
        ("dilation 21x21", "dilation(radius=10)", "dilation=twopass"),
        (
            "dilation 21x21",
            "dilation(radius=10)",
            "dilation=onepass_nv",
        ),
        ("dilation 23x23", "dilation(radius=11)", "dilation=wide"),
        (
            "dilation 23x23",
            "dilation(radius=11)",
            "dilation=onepass_nv",
        ),
        (
            "dilation 23x23",
            "dilation(radius=11)",
            "dilation=onepass_nv_wg128",
        ),
        ("dilation 27x27", "dilation(radius=13)", "dilation=wide"),
        (
            "dilation 27x27",
            "dilation(radius=13)",
            "dilation=onepass_nv_wg128",
        ),
        ("dilation 29x29", "dilation(radius=14)", "dilation=wide"),
        (
            "dilation 29x29",
            "dilation(radius=14)",
            "dilation=onepass_nv_wg128",
        ),
        (
            "dilation 31x31",
            "dilation(radius=15)",
            "dilation=onepass_nv_wg128",
        ),
        (
            "dilation 21x21",
            "dilation(radius=10)",
            "dilation=onepass_nv_wg128",
        ),
        (
            "dilation 31x31",
            "dilation(radius=15)",
            "dilation=onepass_nv",
        ),
        ("erosion 15x15", "erosion(radius=7)", "erosion=twopass"),
        // resize: the row-walking kernel with 8 rows per invocation and the previous default
        // (`quads`) against the default (`rows16`)
        ("resize 1080p->4K", "resize(scale=2)", "resize=rows"),
        ("resize 1080p->4K", "resize(scale=2)", "resize=quads"),
        ("resize 1080p->4K", "resize(scale=2)", "resize=rows16_mu"),
        (
            "resize 1080p->4K",
            "resize(scale=2)",
            "resize=rows16_ablate_round",
        ),
        ("resize 1080p->4K", "resize(scale=2)", "resize=rows32"),
        ("resize 1080p->4K", "resize(scale=2)", "resize=rows64"),
        ("resize 4K->1080p", "resize(scale=0.5)", "resize=rows_any"),
        // seed 004's workgroup-memory tile against the defaults (rows16 up, quads down)
        ("resize 1080p->4K", "resize(scale=2)", "resize=tile"),
        ("resize 4K->1080p", "resize(scale=0.5)", "resize=tile"),
        // seed 004's hardware sampling (the input copied into a texture first, in the time)
        ("resize 1080p->4K", "resize(scale=2)", "resize=texture"),
        ("resize 4K->1080p", "resize(scale=0.5)", "resize=texture"),
        // bicubic and lanczos3: one output's taps per invocation against the default's row sums
        // shared through workgroup memory (`general_tile`)
        (
            "resize bicubic 1080p->4K",
            "resize(scale=2, method=bicubic)",
            "resize=general_direct",
        ),
        (
            "resize lanczos3 1080p->4K",
            "resize(scale=2, method=lanczos3)",
            "resize=general_direct",
        ),
        // the remap template with four outputs and one 16-byte store per invocation (`quads`)
        // against the default (one output per invocation)
        ("swirl", "swirl", "swirl=quads"),
        (
            "bulge_distortion",
            "bulge_distortion",
            "bulge_distortion=quads",
        ),
        ("pixellate", "pixellate", "pixellate=quads"),
        ("polka_dot", "polka_dot", "polka_dot=quads"),
        ("motion_blur", "motion_blur", "motion_blur=quads"),
    ]
}

/// Arithmetic-only kernel that keeps every SM busy: the GPU's clock governor only raises
/// the clocks under sustained load. Measured on the H200 (run 7, nvidia-smi sampled every
/// 250 ms): between cases, while the CPU builds the next case's images, the SM clock fell to
/// 825-1500 MHz, and a 300 ms warm-up of short submissions did not bring it back to 1980 MHz;
/// the same kernel then measured up to 1.3x slower in a later repetition. So each timed
/// submission now starts with ~`SPIN_MS` of this kernel, and ends with a short one whose
/// FLOP rate shows the clock at the end of the measurement.
const SPIN_WGSL: &str = "
@group(0) @binding(0) var<storage, read_write> sink: array<f32>;
@group(0) @binding(1) var<uniform> spin: vec4<u32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
    var a = f32(g.x) * 1e-7;
    var b = a + 0.5;
    var c = a + 0.25;
    var d = a + 0.125;
    for (var i = 0u; i < spin.x; i++) {
        a = fma(a, 0.9999999, 1e-7);
        b = fma(b, 0.9999999, 1e-7);
        c = fma(c, 0.9999999, 1e-7);
        d = fma(d, 0.9999999, 1e-7);
    }
    // never true; keeps the loop from being optimised away
    if (a + b + c + d == -1.0) { sink[0] = a; }
}";
const SPIN_GROUPS: u32 = 4096;
/// Spin ahead of every timed submission, in ms at the calibrated rate.
const SPIN_MS: f64 = 150.0;
/// Iterations of the end-of-run clock probe.
const PROBE_ITERS: u32 = 256;

struct Spin {
    sink: wgpu::Buffer,
}

impl Spin {
    fn new(gpu: &Gpu) -> Self {
        let sink = gpu.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("bench.spin"),
            size: 256,
            usage: wgpu::BufferUsages::STORAGE,
            mapped_at_creation: false,
        });
        Self { sink }
    }
    /// FMAs of one dispatch of `iters` iterations.
    fn fmas(iters: u32) -> f64 {
        SPIN_GROUPS as f64 * 256.0 * 4.0 * iters as f64
    }
    /// Records one spin dispatch in its own pass, with timestamps at `query` if given.
    fn record(
        &self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        iters: u32,
        query: Option<(&wgpu::QuerySet, u32)>,
    ) -> Result<()> {
        let mut rec = NodeRecorder::new(gpu);
        let mut k = Kernel::new("bench.spin", &[SPIN_WGSL], "main");
        // The loop is bounded by a uniform; wgpu's own loop bound would only add work.
        k.checks = None;
        rec.dispatch(
            &k,
            &[&self.sink],
            bytemuck::bytes_of(&[iters, 0u32, 0, 0]),
            [SPIN_GROUPS, 1, 1],
        )?;
        let tw = query.map(|(q, i)| wgpu::ComputePassTimestampWrites {
            query_set: q,
            beginning_of_pass_write_index: Some(i),
            end_of_pass_write_index: Some(i + 1),
        });
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("bench.spin"),
            timestamp_writes: tw,
        });
        rec.encode_dispatches(&mut pass);
        Ok(())
    }
}

/// Spin iterations per ms, measured once per process (at whatever clock the GPU has then:
/// the spin only needs to be long enough, not exact).
fn spin_iters_per_ms(gpu: &Arc<Gpu>, spin: &Spin) -> Result<f64> {
    static RATE: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    if let Some(r) = RATE.get() {
        return Ok(*r);
    }
    let qs = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
        label: Some("bench.spin"),
        ty: wgpu::QueryType::Timestamp,
        count: 2,
    });
    let resolve = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("bench.spin.resolve"),
        size: 16,
        usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    // Start small (a software rasteriser would take minutes at GPU sizes), grow to >= 1 ms.
    let mut iters = 16u32;
    let rate = loop {
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let staging = gpu.scoped(|| -> Result<_> {
            spin.record(gpu, &mut encoder, iters, None)?;
            spin.record(gpu, &mut encoder, iters, Some((&qs, 0)))?;
            encoder.resolve_query_set(&qs, 0..2, &resolve, 0);
            Ok(gpu.read_buffers(&mut encoder, &[(&resolve, 16)]))
        })??;
        gpu.scoped(|| gpu.queue.submit([encoder.finish()]))?;
        let raw = gpu.map_all(&staging)?;
        let word = |i: usize| {
            raw[0]
                .get(i * 8..i * 8 + 8)
                .and_then(|b| b.try_into().ok())
                .map(u64::from_le_bytes)
                .ok_or_else(|| Error::Gpu("short timestamp read".into()))
        };
        let ms = (word(1)?.saturating_sub(word(0)?) as f64
            * gpu.queue.get_timestamp_period() as f64
            / 1e6)
            .max(1e-4);
        if ms >= 1.0 || iters >= 1 << 24 {
            break iters as f64 / ms;
        }
        iters = (iters as f64 * (2.0 / ms).min(64.0)).ceil() as u32;
    };
    Ok(*RATE.get_or_init(|| rate))
}

#[cfg(test)]
mod tests {
    //! The read-only probes must read every quad of the image exactly once: with the sink
    //! replaced by an unconditional store of each invocation's xor, the xor of all stores
    //! must equal the xor of the whole input (a quad skipped is missing from it, a quad read
    //! twice cancels out).
    use super::*;
    use crate::runtime::test_support;

    fn xor_of_stores(
        gpu: &Gpu,
        name: &str,
        wgsl: &str,
        words: &[u32],
        groups: [u32; 3],
        stride: u32,
    ) -> [u32; 4] {
        let quads = (words.len() / 4) as u32;
        let invocations = groups.iter().product::<u32>() as u64 * 256;
        // pipelines are cached by key: one per probe
        let mut k = Kernel::new(&format!("test.exp_{name}"), &[EXP_HEADER], "main");
        k.generated = Some(wgsl.replace(EXP_READ_SINK, "    dst4[i] = acc;\n}\n"));
        let raw = test_support::run_once(
            gpu,
            &k,
            bytemuck::cast_slice(words),
            invocations * 16,
            bytemuck::bytes_of(&[quads, stride, 0, 0]),
            groups,
        );
        let out: &[u32] = bytemuck::cast_slice(&raw);
        let mut x = [0u32; 4];
        for q in out.chunks_exact(4) {
            for c in 0..4 {
                x[c] ^= q[c];
            }
        }
        x
    }

    /// The write-only probe writes every quad its index-made value.
    #[test]
    fn write_probe_writes_every_quad() {
        let gpu = test_support::gpu();
        let quads = 1000u32;
        let mut k = Kernel::new("test.exp_write_vec4", &[EXP_HEADER], "main");
        k.generated = Some(EXP_WRITE_VEC4.to_string());
        let input = vec![7u8; quads as usize * 16];
        let raw = test_support::run_once(
            &gpu,
            &k,
            &input,
            quads as u64 * 16,
            bytemuck::bytes_of(&[quads, 0u32, 0, 0]),
            groups_1d(quads as u64, 256),
        );
        let out: &[u32] = bytemuck::cast_slice(&raw);
        for (i, q) in out.chunks_exact(4).enumerate() {
            let i = i as u32;
            assert_eq!(q, [i, i ^ 0x55555555, i.wrapping_mul(3), !i], "quad {i}");
        }
    }

    #[test]
    fn read_probes_read_every_quad_once() {
        let gpu = test_support::gpu();
        let mut s = 0x243F6A8885A308D3u64;
        // quad counts around whole loop iterations of a 2-group grid (stride 512) and more
        for quads in [
            1u32,
            511,
            512,
            513,
            2047,
            2048,
            2049,
            4 * 512 + 3 * 512 + 7,
            9 * 512 - 1,
            20000,
        ] {
            let words: Vec<u32> = (0..quads * 4)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    s as u32
                })
                .collect();
            let mut want = [0u32; 4];
            for q in words.chunks_exact(4) {
                for c in 0..4 {
                    want[c] ^= q[c];
                }
            }
            assert_eq!(
                xor_of_stores(
                    &gpu,
                    "read_flat",
                    &exp_read_flat(),
                    &words,
                    groups_1d(quads as u64, 256),
                    0
                ),
                want,
                "flat, {quads} quads"
            );
            for loads in [4, 8] {
                assert_eq!(
                    xor_of_stores(
                        &gpu,
                        &format!("read_grid_u{loads}"),
                        &exp_read_grid(loads),
                        &words,
                        [2, 1, 1],
                        512
                    ),
                    want,
                    "grid u{loads}, {quads} quads"
                );
            }
        }
    }
}
