//! Per-channel tone curves from `lut` data (computed on the GPU by a solver node, no read-back)
//! applied to an RGBA8 image: OpenCV's `cv::LUT` with a 4-channel table. The consumer shared by
//! `auto_levels`, `auto_white_balance` and `histogram_equalization`.
//!
//! GPU: each workgroup copies the 256-word table (all four channels' outputs per input level)
//! into workgroup memory, then maps a grid-stride run of pixel quads.

use super::{check_quads, grid, GridParams, GRID_WGSL};
use crate::error::Result;
use crate::filters::registry::{expect_image, input_image, slot_image};
use crate::image::{Image, PixelFormat};
use crate::runtime::{GpuSlot, Kernel, NodeRecorder};
use crate::value::Lut;

const WGSL: &str = include_str!("apply_lut.wgsl");
/// Workgroup size (one invocation per table entry for the copy). Mirrors `APPLY_WG` in the WGSL.
const APPLY_WG: u32 = 256;
/// Quads per invocation: amortises the table copy. Schedule choice, not algorithm.
const QUADS_PER_THREAD: u32 = 8;

/// Applies `lut` data's per-channel curves to an RGBA8 image.
#[derive(Clone, Debug, Default)]
pub struct ApplyLut;

impl ApplyLut {
    /// The filter (no parameters).
    pub fn new() -> Result<Self> {
        Ok(Self)
    }
}

crate::draw_filter! {
    filter: ApplyLut,
    name: "apply_lut",
    family: Analysis,
    gpuimage: "",
    summary: "Applies per-channel curves from lut data (e.g. from a solver node) to an RGBA8 image.",
    doc: "Two inputs: an RGBA8 image and `lut` data (256 output levels per channel R, G, B, A). Each \
channel's level v becomes its curve's entry v (cv::LUT with a 4-channel table). The curves are read on the GPU: \
no read-back between the solver that made them and this node.",
    params: [],
    build: |_| ApplyLut,
    data: lut: Lut,
    output: |_, inputs| expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8]),
    footprint: Pixel,
    uniforms: [GridParams::layout(GRID_WGSL)],
    cpu: |_, inputs, lut, _out| apply_lut_cpu(input_image(&DEF, inputs, 0)?, lut),
    gpu: record,
}

/// CPU twin of `apply_lut.wgsl`.
pub fn apply_lut_cpu(img: &Image, lut: &Lut) -> Result<Image> {
    let mut out = img.as_u8().to_vec();
    for p in out.chunks_exact_mut(4) {
        let q = lut.apply([p[0], p[1], p[2], p[3]]);
        p.copy_from_slice(&q);
    }
    Image::from_u8(img.width(), img.height(), PixelFormat::Rgba8, out)
}

/// Maps pixel quads through the table in workgroup memory (`apply_lut.wgsl`).
fn record(
    _f: &ApplyLut,
    rec: &mut NodeRecorder<'_>,
    inputs: &[GpuSlot],
    outputs: &[GpuSlot],
) -> Result<()> {
    let d = slot_image(&DEF, inputs, 0)?;
    let count = d.pixels() as u64;
    let g = grid(count, APPLY_WG, QUADS_PER_THREAD, 0)?;
    check_quads(&inputs[0], count)?;
    check_quads(&outputs[0], count)?;
    let kernel = Kernel::new(
        "analysis.apply_lut",
        &[GridParams::WGSL, GRID_WGSL, WGSL],
        "apply_lut",
    );
    rec.dispatch(
        &kernel,
        &[&inputs[0].buffer, &inputs[1].buffer, &outputs[0].buffer],
        bytemuck::bytes_of(&g.params),
        g.groups,
    )
}
