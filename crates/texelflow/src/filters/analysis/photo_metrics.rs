//! The photo assessment's measurements in one pass (`DataKind::PhotoMetrics`): exact integer
//! sums for sharpness (Sobel energy, Laplacian), noise (Immerkaer 1996), colourfulness
//! (Hasler & Süsstrunk 2003) and mean saturation, and the BT.601 luma histogram for exposure
//! and contrast; `crate::assess::Assessment` derives the measures and the 0-100 score. The
//! Laplacian is OpenCV's `cv2.Laplacian(ksize=1)` with `BORDER_REPLICATE` and the Sobel
//! derivatives `cv2.Sobel(ksize=3)` with it (both compared in scripts/opencv_compare.py);
//! GPUImage has no equivalent (PhotoAssessment ran MPS's Sobel, then reduced on the CPU).
//!
//! GPU: one kernel. A workgroup of 16x16 walks 4 tiles of 64x16 pixels down a strip, loads
//! each tile's luma with a replicated 1-pixel halo into workgroup memory (adding the colour
//! sums and the luma histogram of the tile's own pixels while loading), takes the 3x3 stencils
//! from there, and adds its partial sums with one 64-bit atomic add (lo/hi words with carry)
//! per sum and one atomic per non-empty histogram bin. The fused `photo_assessment` node runs
//! the same kernel with the colour fingerprint counted in the loading loop as well
//! (`record_metrics` with a fingerprint).

use rayon::prelude::*;

use super::color_fingerprint::{fingerprint_generated, BINS_WGSL};
use super::mean_saturation::saturation_fixed;
use super::subgroup_shim;
use crate::error::{Error, Result};
use crate::filters::registry::{FilterDef, UniformLayout};
use crate::image::{luma601, Image, ImageDesc};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{GpuSlot, Kernel, NodeRecorder};
use crate::value::photo::{FingerprintLayout, PhotoMetrics as Sums};
use crate::value::Data;

const WGSL: &str = include_str!("photo_metrics.wgsl");
/// photo_metrics.wgsl's hooks for the metrics alone.
const PLAIN_WGSL: &str = include_str!("photo_metrics_plain.wgsl");
/// Its hooks for the fused pass: the colour fingerprint too.
const FINGERPRINT_WGSL: &str = include_str!("photo_metrics_fingerprint.wgsl");
/// Pixels a workgroup covers: 64 wide (TW), 4 tiles of 16 high (TILES x TH). Schedule choice;
/// mirrors photo_metrics.wgsl.
const STRIP_W: u32 = 64;
const STRIP_H: u32 = 64;
/// Workgroup memory of photo_metrics.wgsl: the halo tile (1188 words), the luma histogram
/// (256) and the partial sums (18).
const METRICS_WG_BYTES: usize = (1188 + 256 + 18) * 4;
/// Most fingerprint bins the fused pass counts in workgroup memory: what WebGPU's guaranteed
/// 16 KiB leave beside the metrics' own (2634 words; 2048 at the default grid 2, bits 3).
/// Larger fingerprints count straight into global memory, as color_fingerprint's beyond 4096.
const FUSED_WG_BINS_MAX: usize = (16384 - METRICS_WG_BYTES) / 4;

uniform_struct! {
    /// Uniform of photo_metrics.wgsl.
    pub struct MetricsParams {
        pub width: u32,
        pub height: u32,
        /// The fingerprint's `FingerprintLayout` in the fused pass; zero for the metrics alone.
        pub fp_rows: u32,
        pub fp_cols: u32,
        pub fp_v_step: u32,
        pub fp_h_step: u32,
    }
}

/// `MetricsParams` for the uniform layout test (shared with photo_assessment's DEF).
pub(crate) const METRICS_UNIFORM: UniformLayout = MetricsParams::layout("");

crate::reduction_filter! {
    /// Raw sums of the photo assessment (no parameters).
    pub struct PhotoMetrics;
    name: "photo_metrics",
    gpuimage: "",
    summary: "Photo assessment sums in one pass: Sobel energy, Laplacian, noise, colourfulness, saturation, luma histogram (photo_metrics data).",
    doc: "Output is `photo_metrics` data: exact integer sums over the image of gx^2 + gy^2 (3x3 Sobel on BT.601 luma), \
the 4-neighbour Laplacian L and L^2 (both with replicated borders), Immerkaer's |Y * [[1,-2,1],[-2,4,-2],[1,-2,1]]| \
over the interior, R - G and R + G - 2B and their squares, the HSV saturation (as mean_saturation), and the \
256-bin luma histogram. `texelflow assess` (library: texelflow::assess::Assessment) derives sharpness, \
exposure, contrast, colourfulness, noise and a 0-100 score from them. Alpha is ignored.",
    params: {},
    formats: [Rgba8],
    outputs: { metrics: PhotoMetrics },
    check: |_, d| check_metrics_size(&DEF, d),
    uniforms: [METRICS_UNIFORM],
    cpu: |_, img| Data::PhotoMetrics(metrics_cpu(img)?),
    gpu: |_, rec, input, output, _| record_metrics(&DEF, rec, input, output, None),
}

/// Per-row partial sums of the CPU twin.
#[derive(Clone, Copy)]
struct Acc {
    sob: u64,
    lap: i64,
    lap2: u64,
    noise: u64,
    rg: i64,
    rg2: u64,
    yb: i64,
    yb2: u64,
    sat: u64,
    hist: [u64; 256],
}

impl Default for Acc {
    fn default() -> Self {
        Acc {
            sob: 0,
            lap: 0,
            lap2: 0,
            noise: 0,
            rg: 0,
            rg2: 0,
            yb: 0,
            yb2: 0,
            sat: 0,
            hist: [0; 256],
        }
    }
}

impl Acc {
    fn merge(mut self, o: Acc) -> Acc {
        self.sob += o.sob;
        self.lap += o.lap;
        self.lap2 += o.lap2;
        self.noise += o.noise;
        self.rg += o.rg;
        self.rg2 += o.rg2;
        self.yb += o.yb;
        self.yb2 += o.yb2;
        self.sat += o.sat;
        for (a, b) in self.hist.iter_mut().zip(o.hist) {
            *a += b;
        }
        self
    }
}

/// CPU twin of photo_metrics.wgsl: plain loops over rows (rayon), luma computed first.
pub fn metrics_cpu(img: &Image) -> Result<Sums> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let px = img.as_u8();
    let luma: Vec<i64> = px
        .chunks_exact(4)
        .map(|p| luma601(p[0], p[1], p[2]) as i64)
        .collect();
    // replicated border
    let at = |x: isize, y: isize| {
        luma[y.clamp(0, h as isize - 1) as usize * w + x.clamp(0, w as isize - 1) as usize]
    };
    let acc = (0..h)
        .into_par_iter()
        .map(|y| {
            let mut a = Acc::default();
            for x in 0..w {
                let p = &px[4 * (y * w + x)..4 * (y * w + x) + 4];
                let (r, g, b) = (p[0] as i64, p[1] as i64, p[2] as i64);
                a.hist[luma[y * w + x] as usize] += 1;
                a.rg += r - g;
                a.rg2 += ((r - g) * (r - g)) as u64;
                a.yb += r + g - 2 * b;
                a.yb2 += ((r + g - 2 * b) * (r + g - 2 * b)) as u64;
                a.sat += saturation_fixed(p[0], p[1], p[2]) as u64;
                let (xi, yi) = (x as isize, y as isize);
                let n = |dx: isize, dy: isize| at(xi + dx, yi + dy);
                let gx = n(1, -1) + 2 * n(1, 0) + n(1, 1) - n(-1, -1) - 2 * n(-1, 0) - n(-1, 1);
                let gy = n(-1, 1) + 2 * n(0, 1) + n(1, 1) - n(-1, -1) - 2 * n(0, -1) - n(1, -1);
                a.sob += (gx * gx + gy * gy) as u64;
                let lap = n(0, -1) + n(0, 1) + n(-1, 0) + n(1, 0) - 4 * n(0, 0);
                a.lap += lap;
                a.lap2 += (lap * lap) as u64;
                if x >= 1 && y >= 1 && x + 2 <= w && y + 2 <= h {
                    let v = n(-1, -1) + n(1, -1) + n(-1, 1) + n(1, 1)
                        - 2 * (n(0, -1) + n(0, 1) + n(-1, 0) + n(1, 0))
                        + 4 * n(0, 0);
                    a.noise += v.unsigned_abs();
                }
            }
            a
        })
        .reduce(Acc::default, Acc::merge);
    let mut luma_hist = [0u32; 256];
    for (d, s) in luma_hist.iter_mut().zip(acc.hist) {
        *d = u32::try_from(s)
            .map_err(|_| Error::Image("image too large for photo_metrics".into()))?;
    }
    Ok(Sums {
        width: w as u32,
        height: h as u32,
        luma_hist,
        sobel_energy: acc.sob,
        laplacian_sum: acc.lap,
        laplacian_sq: acc.lap2,
        noise_abs: acc.noise,
        rg_sum: acc.rg,
        rg_sq: acc.rg2,
        yb2_sum: acc.yb,
        yb2_sq: acc.yb2,
        saturation_sum: acc.sat,
    })
}

/// The input checked as the metrics pass needs it (after its format, RGBA8): below 2^31 pixels
/// (the histogram's bins are u32 and every 64-bit sum stays far from overflow below that).
pub(crate) fn check_metrics_size(def: &FilterDef, d: ImageDesc) -> Result<()> {
    if d.pixels() as u64 >= 1 << 31 {
        return Err(Error::unsupported(format!(
            "{} takes images below 2^31 pixels, got {}x{}",
            def.name, d.width, d.height
        )));
    }
    Ok(())
}

/// Records the metrics pass over `input` into `metrics`; with `fingerprint` (its buffer and
/// layout), the same pass also counts the colour fingerprint (`photo_assessment`).
pub(crate) fn record_metrics(
    def: &FilterDef,
    rec: &mut NodeRecorder<'_>,
    input: &GpuSlot,
    metrics: &GpuSlot,
    fingerprint: Option<(&GpuSlot, FingerprintLayout)>,
) -> Result<()> {
    let d = input
        .desc
        .image()
        .ok_or_else(|| Error::wrong_input(def.name, "input must be an image"))?;
    let groups = [d.width.div_ceil(STRIP_W), d.height.div_ceil(STRIP_H), 1];
    if groups[0] > 65535 || groups[1] > 65535 {
        return Err(Error::unsupported(format!(
            "{}: image {}x{} is too large for one dispatch",
            def.name, d.width, d.height
        )));
    }
    let (shim, key) = subgroup_shim(rec);
    let mut u = MetricsParams {
        width: d.width,
        height: d.height,
        fp_rows: 0,
        fp_cols: 0,
        fp_v_step: 0,
        fp_h_step: 0,
        ..Default::default()
    };
    rec.clear(&metrics.buffer);
    match fingerprint {
        None => {
            let kernel = Kernel::new(
                &format!("analysis.photo_metrics.{key}"),
                &[MetricsParams::WGSL, shim, WGSL, PLAIN_WGSL],
                "photo_metrics",
            );
            rec.dispatch(
                &kernel,
                &[&input.buffer, &metrics.buffer],
                bytemuck::bytes_of(&u),
                groups,
            )
        }
        Some((fp, l)) => {
            (u.fp_rows, u.fp_cols, u.fp_v_step, u.fp_h_step) = (l.rows, l.cols, l.v_step, l.h_step);
            let counting = FpCounting::for_node(rec, def)?;
            // capacity, not speed: beyond FUSED_WG_BINS_MAX the bins count in global memory
            let use_wg = l.bins() <= FUSED_WG_BINS_MAX;
            let runs = counting == FpCounting::Runs;
            let mut kernel = Kernel::new(
                &format!(
                    "analysis.photo_metrics.g{}b{}.{}.{key}",
                    l.grid,
                    l.bits,
                    counting.name()
                ),
                &[MetricsParams::WGSL, shim, BINS_WGSL, WGSL, FINGERPRINT_WGSL],
                "photo_metrics",
            );
            kernel.generated = Some(format!(
                "{}const FP_RUNS: bool = {runs};\n",
                fingerprint_generated(&l, use_wg)
            ));
            rec.clear(&fp.buffer);
            rec.dispatch(
                &kernel,
                &[&input.buffer, &metrics.buffer, &fp.buffer],
                bytemuck::bytes_of(&u),
                groups,
            )
        }
    }
}

/// How the fused pass counts the fingerprint (schedule key: the node's name, e.g.
/// `photo_assessment=direct`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FpCounting {
    /// Each invocation merges runs of equal bins among its pixels: one atomic per run.
    Runs,
    /// One atomic per pixel, as color_fingerprint counts.
    Direct,
}

impl FpCounting {
    /// Variant names, the default first.
    const NAMES: &'static [&'static str] = &["direct", "runs"];
    fn choose() -> FpCounting {
        // H200, 4032x3024 (session 13): direct 0.142 ms (lines scene 0.140), runs 0.152 (0.151):
        // merging runs of equal bins costs more than the atomics it saves, on noise and on flat areas
        FpCounting::Direct
    }
    fn name(self) -> &'static str {
        match self {
            FpCounting::Runs => "runs",
            FpCounting::Direct => "direct",
        }
    }
    fn parse(v: &str) -> Option<FpCounting> {
        [FpCounting::Runs, FpCounting::Direct]
            .into_iter()
            .find(|c| c.name() == v)
    }
    /// The override for `def`'s node in the run's schedules (`rec`'s) if any, else `choose`.
    fn for_node(rec: &NodeRecorder<'_>, def: &FilterDef) -> Result<FpCounting> {
        match rec.schedule(def.name) {
            None => Ok(FpCounting::choose()),
            Some(v) => FpCounting::parse(v)
                .ok_or_else(|| crate::runtime::schedule::unknown(def.name, v, Self::NAMES)),
        }
    }
}
