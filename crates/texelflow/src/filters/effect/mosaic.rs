//! Mosaic of tiles. Matches GPUImage's `GPUImageMosaicFilter`: the image is cut into display
//! cells; each shows one tile of a tile set (an image holding a grid of glyphs, e.g. ASCII-art
//! characters or dots of growing size), the tile chosen by how dark the image is at the cell,
//! tinted by the image's colour there. Hand-written (two inputs of different sizes); kernel in
//! mosaic.wgsl.
//!
//! Differences from GPUImage, for exactness: the cell's colour is the image's pixel at the
//! cell's centre (GPUImage samples bilinearly at its top-left corner), and the tile's index
//! is computed from that colour in integers, floor((1 - BT.601 luma) * num_tiles), clamped to
//! the last tile (GPUImage's float `mod` steps past it for black). The tile set is laid out
//! row-major, round(1 / input_tile_size) tiles per row and column; tile 0 serves the brightest cells.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_image, input_image, two_to_one, Family, Filter, FilterDef, Footprint, PortDef, PortKind,
    EXACT_ENOUGH,
};
use crate::graph::params::{check_float, check_int, ParamDef};
use crate::image::{unorm8, Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

const WGSL: &str = include_str!("mosaic.wgsl");

uniform_struct! {
    /// Uniform of mosaic.wgsl.
    pub struct MosaicParams {
        /// The image's (and the output's) size.
        pub width: u32,
        pub height: u32,
        /// The tile set's size.
        pub tiles_width: u32,
        pub tiles_height: u32,
        /// Tiles per row of the tile set: round(1 / input_tile_size).
        pub per_row: u32,
        pub num_tiles: u32,
        pub color_on: u32,
        // products and reciprocals made once in f64 on the CPU, so that the cell a pixel falls
        // in (a floor) comes from one correctly rounded multiplication on both sides
        /// 1 / (display_tile_size * image size): cells per pixel.
        pub cell_scale: [f32; 2],
        /// display_tile_size * image size: a cell in image pixels.
        pub cell_px: [f32; 2],
        /// input_tile_size * tile set size: a tile in tile-set pixels.
        pub tile_px: [f32; 2],
    }
}

/// Replaces cells of the image by tiles of a tile set, chosen by darkness.
#[derive(Clone, Debug)]
pub struct Mosaic {
    /// One tile's side as a fraction of the tile set's.
    pub input_tile_size: f32,
    /// One cell's side as a fraction of the image's.
    pub display_tile_size: f32,
    /// Tiles used, from the brightest cells' to the darkest's.
    pub num_tiles: u32,
    /// Tint each tile with its cell's colour.
    pub color_on: bool,
}

impl Mosaic {
    /// Fails when a value is outside its range or the tile set's grid holds fewer than `num_tiles` tiles.
    pub fn new(
        input_tile_size: f32,
        display_tile_size: f32,
        num_tiles: u32,
        color_on: bool,
    ) -> Result<Self> {
        let m = Self {
            input_tile_size: check_float(&DEF, "input_tile_size", input_tile_size)?,
            display_tile_size: check_float(&DEF, "display_tile_size", display_tile_size)?,
            num_tiles: check_int(&DEF, "num_tiles", num_tiles)?,
            color_on,
        };
        let grid = m.per_row() * m.per_row();
        if m.num_tiles > grid {
            return Err(Error::BadParam {
                filter: DEF.name.into(),
                param: "num_tiles".into(),
                message: format!("{} tiles do not fit a tile set of {n}x{n} = {grid} tiles (input_tile_size={}); use at most {grid}", m.num_tiles, m.input_tile_size, n = m.per_row()),
            });
        }
        Ok(m)
    }
    /// Tiles per row (and per column) of the tile set.
    fn per_row(&self) -> u32 {
        ((1.0 / self.input_tile_size as f64).round() as u32).max(1)
    }
    fn params(&self, img: (u32, u32), tiles: (u32, u32)) -> MosaicParams {
        let (d, i) = (self.display_tile_size as f64, self.input_tile_size as f64);
        MosaicParams {
            width: img.0,
            height: img.1,
            tiles_width: tiles.0,
            tiles_height: tiles.1,
            per_row: self.per_row(),
            num_tiles: self.num_tiles,
            color_on: self.color_on as u32,
            cell_scale: [
                (1.0 / (d * img.0 as f64)) as f32,
                (1.0 / (d * img.1 as f64)) as f32,
            ],
            cell_px: [(d * img.0 as f64) as f32, (d * img.1 as f64) as f32],
            tile_px: [(i * tiles.0 as f64) as f32, (i * tiles.1 as f64) as f32],
            ..Default::default()
        }
    }
}

impl Default for Mosaic {
    fn default() -> Self {
        Self {
            input_tile_size: 0.125,
            display_tile_size: 0.025,
            num_tiles: 64,
            color_on: true,
        }
    }
}

/// The image, and the tile set given as `tiles=PATH`.
const PORTS: &[PortDef] = &[
    PortDef {
        name: "image",
        kind: PortKind::Image,
    },
    PortDef {
        name: "tiles",
        kind: PortKind::Image,
    },
];

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "mosaic",
    family: Family::Effect,
    gpuimage: "GPUImageMosaicFilter",
    summary: "Replaces cells of the image by tiles of a tile set (tiles=PATH), chosen by darkness and tinted by colour.",
    doc: "Two inputs: the image and a tile set, an image holding a grid of tiles (round(1 / input_tile_size) per row and \
per column, row-major; assets/mosaic_tiles.png is one: 8x8 dots from large to none). The image is cut into cells of \
display_tile_size of its width and height; each cell shows tile floor((1 - luma) * num_tiles) (BT.601 luma of the \
image's pixel at the cell's centre; black takes the last tile), sampled bilinearly, multiplied by that pixel's colour \
when color_on. Output: the image's size.",
    params: &[
        ParamDef::image("tiles", "the tile set (a grid of tiles, e.g. assets/mosaic_tiles.png)"),
        ParamDef::float("input_tile_size", 0.125, 0.001, 1.0, "one tile's width and height as a fraction of the tile set's (GPUImage's inputTileSize)"),
        ParamDef::float("display_tile_size", 0.025, 0.001, 1.0, "one cell's width and height as a fraction of the image's (GPUImage's displayTileSize)"),
        ParamDef::int("num_tiles", 64, 1, 4096, "tiles used, from the brightest cells' (first) to the darkest's (GPUImage's numTiles)"),
        ParamDef::boolean("color_on", true, "tint each tile with the cell's colour (GPUImage's colorOn)"),
    ],
    inputs: PORTS,
    outputs: crate::filters::registry::IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(Mosaic::new(a.f32("input_tile_size")?, a.f32("display_tile_size")?, a.u32("num_tiles")?, a.bool("color_on")?)?)),
    uniforms: &[MosaicParams::layout(WGSL)],
    test_inputs: None,
    schedules: &[],
};

/// Bilinear sample of channel `c` of an RGBA8 image at pixel position `s` (centres at integers), replicate edges.
fn bilinear(img: &[u8], w: u32, h: u32, s: [f32; 2], c: usize) -> f32 {
    let (sx, sy) = (s[0], s[1]);
    let (fx, fy) = (sx.floor(), sy.floor());
    let (tx, ty) = (sx - fx, sy - fy);
    let at = |x: i64, y: i64| {
        img[4
            * (y.clamp(0, h as i64 - 1) as usize * w as usize + x.clamp(0, w as i64 - 1) as usize)
            + c] as f32
            / 255.0
    };
    let (x, y) = (fx as i64, fy as i64);
    let top = at(x, y) * (1.0 - tx) + at(x + 1, y) * tx;
    let bottom = at(x, y + 1) * (1.0 - tx) + at(x + 1, y + 1) * tx;
    top * (1.0 - ty) + bottom * ty
}

impl Filter for Mosaic {
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn footprint(&self, _inputs: &[ValueDesc]) -> Footprint {
        Footprint::WholeImage
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8])?;
        expect_image(&DEF, inputs, 1, &[PixelFormat::Rgba8])?;
        Ok(vec![ValueDesc::Image(d)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        let tiles = input_image(&DEF, inputs, 1)?;
        if img.format() != PixelFormat::Rgba8 || tiles.format() != PixelFormat::Rgba8 {
            return Err(Error::invalid(
                "`mosaic` takes an rgba8 image and an rgba8 tile set",
            ));
        }
        let p = self.params((img.width(), img.height()), (tiles.width(), tiles.height()));
        let (w, h) = (p.width, p.height);
        let (src, set) = (img.as_u8(), tiles.as_u8());
        let mut out = vec![0u8; src.len()];
        out.par_chunks_mut(4 * w as usize)
            .enumerate()
            .for_each(|(y, row)| {
                for x in 0..w as usize {
                    let t = [
                        (x as f32 + 0.5) * p.cell_scale[0],
                        (y as f32 + 0.5) * p.cell_scale[1],
                    ];
                    let cell = [t[0].floor(), t[1].floor()];
                    let cx = (((cell[0] + 0.5) * p.cell_px[0]).floor() as u32).min(w - 1) as usize;
                    let cy = (((cell[1] + 0.5) * p.cell_px[1]).floor() as u32).min(h - 1) as usize;
                    let c: [u32; 4] =
                        std::array::from_fn(|k| src[4 * (cy * w as usize + cx) + k] as u32);
                    let dark = 255_000 - (299 * c[0] + 587 * c[1] + 114 * c[2]);
                    let index = (dark * p.num_tiles / 255_000).min(p.num_tiles - 1);
                    let tile = [(index % p.per_row) as f32, (index / p.per_row) as f32];
                    let s = [
                        (tile[0] + (t[0] - cell[0])) * p.tile_px[0] - 0.5,
                        (tile[1] + (t[1] - cell[1])) * p.tile_px[1] - 0.5,
                    ];
                    for k in 0..4 {
                        let mut v = bilinear(set, p.tiles_width, p.tiles_height, s, k);
                        if self.color_on {
                            v *= c[k] as f32 / 255.0;
                        }
                        row[4 * x + k] = unorm8(v);
                    }
                }
            });
        Ok(vec![Value::Image(Image::from_u8(
            w,
            h,
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
        let (img, tiles, out, d, t) = two_to_one(&DEF, inputs, outputs)?;
        let params = self.params((d.width, d.height), (t.width, t.height));
        let kernel = Kernel::new("effect.mosaic", &[MosaicParams::WGSL, WGSL], "mosaic");
        rec.dispatch(
            &kernel,
            &[&img.buffer, &tiles.buffer, &out.buffer],
            bytemuck::bytes_of(&params),
            groups_2d(d.width, d.height, 16, 16),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
