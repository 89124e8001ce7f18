//! Lines of a line list drawn over the image: GPUImage's `GPUImageLineGenerator` (lines of
//! `lineWidth` in a colour, from its Hough detector's callback), drawn over the photo instead
//! of on black, without anti-aliasing. Two inputs: the image and `lines` data (e.g. from
//! `hough_line_detection`); `draw_hough_lines` runs Canny, Hough and this in one step.

use crate::error::{Error, Result};
use crate::filters::registry::{expect_image, input_image, slot_image};
use crate::graph::params::{check_int, float_array, ParamDef};
use crate::image::{Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{line_cos_sin_q14, Lines, LINES_CAPACITY};

use super::draw_points::{DrawPointsParams, COPY_WGSL};

pub(crate) const WGSL: &str = include_str!("draw_lines.wgsl");
/// Columns or rows one invocation draws (mirrors `STEPS` in draw_lines.wgsl).
pub(crate) const STEPS: u32 = 64;

/// Lines `width` pixels thick in `color` across the whole image.
#[derive(Clone, Debug)]
pub struct DrawLines {
    /// Line thickness in pixels.
    pub width: u32,
    /// Line colour, RGB in [0, 1].
    pub color: [f32; 3],
}

impl DrawLines {
    /// Fails when `width` is outside [1, 63] or a colour component outside [0, 1].
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
    /// Pixels each side of the line: `2 arm + 1` across.
    fn arm(&self) -> u32 {
        self.width / 2
    }
}

impl Default for DrawLines {
    fn default() -> Self {
        Self {
            width: 1,
            color: [1.0, 0.0, 0.0],
        }
    }
}

uniform_struct! {
    /// Uniform of draw_lines.wgsl.
    pub struct DrawLinesParams {
        pub width: u32,
        pub height: u32,
        /// Pixels each side of the line, across it.
        pub arm: u32,
        /// The colour, packed RGBA8.
        pub color: u32,
        /// Runs of STEPS along the longer side: ceil(max(width, height) / STEPS).
        pub chunks: u32,
        /// List slots to visit (the list's capacity).
        pub slots: u32,
    }
}

/// The line parameters, shared with `draw_hough_lines`.
pub const WIDTH: ParamDef = ParamDef::int(
    "width",
    1,
    1,
    63,
    "line thickness in pixels (GPUImage's lineWidth); even widths draw the next odd one",
);
/// The colour parameter, shared with `draw_hough_lines`.
pub const COLOR: ParamDef = ParamDef::floats(
    "color",
    &[1.0, 0.0, 0.0],
    0.0,
    1.0,
    "line colour, red, green, blue in [0, 1] (red, as GPUImage's FilterShowcase draws them)",
);

crate::draw_filter! {
    filter: DrawLines,
    name: "draw_lines",
    family: Analysis,
    gpuimage: "GPUImageLineGenerator",
    summary: "The lines of `lines` data (e.g. hough_line_detection) drawn across the image, without anti-aliasing.",
    doc: "Two inputs: an RGBA8 image and `lines` data. Each line x cos θ + y sin θ = ρ is drawn across the whole image in \
`color`, opaque, without anti-aliasing: nearer horizontal lines (|sin θ| >= |cos θ|) get one pixel per column at y = \
round((ρ - x cos θ) / sin θ), the others one per row, widened to 2 floor(width / 2) + 1 pixels across that axis; cos θ, \
sin θ and ρ are taken in Q14 fixed point (a few hundredths of a pixel over 4K) so GPU and CPU draw the same pixels. \
GPUImage's GPUImageLineGenerator draws on black; blend if that is wanted. From the command line use draw_hough_lines.",
    params: [WIDTH, COLOR],
    build: |a| DrawLines::new(a.u32("width")?, float_array(&DEF, "color", &a.floats("color")?)?)?,
    data: lines: Lines,
    output: |_, inputs| expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8]),
    uniforms: [DrawLinesParams::layout(WGSL)],
    cpu: |f, inputs, lines, _out| draw_lines_cpu(input_image(&DEF, inputs, 0)?, lines, f.arm(), super::opaque_rgba8(f.color)),
    gpu: record,
}

/// CPU twin of draw_lines.wgsl (in i64, where the GPU's i32 cannot overflow for lists
/// `hough_line_detection` makes).
pub fn draw_lines_cpu(img: &Image, lines: &Lines, arm: u32, color: [u8; 4]) -> Result<Image> {
    let (w, h) = (img.width() as i64, img.height() as i64);
    let mut out = img.as_u8().to_vec();
    let a = arm as i64;
    let mut put = |x: i64, y: i64| {
        if x >= 0 && y >= 0 && x < w && y < h {
            let i = 4 * (y * w + x) as usize;
            out[i..i + 4].copy_from_slice(&color);
        }
    };
    for l in &lines.lines {
        let (cq, sq) = line_cos_sin_q14(l.theta);
        let (cq, sq) = (cq as i64, sq as i64);
        let rq = (l.rho * 16384.0).round_ties_even() as i64;
        if sq.abs() >= cq.abs() {
            for x in 0..w {
                let y = (2 * (rq - x * cq) + sq).div_euclid(2 * sq);
                for k in -a..=a {
                    put(x, y + k);
                }
            }
        } else {
            let (c, sign) = (cq.abs(), cq.signum());
            for y in 0..h {
                let x = (2 * sign * (rq - y * sq) + c).div_euclid(2 * c);
                for k in -a..=a {
                    put(x + k, y);
                }
            }
        }
    }
    Image::from_u8(img.width(), img.height(), PixelFormat::Rgba8, out)
}

/// Copies the image, then draws the lines (`draw_lines.wgsl`).
fn record(
    f: &DrawLines,
    rec: &mut NodeRecorder<'_>,
    inputs: &[GpuSlot],
    outputs: &[GpuSlot],
) -> Result<()> {
    let d = slot_image(&DEF, inputs, 0)?;
    let (Some(list), Some(out)) = (inputs.get(1), outputs.first()) else {
        return Err(Error::invalid(
            "`draw_lines` needs an image, lines and one output",
        ));
    };
    let copy_u = DrawPointsParams {
        width: d.width,
        height: d.height,
        arm: 0,
        color: 0,
        slots: 0,
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
        bytemuck::bytes_of(&copy_u),
        groups_1d(d.pixels() as u64, 256),
    )?;
    let chunks = d.width.max(d.height).div_ceil(STEPS);
    let u = DrawLinesParams {
        width: d.width,
        height: d.height,
        arm: f.arm(),
        color: u32::from_le_bytes(super::opaque_rgba8(f.color)),
        chunks,
        slots: LINES_CAPACITY,
        ..Default::default()
    };
    let draw = Kernel::new(
        "analysis.draw_lines",
        &[DrawLinesParams::WGSL, WGSL],
        "draw_lines",
    );
    rec.dispatch(
        &draw,
        &[&list.buffer, &out.buffer],
        bytemuck::bytes_of(&u),
        groups_1d(LINES_CAPACITY as u64 * chunks as u64, 64),
    )
}
