//! Mean HSV saturation of an RGBA8 image as `DataKind::Mean` data: the photo-quality
//! "colourfulness" measure. GPUImage has no direct equivalent (its `GPUImageAverageColor`
//! reduces colours, not saturation); this is the same kind of whole-image reduction.
//!
//! Per pixel S = (max(R,G,B) - min(R,G,B)) / max(R,G,B) on the 8-bit integers (0 for black),
//! stored as the fixed-point sample round(S * 65536) = ((max - min) * 65536 + max / 2) / max
//! with integer division, identical on CPU and GPU; the sum is an exact 64-bit integer.
//! GPU: grid-stride loop over 16-byte pixel quads, subgroup combine, one 64-bit atomic add
//! (lo/hi words with carry) per workgroup.

use rayon::prelude::*;

use super::{
    check_partial_fits, check_quads, grid, subgroup_shim, GridParams, LoopShape, GRID_WGSL,
};
use crate::error::Result;
use crate::image::{Image, ImageDesc};
use crate::runtime::{GpuSlot, Kernel, NodeRecorder};
use crate::value::Data;

const WGSL: &str = include_str!("mean_saturation.wgsl");
/// Workgroup size. Schedule choice, not algorithm; mirrors `MEAN_WG` in mean_saturation.wgsl.
const MEAN_WG: u32 = 256;
/// The default loop shape (H200 at 4K; 8 quads per invocation measured 5-15% faster than 16
/// before run 8 chose 4).
fn choose_loop() -> LoopShape {
    // u4q4 0.0201-0.0203 ms; u8q8 0.0204-0.0207, u1q8 (the default before) 0.0212-0.0214 (run 8)
    LoopShape {
        unroll: 4,
        quads_per_thread: 4,
    }
}

crate::reduction_filter! {
    /// Mean HSV saturation, as an exact fixed-point mean (16 fractional bits).
    pub struct MeanSaturation;
    name: "mean_saturation",
    gpuimage: "",
    summary: "Mean HSV saturation (max - min) / max over all pixels (mean data, 0..1).",
    doc: "Output is `mean` data in [0, 1]. Per pixel S = (max(R,G,B) - min(R,G,B)) / max(R,G,B) \
on the 8-bit values (0 where max = 0), as the fixed-point sample round(S * 65536) computed with \
integer division; the mean is the exact 64-bit sum over the pixel count, divided by 65536. Alpha is ignored.",
    params: {},
    formats: [Rgba8],
    outputs: { mean: Mean },
    uniforms: [GridParams::layout(GRID_WGSL)],
    schedules: super::LOOP_VARIANTS,
    merges_partials: true,
    cpu: |_, img| {
        let (sum, count) = mean_saturation_cpu(img);
        Data::Mean { sum, count }
    },
    gpu: record,
}

/// round(65536 * S) for one pixel; twin of `saturation_fixed` in mean_saturation.wgsl.
pub fn saturation_fixed(r: u8, g: u8, b: u8) -> u32 {
    let hi = r.max(g).max(b) as u32;
    let lo = r.min(g).min(b) as u32;
    // max = 0 (black) has no saturation: 0, as the kernel's select.
    ((hi - lo) * 65536 + hi / 2).checked_div(hi).unwrap_or(0)
}

/// CPU twin: (sum of fixed-point samples, pixel count).
pub fn mean_saturation_cpu(img: &Image) -> (u64, u64) {
    let sum = img
        .as_u8()
        .par_chunks(4 * 4096)
        .map(|c| {
            c.chunks_exact(4)
                .map(|p| saturation_fixed(p[0], p[1], p[2]) as u64)
                .sum::<u64>()
        })
        .sum();
    (sum, img.desc().pixels() as u64)
}

/// Records the kernel: a grid-stride loop, a subgroup combine, one 64-bit atomic add per
/// workgroup.
fn record(
    _: &MeanSaturation,
    rec: &mut NodeRecorder<'_>,
    input: &GpuSlot,
    output: &GpuSlot,
    d: ImageDesc,
) -> Result<()> {
    let count = d.pixels() as u64;
    let shape = LoopShape::for_filter(rec, DEF.name, choose_loop())?;
    let g = grid(count, MEAN_WG, shape.quads_per_thread, 0)?;
    check_partial_fits(&g, MEAN_WG, 65536)?;
    check_quads(input, count)?;
    let (shim, key) = subgroup_shim(rec);
    let mut kernel = Kernel::new(
        &format!("analysis.mean_saturation.{key}.{}", shape.key()),
        &[GridParams::WGSL, GRID_WGSL, shim, WGSL],
        "mean_saturation",
    );
    kernel.generated = Some(shape.visit_pixels_wgsl());
    rec.clear(&output.buffer);
    rec.dispatch(
        &kernel,
        &[&input.buffer, &output.buffer],
        bytemuck::bytes_of(&g.params),
        g.groups,
    )
}
