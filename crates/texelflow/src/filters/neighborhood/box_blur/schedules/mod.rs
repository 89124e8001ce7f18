//! The GPU schedules of `box_blur` (the algorithm and its CPU twin are `super`): the
//! [`BoxSchedule`] enum, [`BoxSchedule::choose`] with the measurement behind each choice, the
//! names `--schedule box_blur=<name>` accepts ([`BoxSchedule::parse`]), and the kernels beside
//! it (`strip`, the `sweep` shapes, the `blocks` walk). The RGBA16 and Gray8 schedules are
//! Gaussian blur's (`gaussian_blur/schedules/`).

use super::*;
use crate::error::Error;
use crate::runtime::wgsl_template::{block_body, replace_block, specialize, unroll};
use crate::runtime::{schedule, Kernel};

pub(super) const WGSL: &str = include_str!("box_blur.wgsl");
/// `main_sg`, appended to `WGSL` on devices with subgroup operations.
const SUBGROUP_WGSL: &str = include_str!("box_blur_subgroup.wgsl");
/// The `sweep` schedules' kernel.
pub(super) const SWEEP_WGSL: &str = include_str!("box_blur_sweep.wgsl");
/// The `blocks` schedules' walk (the sweep kernel primed from block sums) and block-sum pass.
const BLOCKS_WGSL: &str = include_str!("box_blur_blocks.wgsl");
pub(super) const BLOCKSUM_WGSL: &str = include_str!("box_blur_blocksum.wgsl");

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

/// Rows per round of barriers of the scan kernel that fit in `limit` bytes of workgroup
/// memory. Two measured best on H200 (more rows per round cost occupancy, see
/// `SM_WORKGROUP_MEMORY` in gaussian_blur.rs). Schedule choice.
pub(super) fn rows_per_round(limit: u64) -> u32 {
    [2u32, 1]
        .into_iter()
        .find(|&ch| ch as u64 * BYTES_PER_ROUND_ROW <= limit)
        .unwrap_or(1)
}

/// Output rows per workgroup of the scan kernel. Schedule choice (measured on H200).
pub(super) fn strip_height(_r: u32, ch: u32) -> u32 {
    32u32.div_ceil(ch) * ch
}

/// Output rows per workgroup of the subgroup kernel (one row per round): short strips give
/// more workgroups; for large radii taller strips amortise the initial 2r+1 rows of each
/// column sum. Schedule choice (measured on H200: radius 1-15 best at 16, 64 at 64).
pub(super) fn strip_height_subgroups(r: u32) -> u32 {
    match r {
        0..=16 => 16,
        17..=32 => 32,
        _ => 64,
    }
}

/// Records `f` on RGBA8: the strip schedule where a test forces it, else the one named in the
/// run's schedule overrides, else [`BoxSchedule::choose`]'s.
pub(super) fn record(
    f: &BoxBlur,
    rec: &mut NodeRecorder<'_>,
    inputs: &[GpuSlot],
    outputs: &[GpuSlot],
) -> Result<()> {
    // A test's forced strip schedule wins over a variant override.
    if f.schedule.is_some() || f.subgroups.is_some() {
        return f.record_strip(rec, inputs, outputs);
    }
    let explicit = schedule::get(DEF.name);
    let chosen = match explicit.as_deref() {
        None => BoxSchedule::choose(f.radius),
        Some(v) => BoxSchedule::parse(v)?,
    };
    let recorded = match chosen {
        BoxSchedule::Strip => return f.record_strip(rec, inputs, outputs),
        BoxSchedule::Sweep(shape) => f.record_sweep(rec, inputs, outputs, shape, None),
        BoxSchedule::Blocks(shape, rows, ablation) => {
            f.record_sweep(rec, inputs, outputs, shape, Some((rows, ablation)))
        }
    };
    // The sweeps need subgroups that fit their workgroups: where the device has none, the
    // default falls back to `strip` (a failed precondition records nothing); a schedule
    // asked for by name reports the error instead.
    match (recorded, explicit) {
        (Err(_), None) => f.record_strip(rec, inputs, outputs),
        (r, _) => r,
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
                return Err(Error::schedule_unsupported(
                    "box_blur",
                    "this device has no subgroup operations",
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
                    return Err(Error::schedule_unsupported(
                        "box_blur",
                        format!("invalid schedule ({ch} rows per round, strips of {sh})"),
                    ));
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
            return Err(Error::invalid(
                "box_blur: the sweep schedules need subgroup operations, which this device lacks",
            ));
        }
        // The kernel numbers strip groups by whole subgroups and keeps totals for up to
        // nt/4 of them (WebGPU's smallest subgroup is 4).
        let sg_max = gpu.subgroup_max_size();
        if sg_max == 0 || !shape.nt.is_multiple_of(sg_max) {
            return Err(Error::schedule_unsupported("box_blur", format!("sweep workgroups of {} invocations do not hold whole subgroups of up to {sg_max}", shape.nt)));
        }
        // Pixels are read and written through 16-byte elements, also when the width is not a
        // multiple of 4: the buffers must cover the last partial element (pool buffers do).
        let bytes = (d.width as u64 * d.height as u64 * 4).div_ceil(16) * 16;
        if input.buffer.size() < bytes || output.buffer.size() < bytes {
            return Err(Error::schedule_unsupported(
                "box_blur",
                "sweep needs image buffers padded to 16 bytes",
            ));
        }
        let r = self.radius;
        let r4 = r.div_ceil(4) * 4;
        let tile_w = 4 * shape.nt - 2 * r4;
        if tile_w == 0 || !shape.lb.is_multiple_of(shape.ch) {
            return Err(Error::schedule_unsupported(
                "box_blur",
                format!("invalid sweep shape {shape:?} for radius {r}"),
            ));
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
