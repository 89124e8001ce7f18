//! Kuwahara filter (oil-painting abstraction), GPUImage's `GPUImageKuwaharaFilter`: each pixel
//! becomes the mean colour of whichever of the four (radius + 1)² quadrants that meet at it has
//! the smallest variance, the variance summed over R, G and B as GPUImage sums it.
//!
//! GPUImage's rules, kept: quadrants top-left, top-right, bottom-right, bottom-left, each
//! including the pixel's own row and column; the first quadrant of smallest variance wins (a
//! strict `<` in that order); the mean is stored rounded to 8 bits; the output is opaque
//! (GPUImage writes alpha 1). Differences: the variance is computed exactly in integers
//! (n² var = n Σc² - (Σc)² per channel) where GPUImage uses floats, so near-ties may fall the
//! other way; the steps are one pixel of the image (GPUImage's shader hard-codes a 768x1024
//! texel size, so its window stretches on other sizes); borders replicate the edge pixel (as
//! GPUImage's clamp-to-edge texture sampling does).
//!
//! GPU: one kernel per radius (the radius a compile-time constant, so loops unroll), a
//! workgroup tile of 16 x 16 outputs plus its border in workgroup memory, each invocation
//! reading its window once as row segments shared by two quadrants. Exact: equal to the twin.

use crate::error::Result;
use crate::filters::registry::{slot_image, FilterDef};
use crate::graph::params::{check_int, ParamDef};
use crate::image::{Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};

const WGSL: &str = include_str!("kuwahara.wgsl");

/// Outputs per workgroup tile side (`OUT` in kuwahara.wgsl).
const TILE_OUT: u32 = 16;
/// Largest radius: the tile (16 + 2 radius)² fits 16 KiB of workgroup memory, and n² 255² / 4
/// summed over three channels fits u32 (the kernel's exact variance).
pub const MAX_RADIUS: u32 = 16;

/// Quadrants by index: 0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left.
/// GPUImageKuwaharaFilter compares them in this order.
pub const GPUIMAGE_ORDER: [u8; 4] = [0, 1, 2, 3];

/// Kuwahara filter: each pixel the mean of the least varied of the four quadrants around it.
#[derive(Clone, Debug)]
pub struct Kuwahara {
    /// Quadrant side minus one, in pixels.
    pub radius: u32,
    /// The order in which quadrants are compared; the first of smallest variance wins.
    pub tie_order: [u8; 4],
}

impl Kuwahara {
    /// Fails when `radius` is outside its declared range.
    pub fn new(radius: u32) -> Result<Self> {
        Ok(Self {
            radius: check_int(&DEF, "radius", radius)?,
            tie_order: GPUIMAGE_ORDER,
        })
    }
}

impl Default for Kuwahara {
    fn default() -> Self {
        Self {
            radius: 4,
            tie_order: GPUIMAGE_ORDER,
        }
    }
}

uniform_struct! {
    /// Uniform of kuwahara.wgsl.
    pub struct KuwaharaParams {
        pub width: u32,
        pub height: u32,
        /// The quadrants in tie-break order, a byte each (0 TL, 1 TR, 2 BR, 3 BL), first in
        /// the low byte.
        pub order: u32,
        /// (radius + 1)², samples per quadrant.
        pub n: u32,
    }
}

crate::kuwahara_filter! {
    filter: Kuwahara,
    name: "kuwahara",
    summary: "Oil-painting look: each pixel the mean of the least varied of the four quadrants around it; opaque.",
    doc: "GPUImage's Kuwahara filter: the four (radius + 1)² windows that have the pixel as a corner (top-left, top-right, \
          bottom-right, bottom-left), each one's mean and variance (summed over R, G, B); the output is the mean of the one \
          with the smallest variance, the first in that order on a tie, rounded to 8 bits, alpha 255 (as GPUImage writes). \
          Edges stay sharp while flat regions are smoothed. Exact integer variance (GPUImage: floats); replicate borders.",
    gpuimage: "GPUImageKuwaharaFilter",
    params: [ParamDef::int("radius", 4, 1, MAX_RADIUS as i64, "quadrant side minus one, in pixels (GPUImage's radius)")],
    build: |a| Kuwahara::new(a.u32("radius")?)?,
    uniforms: [KuwaharaParams::layout("")],
    radius: |f| f.radius,
    order: |f| f.tie_order,
}

/// CPU twin: sums each quadrant directly (no shared row segments), in u64.
pub fn kuwahara_cpu(img: &Image, radius: u32, tie_order: [u8; 4]) -> Result<Image> {
    let (w, h) = (img.width() as i64, img.height() as i64);
    let src = img.as_u8();
    let r = radius as i64;
    let n = ((r + 1) * (r + 1)) as u64;
    // top-left corner offsets of the quadrants, by index
    let corners = [(-r, -r), (0, -r), (0, 0), (-r, 0)];
    let mut out = vec![0u8; src.len()];
    for y in 0..h {
        for x in 0..w {
            let stats = corners.map(|(cx, cy)| {
                let (mut s, mut q) = ([0u64; 3], [0u64; 3]);
                for dy in 0..=r {
                    for dx in 0..=r {
                        let (sx, sy) =
                            ((x + cx + dx).clamp(0, w - 1), (y + cy + dy).clamp(0, h - 1));
                        let i = ((sy * w + sx) * 4) as usize;
                        for c in 0..3 {
                            let v = src[i + c] as u64;
                            s[c] += v;
                            q[c] += v * v;
                        }
                    }
                }
                // n² times the variance, summed over the channels
                let spread: u64 = (0..3).map(|c| n * q[c] - s[c] * s[c]).sum();
                (spread, s)
            });
            let mut best = tie_order[0] as usize;
            for &k in &tie_order[1..] {
                if stats[k as usize].0 < stats[best].0 {
                    best = k as usize;
                }
            }
            let i = ((y * w + x) * 4) as usize;
            for c in 0..3 {
                out[i + c] = ((2 * stats[best].1[c] + n) / (2 * n)) as u8;
            }
            out[i + 3] = 255;
        }
    }
    Image::from_u8(img.width(), img.height(), PixelFormat::Rgba8, out)
}

/// Records the kernel for `radius` (specialised per radius) with the given tie order.
pub fn record_kuwahara(
    rec: &mut NodeRecorder<'_>,
    def: &FilterDef,
    inputs: &[GpuSlot],
    outputs: &[GpuSlot],
    radius: u32,
    tie_order: [u8; 4],
) -> Result<()> {
    let d = slot_image(def, inputs, 0)?;
    let out = outputs
        .first()
        .ok_or_else(|| crate::Error::wrong_input(def.name, "needs an output"))?;
    let side = TILE_OUT + 2 * radius;
    let u = KuwaharaParams {
        width: d.width,
        height: d.height,
        order: u32::from_le_bytes(tie_order),
        n: (radius + 1) * (radius + 1),
        ..Default::default()
    };
    let mut kernel = Kernel::new(
        &format!("neighborhood.kuwahara.r{radius}"),
        &[KuwaharaParams::WGSL, WGSL],
        "kuwahara",
    );
    kernel.generated = Some(format!("const R: u32 = {radius}u;\nconst SIDE: u32 = {side}u;\nvar<workgroup> tile: array<u32, {}>;\n", side * side));
    rec.dispatch_uninit(
        &kernel,
        &[&inputs[0].buffer, &out.buffer],
        bytemuck::bytes_of(&u),
        groups_2d(d.width, d.height, TILE_OUT, TILE_OUT),
    )
}
