//! Colour-distribution fingerprint (`DataKind::Fingerprint`): the `fingerprint` kernel of
//! PhotoAssessment (seed 003, its `MSPFingerprintImageKernel`), 2x2 blocks x 3 bits of R, G, B
//! = 2048 atomic bins at the defaults, with a configurable grid (1..8) and bit depth (1..4).
//! GPUImage and OpenCV have no equivalent. Bin layout, and the article's defect fixed (its
//! block row spilling into the colour bits for heights that are not a multiple of the grid):
//! `crate::assess::FingerprintLayout`. Similarity and grouping: `crate::assess`.
//!
//! GPU: grid-stride loop over 16-byte pixel quads; up to 4096 bins each workgroup counts in
//! workgroup memory and adds its non-empty bins to the global counts, one atomic each (as
//! `histogram`); larger fingerprints count straight into global memory.

use rayon::prelude::*;

use super::{check_quads, grid};
use crate::error::Result;
use crate::image::{Image, ImageDesc};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{GpuSlot, Kernel, NodeRecorder};
use crate::value::photo::{Fingerprint, FingerprintLayout};
use crate::value::Data;

const WGSL: &str = include_str!("color_fingerprint.wgsl");
/// Bin computation and counting, shared with the fused photo_assessment pass.
pub(crate) const BINS_WGSL: &str = include_str!("fingerprint_bins.wgsl");
/// Workgroup size. Schedule choice, not algorithm; mirrors `FP_WG` in color_fingerprint.wgsl.
const FP_WG: u32 = 256;
/// Quads per invocation: many, so few workgroups merge their bins into global memory.
const QUADS_PER_THREAD: u32 = 32;
/// Most bins counted in workgroup memory (16 KiB, WebGPU's guaranteed minimum).
const WG_BINS_MAX: usize = 4096;

uniform_struct! {
    /// Uniform of color_fingerprint.wgsl; grid and bits are constants of the kernel
    /// (`fingerprint_generated`).
    pub struct FingerprintParams {
        pub width: u32,
        pub height: u32,
        /// Pixels.
        pub count: u32,
        /// Whole quads, count / 4; invocation 0 takes the 0..3 pixels after them.
        pub quads: u32,
        /// Invocations in the grid (loop step, in quads).
        pub stride: u32,
        /// Block rows, min(grid, height).
        pub rows: u32,
        /// Block columns, min(grid, width).
        pub cols: u32,
        /// height / rows
        pub v_step: u32,
        /// width / cols
        pub h_step: u32,
    }
}

crate::reduction_filter! {
    /// Colour fingerprint: `grid` x `grid` blocks, top `bits` bits of R, G, B.
    pub struct ColorFingerprint;
    name: "color_fingerprint",
    gpuimage: "",
    summary: "Colour-distribution fingerprint: pixel counts per (block, top bits of R, G, B) bin (fingerprint data).",
    doc: "Output is `fingerprint` data: grid x grid blocks (rows = min(grid, height), cols = min(grid, width), \
row = min(y / (height / rows), rows - 1), likewise col), each pixel counted in bin \
block + grid^2 * (R' + (G' << bits) + (B' << 2 bits)), C' the top `bits` bits of the channel. \
The defaults are PhotoAssessment's fingerprint (2x2 blocks, 3 bits, 2048 bins: bits 0-1 block, 2-4 R, 5-7 G, 8-10 B), \
with its last block row clamped (the article's spills into the colour bits for odd heights). \
Compare two with their similarity (histogram intersection of the normalised bins, 0..1). Alpha is ignored.",
    params: {
        grid: uint(1, 8) = 2 => "blocks per side (grid x grid blocks)",
        bits: uint(1, 4) = 3 => "top bits kept of each of R, G, B (bins = grid^2 * 2^(3 bits))",
    },
    formats: [Rgba8],
    outputs: { fingerprint: Fingerprint },
    uniforms: [FingerprintParams::layout("")],
    cpu: |f, img| Data::Fingerprint(fingerprint_cpu(img, f.grid, f.bits)?),
    gpu: record,
}

/// The generated part of fingerprint_bins.wgsl: the layout's grid, bits and bin count, the
/// bins counted in workgroup memory (`fp_wg`) when `use_wg`, else straight into the global
/// ones. Kernels including it are keyed by grid and bits.
pub(crate) fn fingerprint_generated(layout: &FingerprintLayout, use_wg: bool) -> String {
    let bins = layout.bins();
    format!(
        "const FP_GRID: u32 = {}u;\nconst FP_BITS: u32 = {}u;\nconst BINS: u32 = {bins}u;\nconst USE_WG: bool = {use_wg};\nvar<workgroup> fp_wg: array<atomic<u32>, {}>;\n",
        layout.grid,
        layout.bits,
        if use_wg { bins } else { 1 }
    )
}

/// CPU twin of color_fingerprint.wgsl.
pub fn fingerprint_cpu(img: &Image, grid: u32, bits: u32) -> Result<Fingerprint> {
    let (w, h) = (img.width(), img.height());
    let layout = FingerprintLayout::new(grid, bits, w, h)?;
    let n = layout.bins();
    let rows_per_chunk = (65536 / w as usize).max(1);
    let bins = img
        .as_u8()
        .par_chunks(4 * w as usize * rows_per_chunk)
        .enumerate()
        .map(|(k, chunk)| {
            let mut b = vec![0u32; n];
            for (i, p) in chunk.chunks_exact(4).enumerate() {
                let (x, y) = (
                    (i % w as usize) as u32,
                    (k * rows_per_chunk + i / w as usize) as u32,
                );
                b[layout.bin(x, y, p[0], p[1], p[2])] += 1;
            }
            b
        })
        .reduce(
            || vec![0u32; n],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(&b) {
                    *x += y;
                }
                a
            },
        );
    Ok(Fingerprint {
        grid,
        bits,
        pixels: w as u64 * h as u64,
        bins,
    })
}

/// Records the counting kernel, keyed by grid and bits.
fn record(
    f: &ColorFingerprint,
    rec: &mut NodeRecorder<'_>,
    input: &GpuSlot,
    output: &GpuSlot,
    d: ImageDesc,
) -> Result<()> {
    let layout = FingerprintLayout::new(f.grid, f.bits, d.width, d.height)?;
    let count = d.pixels() as u64;
    let g = grid(count, FP_WG, QUADS_PER_THREAD, 0)?;
    check_quads(input, count)?;
    let bins = layout.bins();
    let use_wg = bins <= WG_BINS_MAX;
    let u = FingerprintParams {
        width: d.width,
        height: d.height,
        count: g.params.count,
        quads: g.params.quads,
        stride: g.params.stride,
        rows: layout.rows,
        cols: layout.cols,
        v_step: layout.v_step,
        h_step: layout.h_step,
        ..Default::default()
    };
    let mut kernel = Kernel::new(
        &format!("analysis.color_fingerprint.g{}b{}", f.grid, f.bits),
        &[FingerprintParams::WGSL, BINS_WGSL, WGSL],
        "color_fingerprint",
    );
    kernel.generated = Some(fingerprint_generated(&layout, use_wg));
    rec.clear(&output.buffer);
    rec.dispatch(
        &kernel,
        &[&input.buffer, &output.buffer],
        bytemuck::bytes_of(&u),
        g.groups,
    )
}
