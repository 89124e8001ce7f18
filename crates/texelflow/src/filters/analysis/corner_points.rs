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
use crate::image::{Image, ImageDesc, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Data, Point, Points, POINTS_CAPACITY};

const WGSL: &str = include_str!("corner_points.wgsl");

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

crate::reduction_filter! {
    /// Pixels of a corner map above `threshold` as a point list of at most `max` points.
    pub struct CornerPoints;
    name: "corner_points",
    gpuimage: "GPUImageHarrisCornerDetectionFilter",
    summary: "The corners of a corner map as a list of points (x, y, score) that stays on the GPU (points data).",
    doc: "Input: a corner map, non-zero at corners: Gray8 (e.g. fast_corner_detection, whose value is the FAST score), \
RGBA8 (its red channel; e.g. harris_corner_detection's white points) or R32F. Every pixel whose value is strictly above \
`threshold` becomes a point (x, y, score): score is the 8-bit level (0-255) for Gray8 and RGBA8 maps, the value itself for R32F. \
Output is `points` data: at most `max` points (the buffer holds 65536); when more are found, `overflow` is set and the list \
keeps `max` of them (which ones is unspecified on the GPU, where points are appended with atomics; the CPU keeps the first in \
raster order). Read back, the points are sorted by (y, x); `texelflow apply IN -p \"... | corner_points\" --data out.json` writes them as JSON.",
    params: {
        threshold: float(0.0, 1e9) = 0.0 => "map values strictly above this are corners (8-bit levels for Gray8/RGBA8 maps)",
        max: uint(1, POINTS_CAPACITY as i64) = POINTS_CAPACITY as _ => "most points kept; more set the overflow flag",
    },
    formats: [Gray8, Rgba8, R32F],
    outputs: { points: Points },
    check: |_, d| check_size(d),
    uniforms: [CornerPointsParams::layout(WGSL)],
    cpu: |f, img| Data::Points(corner_points_cpu(img, f.threshold, f.max)),
    gpu: record,
}

/// The value of map pixel `i` as both sides compare it: the 8-bit level, or the float.
fn map_values(img: &Image) -> Vec<f32> {
    match img.format() {
        PixelFormat::Gray8 => img.as_u8().iter().map(|&v| v as f32).collect(),
        PixelFormat::Rgba8 => img.as_u8().chunks_exact(4).map(|p| p[0] as f32).collect(),
        _ => img.as_f32().to_vec(),
    }
}

/// The map is at most 65535 pixels a side.
fn check_size(d: ImageDesc) -> Result<()> {
    // a point packs x and y into 16 bits each
    if d.width > 65535 || d.height > 65535 {
        return Err(Error::invalid(format!(
            "`corner_points` takes maps up to 65535x65535 pixels, got {}x{}",
            d.width, d.height
        )));
    }
    Ok(())
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

/// Records the kernel: one invocation per pixel, a slot taken with one atomic per point.
fn record(
    f: &CornerPoints,
    rec: &mut NodeRecorder<'_>,
    input: &GpuSlot,
    output: &GpuSlot,
    d: ImageDesc,
) -> Result<()> {
    let format = match d.format {
        PixelFormat::Gray8 => 0,
        PixelFormat::Rgba8 => 1,
        _ => 2,
    };
    let u = CornerPointsParams {
        width: d.width,
        height: d.height,
        format,
        limit: f.max.min(POINTS_CAPACITY),
        threshold: f.threshold,
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
