//! The generator shape (GPUImage's `GPUImageSolidColorGenerator` and kin): an image made from
//! its parameters and each pixel's position alone. A generator is a per-pixel op whose WGSL
//! body and CPU twin read `at` (the pixel and the image size) and never `c`, so it fuses with
//! its neighbours like any per-pixel filter; its output takes the input's size (the input's
//! pixels are ignored) unless `width`/`height` ask for another, which lowers, as a composite
//! lowers, into `canvas(width, height)` and the op (GPUImage's `forceProcessingAtSize`; RGBA8
//! then, whatever the input's format: the input goes through `to_rgba` first where it is not RGBA8).

use crate::error::{Error, Result};
use crate::filters::convert::ToRgba;
use crate::filters::geometry::Canvas;
use crate::filters::registry::{Filter, FilterDef, Footprint};
use crate::graph::params::{Args, ParamDef};
use crate::graph::{Graph, Port};
use crate::image::{PixelFormat, MAX_SIDE};
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Value, ValueDesc};

const SIDE: i64 = MAX_SIDE as i64;

/// The output size parameters every generator declares (last).
pub const WIDTH_PARAM: ParamDef = ParamDef::int(
    "width",
    0,
    0,
    SIDE,
    "output width in pixels; 0 = the input's width",
);
/// The `height` parameter.
pub const HEIGHT_PARAM: ParamDef = ParamDef::int(
    "height",
    0,
    0,
    SIDE,
    "output height in pixels; 0 = the input's height",
);

/// `filter` at the size `args` asks: itself when width and height are both 0 (the input's
/// size), else wrapped in [`Sized`]. A `build` closure's last step.
pub fn sized_from_args(filter: Box<dyn Filter>, args: &Args) -> Result<Box<dyn Filter>> {
    let (width, height) = (args.u32("width")?, args.u32("height")?);
    if width == 0 && height == 0 {
        return Ok(filter);
    }
    Ok(Box::new(Sized {
        inner: filter,
        canvas: Canvas::new(width, height, 0, 0)?,
    }))
}

/// A generator at a size of its own: lowered into `canvas` (which only sets the size; the
/// generator ignores the pixels) and the generator. Its `def` is the generator's own, so it
/// lists, builds and reports as that filter.
#[derive(Clone, Debug)]
pub struct Sized {
    /// The generator.
    pub inner: Box<dyn Filter>,
    /// The canvas that sets the size.
    pub canvas: Canvas,
}

impl Filter for Sized {
    fn def(&self) -> &'static FilterDef {
        self.inner.def()
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let mut narrowed = inputs.to_vec();
        if let Some(ValueDesc::Image(d)) = narrowed.first_mut() {
            d.format = PixelFormat::Rgba8;
        }
        let sized = self.canvas.output_descs(&narrowed)?;
        self.inner.output_descs(&sized)
    }
    fn run_cpu(&self, _: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        Err(super::composite::never_runs(self.def()))
    }
    fn record_gpu(&self, _: &mut NodeRecorder<'_>, _: &[GpuSlot], _: &[GpuSlot]) -> Result<()> {
        Err(super::composite::never_runs(self.def()))
    }
    fn footprint(&self, _inputs: &[ValueDesc]) -> Footprint {
        Footprint::WholeImage
    }
    fn lower(&self, graph: &mut Graph, inputs: &[Port]) -> Option<Result<Vec<Port>>> {
        Some((|| {
            let input = *inputs
                .first()
                .ok_or_else(|| Error::invalid(format!("`{}` needs an input", self.def().name)))?;
            // canvas takes RGBA8: a sized generator makes RGBA8 whatever the input
            let rgba8 = match graph.desc(input).image() {
                Some(d) if d.format != PixelFormat::Rgba8 => graph.add1(ToRgba, &[input])?,
                _ => input,
            };
            let sized = graph.add(self.canvas.clone(), &[rgba8])?;
            graph.add_boxed(self.inner.clone(), &sized)
        })())
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

/// Declares a generator in one place: parameters as in `pixel_filter!` (plus `width` and
/// `height`, added), a WGSL body returning the colour at `at` (`at_uv(at)` is GPUImage's
/// normalised coordinate; `c`, the input's pixel, is there but must not be read) and a CPU
/// closure `|f, at|` returning the same. See `generator/checkerboard.rs`.
#[macro_export]
macro_rules! generator_filter {
    (
        $(#[$meta:meta])*
        pub struct $Name:ident;
        name: $name:literal,
        gpuimage: $gpuimage:literal,
        summary: $summary:literal,
        $(doc: $doc:expr,)?
        params: { $( $p:ident : $kind:ident $( ( $($karg:expr),* ) )? = $default:expr => $pdoc:literal ),* $(,)? },
        $(uniform: |$uf:ident| { $( $u:ident : $uty:ty = $uexpr:expr ),* $(,)? },)?
        $(tolerance: $tol:expr,)?
        $(helpers: $helpers:expr,)?
        wgsl: $wgsl:expr,
        cpu: |$cf:ident, $cat:pat_param| $cpu:expr $(,)?
    ) => {
        $crate::__pf_params!($(#[$meta])* $Name { $( $p : $kind = $default => $pdoc ),* });

        $crate::__pf_def! {
            $Name, $name, $crate::filters::registry::Family::Generator, $gpuimage, $summary, [$($doc)?], [],
            [$( $p : $kind $( ( $($karg),* ) )? = $default => $pdoc ),*],
            [$crate::filters::shape::generator::WIDTH_PARAM, $crate::filters::shape::generator::HEIGHT_PARAM],
            $crate::filters::registry::IMAGE, $crate::__pf_or!([$($tol)?] [$crate::filters::registry::EXACT_ENOUGH]), &[],
            wrap: $crate::filters::shape::generator::sized_from_args
        }

        impl $crate::filters::shape::pixel::PixelOp for $Name {
            const DEF: &'static $crate::filters::registry::FilterDef = &DEF;
            const FN_NAME: &'static str = $name;
            const PARAMS_STRUCT: &'static str = concat!(stringify!($Name), "Params");
            const POSITION: bool = true;
            $crate::__pf_uniform_fns!([$( |$uf| { $( $u : $uty = $uexpr ),* } )?] [$($p)*], |layout| {
                $crate::filters::shape::pixel::generate_wgsl($name, Self::PARAMS_STRUCT, layout, 1, true, $crate::__pf_or!([$($helpers)?] [""]), $wgsl)
            });
            #[allow(unused_variables)]
            fn apply(&self, _c: [f32; 4], at: $crate::filters::shape::pixel::PixelAt) -> [f32; 4] {
                let $cf = self;
                let $cat = at;
                $cpu
            }
        }
    };
}
