//! 256-bin histograms of R, G, B and BT.601 luma Y as `DataKind::Histogram` data. Matches
//! GPUImage's `GPUImageHistogramFilter` (its RGB and luminance modes at once), with exact
//! integer counts instead of GPUImage's blended point sprites.
//!
//! GPU: each workgroup builds a private 1024-bin histogram in workgroup memory (workgroup
//! atomics) over a grid-stride loop of 16-byte pixel quads, then adds its non-zero bins to the
//! global histogram with one atomic each.

use rayon::prelude::*;

use super::{check_quads, grid, GridParams, LoopShape, GRID_WGSL};
use crate::error::Result;
use crate::image::{luma601, Image, PixelFormat};
use crate::registry::{EXACT_ENOUGH, Family, Filter, FilterDef, IMAGE, PortDef, PortKind, UniformLayout, expect_image, input_image, slot_image};
use crate::runtime::{GpuSlot, Kernel, NodeRecorder};
use crate::value::{Data, DataKind, Value, ValueDesc};

const WGSL: &str = include_str!("histogram.wgsl");
/// Workgroup size. Schedule choice, not algorithm; mirrors `HISTOGRAM_WG` in histogram.wgsl.
const HISTOGRAM_WG: u32 = 256;
/// Quads per invocation. Schedule choice, not algorithm: larger means fewer workgroups, hence
/// fewer 1024-bin merges into global memory. Measured on an H200 at 3840x2160: 16 best
/// (0.0224-0.0246 ms), 8 and 32 slower; 2 or 4 privatised copies per workgroup did not help.
/// Run 8: u4q16 0.0226-0.0229 ms, u1q16 (previous default) 0.0231-0.0232, u2q8 0.027, u4q4 0.041.
/// Run 12 (same call, copy 0.0215): u8q32 0.0206, u4q32 0.0212, u2q32 0.0217, u4q16 0.0226,
/// u4q64 0.0234: fewer, longer-lived workgroups mean fewer 1024-bin merges into global memory.
const DEFAULT_LOOP: LoopShape = LoopShape { unroll: 8, quads_per_thread: 32 };

/// Histograms of R, G, B and Y (256 bins each) of an RGBA8 image.
#[derive(Clone, Debug, Default)]
pub struct Histogram;

impl Histogram {
    pub fn new() -> Self {
        Self
    }
}

pub static DEF: FilterDef = FilterDef {
    name: "histogram",
    family: Family::Analysis,
    summary: "256-bin histograms of R, G, B and BT.601 luma (histogram data).",
    doc: "Output is `histogram` data: exact pixel counts per 8-bit level for r, g, b and y \
(BT.601 luma, round(0.299R + 0.587G + 0.114B)); each channel's bins sum to width*height. \
GPU: per-workgroup histograms in workgroup memory, merged with one atomic per non-empty bin.",
    gpuimage: "GPUImageHistogramFilter",
    params: &[],
    inputs: IMAGE,
    outputs: &[PortDef { name: "histogram", kind: PortKind::Data(DataKind::Histogram) }],
    tolerance: EXACT_ENOUGH,
    build: |_| Ok(Box::new(Histogram)),
    uniforms: &[UniformLayout { wgsl: GRID_WGSL, wgsl_struct: "GridParams", rust_size: std::mem::size_of::<GridParams>(), fields: &[("count", std::mem::offset_of!(GridParams, count)), ("quads", std::mem::offset_of!(GridParams, quads)), ("stride", std::mem::offset_of!(GridParams, stride)), ("extra", std::mem::offset_of!(GridParams, extra))] }],
    test_inputs: None,
    schedules: super::LOOP_VARIANTS,
};

/// CPU twin of `histogram.wgsl`.
pub fn histogram_cpu(img: &Image) -> crate::value::Histogram {
    let bins = img
        .as_u8()
        .par_chunks(4 * 4096)
        .map(|chunk| {
            let mut b = [[0u32; 256]; 4];
            for p in chunk.chunks_exact(4) {
                b[0][p[0] as usize] += 1;
                b[1][p[1] as usize] += 1;
                b[2][p[2] as usize] += 1;
                b[3][luma601(p[0], p[1], p[2]) as usize] += 1;
            }
            b
        })
        .reduce(
            || [[0u32; 256]; 4],
            |mut a, b| {
                for (x, y) in a.iter_mut().flatten().zip(b.iter().flatten()) {
                    *x += y;
                }
                a
            },
        );
    crate::value::Histogram { bins }
}

impl Filter for Histogram {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::registry::Footprint {
        crate::registry::Footprint::WholeImage
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8])?;
        Ok(vec![ValueDesc::Data(DataKind::Histogram)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        Ok(vec![Value::Data(Data::Histogram(histogram_cpu(img)))])
    }
    fn record_gpu(&self, rec: &mut NodeRecorder<'_>, inputs: &[GpuSlot], outputs: &[GpuSlot]) -> Result<()> {
        let d = slot_image(&DEF, inputs, 0)?;
        let count = d.pixels() as u64;
        let shape = LoopShape::for_filter(DEF.name, DEFAULT_LOOP)?;
    let g = grid(count, HISTOGRAM_WG, shape.quads_per_thread, 0)?;
        check_quads(&inputs[0], count)?;
        rec.clear(&outputs[0].buffer);
        let mut kernel = Kernel::new(&format!("analysis.histogram.{}", shape.key()), &[GRID_WGSL, WGSL], "histogram");
        kernel.generated = Some(shape.visit_pixels_wgsl());
        rec.dispatch(&kernel, &[&inputs[0].buffer, &outputs[0].buffer], bytemuck::bytes_of(&g.params), g.groups)
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
