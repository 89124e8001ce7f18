//! The reduction shape (GPUImage's `GPUImageAverageColor`, `GPUImageHistogramFilter`): a filter
//! that reads a whole image (or two of one size) and gives data, e.g. statistics, a histogram,
//! a point list. Its kernels are its own (tuned grid-stride loops and atomics, helpers in
//! `filters/analysis/mod.rs`); the shape owns what every such filter repeats: the struct and
//! its parameters, `DEF`, and an `impl Filter` with a whole-image footprint, the accepted pixel
//! formats, the data outputs, the CPU twin and the GPU record function.
//! `reduction_filter!` declares a filter of this shape.

use crate::error::{Error, Result};
use crate::filters::registry::{expect_image, input_image, FilterDef};
use crate::image::{Image, ImageDesc, PixelFormat};
use crate::value::{Data, Value, ValueDesc};

/// What a reduction's CPU twin gives: one data value, or one per output port.
pub trait TwinOutputs {
    /// The values of the filter's outputs, in port order.
    fn into_values(self) -> Vec<Value>;
}

impl TwinOutputs for Data {
    fn into_values(self) -> Vec<Value> {
        vec![Value::Data(self)]
    }
}

impl<const N: usize> TwinOutputs for [Data; N] {
    fn into_values(self) -> Vec<Value> {
        self.into_iter().map(Value::Data).collect()
    }
}

/// The descriptions of `def`'s image inputs, each in one of `formats`.
pub fn input_descs(
    def: &FilterDef,
    inputs: &[ValueDesc],
    formats: &[PixelFormat],
) -> Result<Vec<ImageDesc>> {
    (0..def.inputs.len())
        .map(|i| expect_image(def, inputs, i, formats))
        .collect()
}

/// `def`'s image inputs, in port order.
pub fn input_images<'v>(def: &FilterDef, inputs: &[&'v Value]) -> Result<Vec<&'v Image>> {
    (0..def.inputs.len())
        .map(|i| input_image(def, inputs, i))
        .collect()
}

/// The error of a declaration whose bindings do not match its input ports (a declaration bug).
pub fn arity(def: &FilterDef) -> Error {
    Error::invalid(format!(
        "`{}`: its declaration binds another number of inputs than its {} ports",
        def.name,
        def.inputs.len()
    ))
}

/// Declares an image-to-data reduction in one place (see `analysis/reduce.rs`):
///
/// - `pub struct Name;` with `params: { p: kind(args) = default => "doc", .. }` as in
///   `pixel_filter!` (a unit struct with `new()` when there are none); or the struct's fields
///   written out (`pub struct Name { pub field: T }`) with `params: [ParamDef, ..]` and
///   `build: |args| Name { .. }` where the fields are not the parameters themselves.
/// - `def: NAME` names a registry entry that is not `pub static DEF` (a filter not registered).
/// - `extra_params: [ParamDef, ..]` after the struct's (e.g. an image input given by path);
///   `inputs: [frame, average]` names the image ports (default: one, `image`); `formats:` the
///   pixel formats each takes; `outputs: { port: DataKind variant, .. }`.
/// - `check: |f, desc, ..| Result<()>` what `output_descs` checks beyond the formats.
/// - `uniforms:` the layouts for the layout test, `schedules:` the schedule names,
///   `merges_partials: true` where data tiles merge partial results.
/// - `cpu: |f, image, ..| twin` gives a `Data` (or an array, one per output); `gpu: record`
///   is `fn(&Name, &mut NodeRecorder, input, output, ImageDesc) -> Result<()>` (one input,
///   one output), or `gpu_slots: record` a `fn(&Name, &mut NodeRecorder, &[GpuSlot],
///   &[GpuSlot]) -> Result<()>` taking the slots as they come.
#[macro_export]
macro_rules! reduction_filter {
    (
        @full [$(#[$meta:meta])*] $Name:ident [$($fields:tt)*] [$($vis:tt)*] $def:ident,
        name: $name:literal,
        gpuimage: $gpuimage:literal,
        summary: $summary:literal,
        $(doc: $doc:expr,)?
        params: $params:tt,
        $(build: |$ba:ident| $build:expr,)?
        $(extra_params: [ $($extra:expr),* $(,)? ],)?
        $(inputs: [ $($in:ident),+ ],)?
        formats: [ $($fmt:ident),+ ],
        outputs: { $( $out:ident : $kind:ident ),+ $(,)? },
        $(check: |$kf:pat_param, $($kd:ident),+| $check:expr,)?
        uniforms: [ $($uni:expr),* $(,)? ],
        $(schedules: $sched:expr,)?
        $(merges_partials: $merges:literal,)?
        cpu: |$cf:pat_param, $($ci:ident),+| $cpu:expr,
        $(gpu: $gpu:expr,)?
        $(gpu_slots: $gpu_slots:expr,)?
    ) => {
        $crate::__rf_struct!([$(#[$meta])*] $Name [$($fields)*] $params, $def);

        /// The filter's registry entry.
        $($vis)* static $def: $crate::filters::registry::FilterDef = $crate::filters::registry::FilterDef {
            name: $name,
            family: $crate::filters::registry::Family::Analysis,
            summary: $summary,
            doc: $crate::__pf_or!([$($doc)?] [""]),
            gpuimage: $gpuimage,
            params: $crate::__rf_params!($params [$($($extra),*)?]),
            inputs: $crate::__pf_or!([$( &[$( $crate::filters::registry::PortDef { name: stringify!($in), kind: $crate::filters::registry::PortKind::Image } ),+] )?] [$crate::filters::registry::IMAGE]),
            outputs: &[$( $crate::filters::registry::PortDef { name: stringify!($out), kind: $crate::filters::registry::PortKind::Data($crate::value::DataKind::$kind) } ),+],
            tolerance: $crate::filters::registry::EXACT_ENOUGH,
            build: $crate::__rf_build!($Name, $def, $params [$( |$ba| $build )?]),
            uniforms: &[$($uni),*],
            test_inputs: None,
            schedules: $crate::__pf_or!([$($sched)?] [&[]]),
        };

        impl $crate::filters::registry::Filter for $Name {
            fn merges_partials(&self) -> bool {
                $crate::__pf_or!([$($merges)?] [false])
            }
            fn footprint(&self, _inputs: &[$crate::value::ValueDesc]) -> $crate::filters::registry::Footprint {
                $crate::filters::registry::Footprint::WholeImage
            }
            fn def(&self) -> &'static $crate::filters::registry::FilterDef {
                &$def
            }
            fn output_descs(&self, inputs: &[$crate::value::ValueDesc]) -> $crate::Result<Vec<$crate::value::ValueDesc>> {
                let _descs = $crate::filters::shape::reduction::input_descs(&$def, inputs, &[$($crate::image::PixelFormat::$fmt),+])?;
                $(
                    let &[$($kd),+] = _descs.as_slice() else {
                        return Err($crate::filters::shape::reduction::arity(&$def));
                    };
                    let $kf = self;
                    $check?;
                )?
                Ok(vec![$( $crate::value::ValueDesc::Data($crate::value::DataKind::$kind) ),+])
            }
            fn run_cpu(&self, inputs: &[&$crate::value::Value], _: &[$crate::value::ValueDesc]) -> $crate::Result<Vec<$crate::value::Value>> {
                let images = $crate::filters::shape::reduction::input_images(&$def, inputs)?;
                let &[$($ci),+] = images.as_slice() else {
                    return Err($crate::filters::shape::reduction::arity(&$def));
                };
                let $cf = self;
                Ok($crate::filters::shape::reduction::TwinOutputs::into_values($cpu))
            }
            fn record_gpu(
                &self,
                rec: &mut $crate::runtime::NodeRecorder<'_>,
                inputs: &[$crate::runtime::GpuSlot],
                outputs: &[$crate::runtime::GpuSlot],
            ) -> $crate::Result<()> {
                $crate::__rf_gpu!(self, rec, inputs, outputs, $def, [$($gpu)?] [$($gpu_slots)?])
            }
            fn box_clone(&self) -> Box<dyn $crate::filters::registry::Filter> {
                Box::new(self.clone())
            }
        }
    };
    // a registry entry of another name, private: build.rs registers only a file's `DEF`
    (
        $(#[$meta:meta])*
        pub struct $Name:ident $(;)? $({ $($fields:tt)* })?
        def: $def:ident,
        $($rest:tt)*
    ) => {
        $crate::reduction_filter!(@full [$(#[$meta])*] $Name [$($($fields)*)?] [] $def, $($rest)*);
    };
    (
        $(#[$meta:meta])*
        pub struct $Name:ident $(;)? $({ $($fields:tt)* })?
        name: $($rest:tt)*
    ) => {
        $crate::reduction_filter!(@full [$(#[$meta])*] $Name [$($($fields)*)?] [pub] DEF, name: $($rest)*);
    };
}

/// A reduction's struct, its `new` and its `Default`: from `pixel_filter!`-style parameters
/// (floats and integers checked by `check_float` and `check_int`, which take a bound's nearest
/// `f32` that `check_value` would refuse), a unit struct
/// with `new()` where there are none, or the fields as written.
#[doc(hidden)]
#[macro_export]
macro_rules! __rf_struct {
    ([$(#[$meta:meta])*] $Name:ident [] {}, $def:ident) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default)]
        pub struct $Name;

        impl $Name {
            /// The filter (no parameters).
            pub fn new() -> Self {
                Self
            }
        }
    };
    ([$(#[$meta:meta])*] $Name:ident [] { $( $p:ident : $kind:ident $( ( $($karg:expr),* ) )? = $default:expr => $pdoc:literal ),+ $(,)? }, $def:ident) => {
        $crate::__pf_struct!($(#[$meta])* $Name { $( $p : $kind => $pdoc ),+ });

        impl $Name {
            /// Fails when a parameter is outside its declared range.
            pub fn new($( $p: $crate::__pf_param!(ty $kind) ),+) -> $crate::Result<Self> {
                Ok(Self { $( $p: $crate::__rf_check!($kind $p, $def) ),+ })
            }
        }

        impl Default for $Name {
            fn default() -> Self {
                Self { $( $p: $crate::__pf_param!(default $kind $default, $def, $p) ),+ }
            }
        }
    };
    ([$(#[$meta:meta])*] $Name:ident [$($fields:tt)+] [$($pdef:expr),* $(,)?], $def:ident) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default)]
        pub struct $Name { $($fields)+ }
    };
}

/// A declared parameter checked against the registry entry.
#[doc(hidden)]
#[macro_export]
macro_rules! __rf_check {
    (float $p:ident, $def:ident) => {
        $crate::graph::params::check_float(&$def, stringify!($p), $p)?
    };
    (uint $p:ident, $def:ident) => {
        $crate::graph::params::check_int(&$def, stringify!($p), $p)?
    };
    ($kind:ident $p:ident, $def:ident) => {{
        $crate::graph::params::check_value(&$def, stringify!($p), $crate::__pf_param!(raw $kind $p, $def))?;
        $p
    }};
}

/// A reduction's parameter list: the declared ones, then the extra ones.
#[doc(hidden)]
#[macro_export]
macro_rules! __rf_params {
    ({ $( $p:ident : $kind:ident $( ( $($karg:expr),* ) )? = $default:expr => $pdoc:literal ),* $(,)? } [$($extra:expr),*]) => {
        &[ $( $crate::__pf_param!(def $kind $p, $default, $pdoc $(, $($karg),*)?), )* $($extra,)* ]
    };
    ([$($pdef:expr),* $(,)?] [$($extra:expr),*]) => {
        &[ $($pdef,)* $($extra,)* ]
    };
}

/// A reduction's `build`: its `new` from the arguments, or the declared `build`.
#[doc(hidden)]
#[macro_export]
macro_rules! __rf_build {
    ($Name:ident, $def:ident, {} []) => {
        |_| Ok(Box::new($Name))
    };
    ($Name:ident, $def:ident, { $( $p:ident : $kind:ident $( ( $($karg:expr),* ) )? = $default:expr => $pdoc:literal ),+ $(,)? } []) => {
        |a| Ok(Box::new($Name::new($( $crate::__pf_param!(get $kind a, $p, $def) ),+)?))
    };
    ($Name:ident, $def:ident, [$($pdef:expr),* $(,)?] [|$ba:ident| $build:expr]) => {
        |$ba| Ok(Box::new($build))
    };
}

/// A reduction's `record_gpu`: one input and one output to the record function, or the slots.
#[doc(hidden)]
#[macro_export]
macro_rules! __rf_gpu {
    ($f:ident, $rec:ident, $inputs:ident, $outputs:ident, $def:ident, [$gpu:expr] []) => {{
        let (input, output, d) = $crate::filters::registry::one_to_one(&$def, $inputs, $outputs)?;
        $gpu($f, $rec, input, output, d)
    }};
    ($f:ident, $rec:ident, $inputs:ident, $outputs:ident, $def:ident, [] [$gpu_slots:expr]) => {
        $gpu_slots($f, $rec, $inputs, $outputs)
    };
}
