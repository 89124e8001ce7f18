//! 256-bin histograms of R, G, B, BT.601 luma Y and alpha as `DataKind::Histogram` data. Matches
//! GPUImage's `GPUImageHistogramFilter` (its RGB and luminance modes at once), with exact
//! integer counts instead of GPUImage's blended point sprites.
//!
//! GPU: each workgroup builds a private 1024-bin histogram in workgroup memory (workgroup
//! atomics) over a grid-stride loop of 16-byte pixel quads, then adds its non-zero bins to the
//! global histogram with one atomic each.

use rayon::prelude::*;

use super::{check_quads, grid, GridParams, LoopShape, GRID_WGSL};
use crate::error::Result;
use crate::graph::params::{choice_index, ParamDef};
use crate::image::{luma601, Image, ImageDesc};
use crate::runtime::{GpuSlot, Kernel, NodeRecorder};
use crate::value::Data;

const WGSL: &str = include_str!("histogram.wgsl");
/// Workgroup size. Schedule choice, not algorithm; mirrors `HISTOGRAM_WG` in histogram.wgsl.
const HISTOGRAM_WG: u32 = 256;
/// The default loop shape (H200 at 4K). Session 25 (calls 2-4, random / photo-like pictures,
/// ms): u2q16 with `ax2` 0.0332 / 0.0370, u4q16 `ax2` 0.0337 / 0.0375, u4q32 `ax2` 0.0354 /
/// 0.0378, u8q16 `ax2` 0.0347 / 0.0382; the former default u8q32 0.0364 / 0.0490 (plain).
/// Earlier runs (four channels then): docs/perf-notes.md, "Histogram loop shape".
fn choose_loop() -> LoopShape {
    LoopShape {
        unroll: 2,
        quads_per_thread: 16,
    }
}

/// How the histogram adds: a quad of equal alphas once or not (histogram.wgsl's
/// `add_quad_alpha`, schedule suffix `a`), and copies of the workgroup's histogram (suffix
/// `x2`, `x4`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Adding {
    quad_alpha: bool,
    copies: u32,
}

/// The default way of adding: quads of equal alpha once, two copies. H200, u4q16, random /
/// photo-like pictures (session 25, call 4, ms): plain 0.0335 / 0.0477, `a` 0.0338 / 0.0446,
/// `x2` 0.0331 / 0.0484, `x4` 0.0351 / 0.0380, `ax2` 0.0337 / 0.0375, `ax4` 0.0361 / 0.0339.
fn choose_adding() -> Adding {
    Adding {
        quad_alpha: true,
        copies: 2,
    }
}

/// The schedule names the equivalence tests run: the loop shapes, and some with quads of
/// equal alpha added once (`a`) or copies (`x2`, `x4`).
const VARIANTS: &[&str] = &[
    "u1q8", "u2q8", "u4q4", "u1q16", "u4q16", "u8q8", "u8q32", "u8q32a", "u1q8a", "u4q16a",
    "u4q16x2", "u4q16ax4", "u1q8ax2",
];

/// The run's loop shape and way of adding: its override (`u<U>q<Q>`, then `a` for the quads
/// of equal alpha, then `x2` or `x4` for copies) or the defaults.
fn schedule(rec: &NodeRecorder<'_>) -> Result<(LoopShape, Adding)> {
    let Some(v) = rec.schedule(DEF.name) else {
        return Ok((choose_loop(), choose_adding()));
    };
    let (rest, copies) = match (v.strip_suffix("x2"), v.strip_suffix("x4")) {
        (Some(r), _) => (r, 2),
        (_, Some(r)) => (r, 4),
        _ => (v, 1),
    };
    let (base, quad_alpha) = match rest.strip_suffix('a') {
        Some(base) => (base, true),
        None => (rest, false),
    };
    LoopShape::parse(base)
        .map(|s| (s, Adding { quad_alpha, copies }))
        .ok_or_else(|| {
            crate::runtime::schedule::unknown(
                DEF.name,
                v,
                &["u<1..16>q<1..64>[a][x2|x4], e.g. u4q16ax2"],
            )
        })
}

impl Histogram {
    /// Pixel counts.
    pub fn new() -> Self {
        Self {
            weight_by_alpha: false,
        }
    }
    /// Each pixel adds its alpha (0-255) to its bins instead of 1.
    pub fn weighted_by_alpha() -> Self {
        Self {
            weight_by_alpha: true,
        }
    }
    /// Alpha sums fit the 32-bit bins.
    fn check_size(&self, d: ImageDesc) -> Result<()> {
        if self.weight_by_alpha && d.pixels() as u64 > MAX_WEIGHTED_PIXELS {
            return Err(crate::Error::invalid(format!(
                "`histogram(weight=alpha)` takes images of at most {MAX_WEIGHTED_PIXELS} pixels (its 32-bit bins hold sums of alpha); this one has {}",
                d.pixels()
            )));
        }
        Ok(())
    }
}

/// Most pixels an alpha-weighted histogram takes: its 32-bit bins hold sums of alpha.
pub const MAX_WEIGHTED_PIXELS: u64 = u32::MAX as u64 / 255;

/// The `weight` parameter's options.
const WEIGHTS: &[&str] = &["none", "alpha"];

crate::reduction_filter! {
    /// Histograms of R, G, B, Y and A (256 bins each) of an RGBA8 image: pixel counts, or sums of
    /// alpha (`weight_by_alpha`).
    pub struct Histogram {
        /// Each pixel adds its alpha instead of 1.
        pub weight_by_alpha: bool,
    }
    name: "histogram",
    gpuimage: "GPUImageHistogramFilter",
    summary: "256-bin histograms of R, G, B, BT.601 luma and alpha (histogram data).",
    doc: "Output is `histogram` data: exact pixel counts per 8-bit level for r, g, b, y \
(BT.601 luma, round(0.299R + 0.587G + 0.114B)) and a; each channel's bins sum to width*height. \
With weight=alpha each pixel adds its alpha instead of 1 (exact integer sums; each channel's bins sum to the \
image's alpha sum; images up to 16843009 pixels, as the 32-bit bins hold sums of alpha). \
GPU: per-workgroup histograms in workgroup memory, merged with one atomic per non-empty bin.",
    params: [ParamDef::choice("weight", "none", WEIGHTS, "none: each pixel counts 1; alpha: each pixel adds its alpha (0-255), so transparent pixels do not count (the RGBY article's alpha weighting)")],
    build: |a| Histogram { weight_by_alpha: choice_index(&DEF, "weight", a.choice("weight")?)? == 1 },
    formats: [Rgba8],
    outputs: { histogram: Histogram },
    check: |f, d| f.check_size(d),
    uniforms: [GridParams::layout(GRID_WGSL)],
    schedules: VARIANTS,
    merges_partials: true,
    cpu: |f, img| Data::Histogram(histogram_cpu(img, f.weight_by_alpha)),
    gpu: record,
}

/// CPU twin of `histogram.wgsl`.
pub fn histogram_cpu(img: &Image, weight_by_alpha: bool) -> crate::value::Histogram {
    let bins = img
        .as_u8()
        .par_chunks(4 * 4096)
        .map(|chunk| {
            let mut b = [[0u32; 256]; 5];
            for p in chunk.chunks_exact(4) {
                let w = if weight_by_alpha { p[3] as u32 } else { 1 };
                b[0][p[0] as usize] += w;
                b[1][p[1] as usize] += w;
                b[2][p[2] as usize] += w;
                b[3][luma601(p[0], p[1], p[2]) as usize] += w;
                b[4][p[3] as usize] += w;
            }
            b
        })
        .reduce(
            || [[0u32; 256]; 5],
            |mut a, b| {
                for (x, y) in a.iter_mut().flatten().zip(b.iter().flatten()) {
                    *x += y;
                }
                a
            },
        );
    crate::value::Histogram {
        bins,
        space: crate::HistogramSpace::Rgb,
    }
}

/// Records the kernel: per-workgroup histograms merged into the global one.
fn record(
    f: &Histogram,
    rec: &mut NodeRecorder<'_>,
    input: &GpuSlot,
    output: &GpuSlot,
    d: ImageDesc,
) -> Result<()> {
    let count = d.pixels() as u64;
    let (shape, mut adding) = schedule(rec)?;
    // the copies must fit the device's workgroup memory (WebGPU's minimum is 16 KiB: two
    // copies of 1280 bins take 10 KiB, four 20 KiB); fewer copies count the same
    let limit = rec.gpu().limits.max_compute_workgroup_storage_size;
    while adding.copies > 1 && adding.copies * 1280 * 4 > limit {
        adding.copies /= 2;
    }
    let g = grid(
        count,
        HISTOGRAM_WG,
        shape.quads_per_thread,
        f.weight_by_alpha as u32,
    )?;
    check_quads(input, count)?;
    rec.clear(&output.buffer);
    let mut kernel = Kernel::new(
        &format!(
            "analysis.histogram.{}.a{}.x{}",
            shape.key(),
            adding.quad_alpha as u32,
            adding.copies
        ),
        &[GridParams::WGSL, GRID_WGSL, WGSL],
        "histogram",
    );
    let visit = if adding.quad_alpha {
        shape.visit_pixels_wgsl_with("add_quad_alpha(a);")
    } else {
        shape.visit_pixels_wgsl()
    };
    kernel.generated = Some(format!("const COPIES: u32 = {}u;\n{visit}", adding.copies));
    rec.dispatch(
        &kernel,
        &[&input.buffer, &output.buffer],
        bytemuck::bytes_of(&g.params),
        g.groups,
    )
}
