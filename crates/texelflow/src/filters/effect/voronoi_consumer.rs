//! Voronoi consumer. Matches GPUImage's `GPUImageVoronoiConsumerFilter`: each pixel takes the
//! colour of the image at its Voronoi cell's seed, read from a `jfa_voronoi` map (GPUImage's
//! encoding). Hand-written (two inputs of possibly different sizes); kernel in voronoi_consumer.wgsl.
//!
//! Differences from GPUImage: the map may have any size (GPUImage: a square power of two);
//! it is read at the nearest map pixel and the seed's position scaled to the image, pixel
//! centre to pixel centre (GPUImage reads the image at seed / size, a pixel corner, bilinearly);
//! where the map is transparent (no seed) the image's pixel is kept.

use rayon::prelude::*;

use super::jfa_voronoi::decode;
use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_image, input_image, two_to_one, Family, Filter, FilterDef, Footprint, PortDef, PortKind,
    Tolerance,
};
use crate::graph::params::ParamDef;
use crate::image::{Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

const WGSL: &str = include_str!("voronoi_consumer.wgsl");

uniform_struct! {
    /// Uniform of voronoi_consumer.wgsl.
    pub struct VoronoiParams {
        /// The image's (and the output's) size.
        pub width: u32,
        pub height: u32,
        /// The map's size.
        pub map_width: u32,
        pub map_height: u32,
    }
}

/// Colours each Voronoi cell of a map with the image's colour at the cell's seed.
#[derive(Clone, Debug, Default)]
pub struct VoronoiConsumer;

/// The image, and the Voronoi map given as `map=PATH`.
const PORTS: &[PortDef] = &[
    PortDef {
        name: "image",
        kind: PortKind::Image,
    },
    PortDef {
        name: "map",
        kind: PortKind::Image,
    },
];

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "voronoi_consumer",
    family: Family::Effect,
    gpuimage: "GPUImageVoronoiConsumerFilter",
    summary: "Fills each Voronoi cell of a map (from jfa_voronoi) with the image's colour at the cell's seed.",
    doc: "Two inputs: the image and a Voronoi map in GPUImage's encoding (jfa_voronoi's output: R, G the low bytes of \
the seed's x and y, B = x / 256 + 8 (y / 256)). Each output pixel reads the map at its nearest map pixel and takes \
the image's pixel at that seed, scaled from the map's size to the image's (centre to centre), so the map may be \
smaller than the image. Where the map is transparent (no seed) the image's pixel is kept. Output: the image's size.",
    params: &[ParamDef::image("map", "the Voronoi map (jfa_voronoi's output)")],
    inputs: PORTS,
    outputs: crate::filters::registry::IMAGE,
    // integer arithmetic only: exact
    tolerance: Tolerance { max_diff: 0, why: "" },
    build: |_| Ok(Box::new(VoronoiConsumer)),
    uniforms: &[VoronoiParams::layout(WGSL)],
    test_inputs: None,
    schedules: &[],
};

/// Twin of `rescale` in the kernel: the pixel of a size-`to` grid nearest pixel `i`'s centre of a size-`from` grid.
fn rescale(i: u32, from: u32, to: u32) -> u32 {
    (((2 * i as u64 + 1) * to as u64 / (2 * from as u64)) as u32).min(to - 1)
}

impl Filter for VoronoiConsumer {
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
        let map = input_image(&DEF, inputs, 1)?;
        if img.format() != PixelFormat::Rgba8 || map.format() != PixelFormat::Rgba8 {
            return Err(Error::invalid(
                "`voronoi_consumer` takes an rgba8 image and an rgba8 map",
            ));
        }
        let (w, h, mw, mh) = (img.width(), img.height(), map.width(), map.height());
        let (src, m) = (img.as_u8(), map.as_u8());
        let px = |x: u32, y: u32, data: &[u8], stride: u32| -> [u8; 4] {
            let i = 4 * (y * stride + x) as usize;
            [data[i], data[i + 1], data[i + 2], data[i + 3]]
        };
        let mut out = vec![0u8; src.len()];
        out.par_chunks_mut(4 * w as usize)
            .enumerate()
            .for_each(|(y, row)| {
                let y = y as u32;
                for x in 0..w {
                    let cell = px(rescale(x, w, mw), rescale(y, h, mh), m, mw);
                    let p = match decode(cell) {
                        None => px(x, y, src, w),
                        Some((sx, sy)) => px(
                            rescale(sx.min(mw - 1), mw, w),
                            rescale(sy.min(mh - 1), mh, h),
                            src,
                            w,
                        ),
                    };
                    row[4 * x as usize..][..4].copy_from_slice(&p);
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
        let (img, map, out, d, m) = two_to_one(&DEF, inputs, outputs)?;
        let params = VoronoiParams {
            width: d.width,
            height: d.height,
            map_width: m.width,
            map_height: m.height,
            ..Default::default()
        };
        let kernel = Kernel::new(
            "effect.voronoi_consumer",
            &[VoronoiParams::WGSL, WGSL],
            "voronoi_consumer",
        );
        rec.dispatch(
            &kernel,
            &[&img.buffer, &map.buffer, &out.buffer],
            bytemuck::bytes_of(&params),
            groups_2d(d.width, d.height, 16, 16),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
