//! Lines of a line list on a transparent image. Matches GPUImage's `GPUImageLineGenerator`
//! (lines of `lineWidth` in `lineColor`, default 1 pixel, green) given as (ρ, θ) lines (from
//! `hough_line_detection`) instead of GPUImage's slope-intercept pairs; the lines are
//! `draw_lines`' (its kernel, on a cleared image instead of a copy of the input).

use crate::error::{Error, Result};
use crate::filters::analysis::draw_lines::{
    draw_lines_cpu, DrawLinesParams, STEPS, WGSL as DRAW_WGSL,
};
use crate::filters::shape::generator::{HEIGHT_PARAM, WIDTH_PARAM};
use crate::graph::params::{check_int, float_array, ParamDef};
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};
use crate::value::LINES_CAPACITY;

/// Lines `line_width` pixels thick in `color`, on transparent black.
#[derive(Clone, Debug)]
pub struct Line {
    /// Line thickness in pixels.
    pub line_width: u32,
    /// Line colour, RGB in [0, 1].
    pub color: [f32; 3],
    /// Output size; 0: the input image's side.
    pub width: u32,
    /// Output height; 0: the input image's.
    pub height: u32,
}

impl Line {
    /// Fails when a parameter is outside its declared range.
    pub fn new(line_width: u32, color: [f32; 3], width: u32, height: u32) -> Result<Self> {
        crate::graph::params::check_value(
            &DEF,
            "color",
            crate::graph::params::RawValue::List(color.iter().map(|&c| c as f64).collect()),
        )?;
        Ok(Self {
            line_width: check_int(&DEF, "line_width", line_width)?,
            color,
            width: check_int(&DEF, "width", width)?,
            height: check_int(&DEF, "height", height)?,
        })
    }
}

impl Default for Line {
    fn default() -> Self {
        Self {
            line_width: 1,
            color: [0.0, 1.0, 0.0],
            width: 0,
            height: 0,
        }
    }
}

crate::draw_filter! {
    filter: Line,
    name: "line",
    family: Generator,
    gpuimage: "GPUImageLineGenerator",
    summary: "The lines of `lines` data drawn on a transparent image the input's size (or width x height).",
    doc: "Two inputs: an image, which gives the size (its pixels are not read), and `lines` data (e.g. \
hough_line_detection). The output is RGBA8, transparent black (0, 0, 0, 0) with each line x cos θ + y sin θ = ρ drawn \
across it in `color`, opaque, 2 * floor(line_width / 2) + 1 pixels across, without anti-aliasing (draw_lines' pixels). \
GPUImage's GPUImageLineGenerator takes slope-intercept lines in normalised coordinates and draws anti-aliased GL lines. \
Blend it over the photo (normal_blend) or use draw_lines / draw_hough_lines to draw over it directly.",
    params: [
        ParamDef::int("line_width", 1, 1, 63, "line thickness in pixels (GPUImage's lineWidth, default 1); even widths draw the next odd one"),
        ParamDef::floats("color", &[0.0, 1.0, 0.0], 0.0, 1.0, "line colour: red, green, blue in [0, 1] (GPUImage's default green)"),
        WIDTH_PARAM,
        HEIGHT_PARAM,
    ],
    build: |a| Line::new(a.u32("line_width")?, float_array(&DEF, "color", &a.floats("color")?)?, a.u32("width")?, a.u32("height")?)?,
    data: lines: Lines,
    output: |f, inputs| super::sized_output(&DEF, inputs, f.width, f.height),
    uniforms: [super::CLEAR_LAYOUT],
    cpu: |f, _inputs, lines, out| draw_lines_cpu(&super::blank(out, [0; 4])?, lines, f.line_width / 2, crate::filters::analysis::opaque_rgba8(f.color)),
    gpu: record,
}

/// Clears the canvas to black, then draws the lines (`draw_lines.wgsl`).
fn record(
    f: &Line,
    rec: &mut NodeRecorder<'_>,
    inputs: &[GpuSlot],
    outputs: &[GpuSlot],
) -> Result<()> {
    let (Some(list), Some(out)) = (inputs.get(1), outputs.first()) else {
        return Err(Error::invalid(
            "`line` needs an image, lines and one output",
        ));
    };
    let d = super::record_clear(rec, &DEF, out, [0; 4])?;
    let chunks = d.width.max(d.height).div_ceil(STEPS);
    let color = u32::from_le_bytes(crate::filters::analysis::opaque_rgba8(f.color));
    let u = DrawLinesParams {
        width: d.width,
        height: d.height,
        arm: f.line_width / 2,
        color,
        chunks,
        slots: LINES_CAPACITY,
        ..Default::default()
    };
    let draw = Kernel::new(
        "analysis.draw_lines",
        &[DrawLinesParams::WGSL, DRAW_WGSL],
        "draw_lines",
    );
    rec.dispatch(
        &draw,
        &[&list.buffer, &out.buffer],
        bytemuck::bytes_of(&u),
        groups_1d(LINES_CAPACITY as u64 * chunks as u64, 64),
    )
}
