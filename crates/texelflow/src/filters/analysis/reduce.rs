//! Whole-image statistics: per-channel min, max and sum (hence mean) of R, G, B, A and BT.601
//! luma Y, plus the pixel count, as `DataKind::Stats`. A superset of GPUImage's
//! `GPUImageAverageColor` (mean RGBA) and `GPUImageLuminosity` (mean luminance), computed as
//! one read-only GPU reduction instead of GPUImage's repeated 4x down-sampling passes.
//!
//! GPU: grid-stride loop over 16-byte pixel quads with per-invocation accumulators, a
//! subgroup (or workgroup-atomic) combine per workgroup, then one global atomic per workgroup
//! per slot; sums are 64-bit as lo/hi words with a carry. Exact (integer) on both sides.

use rayon::prelude::*;

use super::average_luminance_threshold::StatsReduction;
use super::{
    check_partial_fits, check_quads, grid, subgroup_shim, GridParams, LoopShape, GRID_WGSL,
    TAIL_PIXELS_WGSL,
};
use crate::error::{Error, Result};
use crate::image::{luma601, Image, ImageDesc};
use crate::runtime::{GpuSlot, Kernel, NodeRecorder};
use crate::value::{Data, Stats};

const WGSL: &str = include_str!("reduce.wgsl");
/// The `swar` and `dp4` variants' per-pixel work (appended to `WGSL`).
const PACKED_WGSL: &str = include_str!("reduce_packed.wgsl");
/// Workgroup size. Schedule choice, not algorithm; to be measured on H100. Mirrors
/// `REDUCE_WG` in reduce.wgsl.
const REDUCE_WG: u32 = 256;
/// Quads (4 pixels) per invocation the grid aims for. Schedule choice, not algorithm. Measured
/// on an H200 at 3840x2160 (clocks held high): 8 and 16 within 2% (0.0204 / 0.0208 ms), 4 and
/// 32 slower (0.025 / 0.023 ms); a variant with almost no per-pixel arithmetic ran no faster,
/// so this pass is bound by the read stream, not by the arithmetic.
/// Run 8 (clocks held up, 3 repetitions): u4q16 0.0200-0.0202 ms, u1q8 0.0203, u2q8 (the
/// previous default) 0.0205-0.0206, u8q8 0.0212, u4q4 0.0249: more loads in flight per
/// invocation does not lift the read rate past ~1.65 TB/s.
const DEFAULT_LOOP: LoopShape = LoopShape {
    unroll: 4,
    quads_per_thread: 16,
};

crate::reduction_filter! {
    /// Per-channel min, max, sum of R, G, B, A, Y and the pixel count of an RGBA8 image.
    pub struct Reduce;
    name: "reduce",
    gpuimage: "GPUImageAverageColor",
    summary: "Per-channel min, max, sum and mean of R, G, B, A and BT.601 luma (statistics data).",
    doc: "Output is `stats` data: for each of r, g, b, a and y (BT.601 luma, round(0.299R + 0.587G + 0.114B)) \
the minimum, maximum and exact 64-bit sum of the 8-bit samples, and the pixel count (mean = sum / count). \
One read-only pass on the GPU (grid-stride loop, subgroup combine, one atomic per workgroup per slot). \
Later nodes can consume the statistics on the GPU (see luminance_threshold_by_stats).",
    params: {},
    formats: [Rgba8],
    outputs: { stats: Stats },
    uniforms: [GridParams::layout(GRID_WGSL)],
    schedules: SCHEDULES,
    merges_partials: true,
    cpu: |_, img| Data::Stats(stats_cpu(img)),
    gpu: |_, rec, input, output, _| record_reduce(rec, input, output),
}

/// Alternative schedules: the loop shapes of `super::LOOP_VARIANTS` (repeated here, a test
/// keeps them equal), and the kernels of
/// reduce_packed.wgsl (`swar`, `dp4`, optionally with a loop shape: `dp4_u8q16`; see
/// `ReduceKernel`).
const SCHEDULES: &[&str] = &[
    "u1q8",
    "u2q8",
    "u4q4",
    "u1q16",
    "u4q16",
    "u8q8",
    "swar",
    "swar_u8q16",
    "dp4_u8q16",
    "dp4_pf",
    "dp4_nopf",
    "swar_pf_u2q8",
    "dp4_pf_u1q4",
];

/// Which per-pixel code a `reduce` dispatch runs (a schedule choice: all give the same bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ReduceKernel {
    /// `add_pixel` in reduce.wgsl: unpack, then min/max/sum per channel and luma per pixel.
    Scalar,
    /// reduce_packed.wgsl's `swar_pixel`: R|B and G|A sums as 16-bit lanes; luma numerator
    /// from two packed byte dot products (min/max on the numerator, one division per pixel
    /// for the sum); min/max on words whose top bits are the channel (two extractions).
    Swar,
    /// reduce_packed.wgsl's `dp4_pixel`: as `Swar` for luma and A, with R, G, B extracted
    /// and A summed by packed byte dot products (multiply pipe) instead of shifts and masks.
    Dp4,
    /// reduce_packed.wgsl's `ysum_quad`: the Y sum (and the count) only, for `ReduceLumaSum`.
    LumaSum,
}

/// Quads between two flushes of the `swar` lane sums: 16 quads = 64 pixels, so a 16-bit lane
/// holds at most 64 * 255 (reduce_packed.wgsl).
const SWAR_FLUSH_QUADS: u32 = 16;

/// `reduce`'s GPU schedule (all give the same bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ReduceSchedule {
    kernel: ReduceKernel,
    shape: LoopShape,
    /// The packed kernels' loop software-pipelined (see `packed_visit_pixels_wgsl`).
    prefetch: bool,
}

impl ReduceSchedule {
    /// The default (H200 at 4K).
    fn choose() -> ReduceSchedule {
        // dp4 0.0179 ms, swar 0.0192, scalar u4q16 0.0204, dp4_u8q16 0.0184 (run g5, same process)
        ReduceSchedule {
            kernel: ReduceKernel::Dp4,
            shape: DEFAULT_LOOP,
            prefetch: DEFAULT_PREFETCH,
        }
    }

    /// A schedule by its variant name: `u<U>q<Q>` (scalar), `swar` or `dp4`, either
    /// optionally followed by `_pf` / `_nopf` and by `_u<U>q<Q>`.
    fn parse(v: &str) -> Result<ReduceSchedule> {
        let unknown = || {
            crate::runtime::schedule::unknown(
                DEF.name,
                v,
                &[
                    LoopShape::NAMES,
                    "swar",
                    "dp4",
                    "swar_<shape>",
                    "dp4_<shape>",
                    "dp4_pf[_<shape>]",
                    "dp4_nopf[_<shape>]",
                ],
            )
        };
        let (kernel, rest) = if let Some(r) = v.strip_prefix("swar") {
            (ReduceKernel::Swar, r)
        } else if let Some(r) = v.strip_prefix("dp4") {
            (ReduceKernel::Dp4, r)
        } else {
            return Ok(ReduceSchedule {
                kernel: ReduceKernel::Scalar,
                shape: LoopShape::parse(v).ok_or_else(unknown)?,
                prefetch: false,
            });
        };
        let (prefetch, rest) = if let Some(r) = rest.strip_prefix("_pf") {
            (true, r)
        } else if let Some(r) = rest.strip_prefix("_nopf") {
            (false, r)
        } else {
            (DEFAULT_PREFETCH, rest)
        };
        let shape = match rest {
            "" => DEFAULT_LOOP,
            r => r
                .strip_prefix('_')
                .and_then(LoopShape::parse)
                .ok_or_else(unknown)?,
        };
        Ok(ReduceSchedule {
            kernel,
            shape,
            prefetch,
        })
    }
}

/// Default for the packed kernels' software pipelining (`dp4_pf`: the next `unroll` loads
/// issued before the current quads are added). Schedule choice, to be measured (H200).
pub(super) const DEFAULT_PREFETCH: bool = false;

/// `fn visit_pixels(gid)` for the kernels of reduce_packed.wgsl: `shape`'s grid-stride loop
/// over whole quads (as `LoopShape::visit_pixels_wgsl`), the `swar` lane sums flushed every
/// `SWAR_FLUSH_QUADS` quads at most, then the scalar `add_pixel` on the 0..3 tail pixels.
/// With `prefetch`, the loop is software-pipelined: the next round's `unroll` loads are
/// issued before the current round's quads are added, so a warp's loads stay in flight while
/// it computes (without, its loads wait for its own arithmetic of the previous round).
fn packed_visit_pixels_wgsl(kind: ReduceKernel, shape: LoopShape, prefetch: bool) -> String {
    let swar = kind == ReduceKernel::Swar;
    let quad = match kind {
        ReduceKernel::Swar => "swar_quad",
        ReduceKernel::LumaSum => "ysum_quad",
        _ => "dp4_quad",
    };
    let u = shape.unroll;
    let mut s = String::from("fn visit_pixels(gid: u32) {\n    packed_init();\n    var q = gid;\n");
    if prefetch {
        // round k's loads sit in a*, round k + 1's are issued into b* before a* is used;
        // a round is whole (all u loads in range) or left to the scalar loop below
        let last = format!("q + {}u * grid.stride < grid.quads", u - 1);
        s += &format!("    if ({last}) {{\n");
        for k in 0..u {
            s += &format!("        var a{k} = src[q + {k}u * grid.stride];\n");
        }
        s += &format!("        loop {{\n            let n = q + {u}u * grid.stride;\n            let more = n + {}u * grid.stride < grid.quads;\n", u - 1);
        for k in 0..u {
            // past the end the load is clamped to a valid quad and never used
            s += &format!("            let b{k} = src[select(q, n, more) + {k}u * grid.stride];\n");
        }
        for k in 0..u {
            s += &format!("            {quad}(a{k});\n");
            if swar && ((k + 1) % SWAR_FLUSH_QUADS == 0 || k == u - 1) {
                s += "            swar_flush();\n";
            }
        }
        s +=
            "            q = n;\n            if (!more) {\n                break;\n            }\n";
        for k in 0..u {
            s += &format!("            a{k} = b{k};\n");
        }
        s += "        }
    }
";
    } else if u > 1 {
        s += &format!(
            "    for (; q + {}u * grid.stride < grid.quads; q += {u}u * grid.stride) {{\n",
            u - 1
        );
        for k in 0..u {
            s += &format!("        let a{k} = src[q + {k}u * grid.stride];\n");
        }
        for k in 0..u {
            s += &format!("        {quad}(a{k});\n");
            if swar && ((k + 1) % SWAR_FLUSH_QUADS == 0 || k == u - 1) {
                s += "        swar_flush();\n";
            }
        }
        s += "    }\n";
    }
    s += &format!("    for (; q < grid.quads; q += grid.stride) {{\n        {quad}(src[q]);\n");
    if swar {
        s += "        swar_flush();\n";
    }
    s += "    }\n";
    if kind != ReduceKernel::LumaSum {
        s += &format!("    packed_finish({swar});\n");
    }
    // the tail through `add_pixel` would fill every slot; `ysum` adds only Y
    s += &if kind == ReduceKernel::LumaSum {
        TAIL_PIXELS_WGSL.replace("add_pixel", "ysum_pixel")
    } else {
        TAIL_PIXELS_WGSL.to_string()
    };
    s += "}\n";
    s
}

/// CPU twin of `reduce.wgsl`: exact statistics of an RGBA8 image.
pub fn stats_cpu(img: &Image) -> Stats {
    let identity = || Stats {
        count: 0,
        min: [255; 5],
        max: [0; 5],
        sum: [0; 5],
    };
    let merge = |mut a: Stats, b: Stats| {
        a.count += b.count;
        for c in 0..5 {
            a.min[c] = a.min[c].min(b.min[c]);
            a.max[c] = a.max[c].max(b.max[c]);
            a.sum[c] += b.sum[c];
        }
        a
    };
    let s = img
        .as_u8()
        .par_chunks(4 * 4096)
        .map(|chunk| {
            let mut s = identity();
            for p in chunk.chunks_exact(4) {
                let v = [p[0], p[1], p[2], p[3], luma601(p[0], p[1], p[2])];
                for (c, &v) in v.iter().enumerate() {
                    s.min[c] = s.min[c].min(v);
                    s.max[c] = s.max[c].max(v);
                    s.sum[c] += v as u64;
                }
                s.count += 1;
            }
            s
        })
        .reduce(identity, merge);
    // An empty image cannot exist, but keep the GPU's zero-slot convention if it did.
    if s.count == 0 {
        return Stats {
            count: 0,
            min: [255; 5],
            max: [0; 5],
            sum: [0; 5],
        };
    }
    s
}

/// Records the statistics reduction of `src` (RGBA8) into `dst` (`DataKind::Stats`).
fn record_reduce(rec: &mut NodeRecorder<'_>, src: &GpuSlot, dst: &GpuSlot) -> Result<()> {
    let schedule = match rec.schedule(DEF.name) {
        Some(v) => ReduceSchedule::parse(v)?,
        None => ReduceSchedule::choose(),
    };
    record_reduce_with(rec, src, dst, schedule)
}

fn record_reduce_with(
    rec: &mut NodeRecorder<'_>,
    src: &GpuSlot,
    dst: &GpuSlot,
    schedule: ReduceSchedule,
) -> Result<()> {
    let ReduceSchedule {
        kernel: kind,
        shape,
        prefetch,
    } = schedule;
    let d = src
        .desc
        .image()
        .ok_or_else(|| Error::invalid("`reduce` expects an image"))?;
    let count = d.pixels() as u64;
    let g = grid(count, REDUCE_WG, shape.quads_per_thread, 0)?;
    check_partial_fits(&g, REDUCE_WG, 255)?;
    check_quads(src, count)?;
    let (shim, key) = subgroup_shim(rec);
    let kernel = match kind {
        ReduceKernel::Scalar => {
            let mut k = Kernel::new(
                &format!("analysis.reduce.{key}.{}", shape.key()),
                &[GridParams::WGSL, GRID_WGSL, shim, WGSL],
                "reduce",
            );
            k.generated = Some(shape.visit_pixels_wgsl());
            k
        }
        ReduceKernel::Swar | ReduceKernel::Dp4 | ReduceKernel::LumaSum => {
            let name = match kind {
                ReduceKernel::Swar => "swar",
                ReduceKernel::Dp4 => "dp4",
                _ => "ysum",
            };
            let mut k = Kernel::new(
                &format!(
                    "analysis.reduce.{key}.{name}.{}.pf{}",
                    shape.key(),
                    prefetch as u32
                ),
                &[GridParams::WGSL, GRID_WGSL, shim, WGSL, PACKED_WGSL],
                "reduce",
            );
            k.generated = Some(packed_visit_pixels_wgsl(kind, shape, prefetch));
            k
        }
    };
    rec.clear(&dst.buffer);
    rec.dispatch(
        &kernel,
        &[&src.buffer, &dst.buffer],
        bytemuck::bytes_of(&g.params),
        g.groups,
    )
}

crate::reduction_filter! {
    /// The Y sum and pixel count of an RGBA8 image as `DataKind::Stats` with every other slot at
    /// its identity (min 255, max 0, sum 0): what `luminance_threshold_by_stats` reads, in one
    /// read-only pass with less per-pixel work than `Reduce`. Not registered: the node
    /// `average_luminance_threshold` lowers to. Its kernel is that filter's schedule
    /// (`StatsReduction`, read from the run's overrides when it records): `ysum` (the default),
    /// `ysum_pf` / `ysum_nopf`, or `reduce`, `Reduce`'s kernel, whose other slots then hold the
    /// full statistics (the threshold reads only the Y sum and the count, the same in both).
    pub struct ReduceLumaSum;
    def: LUMA_SUM_DEF,
    name: "reduce_luma_sum",
    gpuimage: "",
    summary: "Sum of BT.601 luma and the pixel count (statistics data, other slots empty).",
    doc: "Internal: the reduction `average_luminance_threshold` lowers to (its schedules `ysum`, the default, `ysum_pf`, `ysum_nopf`, `reduce`).",
    params: {},
    formats: [Rgba8],
    outputs: { stats: Stats },
    uniforms: [GridParams::layout(GRID_WGSL)],
    merges_partials: true,
    cpu: |_, img| Data::Stats(luma_sum_cpu(img)),
    gpu: record_luma_sum,
}

/// CPU twin of `ReduceLumaSum` (reduce_packed.wgsl's `ysum_quad`).
pub fn luma_sum_cpu(img: &Image) -> Stats {
    let ysum: u64 = img
        .as_u8()
        .par_chunks(4 * 4096)
        .map(|c| {
            c.chunks_exact(4)
                .map(|p| luma601(p[0], p[1], p[2]) as u64)
                .sum::<u64>()
        })
        .sum();
    Stats {
        count: img.as_u8().len() as u64 / 4,
        min: [255; 5],
        max: [0; 5],
        sum: [0, 0, 0, 0, ysum],
    }
}

/// Records `ReduceLumaSum` under `average_luminance_threshold`'s schedule in the run's
/// overrides (`StatsReduction`), else its default: `reduce`'s kernel with the `ysum` per-pixel
/// work, its loop pipelined as the schedule names it (`ysum_pf` / `ysum_nopf`; bench
/// comparisons); or, under `reduce`, `Reduce`'s kernel (under `reduce`'s own schedule).
fn record_luma_sum(
    _: &ReduceLumaSum,
    rec: &mut NodeRecorder<'_>,
    input: &GpuSlot,
    output: &GpuSlot,
    _: ImageDesc,
) -> Result<()> {
    match StatsReduction::named(rec)?.unwrap_or_else(StatsReduction::choose) {
        StatsReduction::LumaSum { prefetch } => record_reduce_with(
            rec,
            input,
            output,
            ReduceSchedule {
                kernel: ReduceKernel::LumaSum,
                shape: DEFAULT_LOOP,
                prefetch,
            },
        ),
        StatsReduction::Full => record_reduce(rec, input, output),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn schedule_names_parse() {
        for &name in SCHEDULES {
            assert!(ReduceSchedule::parse(name).is_ok(), "{name}");
        }
        assert_eq!(
            ReduceSchedule::parse("dp4").ok(),
            Some(ReduceSchedule::choose())
        );
        assert_eq!(
            ReduceSchedule::parse("swar_pf_u2q8").ok(),
            Some(ReduceSchedule {
                kernel: ReduceKernel::Swar,
                shape: LoopShape {
                    unroll: 2,
                    quads_per_thread: 8
                },
                prefetch: true
            })
        );
        let e = ReduceSchedule::parse("dp4_u0q1").unwrap_err().to_string();
        assert!(
            e.contains("unknown schedule `dp4_u0q1`") && e.contains("dp4_nopf"),
            "{e}"
        );
        assert_eq!(
            StatsReduction::parse("ysum").ok(),
            Some(StatsReduction::choose())
        );
        assert_eq!(
            StatsReduction::parse("reduce").ok(),
            Some(StatsReduction::Full)
        );
        assert!(StatsReduction::parse("ysum_x").is_err());
    }
    #[test]
    fn schedules_start_with_the_loop_variants() {
        assert_eq!(
            &SCHEDULES[..super::super::LOOP_VARIANTS.len()],
            super::super::LOOP_VARIANTS
        );
    }
}
