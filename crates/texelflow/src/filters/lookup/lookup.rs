//! Colour grading through a lookup table image. Matches GPUImage's `GPUImageLookupFilter`:
//! the LUT is a 512x512 RGBA8 image of 8x8 tiles of 64x64 texels; tile `b` (at column
//! `b % 8`, row `b / 8`) holds blue level `b` of 0..63, and within a tile x is the red level
//! and y the green level. GPUImage samples two tiles bilinearly and mixes them by
//! fract(63 B); that is trilinear interpolation in the 64^3 cube at (63R, 63G, 63B), which is
//! what this computes (in f32, exactly rather than with 8-bit texture-filter weights). The
//! result is mixed with the original by `intensity`; alpha is kept.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_image, slot_image, Family, Filter, FilterDef, PortDef, PortKind, EXACT_ENOUGH, IMAGE,
};
use crate::graph::params::{check_float, ParamDef};
use crate::image::{Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

/// The per-pixel kernel (lookup.wgsl) with each schedule's way of fetching a cell's 8 corners.
const TILE_WGSL: &str = concat!(
    include_str!("lookup.wgsl"),
    "\n",
    include_str!("lookup_tile.wgsl"),
    "\n",
    include_str!("lookup_tile_corners.wgsl")
);
const CELLS_WGSL: &str = concat!(
    include_str!("lookup.wgsl"),
    "\n",
    include_str!("lookup_cells.wgsl")
);
/// The `cells` schedule's re-layout of the LUT, gathering with the `tile` schedule's code.
const CELLS_EXPAND_WGSL: &str = concat!(
    include_str!("lookup_cells_expand.wgsl"),
    "\n",
    include_str!("lookup_tile_corners.wgsl")
);
/// Cells of the 64^3 cube in the `cells` layout (8 texels each).
const CELLS: u64 = 64 * 64 * 64;
/// Workgroup size. Schedule choice, not algorithm; mirrors `LOOKUP_WG` in lookup.wgsl.
const LOOKUP_WG: u32 = 256;
/// Side of a LUT image.
pub const LUT_SIDE: u32 = 512;
/// `1/255` as f32, passed to the kernel so both sides multiply by the same constant.
const INV255: f32 = 1.0 / 255.0;

/// Maps colours through a 512x512 LUT image (second input), mixed by `intensity`.
#[derive(Clone, Debug)]
pub struct Lookup {
    /// Mix of the mapped colour with the original, 0 to 1.
    pub intensity: f32,
}

impl Lookup {
    /// Fails when `intensity` is outside [0, 1].
    pub fn new(intensity: f32) -> Result<Self> {
        Ok(Self {
            intensity: check_float(&DEF, "intensity", intensity)?,
        })
    }
}

impl Default for Lookup {
    fn default() -> Self {
        Self { intensity: 1.0 }
    }
}

uniform_struct! {
    /// Uniform of lookup.wgsl.
    pub struct LookupParams {
        pub count: u32,
        pub intensity: f32,
        pub inv255: f32,
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "lookup",
    family: Family::Lookup,
    summary: "Colour grading through a 512x512 LUT image (8x8 tiles of a 64^3 cube), trilinear.",
    doc: "The LUT is a 512x512 image of 8x8 tiles of 64x64: tile b (column b % 8, row b / 8) is blue level b, \
x within a tile the red level, y the green level (GPUImage's lookup.png layout; `texelflow lut-identity` writes \
the identity LUT to edit in any photo editor). Colours are interpolated trilinearly at (63R, 63G, 63B)/255 in f32, \
as GPUImage's two bilinear samples mixed by fract(63B) do; the result is mixed with the original by `intensity`; \
alpha is kept. GPU: the LUT is first re-laid cell-major (the 8 corners of each cube cell in one 32-byte sector), then each pixel reads one cell.",
    gpuimage: "GPUImageLookupFilter",
    params: &[
        ParamDef::image("lut", "the 512x512 lookup table image"),
        ParamDef::float("intensity", 1.0, 0.0, 1.0, "mix between the original (0) and the looked-up colour (1)"),
    ],
    inputs: &[PortDef { name: "image", kind: PortKind::Image }, PortDef { name: "lut", kind: PortKind::Image }],
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(Lookup::new(a.f32("intensity")?)?)),
    uniforms: &[
        LookupParams::layout(TILE_WGSL),
        LookupParams::layout(CELLS_WGSL),
    ],
    test_inputs: Some(test_lut),
    schedules: &["tile"],
};

/// Level `v` of 0..63 on the 8-bit scale, round(v * 255 / 63) (never a tie).
fn level8(v: u32) -> u8 {
    ((v * 255 + 31) / 63) as u8
}

/// The identity LUT: applying it changes no colour by more than one 8-bit step.
/// Texel (x, y) holds r = round(x%64 * 255/63), g = round(y%64 * 255/63),
/// b = round(tile * 255/63) with tile = (y/64) * 8 + x/64; alpha 255.
pub fn identity_lut() -> Image {
    let mut data = Vec::with_capacity((LUT_SIDE * LUT_SIDE * 4) as usize);
    for y in 0..LUT_SIDE {
        for x in 0..LUT_SIDE {
            let tile = (y / 64) * 8 + x / 64;
            data.extend_from_slice(&[level8(x % 64), level8(y % 64), level8(tile), 255]);
        }
    }
    // The length matches by construction; an error here would be a bug, reported as such.
    Image::from_u8(LUT_SIDE, LUT_SIDE, PixelFormat::Rgba8, data).unwrap_or_else(|_| {
        Image::zeroed(crate::ImageDesc::new(
            LUT_SIDE,
            LUT_SIDE,
            PixelFormat::Rgba8,
        ))
    })
}

/// Test LUT for the GPU-vs-CPU matrix: the identity LUT with every sample perturbed by a
/// seeded pseudo-random offset in [-48, 48], so interpolation sees uneven neighbours.
fn test_lut(_w: u32, _h: u32, seed: u64) -> Vec<Image> {
    let mut lut = identity_lut();
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for v in lut.as_u8_mut().iter_mut() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let d = (s >> 40) as i32 % 97 - 48;
        *v = (*v as i32 + d).clamp(0, 255) as u8;
    }
    vec![lut]
}

fn lerp3(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

/// CPU twin of `lookup.wgsl` for one RGBA8 pixel.
pub fn lookup_pixel(p: [u8; 4], lut: &[u8], intensity: f32) -> [u8; 4] {
    let texel = |r: u32, g: u32, b: u32| {
        let x = (b % 8) * 64 + r;
        let y = (b / 8) * 64 + g;
        let i = ((y * LUT_SIDE + x) * 4) as usize;
        [lut[i] as f32, lut[i + 1] as f32, lut[i + 2] as f32]
    };
    let s = [p[0] as u32 * 63, p[1] as u32 * 63, p[2] as u32 * 63];
    let l0 = [s[0] / 255, s[1] / 255, s[2] / 255];
    let l1 = [
        (l0[0] + 1).min(63),
        (l0[1] + 1).min(63),
        (l0[2] + 1).min(63),
    ];
    let t = [
        (s[0] - l0[0] * 255) as f32 * INV255,
        (s[1] - l0[1] * 255) as f32 * INV255,
        (s[2] - l0[2] * 255) as f32 * INV255,
    ];
    let c00 = lerp3(texel(l0[0], l0[1], l0[2]), texel(l1[0], l0[1], l0[2]), t[0]);
    let c10 = lerp3(texel(l0[0], l1[1], l0[2]), texel(l1[0], l1[1], l0[2]), t[0]);
    let c01 = lerp3(texel(l0[0], l0[1], l1[2]), texel(l1[0], l0[1], l1[2]), t[0]);
    let c11 = lerp3(texel(l0[0], l1[1], l1[2]), texel(l1[0], l1[1], l1[2]), t[0]);
    let v0 = lerp3(c00, c10, t[1]);
    let v1 = lerp3(c01, c11, t[1]);
    let looked = lerp3(v0, v1, t[2]);
    let out = lerp3([p[0] as f32, p[1] as f32, p[2] as f32], looked, intensity);
    // Truncation of v + 0.5 (v >= -0.5 as a convex combination), as the kernel's u32().
    let q = |v: f32| (v + 0.5) as u8;
    [q(out[0]), q(out[1]), q(out[2]), p[3]]
}

fn check_lut(inputs: &[ValueDesc]) -> Result<()> {
    let lut = expect_image(&DEF, inputs, 1, &[PixelFormat::Rgba8])?;
    if lut.width != LUT_SIDE || lut.height != LUT_SIDE {
        return Err(Error::invalid(format!(
            "`lookup` needs a {LUT_SIDE}x{LUT_SIDE} LUT image (8x8 tiles of 64x64, as `texelflow lut-identity` writes), got {}x{}",
            lut.width, lut.height
        )));
    }
    Ok(())
}

impl Filter for Lookup {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::Pixel
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8])?;
        check_lut(inputs)?;
        Ok(vec![ValueDesc::Image(d)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let (Some(img), Some(lut)) = (
            inputs.first().and_then(|v| v.as_image()),
            inputs.get(1).and_then(|v| v.as_image()),
        ) else {
            return Err(Error::invalid("`lookup` expects an image and a LUT image"));
        };
        check_lut(&[ValueDesc::Image(img.desc()), ValueDesc::Image(lut.desc())])?;
        let lut = lut.as_u8();
        let mut out = img.as_u8().to_vec();
        out.par_chunks_mut(4 * 1024).for_each(|chunk| {
            for p in chunk.chunks_exact_mut(4) {
                let q = lookup_pixel([p[0], p[1], p[2], p[3]], lut, self.intensity);
                p.copy_from_slice(&q);
            }
        });
        Ok(vec![Value::Image(Image::from_u8(
            img.width(),
            img.height(),
            PixelFormat::Rgba8,
            out,
        )?)])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let d = slot_image(&DEF, inputs, 0)?;
        let count = d.pixels() as u32;
        let u = LookupParams {
            count,
            intensity: self.intensity,
            inv255: INV255,
            ..Default::default()
        };
        let groups = groups_1d((count as u64).div_ceil(4), LOOKUP_WG);
        // Schedules: `tile` gathers the 8 corners from the LUT image as given; `cells` first
        // re-lays the LUT cell-major (8 MiB temp) so each pixel reads one 32-byte sector.
        match rec.schedule(DEF.name).map(str::to_owned).as_deref() {
            Some("tile") => {
                let kernel = Kernel::new("lookup.tile", &[LookupParams::WGSL, TILE_WGSL], "lookup");
                rec.dispatch(
                    &kernel,
                    &[&inputs[0].buffer, &inputs[1].buffer, &outputs[0].buffer],
                    bytemuck::bytes_of(&u),
                    groups,
                )
            }
            // Default: 3.9x copy against 6.1x for `tile` on the H200 at 4K (run 9).
            None | Some("cells") => {
                let cells = rec.temp(CELLS * 32);
                rec.dispatch(
                    &Kernel::new("lookup.cells_expand", &[CELLS_EXPAND_WGSL], "expand"),
                    &[&inputs[1].buffer, &cells],
                    &[],
                    groups_1d(CELLS, 256),
                )?;
                rec.dispatch(
                    &Kernel::new("lookup.cells", &[LookupParams::WGSL, CELLS_WGSL], "lookup"),
                    &[&inputs[0].buffer, &cells, &outputs[0].buffer],
                    bytemuck::bytes_of(&u),
                    groups,
                )
            }
            Some(other) => Err(crate::runtime::schedule::unknown(
                DEF.name,
                other,
                &["tile", "cells"],
            )),
        }
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
