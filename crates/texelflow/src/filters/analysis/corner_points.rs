//! A corner map (an image that is non-zero at corners, as `fast_corner_detection`,
//! `harris_corner_detection`, `noble_corner_detection` and `shi_tomasi_feature_detection` make)
//! to a list of points with scores, `DataKind::Points`, that stays on the GPU for later nodes
//! (`draw_points`) and reads back sorted by (y, x). GPUImage hands its corner detectors' points
//! to the CPU in a callback (`cornersDetectedBlock` of `GPUImageHarrisCornerDetectionFilter`,
//! after a read-back of the whole map); here the list is made on the GPU.
//!
//! GPU: one invocation per pixel; a pixel above the threshold takes a slot with one atomic
//! add (corner maps are sparse, so the atomics are few).

use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_image, input_image, one_to_one, Family, Filter, FilterDef, PortDef, PortKind,
    EXACT_ENOUGH, IMAGE,
};
use crate::graph::params::{check_float, check_int, ParamDef};
use crate::image::{Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Data, DataKind, Point, Points, Value, ValueDesc, POINTS_CAPACITY};

const WGSL: &str = include_str!("corner_points.wgsl");

/// The map formats taken.
const FORMATS: &[PixelFormat] = &[PixelFormat::Gray8, PixelFormat::Rgba8, PixelFormat::R32F];

/// Pixels of a corner map above `threshold` as a point list of at most `max` points.
#[derive(Clone, Debug)]
pub struct CornerPoints {
    /// Map values strictly above this are corners.
    pub threshold: f32,
    /// Most points kept; more set the overflow flag.
    pub max: u32,
}

impl CornerPoints {
    /// Fails when `threshold` is outside [0, 1e9] or `max` outside [1, 65536].
    pub fn new(threshold: f32, max: u32) -> Result<Self> {
        Ok(Self {
            threshold: check_float(&DEF, "threshold", threshold)?,
            max: check_int(&DEF, "max", max)?,
        })
    }
}

impl Default for CornerPoints {
    fn default() -> Self {
        Self {
            threshold: 0.0,
            max: POINTS_CAPACITY,
        }
    }
}

uniform_struct! {
    /// Uniform of corner_points.wgsl.
    pub struct CornerPointsParams {
        pub width: u32,
        pub height: u32,
        /// 0: Gray8 (4 pixels a word, rows padded to whole words), 1: RGBA8 (its red
        /// channel), 2: R32F.
        pub format: u32,
        /// The list's limit (at most POINTS_CAPACITY).
        pub limit: u32,
        pub threshold: f32,
        pub words_per_row: u32,
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "corner_points",
    family: Family::Analysis,
    summary: "The corners of a corner map as a list of points (x, y, score) that stays on the GPU (points data).",
    doc: "Input: a corner map, non-zero at corners: Gray8 (e.g. fast_corner_detection, whose value is the FAST score), \
RGBA8 (its red channel; e.g. harris_corner_detection's white points) or R32F. Every pixel whose value is strictly above \
`threshold` becomes a point (x, y, score): score is the 8-bit level (0-255) for Gray8 and RGBA8 maps, the value itself for R32F. \
Output is `points` data: at most `max` points (the buffer holds 65536); when more are found, `overflow` is set and the list \
keeps `max` of them (which ones is unspecified on the GPU, where points are appended with atomics; the CPU keeps the first in \
raster order). Read back, the points are sorted by (y, x); `texelflow apply IN -p \"... | corner_points\" --data out.json` writes them as JSON.",
    gpuimage: "GPUImageHarrisCornerDetectionFilter",
    params: &[
        ParamDef::float("threshold", 0.0, 0.0, 1e9, "map values strictly above this are corners (8-bit levels for Gray8/RGBA8 maps)"),
        ParamDef::int("max", POINTS_CAPACITY as i64, 1, POINTS_CAPACITY as i64, "most points kept; more set the overflow flag"),
    ],
    inputs: IMAGE,
    outputs: &[PortDef { name: "points", kind: PortKind::Data(DataKind::Points) }],
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(CornerPoints::new(a.f32("threshold")?, a.u32("max")?)?)),
    uniforms: &[CornerPointsParams::layout(WGSL)],
    test_inputs: None,
    schedules: &[],
};

/// The value of map pixel `i` as both sides compare it: the 8-bit level, or the float.
fn map_values(img: &Image) -> Vec<f32> {
    match img.format() {
        PixelFormat::Gray8 => img.as_u8().iter().map(|&v| v as f32).collect(),
        PixelFormat::Rgba8 => img.as_u8().chunks_exact(4).map(|p| p[0] as f32).collect(),
        _ => img.as_f32().to_vec(),
    }
}

/// CPU twin of corner_points.wgsl.
pub fn corner_points_cpu(img: &Image, threshold: f32, max: u32) -> Points {
    let w = img.width() as usize;
    let points = map_values(img)
        .into_iter()
        .enumerate()
        .filter(|&(_, v)| v > threshold)
        .map(|(i, score)| Point {
            x: (i % w) as u32,
            y: (i / w) as u32,
            score,
        })
        .collect();
    Points::from_unsorted(points, max)
}

impl Filter for CornerPoints {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::WholeImage
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(&DEF, inputs, 0, FORMATS)?;
        // a point packs x and y into 16 bits each
        if d.width > 65535 || d.height > 65535 {
            return Err(Error::Graph(format!(
                "`corner_points` takes maps up to 65535x65535 pixels, got {}x{}",
                d.width, d.height
            )));
        }
        Ok(vec![ValueDesc::Data(DataKind::Points)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        Ok(vec![Value::Data(Data::Points(corner_points_cpu(
            img,
            self.threshold,
            self.max,
        )))])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let (input, output, d) = one_to_one(&DEF, inputs, outputs)?;
        let format = match d.format {
            PixelFormat::Gray8 => 0,
            PixelFormat::Rgba8 => 1,
            _ => 2,
        };
        let u = CornerPointsParams {
            width: d.width,
            height: d.height,
            format,
            limit: self.max.min(POINTS_CAPACITY),
            threshold: self.threshold,
            words_per_row: d.width.div_ceil(4),
            ..Default::default()
        };
        rec.clear(&output.buffer);
        let kernel = Kernel::new(
            "analysis.corner_points",
            &[CornerPointsParams::WGSL, WGSL],
            "corner_points",
        );
        rec.dispatch(
            &kernel,
            &[&input.buffer, &output.buffer],
            bytemuck::bytes_of(&u),
            groups_2d(d.width, d.height, 16, 16),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
