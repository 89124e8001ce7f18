//! Contrast-limited adaptive histogram equalisation, as OpenCV's
//! `cv::createCLAHE(clipLimit = 40, tileGridSize = (8, 8))->apply` (its defaults): the image
//! is cut into a grid of tiles; each tile's 256-bin histogram is clipped at
//! `max(int(clip_limit * tile pixels / 256), 1)` with the excess spread over the bins (an
//! equal share each, the remainder one each to bins 0, step, 2 step, ...); its cumulative sum
//! times 255 / tile pixels, rounded half to even, is the tile's LUT; each pixel's level goes
//! through the LUTs of its four nearest tiles, blended bilinearly by its distance to their
//! centres. Where the size is not a multiple of the grid, the tiles cover the image padded at
//! the right and bottom by reflection (BORDER_REFLECT_101), as OpenCV pads it (by whole tiles
//! in both directions when one is not a multiple, as OpenCV does). GPUImage has no CLAHE;
//! MetalPetal's `MTICLAHEFilter` equalises luma too.
//!
//! Gray8 is equalised directly (OpenCV's 8-bit single-channel case; equal to it). RGBA8: the
//! BT.601 luma Y = round(0.299 R + 0.587 G + 0.114 B) is equalised to Y', and R, G, B move by
//! Y' - Y (clamped), which is what replacing Y in YCbCr and converting back does (no chroma
//! rounding); alpha is kept.
//!
//! GPU: three passes in one submission (`clahe_hist.wgsl`, `clahe_lut.wgsl`, `clahe_apply.wgsl`). The LUTs are
//! exact integers on both sides; the final blend is OpenCV's f32 formula, where a GPU may fuse
//! multiply-adds, so a pixel whose blend lies on a rounding boundary may differ by one level.

use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_image, input_image, slot_image, Family, Filter, FilterDef, EXACT_ENOUGH, IMAGE,
};
use crate::graph::params::{check_float, check_int, ParamDef};
use crate::image::{luma601, Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

const WGSL: &str = include_str!("clahe.wgsl");
const HIST_WGSL: &str = include_str!("clahe_hist.wgsl");
const LUT_WGSL: &str = include_str!("clahe_lut.wgsl");
const APPLY_WGSL: &str = include_str!("clahe_apply.wgsl");
/// Pixels per histogram workgroup (`CHUNK` in clahe_hist.wgsl).
const CHUNK: u32 = 4096;

/// CLAHE (OpenCV's) of luma (RGBA8) or grey (Gray8).
#[derive(Clone, Debug)]
pub struct Clahe {
    /// A bin holds at most `clip_limit` times the mean bin count (0: plain equalisation per tile).
    pub clip_limit: f32,
    /// Tile columns.
    pub tiles_x: u32,
    /// Tile rows.
    pub tiles_y: u32,
}

impl Clahe {
    /// Fails when a parameter is outside its declared range.
    pub fn new(clip_limit: f32, tiles_x: u32, tiles_y: u32) -> Result<Self> {
        Ok(Self {
            clip_limit: check_float(&DEF, "clip_limit", clip_limit)?,
            tiles_x: check_int(&DEF, "tiles_x", tiles_x)?,
            tiles_y: check_int(&DEF, "tiles_y", tiles_y)?,
        })
    }

    /// Tile geometry and limits for a `width x height` image, as OpenCV's `CLAHE_Impl::apply` sets them up.
    fn params(&self, width: u32, height: u32, gray: bool) -> ClaheParams {
        let (tx, ty) = (self.tiles_x, self.tiles_y);
        let (pw, ph) = if width.is_multiple_of(tx) && height.is_multiple_of(ty) {
            (width, height)
        } else {
            (width + tx - width % tx, height + ty - height % ty)
        };
        let (tile_w, tile_h) = (pw / tx, ph / ty);
        let total = tile_w * tile_h;
        let clip = if self.clip_limit > 0.0 {
            ((self.clip_limit as f64 * total as f64 / 256.0) as u32).max(1)
        } else {
            0
        };
        ClaheParams {
            width,
            height,
            tiles_x: tx,
            tiles_y: ty,
            tile_w,
            tile_h,
            clip,
            gray: gray as u32,
            words: width.div_ceil(4),
            lut_scale: 255.0f32 / total as f32,
            inv_tw: 1.0f32 / tile_w as f32,
            inv_th: 1.0f32 / tile_h as f32,
            ..Default::default()
        }
    }
}

impl Default for Clahe {
    fn default() -> Self {
        Self {
            clip_limit: 40.0,
            tiles_x: 8,
            tiles_y: 8,
        }
    }
}

uniform_struct! {
    /// Uniform of the CLAHE kernels (clahe.wgsl and its passes).
    pub struct ClaheParams {
        pub width: u32,
        pub height: u32,
        pub tiles_x: u32,
        pub tiles_y: u32,
        /// Tile size in the padded image.
        pub tile_w: u32,
        pub tile_h: u32,
        /// Bin limit (OpenCV's integer clipLimit); 0: no clipping.
        pub clip: u32,
        /// 1: Gray8 (4 pixels per word, rows padded to words), 0: RGBA8 (its BT.601 luma).
        pub gray: u32,
        /// Words per Gray8 row.
        pub words: u32,
        /// 255 / tile pixels, in f32 as OpenCV computes it.
        pub lut_scale: f32,
        /// 1 / tile_w in f32
        pub inv_tw: f32,
        pub inv_th: f32,
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "clahe",
    family: Family::Neighborhood,
    summary: "Contrast-limited adaptive histogram equalisation (OpenCV's CLAHE) of luma (RGBA8) or grey (Gray8).",
    doc: "OpenCV's createCLAHE(clipLimit, tileGridSize=(tiles_x, tiles_y)).apply: per-tile histograms clipped at \
          clip_limit * tile pixels / 256 (0: no clipping) with the excess redistributed, per-tile equalisation LUTs, \
          bilinear interpolation between the four nearest tiles. Sizes not a multiple of the grid: tiles cover the image \
          padded by reflection, as OpenCV does. Gray8 is equalised directly (equal to OpenCV's, within one level where \
          the final f32 blend rounds differently); RGBA8: BT.601 luma Y is equalised to Y' and R, G, B move by Y' - Y \
          (as replacing Y in YCbCr does), alpha kept.",
    gpuimage: "",
    params: &[
        ParamDef::float("clip_limit", 40.0, 0.0, 1000.0, "contrast limit: a bin holds at most clip_limit x the mean bin count (OpenCV's clipLimit; 0 = plain equalisation per tile)"),
        ParamDef::int("tiles_x", 8, 1, 64, "tile columns (OpenCV's tileGridSize width)"),
        ParamDef::int("tiles_y", 8, 1, 64, "tile rows (OpenCV's tileGridSize height)"),
    ],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(Clahe::new(a.f32("clip_limit")?, a.u32("tiles_x")?, a.u32("tiles_y")?)?)),
    uniforms: &[ClaheParams::layout(WGSL)],
    test_inputs: None,
    schedules: &[],
};

/// OpenCV's `borderInterpolate(p, len, BORDER_REFLECT_101)`.
fn reflect101(mut p: i64, len: i64) -> i64 {
    if len == 1 {
        return 0;
    }
    while p < 0 || p >= len {
        p = if p < 0 { -p } else { 2 * len - 2 - p };
    }
    p
}

/// CPU twin: OpenCV's `CLAHE_CalcLut_Body` and `CLAHE_Interpolation_Body`, sequentially, on the
/// levels of a Gray8 image or the luma of an RGBA8 one.
fn clahe_cpu(f: &Clahe, img: &Image) -> Result<Image> {
    let gray = img.format() == PixelFormat::Gray8;
    let (w, h) = (img.width() as i64, img.height() as i64);
    let src = img.as_u8();
    let levels: Vec<u8> = if gray {
        src.to_vec()
    } else {
        src.chunks_exact(4)
            .map(|p| luma601(p[0], p[1], p[2]))
            .collect()
    };
    let p = f.params(img.width(), img.height(), gray);
    let (tw, th) = (p.tile_w as i64, p.tile_h as i64);
    let mut luts = vec![[0u8; 256]; (p.tiles_x * p.tiles_y) as usize];
    for (k, lut) in luts.iter_mut().enumerate() {
        let (tx, ty) = (k as i64 % p.tiles_x as i64, k as i64 / p.tiles_x as i64);
        let mut hist = [0u32; 256];
        for y in ty * th..(ty + 1) * th {
            for x in tx * tw..(tx + 1) * tw {
                hist[levels[(reflect101(y, h) * w + reflect101(x, w)) as usize] as usize] += 1;
            }
        }
        if p.clip > 0 {
            let mut clipped = 0;
            for b in hist.iter_mut() {
                if *b > p.clip {
                    clipped += *b - p.clip;
                    *b = p.clip;
                }
            }
            let (batch, mut residual) = (clipped / 256, clipped % 256);
            for b in hist.iter_mut() {
                *b += batch;
            }
            if let Some(step) = 256u32.checked_div(residual) {
                let step = step.max(1) as usize;
                let mut i = 0;
                while i < 256 && residual > 0 {
                    hist[i] += 1;
                    i += step;
                    residual -= 1;
                }
            }
        }
        let mut sum = 0u32;
        for (l, b) in lut.iter_mut().zip(hist) {
            sum += b;
            *l = (sum as f32 * p.lut_scale)
                .round_ties_even()
                .clamp(0.0, 255.0) as u8;
        }
    }
    // per axis: the two tiles and the weight of the second, as OpenCV's interpolation computes them
    let axis = |i: i64, inv: f32, tiles: u32| {
        let t = i as f32 * inv - 0.5;
        let t1 = t.floor() as i64;
        let a = t - t1 as f32;
        (
            t1.max(0) as usize,
            (t1 + 1).min(tiles as i64 - 1) as usize,
            a,
        )
    };
    let mut out = src.to_vec();
    for y in 0..h {
        let (y1, y2, ya) = axis(y, p.inv_th, p.tiles_y);
        let (row1, row2) = (y1 * p.tiles_x as usize, y2 * p.tiles_x as usize);
        for x in 0..w {
            let (x1, x2, xa) = axis(x, p.inv_tw, p.tiles_x);
            let i = (y * w + x) as usize;
            let v = levels[i] as usize;
            let (xa1, ya1) = (1.0 - xa, 1.0 - ya);
            let lut = |t: usize| luts[t][v] as f32;
            let res = (lut(row1 + x1) * xa1 + lut(row1 + x2) * xa) * ya1
                + (lut(row2 + x1) * xa1 + lut(row2 + x2) * xa) * ya;
            let e = res.round_ties_even().clamp(0.0, 255.0) as i32;
            if gray {
                out[i] = e as u8;
            } else {
                let d = e - v as i32;
                for c in 0..3 {
                    out[i * 4 + c] = (src[i * 4 + c] as i32 + d).clamp(0, 255) as u8;
                }
            }
        }
    }
    Image::from_u8(img.width(), img.height(), img.format(), out)
}

impl Filter for Clahe {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::WholeImage
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        Ok(vec![ValueDesc::Image(expect_image(
            &DEF,
            inputs,
            0,
            &[PixelFormat::Rgba8, PixelFormat::Gray8],
        )?)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        Ok(vec![Value::Image(clahe_cpu(self, img)?)])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let d = slot_image(&DEF, inputs, 0)?;
        let out = outputs
            .first()
            .ok_or_else(|| Error::invalid("`clahe` needs an output"))?;
        let gray = d.format == PixelFormat::Gray8;
        let u = self.params(d.width, d.height, gray);
        let tiles = u.tiles_x * u.tiles_y;
        let chunks = (u.tile_w * u.tile_h).div_ceil(CHUNK);
        if chunks > 65535 {
            return Err(Error::invalid(format!("`clahe`: tiles of {}x{} pixels are too large for the GPU histogram pass; use more tiles", u.tile_w, u.tile_h)));
        }
        let table = rec.temp(tiles as u64 * 256 * 4);
        rec.clear(&table);
        let bytes = bytemuck::bytes_of(&u);
        let hist = Kernel::new(
            "neighborhood.clahe_hist",
            &[ClaheParams::WGSL, WGSL, HIST_WGSL],
            "clahe_hist",
        );
        rec.dispatch(
            &hist,
            &[&inputs[0].buffer, &table],
            bytes,
            [tiles, chunks, 1],
        )?;
        let lut = Kernel::new(
            "neighborhood.clahe_lut",
            &[ClaheParams::WGSL, WGSL, LUT_WGSL],
            "clahe_lut",
        );
        rec.dispatch(&lut, &[&table], bytes, [tiles, 1, 1])?;
        let apply = Kernel::new(
            "neighborhood.clahe_apply",
            &[ClaheParams::WGSL, WGSL, APPLY_WGSL],
            "clahe_apply",
        );
        rec.dispatch(
            &apply,
            &[&inputs[0].buffer, &table, &out.buffer],
            bytes,
            groups_2d(if gray { u.words } else { d.width }, d.height, 16, 16),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
