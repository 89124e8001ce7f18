//! A histogram drawn as an image, on the GPU. Matches GPUImage's `GPUImageHistogramGenerator`
//! (bars of the R, G and B channels, or of luminance, over a background colour, 256 bins
//! across the output's width), fed by `histogram` data (exact counts) instead of GPUImage's
//! histogram texture, and scaled so the tallest bin fills the height. `histogram_plot` runs
//! `histogram` and this in one step.

use crate::error::{Error, Result};
use crate::filters::shape::generator::{HEIGHT_PARAM, WIDTH_PARAM};
use crate::graph::params::{choice_index, float_array, ParamDef};
use crate::image::{unorm8, Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};
use crate::value::Histogram;

const HEIGHTS_WGSL: &str = include_str!("histogram_generator_heights.wgsl");
const PLOT_WGSL: &str = include_str!("histogram_generator_plot.wgsl");

/// The bars drawn: `histogram_generator`'s and `histogram_plot`'s `mode`.
pub const MODES: &[&str] = &["rgb", "luminance"];

/// Bars of a histogram's R, G, B (mode 0) or Y (mode 1) counts over `background_color`.
#[derive(Clone, Debug)]
pub struct HistogramGenerator {
    /// Index into [`MODES`].
    pub mode: u32,
    /// RGBA in [0, 1] where no bar is.
    pub background_color: [f32; 4],
    /// Output size; 0: the input image's side.
    pub width: u32,
    /// Output height; 0: the input image's.
    pub height: u32,
}

impl HistogramGenerator {
    /// Fails when a parameter is outside its declared range.
    pub fn new(mode: u32, background_color: [f32; 4], width: u32, height: u32) -> Result<Self> {
        crate::graph::params::check_value(
            &DEF,
            "background_color",
            crate::graph::params::RawValue::List(
                background_color.iter().map(|&c| c as f64).collect(),
            ),
        )?;
        let mode = MODES
            .get(mode as usize)
            .map(|_| mode)
            .ok_or_else(|| Error::BadParam {
                filter: DEF.name.into(),
                param: "mode".into(),
                message: format!("{mode} is not an index of {MODES:?}"),
            })?;
        Ok(Self {
            mode,
            background_color,
            width: crate::graph::params::check_int(&DEF, "width", width)?,
            height: crate::graph::params::check_int(&DEF, "height", height)?,
        })
    }
    fn background(&self) -> [u8; 4] {
        self.background_color.map(unorm8)
    }
}

impl Default for HistogramGenerator {
    fn default() -> Self {
        Self {
            mode: 0,
            background_color: [0.0; 4],
            width: 0,
            height: 0,
        }
    }
}

uniform_struct! {
    /// Uniform of histogram_generator_heights.wgsl and histogram_generator_plot.wgsl.
    pub struct HistogramGeneratorParams {
        pub width: u32,
        pub height: u32,
        /// 0: R, G and B bars; 1: luma (Y) bars in white.
        pub mode: u32,
        /// Where no bar is, packed RGBA8.
        pub background: u32,
    }
}

/// The parameters `histogram_plot` shares.
pub const MODE_PARAM: ParamDef = ParamDef::choice("mode", "rgb", MODES, "rgb: red, green and blue bars (additive where they overlap); luminance: white bars of BT.601 luma");
/// The `background_color` parameter.
pub const BACKGROUND_PARAM: ParamDef = ParamDef::floats(
    "background_color",
    &[0.0, 0.0, 0.0, 0.0],
    0.0,
    1.0,
    "where no bar is: red, green, blue, alpha in [0, 1] (GPUImage's default transparent black)",
);

crate::draw_filter! {
    filter: HistogramGenerator,
    name: "histogram_generator",
    family: Generator,
    gpuimage: "GPUImageHistogramGenerator",
    summary: "`histogram` data drawn as bars (R, G, B or luma) on an image the input's size (or width x height).",
    doc: "Two inputs: an image, which gives the size (its pixels are not read), and `histogram` data. The output is RGBA8: \
column x shows bin floor((x + 0.5) * 256 / width), so the 256 bins stretch or shrink to the width; each drawn channel's \
bar rises from the bottom row to round(height * count / tallest) rows (halves up), tallest being the largest bin of the \
channels drawn. A pixel under one or more bars is opaque with 1 in each covered channel (mode=rgb: red, green, blue bars, \
yellow, cyan, magenta or white where they overlap; mode=luminance: white), elsewhere background_color. GPUImage draws the \
same from its histogram texture (counts scaled by a fixed factor rather than to the tallest bin; with a non-transparent \
background it extrapolates its mix where bars overlap). Exact integer arithmetic on both sides.",
    params: [MODE_PARAM, BACKGROUND_PARAM, WIDTH_PARAM, HEIGHT_PARAM],
    build: |a| HistogramGenerator::new(choice_index(&DEF, "mode", a.choice("mode")?)?, float_array(&DEF, "background_color", &a.floats("background_color")?)?, a.u32("width")?, a.u32("height")?)?,
    data: histogram: Histogram,
    output: |f, inputs| super::sized_output(&DEF, inputs, f.width, f.height),
    uniforms: [HistogramGeneratorParams::layout("")],
    cpu: |f, _inputs, hist, out| histogram_generator_cpu(hist, out.width, out.height, f.mode, f.background()),
    gpu: record,
}

/// CPU twin of the two passes: bar heights from the rounding formula (in u64), then the plot.
pub fn histogram_generator_cpu(
    hist: &Histogram,
    width: u32,
    height: u32,
    mode: u32,
    background: [u8; 4],
) -> Result<Image> {
    let drawn: &[usize] = if mode == 0 { &[0, 1, 2] } else { &[3] };
    let tallest = drawn
        .iter()
        .flat_map(|&c| hist.bins[c].iter())
        .copied()
        .max()
        .unwrap_or(0) as u64;
    let h = height as u64;
    // round(h * count / tallest), halves up
    let bars: Vec<[u64; 256]> = (0..4)
        .map(|c| {
            std::array::from_fn(|i| {
                if tallest == 0 {
                    0
                } else {
                    ((2 * h * hist.bins[c][i] as u64 + tallest) / (2 * tallest)).min(h)
                }
            })
        })
        .collect();
    let mut out = Vec::with_capacity(4 * width as usize * height as usize);
    for y in 0..height {
        let j = (height - y) as u64;
        for x in 0..width {
            let bin = ((2 * x as u64 + 1) * 256 / (2 * width as u64)) as usize;
            let covered: [bool; 3] =
                std::array::from_fn(|k| j <= bars[drawn[k.min(drawn.len() - 1)]][bin]);
            if covered.iter().any(|&c| c) {
                out.extend(covered.map(|c| if c { 255 } else { 0 }));
                out.push(255);
            } else {
                out.extend(background);
            }
        }
    }
    Image::from_u8(width, height, PixelFormat::Rgba8, out)
}

/// Draws the histogram's bars over the background.
fn record(
    f: &HistogramGenerator,
    rec: &mut NodeRecorder<'_>,
    inputs: &[GpuSlot],
    outputs: &[GpuSlot],
) -> Result<()> {
    let (Some(hist), Some(out)) = (inputs.get(1), outputs.first()) else {
        return Err(Error::invalid(
            "`histogram_generator` needs an image, a histogram and one output",
        ));
    };
    let d = out
        .desc
        .image()
        .ok_or_else(|| Error::invalid("`histogram_generator` outputs an image"))?;
    let u = HistogramGeneratorParams {
        width: d.width,
        height: d.height,
        mode: f.mode,
        background: u32::from_le_bytes(f.background()),
        ..Default::default()
    };
    let bars = rec.temp(1024 * 4);
    let heights = Kernel::new(
        "generator.histogram_generator.heights",
        &[HistogramGeneratorParams::WGSL, HEIGHTS_WGSL],
        "heights",
    );
    rec.dispatch(
        &heights,
        &[&hist.buffer, &bars],
        bytemuck::bytes_of(&u),
        [1, 1, 1],
    )?;
    let plot = Kernel::new(
        "generator.histogram_generator.plot",
        &[HistogramGeneratorParams::WGSL, PLOT_WGSL],
        "plot",
    );
    rec.dispatch(
        &plot,
        &[&bars, &out.buffer],
        bytemuck::bytes_of(&u),
        groups_1d(d.pixels() as u64, 256),
    )
}
