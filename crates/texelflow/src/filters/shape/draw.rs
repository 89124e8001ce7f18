//! The draw shape (GPUImage's `GPUImageCrosshairGenerator`, `GPUImageLineGenerator`,
//! `GPUImageHistogramGenerator`): an image and data in, an image out. The data (points, lines,
//! a LUT, statistics, a histogram) is drawn over the image, applied to it, or drawn onto a blank
//! canvas that the image only sizes. The kernels are the filters' own; the shape owns what each
//! such filter repeats: `DEF` with its two ports, and an `impl Filter` that checks the data's
//! kind, hands the CPU twin the data of that kind and the output's description, and records
//! the filter's GPU function. `draw_filter!` declares a filter of this shape.

use crate::error::{Error, Result};
use crate::filters::registry::FilterDef;
use crate::image::ImageDesc;
use crate::value::{DataKind, ValueDesc};

/// The error of a run whose second input is not data of `kind` (the graph checks the kinds
/// first, so only a caller of `run_cpu` itself sees it).
pub fn wrong_data(def: &FilterDef, kind: DataKind) -> Error {
    Error::wrong_input(def.name, format!("input 1 must be {} data", kind.name()))
}

/// The output's description, as `output_descs` gave it.
pub fn output_desc(def: &FilterDef, outputs: &[ValueDesc]) -> Result<ImageDesc> {
    outputs
        .first()
        .and_then(|o| o.image())
        .ok_or_else(|| Error::invalid(format!("`{}` outputs an image", def.name)))
}

/// Declares an image + data -> image filter's registry entry and `impl Filter` for a type the
/// file defines (its parameters, `new` and `Default`), see `analysis/draw_points.rs`:
///
/// - `filter: Type`, `name`, `family`, `gpuimage`, `summary`, `doc`, `params: [ParamDef, ..]`
///   and `build: |args| Type` as in a `FilterDef`;
/// - `data: port: Kind`: the second input, `DataKind::Kind` data held as `Data::Kind`;
/// - `output: |f, inputs| Result<ImageDesc>`: the output's description from the inputs'
///   (the image input's own, or a canvas of the parameters' size), checked before the data;
/// - `footprint:` `Pixel` where each output pixel reads its own pixel only (default
///   `WholeImage`: the data may come from anywhere in the image);
/// - `uniforms:` the layouts for the layout test;
/// - `cpu: |f, inputs, data, out| Result<Image>`: the twin, with the data and the output's
///   description; `gpu: record`, a `fn(&Type, &mut NodeRecorder, &[GpuSlot], &[GpuSlot]) ->
///   Result<()>`.
#[macro_export]
macro_rules! draw_filter {
    (
        filter: $Name:ident,
        name: $name:literal,
        family: $family:ident,
        gpuimage: $gpuimage:literal,
        summary: $summary:literal,
        doc: $doc:expr,
        params: [ $($param:expr),* $(,)? ],
        build: |$ba:pat_param| $build:expr,
        data: $port:ident : $kind:ident,
        output: |$of:pat_param, $oi:ident| $output:expr,
        $(footprint: $fp:ident,)?
        uniforms: [ $($uni:expr),* $(,)? ],
        cpu: |$cf:pat_param, $ci:ident, $cd:ident, $co:ident| $cpu:expr,
        gpu: $gpu:expr $(,)?
    ) => {
        /// The filter's registry entry.
        pub static DEF: $crate::filters::registry::FilterDef = $crate::filters::registry::FilterDef {
            name: $name,
            family: $crate::filters::registry::Family::$family,
            summary: $summary,
            doc: $doc,
            gpuimage: $gpuimage,
            params: &[$($param),*],
            inputs: &[
                $crate::filters::registry::PortDef { name: "image", kind: $crate::filters::registry::PortKind::Image },
                $crate::filters::registry::PortDef { name: stringify!($port), kind: $crate::filters::registry::PortKind::Data($crate::value::DataKind::$kind) },
            ],
            outputs: $crate::filters::registry::IMAGE,
            tolerance: $crate::filters::registry::EXACT_ENOUGH,
            build: |$ba| Ok(Box::new($build)),
            uniforms: &[$($uni),*],
            test_inputs: None,
            schedules: &[],
        };

        impl $crate::filters::registry::Filter for $Name {
            fn footprint(&self, _inputs: &[$crate::value::ValueDesc]) -> $crate::filters::registry::Footprint {
                $crate::__pf_or!([$($crate::filters::registry::Footprint::$fp)?] [$crate::filters::registry::Footprint::WholeImage])
            }
            fn def(&self) -> &'static $crate::filters::registry::FilterDef {
                &DEF
            }
            fn output_descs(&self, $oi: &[$crate::value::ValueDesc]) -> $crate::Result<Vec<$crate::value::ValueDesc>> {
                let $of = self;
                let d: $crate::image::ImageDesc = $output?;
                $crate::filters::registry::expect_data(&DEF, $oi, 1, $crate::value::DataKind::$kind)?;
                Ok(vec![$crate::value::ValueDesc::Image(d)])
            }
            fn run_cpu(&self, $ci: &[&$crate::value::Value], outputs: &[$crate::value::ValueDesc]) -> $crate::Result<Vec<$crate::value::Value>> {
                let Some($crate::value::Data::$kind($cd)) = $ci.get(1).and_then(|v| v.as_data()) else {
                    return Err($crate::filters::shape::draw::wrong_data(&DEF, $crate::value::DataKind::$kind));
                };
                let $co = $crate::filters::shape::draw::output_desc(&DEF, outputs)?;
                let $cf = self;
                Ok(vec![$crate::value::Value::Image($cpu?)])
            }
            fn record_gpu(
                &self,
                rec: &mut $crate::runtime::NodeRecorder<'_>,
                inputs: &[$crate::runtime::GpuSlot],
                outputs: &[$crate::runtime::GpuSlot],
            ) -> $crate::Result<()> {
                $gpu(self, rec, inputs, outputs)
            }
            fn box_clone(&self) -> Box<dyn $crate::filters::registry::Filter> {
                Box::new(self.clone())
            }
        }
    };
}
