//! Crosshairs at the points of a point list on a transparent image. Matches GPUImage's
//! `GPUImageCrosshairGenerator` (crosshairs of `crosshairWidth` pixels in `crosshairColor`,
//! cleared to (0, 0, 0, 0) first); the crosses are `draw_points`' (its kernel, on a cleared
//! image instead of a copy of the input).

use crate::error::{Error, Result};
use crate::filters::analysis::draw_points::{draw_points_cpu, DrawPointsParams, WGSL as DRAW_WGSL};
use crate::filters::shape::generator::{HEIGHT_PARAM, WIDTH_PARAM};
use crate::graph::params::{check_int, float_array, ParamDef};
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};
use crate::value::POINTS_CAPACITY;

/// Crosshairs of `crosshair_width` pixels in `color` at each point, on transparent black.
#[derive(Clone, Debug)]
pub struct Crosshair {
    /// Crosshair size in pixels.
    pub crosshair_width: u32,
    /// Crosshair colour, RGB in [0, 1].
    pub color: [f32; 3],
    /// Output size; 0: the input image's side.
    pub width: u32,
    /// Output height; 0: the input image's.
    pub height: u32,
}

impl Crosshair {
    /// Fails when a parameter is outside its declared range.
    pub fn new(crosshair_width: u32, color: [f32; 3], width: u32, height: u32) -> Result<Self> {
        crate::graph::params::check_value(
            &DEF,
            "color",
            crate::graph::params::RawValue::List(color.iter().map(|&c| c as f64).collect()),
        )?;
        Ok(Self {
            crosshair_width: check_int(&DEF, "crosshair_width", crosshair_width)?,
            color,
            width: check_int(&DEF, "width", width)?,
            height: check_int(&DEF, "height", height)?,
        })
    }
}

impl Default for Crosshair {
    fn default() -> Self {
        Self {
            crosshair_width: 5,
            color: [0.0, 1.0, 0.0],
            width: 0,
            height: 0,
        }
    }
}

crate::draw_filter! {
    filter: Crosshair,
    name: "crosshair",
    family: Generator,
    gpuimage: "GPUImageCrosshairGenerator",
    summary: "Crosshairs at the points of `points` data on a transparent image the input's size (or width x height).",
    doc: "Two inputs: an image, which gives the size (its pixels are not read), and `points` data (e.g. corner_points). \
The output is RGBA8, transparent black (0, 0, 0, 0) with an opaque cross of 2 * floor(crosshair_width / 2) + 1 pixels \
in `color` at each point (pixel coordinates of the input; clipped at the edges), as GPUImage's GPUImageCrosshairGenerator \
draws them. Blend it over the photo (normal_blend) or use draw_points / draw_corners to draw over it directly.",
    params: [
        ParamDef::int("crosshair_width", 5, 1, 255, "crosshair size in pixels (GPUImage's crosshairWidth, default 5); even sizes draw the next odd one"),
        ParamDef::floats("color", &[0.0, 1.0, 0.0], 0.0, 1.0, "crosshair colour: red, green, blue in [0, 1] (GPUImage's default green)"),
        WIDTH_PARAM,
        HEIGHT_PARAM,
    ],
    build: |a| Crosshair::new(a.u32("crosshair_width")?, float_array(&DEF, "color", &a.floats("color")?)?, a.u32("width")?, a.u32("height")?)?,
    data: points: Points,
    output: |f, inputs| super::sized_output(&DEF, inputs, f.width, f.height),
    uniforms: [super::CLEAR_LAYOUT],
    cpu: |f, _inputs, points, out| draw_points_cpu(&super::blank(out, [0; 4])?, points, f.crosshair_width / 2, crate::filters::analysis::opaque_rgba8(f.color)),
    gpu: record,
}

/// Clears the canvas to black, then draws each point's cross (`draw_points.wgsl`).
fn record(
    f: &Crosshair,
    rec: &mut NodeRecorder<'_>,
    inputs: &[GpuSlot],
    outputs: &[GpuSlot],
) -> Result<()> {
    let (Some(list), Some(out)) = (inputs.get(1), outputs.first()) else {
        return Err(Error::invalid(
            "`crosshair` needs an image, points and one output",
        ));
    };
    let d = super::record_clear(rec, &DEF, out, [0; 4])?;
    let color = u32::from_le_bytes(crate::filters::analysis::opaque_rgba8(f.color));
    let u = DrawPointsParams {
        width: d.width,
        height: d.height,
        arm: f.crosshair_width / 2,
        color,
        slots: POINTS_CAPACITY,
        ..Default::default()
    };
    let draw = Kernel::new(
        "analysis.draw_points.draw",
        &[DrawPointsParams::WGSL, DRAW_WGSL],
        "draw",
    );
    rec.dispatch(
        &draw,
        &[&list.buffer, &out.buffer],
        bytemuck::bytes_of(&u),
        groups_1d(POINTS_CAPACITY as u64, 64),
    )
}
