//! The `border=replicate|reflect` option of the neighbourhood filters (`gaussian_blur`,
//! `box_blur`, `median`, `bilateral` and every `stencil_filter!`). Their kernels replicate
//! edge pixels; `border=reflect` (OpenCV's BORDER_REFLECT_101, `gfedcb|abcdefgh|gfedcba`,
//! OpenCV's default) lowers the filter, as a composite lowers, into `pad(r, reflect101)`, the
//! same filter with replicated borders, and `crop` back: every output pixel's window then lies
//! inside the padded image, so the result is exactly the filter with a native reflect-101
//! border. Cost: two extra passes (the pad writes and the crop reads a copy of the image
//! grown by r on every side), not measured yet; a native reflect path in a hot kernel can
//! come later if benchmarks ask.
//!
//! Windows wider than the image reflect repeatedly (`pad`'s `reflect101`, as OpenCV's
//! `borderInterpolate`); a one-pixel side repeats its pixel.

use crate::error::{Error, Result};
use crate::filters::geometry::{pad::PadMode, Crop, Pad};
use crate::filters::registry::{Filter, FilterDef, Footprint};
use crate::graph::params::{Args, ParamDef};
use crate::graph::{Graph, Port};
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Value, ValueDesc};

/// The parameter every filter with the option declares (last).
pub const BORDER_PARAM: ParamDef = ParamDef::choice("border", "replicate", &["replicate", "reflect"], "replicate: edge pixels repeat (GPUImage's clamp); reflect: OpenCV's default BORDER_REFLECT_101, gfedcb|abcdefgh (lowered to pad, the filter, crop)");

/// A filter's border handling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Border {
    /// Edge pixels repeat (`aaa|abcd`): the kernels' own.
    #[default]
    Replicate,
    /// OpenCV's BORDER_REFLECT_101 (`dcb|abcd`).
    Reflect,
}

/// `filter` as `border` asks: itself for replicate, wrapped in [`Reflect101`] for reflect.
pub fn with_border(filter: Box<dyn Filter>, border: Border) -> Box<dyn Filter> {
    match border {
        Border::Replicate => filter,
        Border::Reflect => Box::new(Reflect101 { inner: filter }),
    }
}

/// `with_border` with the `border` argument of `args` (a `build` closure's last step).
pub fn from_args(filter: Box<dyn Filter>, args: &Args) -> Result<Box<dyn Filter>> {
    let border = match args.choice("border")? {
        "reflect" => Border::Reflect,
        _ => Border::Replicate,
    };
    Ok(with_border(filter, border))
}

/// A neighbourhood filter with a reflect-101 border: lowered into pad, the filter, crop.
/// Its `def` is the filter's own, so it lists, builds and reports as that filter.
#[derive(Clone, Debug)]
pub struct Reflect101 {
    /// The filter with the window.
    pub inner: Box<dyn Filter>,
}

impl Reflect101 {
    /// The radius of the inner filter's window on inputs `descs`.
    fn radius(&self, descs: &[ValueDesc]) -> Result<u32> {
        match self.inner.footprint(descs) {
            Footprint::Radius(r) => Ok(r),
            Footprint::Pixel => Ok(0),
            other => Err(Error::invalid(format!(
                "`{}`: border=reflect needs a window of fixed radius, not {other:?}",
                self.inner.def().name
            ))),
        }
    }
}

impl Filter for Reflect101 {
    fn def(&self) -> &'static FilterDef {
        self.inner.def()
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        self.radius(inputs)?;
        self.inner.output_descs(inputs)
    }
    fn run_cpu(&self, _: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        Err(super::composite::never_runs(self.def()))
    }
    fn record_gpu(&self, _: &mut NodeRecorder<'_>, _: &[GpuSlot], _: &[GpuSlot]) -> Result<()> {
        Err(super::composite::never_runs(self.def()))
    }
    /// The reflected window stays within the radius of the pixel (a reflection moves no
    /// pixel further away).
    fn footprint(&self, inputs: &[ValueDesc]) -> Footprint {
        self.inner.footprint(inputs)
    }
    fn lower(&self, graph: &mut Graph, inputs: &[Port]) -> Option<Result<Vec<Port>>> {
        Some((|| {
            let input = *inputs
                .first()
                .ok_or_else(|| Error::invalid(format!("`{}` needs an input", self.def().name)))?;
            let d = graph
                .desc(input)
                .image()
                .ok_or_else(|| Error::invalid(format!("`{}` takes an image", self.def().name)))?;
            let r = self.radius(&[graph.desc(input)])?;
            if r == 0 {
                return graph.add_boxed(self.inner.clone(), inputs);
            }
            let padded = graph.add(Pad::uniform(r, PadMode::Reflect101)?, &[input])?;
            let mut ins = padded.clone();
            ins.extend_from_slice(&inputs[1..]);
            let filtered = graph.add_boxed(self.inner.clone(), &ins)?;
            let first = *filtered
                .first()
                .ok_or_else(|| Error::invalid(format!("`{}` has no outputs", self.def().name)))?;
            graph.add(Crop::px(r, r, d.width, d.height)?, &[first])
        })())
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
