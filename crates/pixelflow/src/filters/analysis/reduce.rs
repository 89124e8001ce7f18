//! Whole-image statistics: per-channel min, max and sum (hence mean) of R, G, B, A and BT.601
//! luma Y, plus the pixel count, as `DataKind::Stats`. A superset of GPUImage's
//! `GPUImageAverageColor` (mean RGBA) and `GPUImageLuminosity` (mean luminance), computed as
//! one read-only GPU reduction instead of GPUImage's repeated 4x down-sampling passes.
//!
//! GPU: grid-stride loop over 16-byte pixel quads with per-invocation accumulators, a
//! subgroup (or workgroup-atomic) combine per workgroup, then one global atomic per workgroup
//! per slot; sums are 64-bit as lo/hi words with a carry. Exact (integer) on both sides.

use rayon::prelude::*;

use super::{check_partial_fits, check_quads, grid, subgroup_shim, GridParams, LoopShape, GRID_WGSL};
use crate::error::{Error, Result};
use crate::image::{luma601, Image, PixelFormat};
use crate::registry::{EXACT_ENOUGH, Family, Filter, FilterDef, IMAGE, PortDef, PortKind, UniformLayout, expect_image, input_image};
use crate::runtime::{GpuSlot, Kernel, NodeRecorder};
use crate::value::{Data, DataKind, Stats, Value, ValueDesc};

const WGSL: &str = include_str!("reduce.wgsl");
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
const DEFAULT_LOOP: LoopShape = LoopShape { unroll: 4, quads_per_thread: 16 };

/// Per-channel min, max, sum of R, G, B, A, Y and the pixel count of an RGBA8 image.
#[derive(Clone, Debug, Default)]
pub struct Reduce;

impl Reduce {
    pub fn new() -> Self {
        Self
    }
}

/// The statistics output port.
pub const STATS_OUT: &[PortDef] = &[PortDef { name: "stats", kind: PortKind::Data(DataKind::Stats) }];

pub static DEF: FilterDef = FilterDef {
    name: "reduce",
    family: Family::Analysis,
    summary: "Per-channel min, max, sum and mean of R, G, B, A and BT.601 luma (statistics data).",
    doc: "Output is `stats` data: for each of r, g, b, a and y (BT.601 luma, round(0.299R + 0.587G + 0.114B)) \
the minimum, maximum and exact 64-bit sum of the 8-bit samples, and the pixel count (mean = sum / count). \
One read-only pass on the GPU (grid-stride loop, subgroup combine, one atomic per workgroup per slot). \
Later nodes can consume the statistics on the GPU (see luminance_threshold_by_stats).",
    gpuimage: "GPUImageAverageColor",
    params: &[],
    inputs: IMAGE,
    outputs: STATS_OUT,
    tolerance: EXACT_ENOUGH,
    build: |_| Ok(Box::new(Reduce)),
    uniforms: &[UniformLayout { wgsl: GRID_WGSL, wgsl_struct: "GridParams", rust_size: std::mem::size_of::<GridParams>() }],
    test_inputs: None,
    schedules: super::LOOP_VARIANTS,
};

/// CPU twin of `reduce.wgsl`: exact statistics of an RGBA8 image.
pub fn stats_cpu(img: &Image) -> Stats {
    let identity = || Stats { count: 0, min: [255; 5], max: [0; 5], sum: [0; 5] };
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
        return Stats { count: 0, min: [255; 5], max: [0; 5], sum: [0; 5] };
    }
    s
}

impl Filter for Reduce {
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8])?;
        Ok(vec![ValueDesc::Data(DataKind::Stats)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        Ok(vec![Value::Data(Data::Stats(stats_cpu(img)))])
    }
    fn record_gpu(&self, rec: &mut NodeRecorder<'_>, inputs: &[GpuSlot], outputs: &[GpuSlot]) -> Result<()> {
        record_reduce(rec, &inputs[0], &outputs[0])
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// Records the statistics reduction of `src` (RGBA8) into `dst` (`DataKind::Stats`).
pub(crate) fn record_reduce(rec: &mut NodeRecorder<'_>, src: &GpuSlot, dst: &GpuSlot) -> Result<()> {
    let d = src.desc.image().ok_or_else(|| Error::Graph("`reduce` expects an image".into()))?;
    let count = d.pixels() as u64;
    let shape = LoopShape::for_filter(DEF.name, DEFAULT_LOOP)?;
    let g = grid(count, REDUCE_WG, shape.quads_per_thread, 0)?;
    check_partial_fits(&g, REDUCE_WG, 255)?;
    check_quads(src, count)?;
    let (shim, key) = subgroup_shim(rec);
    let mut kernel = Kernel::new(&format!("analysis.reduce.{key}.{}", shape.key()), &[GRID_WGSL, shim, WGSL], "reduce");
    kernel.generated = Some(shape.visit_pixels_wgsl());
    rec.clear(&dst.buffer);
    rec.dispatch(&kernel, &[&src.buffer, &dst.buffer], bytemuck::bytes_of(&g.params), g.groups)
}
