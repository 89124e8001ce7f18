//! Crosshairs at the points of a point list, over the image: GPUImage's
//! `GPUImageCrosshairGenerator` (crosshairs of `crosshairWidth` pixels in a colour at the
//! corners its detectors report), drawn over the photo instead of on black. Two inputs: the
//! image and `points` data (e.g. from `corner_points`); `draw_corners` runs FAST, the list and
//! this in one step.

use crate::error::{Error, Result};
use crate::filters::registry::{expect_image, input_image, slot_image};
use crate::graph::params::{check_int, float_array, ParamDef};
use crate::image::{Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Points, POINTS_CAPACITY};

pub(crate) const WGSL: &str = include_str!("draw_points.wgsl");
pub(crate) const COPY_WGSL: &str = include_str!("draw_points_copy.wgsl");

/// Crosshairs of `width` pixels across in `color` at each point.
#[derive(Clone, Debug)]
pub struct DrawPoints {
    /// Crosshair size in pixels.
    pub width: u32,
    /// Crosshair colour, RGB in [0, 1].
    pub color: [f32; 3],
}

impl DrawPoints {
    /// Fails when `width` is outside [1, 255] or a colour component outside [0, 1].
    pub fn new(width: u32, color: [f32; 3]) -> Result<Self> {
        crate::graph::params::check_value(
            &DEF,
            "color",
            crate::graph::params::RawValue::List(color.iter().map(|&c| c as f64).collect()),
        )?;
        Ok(Self {
            width: check_int(&DEF, "width", width)?,
            color,
        })
    }
    /// Pixels from the centre to each arm's end: a cross `2 arm + 1` pixels across.
    fn arm(&self) -> u32 {
        self.width / 2
    }
}

impl Default for DrawPoints {
    fn default() -> Self {
        Self {
            width: 5,
            color: [0.0, 1.0, 0.0],
        }
    }
}

uniform_struct! {
    /// Uniform of draw_points.wgsl and draw_points_copy.wgsl.
    pub struct DrawPointsParams {
        pub width: u32,
        pub height: u32,
        /// Pixels from the centre to the end of each arm.
        pub arm: u32,
        /// The colour, packed RGBA8.
        pub color: u32,
        /// List slots to visit (the list's capacity).
        pub slots: u32,
    }
}

/// The crosshair parameters, shared with `draw_corners`.
pub const WIDTH: ParamDef = ParamDef::int(
    "width",
    5,
    1,
    255,
    "crosshair size in pixels (GPUImage's crosshairWidth); even sizes draw the next odd one",
);
/// The colour parameter, shared with `draw_corners`.
pub const COLOR: ParamDef = ParamDef::floats(
    "color",
    &[0.0, 1.0, 0.0],
    0.0,
    1.0,
    "crosshair colour, red, green, blue in [0, 1] (GPUImage's default green)",
);

crate::draw_filter! {
    filter: DrawPoints,
    name: "draw_points",
    family: Analysis,
    gpuimage: "GPUImageCrosshairGenerator",
    summary: "Crosshairs at the points of `points` data (e.g. corner_points), drawn over the image.",
    doc: "Two inputs: an RGBA8 image and `points` data. Each point gets a cross of `width` pixels across \
(a horizontal and a vertical line through it, 2 * floor(width / 2) + 1 pixels long) in `color`, opaque; \
crosses are clipped at the image's edges. GPUImage's GPUImageCrosshairGenerator draws them on black; blend if \
that is wanted. From the command line use draw_corners, which makes the points.",
    params: [WIDTH, COLOR],
    build: |a| DrawPoints::new(a.u32("width")?, float_array(&DEF, "color", &a.floats("color")?)?)?,
    data: points: Points,
    output: |_, inputs| expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8]),
    uniforms: [
        DrawPointsParams::layout(WGSL),
        DrawPointsParams::layout(COPY_WGSL),
    ],
    cpu: |f, inputs, points, _out| draw_points_cpu(
        input_image(&DEF, inputs, 0)?,
        points,
        f.arm(),
        super::opaque_rgba8(f.color),
    ),
    gpu: record,
}

/// CPU twin of draw_points.wgsl.
pub fn draw_points_cpu(img: &Image, points: &Points, arm: u32, color: [u8; 4]) -> Result<Image> {
    let (w, h) = (img.width() as i64, img.height() as i64);
    let mut out = img.as_u8().to_vec();
    let a = arm as i64;
    for p in &points.points {
        let (x, y) = (p.x as i64, p.y as i64);
        for k in -a..=a {
            for (px, py) in [(x + k, y), (x, y + k)] {
                if px >= 0 && py >= 0 && px < w && py < h {
                    let i = 4 * (py * w + px) as usize;
                    out[i..i + 4].copy_from_slice(&color);
                }
            }
        }
    }
    Image::from_u8(img.width(), img.height(), PixelFormat::Rgba8, out)
}

/// Copies the image, then draws each point's cross (`draw_points_copy.wgsl`, `draw_points.wgsl`).
fn record(
    f: &DrawPoints,
    rec: &mut NodeRecorder<'_>,
    inputs: &[GpuSlot],
    outputs: &[GpuSlot],
) -> Result<()> {
    let d = slot_image(&DEF, inputs, 0)?;
    let (Some(list), Some(out)) = (inputs.get(1), outputs.first()) else {
        return Err(Error::invalid(
            "`draw_points` needs an image, points and one output",
        ));
    };
    let u = DrawPointsParams {
        width: d.width,
        height: d.height,
        arm: f.arm(),
        color: u32::from_le_bytes(super::opaque_rgba8(f.color)),
        slots: POINTS_CAPACITY,
        ..Default::default()
    };
    let copy = Kernel::new(
        "analysis.draw_points.copy",
        &[DrawPointsParams::WGSL, COPY_WGSL],
        "copy_image",
    );
    rec.dispatch(
        &copy,
        &[&inputs[0].buffer, &out.buffer],
        bytemuck::bytes_of(&u),
        groups_1d(d.pixels() as u64, 256),
    )?;
    let draw = Kernel::new(
        "analysis.draw_points.draw",
        &[DrawPointsParams::WGSL, WGSL],
        "draw",
    );
    rec.dispatch(
        &draw,
        &[&list.buffer, &out.buffer],
        bytemuck::bytes_of(&u),
        groups_1d(POINTS_CAPACITY as u64, 64),
    )
}
