//! The dominant colour of an image (`DataKind::Color`): the "colour dominant" solver of the
//! RGBY-histogram article (seed 002, `IMPHistogramSolver`), which feeds white balance
//! (`auto_white_balance(method=dominant)`). Neither GPUImage nor OpenCV has one.
//!
//! Definition: the RGB cube is cut into cells of 2^(8 - bits) levels per channel (bits = 4:
//! 4096 cells of 16 levels); the dominant colour is the mean of the pixels in the most
//! populated cell (the lowest cell index among equals), rounded half up. A coarse mode rather
//! than the per-channel modes, because those can combine into a colour no pixel has (the mode
//! of R from the sky, of G from the grass); the mean within the cell rather than its centre,
//! so the answer does not snap to the grid. Alpha is ignored.
//!
//! GPU: two passes over the image. `dominant_cells`: per-workgroup cell counts in workgroup
//! memory, merged with one atomic per non-empty cell. `dominant_mean`: every workgroup finds
//! the mode from the (cached) counts itself, sums the R, G, B of its pixels that fall in that
//! cell, and adds them to 64-bit totals with carries. All integer: equal to the CPU twin.

use rayon::prelude::*;

use super::{check_quads, grid, GridParams, LoopShape, GRID_WGSL};
use crate::error::Result;
use crate::image::{Image, ImageDesc};
use crate::runtime::{GpuSlot, Kernel, NodeRecorder};
use crate::value::{Data, DominantCell};

const WGSL: &str = include_str!("dominant_color.wgsl");
/// Workgroup size. Schedule choice, not algorithm; mirrors `DOMINANT_WG` in the WGSL.
const DOMINANT_WG: u32 = 256;
/// Loop shape of both passes (as `histogram`'s: many quads per invocation, few merges).
fn choose_loop() -> LoopShape {
    // not yet measured on its own; histogram's best shape on the H200 (u8q32)
    LoopShape {
        unroll: 8,
        quads_per_thread: 32,
    }
}

crate::reduction_filter! {
    /// The dominant colour: the mean of the most populated cell of a `bits`-per-channel RGB grid.
    pub struct DominantColor;
    name: "dominant_color",
    gpuimage: "",
    summary: "The dominant colour: the mean of the pixels in the most populated cell of a coarse RGB grid (color data).",
    doc: "The RGB cube is cut into cells of 2^(8 - bits) levels per channel; the output `color` data holds the most \
populated cell (the lowest index among equals), its pixel count and the exact sums of R, G, B over it; the colour is \
their mean, rounded half up, and its share the cell's fraction of the image (`apply --data` prints both). Alpha is \
ignored. Feeds auto_white_balance(method=dominant) on the GPU.",
    params: {
        bits: uint(2, 4) = 4 => "bits kept per channel for the cells: 4 = 4096 cells of 16 levels, 2 = 64 cells",
    },
    formats: [Rgba8],
    outputs: { color: Color },
    uniforms: [GridParams::layout(GRID_WGSL)],
    cpu: |f, img| Data::Color(dominant_color_cpu(img, f.bits)),
    gpu: record,
}

/// The cell of a pixel at `bits` per channel.
pub fn cell_of(p: &[u8], bits: u32) -> usize {
    let s = 8 - bits;
    (p[0] as usize >> s) | (p[1] as usize >> s) << bits | (p[2] as usize >> s) << (2 * bits)
}

/// CPU twin of dominant_color.wgsl.
pub fn dominant_color_cpu(img: &Image, bits: u32) -> DominantCell {
    let cells = 1usize << (3 * bits);
    let px = img.as_u8();
    let counts = px
        .par_chunks(4 * 8192)
        .map(|chunk| {
            let mut c = vec![0u64; cells];
            for p in chunk.chunks_exact(4) {
                c[cell_of(p, bits)] += 1;
            }
            c
        })
        .reduce(
            || vec![0u64; cells],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        );
    // the first maximum: the lowest index among equals
    let mut mode = 0;
    for (i, &c) in counts.iter().enumerate() {
        if c > counts[mode] {
            mode = i;
        }
    }
    let (count, sum) = px
        .par_chunks(4 * 8192)
        .map(|chunk| {
            let (mut n, mut s) = (0u64, [0u64; 3]);
            for p in chunk.chunks_exact(4).filter(|p| cell_of(p, bits) == mode) {
                n += 1;
                for c in 0..3 {
                    s[c] += p[c] as u64;
                }
            }
            (n, s)
        })
        .reduce(
            || (0, [0; 3]),
            |a, b| {
                (
                    a.0 + b.0,
                    [a.1[0] + b.1[0], a.1[1] + b.1[1], a.1[2] + b.1[2]],
                )
            },
        );
    DominantCell {
        count,
        sum,
        cell: mode as u32,
        bits,
        pixels: img.width() as u64 * img.height() as u64,
    }
}

/// Records the two passes: the cell counts, then the sums over the most populated cell.
fn record(
    f: &DominantColor,
    rec: &mut NodeRecorder<'_>,
    input: &GpuSlot,
    output: &GpuSlot,
    d: ImageDesc,
) -> Result<()> {
    let count = d.pixels() as u64;
    let shape = LoopShape::for_filter(rec, DEF.name, choose_loop())?;
    let g = grid(count, DOMINANT_WG, shape.quads_per_thread, f.bits)?;
    check_quads(input, count)?;
    let cells = rec.temp(4096 * 4);
    rec.clear(&cells);
    rec.clear(&output.buffer);
    let params = bytemuck::bytes_of(&g.params);
    for entry in ["dominant_cells", "dominant_mean"] {
        let mut kernel = Kernel::new(
            &format!("analysis.{entry}.{}", shape.key()),
            &[GridParams::WGSL, GRID_WGSL, WGSL],
            entry,
        );
        kernel.generated = Some(shape.visit_pixels_wgsl());
        rec.dispatch(
            &kernel,
            &[&input.buffer, &cells, &output.buffer],
            params,
            g.groups,
        )?;
    }
    Ok(())
}
