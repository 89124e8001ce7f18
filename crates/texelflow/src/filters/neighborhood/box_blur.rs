//! Box blur: the mean over a `(2r+1) x (2r+1)` window. Matches GPUImage's
//! `GPUImageBoxBlurFilter` (a separable box, clamp-to-edge sampling).
//!
//! Exact integer arithmetic on both sides: the window sum of each channel is an integer and
//! the output is `round_half_up(sum / (2r+1)^2)`, so GPU and CPU agree bit for bit. The GPU
//! kernel's work per pixel does not depend on the radius (running column sums plus a prefix
//! sum per row: `box_blur.wgsl`, and `box_blur_subgroup.wgsl` on devices with subgroups).
//!
//! GPU schedule variants (`runtime::schedule`, key `box_blur`; the default is
//! `sweep_short_loops` below radius 11 and `blocks_lb2` from it, `strip` without subgroups):
//! - `strip`: the kernel above (one invocation per strip column, 4-byte loads and stores);
//! - `sweep`, `sweep_short`, `sweep_tall`, `sweep64`: `box_blur_sweep.wgsl`, four columns per invocation with
//!   16-byte loads and stores, a subgroup scan per row, the next rows' loads in flight, and an
//!   exact float division. They differ in strip shape (see [`SweepShape`]); each needs
//!   subgroup operations.
//! - `blocks`, `blocks_short`, `blocks192`, `blocks_lb2`: the sweep walk primed from 8-row block
//!   column sums (`box_blur_blocksum.wgsl` first, then `box_blur_blocks.wgsl`), so priming costs
//!   ~(2r+1)/8 32-byte loads and at most 14 rows instead of 2r+1 rows and strips stay 16 (8)
//!   rows at every radius; `blocks192` has 768-column strips, `blocks_lb2` loads 2 rows ahead.
//! - Every sweep and blocks name has its loops marked `// @unroll` unrolled (literal array
//!   indices, see `super::unroll`); `_loops` after a name keeps them loops.
//!   Bench-only ablations (wrong images, not in `DEF.schedules`): `blocks_ablate_walk`,
//!   `blocks_ablate_nobarrier`, `blocks_ablate_noprime` (see `ABL` in the WGSL).

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_image, input_image, one_to_one, Family, Filter, FilterDef, EXACT_ENOUGH, IMAGE,
};
use crate::graph::params::{check_int, ParamDef};
use crate::image::{Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{schedule, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

use crate::runtime::wgsl_template::{block_body, replace_block, specialize, unroll};

const WGSL: &str = include_str!("box_blur.wgsl");
/// `main_sg`, appended to `WGSL` on devices with subgroup operations.
const SUBGROUP_WGSL: &str = include_str!("box_blur_subgroup.wgsl");
/// The `sweep` schedules' kernel.
const SWEEP_WGSL: &str = include_str!("box_blur_sweep.wgsl");
/// The `blocks` schedules' walk (the sweep kernel primed from block sums) and block-sum pass.
const BLOCKS_WGSL: &str = include_str!("box_blur_blocks.wgsl");
const BLOCKSUM_WGSL: &str = include_str!("box_blur_blocksum.wgsl");

/// Schedule variants besides the default (`strip`, which is also reachable by name).
/// From this radius the default is `blocks_lb2` (its loops unrolled), below it
/// `sweep_short_loops` (the sweep walk with loops). Schedule choice, H200 at 4K, x copy
/// (session 8, runs s8-b1 and s8-b2, same process each): r = 4 `sweep_short_loops` 3.44-3.51,
/// `sweep_short` (unrolled: 137 registers, no local memory, against 84 and 464 bytes of local
/// memory) 3.57-3.58, `blocks_lb2` 3.62-3.69; r = 6 / 8 / 10 `sweep_short_loops` 3.69 / 3.58 /
/// 3.85 against `blocks_lb2` 3.69 / 3.72 / 3.83; r = 15 4.07 against 3.77; r = 64 `blocks_lb2`
/// 4.22-4.27 against its loops 4.69-4.70 (`blocks`, 4 rows ahead: 4.41-4.43). The sweep's
/// priming (2r + 1 rows per 16-row strip) grows with r; the block pass does not.
const BLOCKS_FROM: u32 = 11;

const VARIANTS: &[&str] = &[
    "strip",
    "sweep",
    "sweep_short",
    "sweep_tall",
    "sweep64",
    "blocks",
    "blocks_short",
    "blocks192",
    "blocks_lb2",
    "sweep_short_loops",
    "blocks_lb2_loops",
    "blocks_ablate_walk",
    "blocks_ablate_nobarrier",
    "blocks_ablate_noprime",
];

/// Strip columns per workgroup (= invocations), fixed by the WGSL scan layout.
const NCOL: u32 = 256;
/// Workgroup memory per row of a round (`vb`, `pb`, `tb`, `gb` in the WGSL).
const BYTES_PER_ROUND_ROW: u64 = 256 * 8 + 256 * 16 + 64 * 16 + 8 * 16;

/// Mean over a `(2 * radius + 1)` square window.
#[derive(Clone, Debug)]
pub struct BoxBlur {
    /// Window radius in pixels.
    pub radius: u32,
    schedule: Option<(u32, u32)>,
    subgroups: Option<bool>,
}

impl BoxBlur {
    /// Fails when `radius` is outside [0, 64].
    pub fn new(radius: u32) -> Result<Self> {
        Ok(Self {
            radius: check_int(&DEF, "radius", radius)?,
            schedule: None,
            subgroups: None,
        })
    }
    /// Forces the GPU schedule (for tests and benchmarks): rows per round of barriers
    /// (1, 2 or 4) and output rows per workgroup (a multiple of it).
    #[doc(hidden)]
    pub fn with_schedule(mut self, rows_per_round: u32, strip_h: u32) -> Self {
        self.schedule = Some((rows_per_round, strip_h));
        self
    }
    /// Forces the subgroup-scan kernel on or off (for tests and benchmarks); on is an error
    /// on devices without subgroup operations.
    #[doc(hidden)]
    pub fn with_subgroups(mut self, on: bool) -> Self {
        self.subgroups = Some(on);
        self
    }
}

impl Default for BoxBlur {
    fn default() -> Self {
        Self {
            radius: 4,
            schedule: None,
            subgroups: None,
        }
    }
}

uniform_struct! {
    /// Uniform of `box_blur.wgsl`.
    pub struct BoxBlurParams {
        pub width: u32,
        pub height: u32,
        pub radius: u32,
        /// Output columns per workgroup: NCOL - 2 * radius.
        pub tile_w: u32,
        /// Output rows per workgroup (a multiple of CH).
        pub strip_h: u32,
        /// 2 * (2r+1)^2
        pub two_n: u32,
        /// 1 / two_n, a first guess corrected exactly in div_round.
        pub inv_two_n: f32,
    }
}

uniform_struct! {
    /// Uniform of the sweep kernels (`box_blur_sweep.wgsl`, `box_blur_blocksum.wgsl`).
    pub struct BoxSweepParams {
        pub width: u32,
        pub height: u32,
        pub radius: u32,
        /// Radius rounded up to a multiple of 4 (halo columns per side).
        pub r4: u32,
        /// Output columns per workgroup: SW - 2 * r4.
        pub tile_w: u32,
        /// Output rows per workgroup (a multiple of LB).
        pub strip_h: u32,
        /// width / 4 (16-byte groups per row; used when VEC == 1).
        pub width4: u32,
        /// 1 / (2r+1)^2, correctly rounded.
        pub inv_n: f32,
    }
}

/// Shape of a `sweep` schedule (`box_blur_sweep.wgsl`).
///
/// Cost model (H200, 3840x2160; thread instructions per output pixel, where 1x copy is ~85
/// of issue budget; derivation in the kernel's header): 41*h + 24 + 5*h*(2r+1)/strip_h,
/// with h = columns loaded / columns written (strips of SW = 4*nt columns write SW - 2*r4:
/// at 3840 wide, SW=512 gives 8 strips at r=4 and r=15 and 10 at r=64, h = 1.07 / 1.07 /
/// 1.33; SW=256 gives 16 / 18 / 30 strips, h = 1.03 / 1.2 / 2.0). Memory: 4 B read from
/// DRAM and 4 B written per pixel (the copy's 8) plus L2 re-reads: the leaving row and the
/// halo, 4h B, and the priming rows, 4h(2r+1)/strip_h B (at r=64 and 64-row strips ~25 B/px
/// through L2 in all, ~1.4x copy's time at ~7 TB/s). Workgroups walk their strip serially,
/// so the other limit is occupancy: with few workgroups (large strips at r=64) each SM
/// runs ~10 warps and issue efficiency drops; assumed ~55% of peak issue with >= 16 warps
/// per SM, ~35% below that.
///
/// Predicted (instr/px; workgroups; x copy) at r = 4 / 15 / 64:
/// - `sweep` (nt 128, 1 row per barrier round, strips 32 rows, 64 from r=17):
///   69 / 74 / 92; 544 / 544 / 340; ~1.5 / 1.6 / 2.6 (r=64 limited by occupancy).
/// - `sweep_short` (as `sweep`, strips 16 rows, 32 from r=17): 74 / 79 / 106;
///   1088 / 1088 / 680; ~1.6 / 1.7 / 2.3 (more priming, more parallelism; L2 ~36 B/px at
///   r=64 may bind instead).
/// - `sweep_tall` (nt 128, 2 rows per round, strips 64 rows, 128 from r=33): 68 / 71 / 85;
///   272 / 272 / 170; ~1.8 / 1.9 / 3+ (too few workgroups on 132 SMs unless latency hides).
/// - `sweep64` (nt 64, 2 rows per round, strips 32 rows, 64 from r=17; 8.3 KiB of
///   workgroup memory): 68 / 80 / 126; 1088 / 1224 / 1020; ~1.5 / 1.7 / 2.7.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SweepShape {
    /// Invocations per workgroup (4 strip columns each).
    pub nt: u32,
    /// Rows per round of barriers.
    pub ch: u32,
    /// Rows loaded ahead (a multiple of `ch`).
    pub lb: u32,
    /// Output rows per workgroup for small radii; see [`SweepShape::strip_height`].
    pub strip_h: u32,
    /// Output rows per workgroup from radius `large_from` on.
    pub strip_h_large: u32,
    /// Radius from which `strip_h_large` applies.
    pub large_from: u32,
    /// Loops marked `// @unroll` in the WGSL unrolled (literal array indices), as every
    /// named shape has them; `_loops` after a name keeps them loops (the kernel before
    /// session 8, whose private arrays NVIDIA's compiler put in local memory).
    pub unrolled: bool,
}

impl SweepShape {
    /// The shape of a `sweep*` variant name.
    pub fn named(variant: &str) -> Option<Self> {
        let (variant, unrolled) = Self::loops_suffix(variant);
        let shape = match variant {
            "sweep" => Some(Self {
                nt: 128,
                ch: 1,
                lb: 4,
                strip_h: 32,
                strip_h_large: 64,
                large_from: 17,
                unrolled: true,
            }),
            "sweep_short" => Some(Self {
                nt: 128,
                ch: 1,
                lb: 4,
                strip_h: 16,
                strip_h_large: 32,
                large_from: 17,
                unrolled: true,
            }),
            "sweep_tall" => Some(Self {
                nt: 128,
                ch: 2,
                lb: 4,
                strip_h: 64,
                strip_h_large: 128,
                large_from: 33,
                unrolled: true,
            }),
            "sweep64" => Some(Self {
                nt: 64,
                ch: 2,
                lb: 4,
                strip_h: 32,
                strip_h_large: 64,
                large_from: 17,
                unrolled: true,
            }),
            _ => None,
        };
        shape.map(|s| Self { unrolled, ..s })
    }
    /// `variant` without a `_loops` suffix, and whether its loops are unrolled (no suffix).
    fn loops_suffix(variant: &str) -> (&str, bool) {
        variant
            .strip_suffix("_loops")
            .map_or((variant, true), |v| (v, false))
    }
    /// The walk shape and rows per block of a `blocks*` variant name: the sweep walk with its
    /// column sums primed from block sums (a first pass), so strips stay short at every
    /// radius. See the predictions in [`SweepShape`]'s notes and docs/perf-notes.md.
    pub fn blocks(variant: &str) -> Option<(Self, u32)> {
        let (variant, unrolled) = Self::loops_suffix(variant);
        let shape = match variant {
            "blocks" => Some((
                Self {
                    nt: 128,
                    ch: 1,
                    lb: 4,
                    strip_h: 16,
                    strip_h_large: 16,
                    large_from: 0,
                    unrolled: true,
                },
                8,
            )),
            "blocks_short" => Some((
                Self {
                    nt: 128,
                    ch: 1,
                    lb: 4,
                    strip_h: 8,
                    strip_h_large: 8,
                    large_from: 0,
                    unrolled: true,
                },
                8,
            )),
            "blocks192" => Some((
                Self {
                    nt: 192,
                    ch: 1,
                    lb: 4,
                    strip_h: 16,
                    strip_h_large: 16,
                    large_from: 0,
                    unrolled: true,
                },
                8,
            )),
            // rows loaded ahead 2 instead of 4: 16 fewer live registers (residency test)
            "blocks_lb2" => Some((
                Self {
                    nt: 128,
                    ch: 1,
                    lb: 2,
                    strip_h: 16,
                    strip_h_large: 16,
                    large_from: 0,
                    unrolled: true,
                },
                8,
            )),
            _ => None,
        };
        shape.map(|(s, b)| (Self { unrolled, ..s }, b))
    }
    /// Output rows per workgroup at radius `r`: taller strips for larger radii amortise the
    /// 2r+1 rows each strip primes its column sums with.
    pub fn strip_height(&self, r: u32) -> u32 {
        if r >= self.large_from {
            self.strip_h_large
        } else {
            self.strip_h
        }
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "box_blur",
    family: Family::Neighborhood,
    summary: "Mean over a (2r+1)x(2r+1) square (replicate-edge borders, exact integer rounding).",
    doc: "Exact: each channel's window sum is an integer and the output is round_half_up(sum / (2r+1)^2), identical on GPU and CPU. \
          Borders replicate the edge pixel; border=reflect reflects as OpenCV's default (BORDER_REFLECT_101; runs as pad, \
          the blur, crop: two extra copies of the image). GPU cost per pixel is independent of the radius: one kernel walks down strips of columns keeping \
          running column sums in registers, and takes each row's horizontal window sums as differences of a prefix sum over the strip. \
          With subgroup operations (the default): 4 columns per invocation, 16-byte loads and stores, a subgroup scan, and from radius 11 \
          the column sums primed from 8-row block sums; \
          otherwise (`strip`): one column per invocation and a workgroup-memory scan. \
          Takes rgba8, gray8 and rgba16; rgba16 (16-bit PNG/TIFF) runs two plain passes of exact integer sums, still identical to the CPU; \
          gray8 stays one channel (a quarter of the bytes): one kernel, row sums into workgroup memory, then column sums.",
    gpuimage: "GPUImageBoxBlurFilter",
    params: &[ParamDef::int("radius", 4, 0, 64, "window radius in pixels (window side 2*radius+1)"), crate::filters::shape::border::BORDER_PARAM],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| crate::filters::shape::border::from_args(Box::new(BoxBlur::new(a.u32("radius")?)?), a),
    uniforms: &[
        BoxBlurParams::layout(WGSL),
        BoxSweepParams::layout(SWEEP_WGSL),
        BoxSweepParams::layout(BLOCKSUM_WGSL),
    ],
    test_inputs: None,
    schedules: &["strip", "sweep", "sweep_short", "sweep_tall", "sweep64", "blocks", "blocks_short", "blocks192", "blocks_lb2", "sweep_short_loops", "blocks_lb2_loops"],
};

/// Rows per round of barriers of the scan kernel that fit in `limit` bytes of workgroup
/// memory. Two measured best on H200 (more rows per round cost occupancy, see
/// `SM_WORKGROUP_MEMORY` in gaussian_blur.rs). Schedule choice.
fn rows_per_round(limit: u64) -> u32 {
    [2u32, 1]
        .into_iter()
        .find(|&ch| ch as u64 * BYTES_PER_ROUND_ROW <= limit)
        .unwrap_or(1)
}

/// Output rows per workgroup of the scan kernel. Schedule choice (measured on H200).
fn strip_height(_r: u32, ch: u32) -> u32 {
    32u32.div_ceil(ch) * ch
}

/// Output rows per workgroup of the subgroup kernel (one row per round): short strips give
/// more workgroups; for large radii taller strips amortise the initial 2r+1 rows of each
/// column sum. Schedule choice (measured on H200: radius 1-15 best at 16, 64 at 64).
fn strip_height_subgroups(r: u32) -> u32 {
    match r {
        0..=16 => 16,
        17..=32 => 32,
        _ => 64,
    }
}

/// CPU twin: exact integer window sums (running sums along rows, then down columns); RGBA8 or Gray8.
pub fn box_cpu(img: &Image, r: u32) -> Result<Image> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let src = img.as_u8();
    let n4 = img.format().channels();
    let ri = r as i64;
    let cx = |x: i64| x.clamp(0, w as i64 - 1) as usize;
    let cy = |y: i64| y.clamp(0, h as i64 - 1) as usize;
    // horizontal window sums
    let mut hs = vec![0u32; w * h * n4];
    hs.par_chunks_mut(w * n4).enumerate().for_each(|(y, row)| {
        let s = &src[y * w * n4..(y + 1) * w * n4];
        let mut acc = [0u32; 4];
        for k in -ri..=ri {
            for c in 0..n4 {
                acc[c] += s[cx(k) * n4 + c] as u32;
            }
        }
        for x in 0..w {
            row[x * n4..x * n4 + n4].copy_from_slice(&acc[..n4]);
            let (enter, leave) = (cx(x as i64 + ri + 1), cx(x as i64 - ri));
            for c in 0..n4 {
                acc[c] = acc[c] + s[enter * n4 + c] as u32 - s[leave * n4 + c] as u32;
            }
        }
    });
    // vertical window sums of those, and the rounded mean
    let n = (2 * r + 1) * (2 * r + 1);
    let mut out = vec![0u8; w * h * n4];
    let mut acc = vec![0u32; w * n4];
    for j in -ri..=ri {
        let row = &hs[cy(j) * w * n4..][..w * n4];
        acc.iter_mut().zip(row).for_each(|(a, v)| *a += v);
    }
    for (y, orow) in out.chunks_exact_mut(w * n4).enumerate() {
        for (o, &sum) in orow.iter_mut().zip(&acc) {
            *o = ((2 * sum + n) / (2 * n)).min(255) as u8;
        }
        let enter = &hs[cy(y as i64 + ri + 1) * w * n4..][..w * n4];
        let leave = &hs[cy(y as i64 - ri) * w * n4..][..w * n4];
        for ((a, e), l) in acc.iter_mut().zip(enter).zip(leave) {
            *a = *a + e - l;
        }
    }
    Image::from_u8(img.width(), img.height(), img.format(), out)
}

impl Filter for BoxBlur {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::Radius(self.radius)
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(
            &DEF,
            inputs,
            0,
            &[PixelFormat::Rgba8, PixelFormat::Gray8, PixelFormat::Rgba16],
        )?;
        Ok(vec![ValueDesc::Image(d)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        if img.format() == PixelFormat::Rgba16 {
            return Ok(vec![Value::Image(super::gaussian_blur::blur16::box_cpu16(
                img,
                self.radius,
            )?)]);
        }
        Ok(vec![Value::Image(box_cpu(img, self.radius)?)])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        // the fields are public: values set past `new`'s checks are errors here, not overflows
        check_int(&DEF, "radius", self.radius)?;
        // RGBA16 has one schedule of its own (exact integer sums, `blur16.wgsl`)
        let (input, output, d) = one_to_one(&DEF, inputs, outputs)?;
        if d.format == PixelFormat::Rgba16 {
            return super::gaussian_blur::blur16::record_box(rec, input, output, d, self.radius);
        }
        // Gray8 too (`blur_gray.wgsl`: one channel, exact integer sums)
        if d.format == PixelFormat::Gray8 {
            return super::gaussian_blur::blur_gray::record_box(rec, input, output, d, self.radius);
        }
        // A test's forced strip schedule wins over a variant override.
        if self.schedule.is_some() || self.subgroups.is_some() {
            return self.record_strip(rec, inputs, outputs);
        }
        let explicit = schedule::get(DEF.name);
        let chosen = match explicit.as_deref() {
            None => BoxSchedule::choose(self.radius),
            Some(v) => BoxSchedule::parse(v)?,
        };
        let recorded = match chosen {
            BoxSchedule::Strip => return self.record_strip(rec, inputs, outputs),
            BoxSchedule::Sweep(shape) => self.record_sweep(rec, inputs, outputs, shape, None),
            BoxSchedule::Blocks(shape, rows, ablation) => {
                self.record_sweep(rec, inputs, outputs, shape, Some((rows, ablation)))
            }
        };
        // The sweeps need subgroups that fit their workgroups: where the device has none, the
        // default falls back to `strip` (a failed precondition records nothing); a schedule
        // asked for by name reports the error instead.
        match (recorded, explicit) {
            (Err(_), None) => self.record_strip(rec, inputs, outputs),
            (r, _) => r,
        }
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// Box blur's GPU schedules, by shape; `runtime::schedule` names them in tests and benchmarks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoxSchedule {
    /// `strip`: one workgroup per tile of a strip, any device (`box_blur.wgsl`).
    Strip,
    /// `sweep*`: subgroup prefix sums down a strip (`box_blur_sweep.wgsl`).
    Sweep(SweepShape),
    /// `blocks*`: the sweep primed from 8-row block sums, rows per block; the last field is a
    /// bench-only ablation (0: the real kernel).
    Blocks(SweepShape, u32, u32),
}

impl BoxSchedule {
    /// The default for radius `r` (H200, 4K; BENCHMARKS.md run s9-b2).
    pub fn choose(r: u32) -> BoxSchedule {
        match r {
            // r=15 / 64: 0.0791 / 0.0904 ms (3.70 / 4.22x copy)
            _ if r >= BLOCKS_FROM => Self::named("blocks_lb2"),
            // r=4: 0.0742 ms (3.47x copy)
            _ => Self::named("sweep_short_loops"),
        }
    }

    fn named(v: &str) -> BoxSchedule {
        Self::parse(v).unwrap_or(BoxSchedule::Strip)
    }

    /// A schedule by its variant name (`DEF.schedules`, `VARIANTS`).
    pub fn parse(v: &str) -> Result<BoxSchedule> {
        if v == "strip" {
            return Ok(BoxSchedule::Strip);
        }
        if let Some(shape) = SweepShape::named(v) {
            return Ok(BoxSchedule::Sweep(shape));
        }
        if let Some((shape, rows)) = SweepShape::blocks(v) {
            return Ok(BoxSchedule::Blocks(shape, rows, 0));
        }
        // Bench-only ablations of `blocks` (wrong images, so not in `DEF.schedules`): the walk
        // without its horizontal pass, without its barriers, without priming.
        let ablation = match v {
            "blocks_ablate_walk" => 1,
            "blocks_ablate_nobarrier" => 2,
            "blocks_ablate_noprime" => 3,
            _ => 0,
        };
        match SweepShape::blocks("blocks") {
            Some((shape, rows)) if ablation > 0 && cfg!(feature = "bench") => {
                Ok(BoxSchedule::Blocks(shape, rows, ablation))
            }
            _ => Err(schedule::unknown(DEF.name, v, VARIANTS)),
        }
    }
}

impl BoxBlur {
    /// The `strip` kernel (`box_blur.wgsl`, `box_blur_subgroup.wgsl`).
    fn record_strip(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let (input, output, d) = one_to_one(&DEF, inputs, outputs)?;
        let r = self.radius;
        let limit = rec.gpu().limits.max_compute_workgroup_storage_size as u64;
        let has_subgroups = rec.gpu().has_subgroups();
        let subgroups = match self.subgroups {
            Some(true) if !has_subgroups => {
                return Err(Error::Graph(
                    "box_blur: this device has no subgroup operations".into(),
                ))
            }
            Some(on) => on,
            None => has_subgroups,
        };
        let (ch, strip_h) = match self.schedule {
            Some((ch, sh)) => {
                if ![1, 2, 4].contains(&ch)
                    || sh == 0
                    || sh % ch != 0
                    || ch as u64 * BYTES_PER_ROUND_ROW > limit
                {
                    return Err(Error::Graph(format!(
                        "box_blur: invalid schedule ({ch} rows per round, strips of {sh})"
                    )));
                }
                (ch, sh)
            }
            None if subgroups => (1, strip_height_subgroups(r)),
            None => {
                let ch = rows_per_round(limit);
                (ch, strip_height(r, ch))
            }
        };
        let tile_w = NCOL - 2 * r;
        let two_n = 2 * (2 * r + 1) * (2 * r + 1);
        let params = BoxBlurParams {
            width: d.width,
            height: d.height,
            radius: r,
            tile_w,
            strip_h,
            two_n,
            inv_two_n: 1.0 / two_n as f32,
            ..Default::default()
        };
        let specialized = specialize(WGSL, &[("CH", ch)])?;
        let (kernel, source) = if subgroups {
            (
                Kernel::new(
                    &format!("box_blur.sg.ch{ch}"),
                    &[BoxBlurParams::WGSL],
                    "main_sg",
                ),
                format!("{specialized}\n{SUBGROUP_WGSL}"),
            )
        } else {
            (
                Kernel::new(&format!("box_blur.ch{ch}"), &[BoxBlurParams::WGSL], "main"),
                specialized,
            )
        };
        let mut kernel = kernel;
        kernel.generated = Some(source);
        rec.dispatch(
            &kernel,
            &[&input.buffer, &output.buffer],
            bytemuck::bytes_of(&params),
            [d.width.div_ceil(tile_w), d.height.div_ceil(strip_h), 1],
        )
    }

    /// A `sweep` kernel (`box_blur_sweep.wgsl`) of the given shape; with `blk` = (rows per
    /// block, ablation), the `blocks` form (`box_blur_blocksum.wgsl`, then `box_blur_blocks.wgsl`;
    /// ablation 0 is the real kernel, 1 and 2 bench-only ablations, see `ABL` in the WGSL).
    fn record_sweep(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
        shape: SweepShape,
        blk: Option<(u32, u32)>,
    ) -> Result<()> {
        let (input, output, d) = one_to_one(&DEF, inputs, outputs)?;
        let gpu = rec.gpu();
        if !gpu.has_subgroups() {
            return Err(Error::Graph(
                "box_blur: the sweep schedules need subgroup operations, which this device lacks"
                    .into(),
            ));
        }
        // The kernel numbers strip groups by whole subgroups and keeps totals for up to
        // nt/4 of them (WebGPU's smallest subgroup is 4).
        let sg_max = gpu.subgroup_max_size();
        if sg_max == 0 || !shape.nt.is_multiple_of(sg_max) {
            return Err(Error::Graph(format!("box_blur: sweep workgroups of {} invocations do not hold whole subgroups of up to {sg_max}", shape.nt)));
        }
        // Pixels are read and written through 16-byte elements, also when the width is not a
        // multiple of 4: the buffers must cover the last partial element (pool buffers do).
        let bytes = (d.width as u64 * d.height as u64 * 4).div_ceil(16) * 16;
        if input.buffer.size() < bytes || output.buffer.size() < bytes {
            return Err(Error::Graph(
                "box_blur: sweep needs image buffers padded to 16 bytes".into(),
            ));
        }
        let r = self.radius;
        let r4 = r.div_ceil(4) * 4;
        let tile_w = 4 * shape.nt - 2 * r4;
        if tile_w == 0 || !shape.lb.is_multiple_of(shape.ch) {
            return Err(Error::Graph(format!(
                "box_blur: invalid sweep shape {shape:?} for radius {r}"
            )));
        }
        let strip_h = shape.strip_height(r).div_ceil(shape.lb) * shape.lb;
        let vec = u32::from(d.width % 4 == 0);
        let delta = r4 - r;
        let n = (2 * r + 1) * (2 * r + 1);
        let params = BoxSweepParams {
            width: d.width,
            height: d.height,
            radius: r,
            r4,
            tile_w,
            strip_h,
            width4: d.width / 4,
            inv_n: 1.0 / n as f32,
            ..Default::default()
        };
        let groups = [d.width.div_ceil(tile_w), d.height.div_ceil(strip_h), 1];
        let consts = |abl: u32| {
            [
                ("NT", shape.nt),
                ("CH", shape.ch),
                ("VEC", vec),
                ("DELTA", delta),
                ("LB", shape.lb),
                ("ABL", abl),
            ]
        };
        let unrolled = |src: String, abl: u32| {
            if shape.unrolled {
                unroll(&src, &consts(abl))
            } else {
                Ok(src)
            }
        };
        let ur = u32::from(shape.unrolled);
        let Some((blk, abl)) = blk else {
            let source = unrolled(specialize(SWEEP_WGSL, &consts(0))?, 0)?;
            let mut kernel = Kernel::new(
                &format!(
                    "box_blur.sweep.nt{}.ch{}.lb{}.vec{vec}.d{delta}.u{ur}",
                    shape.nt, shape.ch, shape.lb
                ),
                &[BoxSweepParams::WGSL],
                "main",
            );
            kernel.generated = Some(source);
            return rec.dispatch(
                &kernel,
                &[&input.buffer, &output.buffer],
                bytemuck::bytes_of(&params),
                groups,
            );
        };
        // Block sums (only read on the 16-byte path): 32 bytes per group of 4 columns and block.
        let nblk = d.height.div_ceil(blk);
        let blk_bytes = if vec == 1 {
            32 * (d.width / 4) as u64 * nblk as u64
        } else {
            32
        };
        let max = rec.gpu().max_binding();
        if blk_bytes > max {
            return Err(Error::TooLarge {
                width: d.width,
                height: d.height,
                bytes: blk_bytes,
                limit: max,
            });
        }
        let blocks = rec.temp(blk_bytes);
        if vec == 1 && abl != 3 {
            let mut sums = Kernel::new(
                &format!("box_blur.blocksum.b{blk}"),
                &[BoxSweepParams::WGSL],
                "block_sums",
            );
            sums.generated = Some(specialize(BLOCKSUM_WGSL, &[("BLK", blk)])?);
            rec.dispatch(
                &sums,
                &[&input.buffer, &blocks],
                bytemuck::bytes_of(&params),
                [(d.width / 4).div_ceil(64), nblk, 1],
            )?;
        }
        // the sweep kernel with box_blur_blocks.wgsl's bindings and priming spliced in
        let source = specialize(SWEEP_WGSL, &consts(abl))?;
        let bindings = format!(
            "{}const BLK: u32 = {blk}u;\n",
            block_body(BLOCKS_WGSL, "sp_binding")?
        );
        let source = replace_block(&source, "sp_binding", &bindings)?;
        let source = unrolled(
            replace_block(&source, "prime", block_body(BLOCKS_WGSL, "prime")?)?,
            abl,
        )?;
        let mut kernel = Kernel::new(
            &format!(
                "box_blur.blocks.nt{}.ch{}.lb{}.vec{vec}.d{delta}.b{blk}.a{abl}.u{ur}",
                shape.nt, shape.ch, shape.lb
            ),
            &[BoxSweepParams::WGSL],
            "main",
        );
        kernel.generated = Some(source);
        rec.dispatch(
            &kernel,
            &[&input.buffer, &output.buffer, &blocks],
            bytemuck::bytes_of(&params),
            groups,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn memory_and_strips() {
        assert_eq!(rows_per_round(16384), 2);
        assert_eq!(rows_per_round(8192), 1);
        for r in 0..=64 {
            for ch in [1, 2, 4] {
                let s = strip_height(r, ch);
                assert!(s.is_multiple_of(ch) && s >= 32);
            }
            assert!(strip_height_subgroups(r) >= 16);
        }
    }
    /// The sweep kernel's division (box_blur_sweep.wgsl, `div_round`) emulated in f32, fused
    /// and unfused (the GPU compiler may contract the multiply-add or not), against the CPU
    /// twin's integer rounding for every reachable sum at every radius.
    #[test]
    fn float_division_is_exact() {
        for r in 0u32..=64 {
            let n = (2 * r + 1) * (2 * r + 1);
            let inv = 1.0f32 / n as f32;
            for s in 0..=255 * n {
                let want = (2 * s + n) / (2 * n);
                let sf = f32::from_bits(s | 0x4B00_0000) - 8388608.0;
                assert_eq!(sf, s as f32);
                let fused = sf.mul_add(inv, 8388608.0).to_bits() & 0xFF;
                let unfused = ((sf * inv) + 8388608.0).to_bits() & 0xFF;
                assert_eq!((fused, unfused), (want, want), "radius {r} sum {s}");
            }
        }
    }
    #[test]
    fn sweep_shapes_fit_every_radius() {
        for v in ["sweep", "sweep_short", "sweep_tall", "sweep64"] {
            let s = SweepShape::named(v).unwrap();
            assert_eq!(s.lb % s.ch, 0);
            for r in 0..=64u32 {
                assert!(4 * s.nt > 2 * r.div_ceil(4) * 4, "{v} radius {r}");
                assert!(s.strip_height(r) > 0);
            }
        }
        for v in ["blocks", "blocks_short", "blocks192", "blocks_lb2"] {
            let (s, blk) = SweepShape::blocks(v).unwrap();
            assert!(s.lb % s.ch == 0 && blk > 0 && s.strip_height(64) % s.lb == 0);
        }
        assert!(SweepShape::named("nope").is_none() && SweepShape::blocks("sweep").is_none());
    }
    #[test]
    fn cpu_constant_stays_constant_and_radius_zero_is_identity() {
        let img = Image::from_u8(
            5,
            3,
            PixelFormat::Rgba8,
            (0..60).map(|i| (i * 37 % 256) as u8).collect(),
        )
        .unwrap();
        assert_eq!(box_cpu(&img, 0).unwrap(), img);
        let c = Image::from_u8(4, 4, PixelFormat::Rgba8, vec![77; 64]).unwrap();
        assert_eq!(box_cpu(&c, 3).unwrap(), c);
    }
}
