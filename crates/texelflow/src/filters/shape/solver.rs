//! The solver shape: small data in, small data out (a histogram to curves or to black and
//! white points). The GPU side is one workgroup running an entry point of the analysis
//! family's `solve.wgsl` (`analysis::record_solver`) with its `SolveParams`, so the data never
//! comes back to the CPU between a reduction and the filter that uses it; the CPU twin is a
//! function of the input data. `solver_filter!` declares a filter of this shape.

use crate::error::{Error, Result};
use crate::filters::registry::{expect_data, FilterDef};
use crate::graph::params::ParamKind;
use crate::value::{DataKind, ValueDesc};

/// What a solver's declaration reaches of the analysis family: the kernels live beside the
/// reductions they serve.
pub(crate) use crate::filters::analysis::{record_solver, SolveParams, SOLVE_UNIFORM};

/// The output description: one `output` data value, once input 0 is `input` data.
pub fn output_descs(
    def: &FilterDef,
    inputs: &[ValueDesc],
    input: DataKind,
    output: DataKind,
) -> Result<Vec<ValueDesc>> {
    expect_data(def, inputs, 0, input)?;
    Ok(vec![ValueDesc::Data(output)])
}

/// The CPU twin's error for an input value that is not `kind` data.
pub fn wrong_input(def: &FilterDef, kind: DataKind) -> Error {
    Error::wrong_input(def.name, format!("input 0 must be {} data", kind.name()))
}

/// A choice given as an index (the solvers' `new`): fails past the declared options, with
/// the message the hand-written constructors gave.
pub fn check_choice(def: &FilterDef, name: &str, index: u32) -> Result<()> {
    let options = match def.params.iter().find(|p| p.name == name).map(|p| p.kind) {
        Some(ParamKind::Choice { options, .. }) => options,
        _ => &[],
    };
    if index as usize >= options.len() {
        return Err(Error::BadParam {
            filter: def.name.into(),
            param: name.into(),
            message: format!("must be one of {}", options.join(", ")),
        });
    }
    Ok(())
}

/// Declares a solver filter (family analysis) in one place: parameters as in `pixel_filter!`
/// (float, bool and choice checked as the solvers always did: ranges in order, then the
/// optional `check: |f| -> Result<()>` across parameters, then choice indices), the ports as
/// `input: port(DataKind)` and `output: port(DataKind)`, the CPU twin `cpu: |f, x|` from the
/// input's data (`x`, e.g. `&Histogram`) to the output's, and the GPU side as the `solve.wgsl`
/// entry point, with `|f| SolveParams { .. }` where it takes parameters. See
/// `analysis/levels_lut.rs`.
#[macro_export]
macro_rules! solver_filter {
    (
        $(#[$meta:meta])*
        pub struct $Name:ident;
        name: $name:literal,
        gpuimage: $gpuimage:literal,
        summary: $summary:literal,
        doc: $doc:expr,
        params: { $( $p:ident : $kind:ident $( ( $($karg:expr),* ) )? = $default:expr => $pdoc:literal ),* $(,)? },
        $(check: |$kf:ident| $check:expr,)?
        input: $in_port:ident ($In:ident),
        output: $out_port:ident ($Out:ident),
        cpu: |$cf:ident, $cx:ident| $cpu:expr,
        solve: $entry:literal $(, |$sf:ident| $solve:expr)? $(,)?
    ) => {
        $crate::__pf_struct!($(#[$meta])* $Name { $( $p : $kind => $pdoc ),* });

        impl $Name {
            /// Fails when a parameter is outside its declared range.
            pub fn new($( $p: $crate::__pf_param!(ty $kind) ),*) -> $crate::Result<Self> {
                $( $crate::__solver_check!(value $kind DEF, $p); )*
                let f = Self { $( $p ),* };
                $( { let $kf = &f; $check?; } )?
                $( $crate::__solver_check!(choice $kind DEF, $p); )*
                Ok(f)
            }
        }

        impl Default for $Name {
            fn default() -> Self {
                Self { $( $p: $crate::__pf_param!(default $kind $default, DEF, $p) ),* }
            }
        }

        $crate::__pf_def! {
            $Name, $name, $crate::filters::registry::Family::Analysis, $gpuimage, $summary, [$doc], [],
            [$( $p : $kind $( ( $($karg),* ) )? = $default => $pdoc ),*], [],
            &[$crate::filters::registry::PortDef { name: stringify!($in_port), kind: $crate::filters::registry::PortKind::Data($crate::value::DataKind::$In) }],
            $crate::filters::registry::EXACT_ENOUGH, &[],
            outputs: &[$crate::filters::registry::PortDef { name: stringify!($out_port), kind: $crate::filters::registry::PortKind::Data($crate::value::DataKind::$Out) }],
            uniforms: &[$crate::filters::shape::solver::SOLVE_UNIFORM]
        }

        impl $crate::filters::registry::Filter for $Name {
            fn footprint(&self, _inputs: &[$crate::value::ValueDesc]) -> $crate::filters::registry::Footprint {
                $crate::filters::registry::Footprint::WholeImage
            }
            fn def(&self) -> &'static $crate::filters::registry::FilterDef {
                &DEF
            }
            fn output_descs(&self, inputs: &[$crate::value::ValueDesc]) -> $crate::Result<Vec<$crate::value::ValueDesc>> {
                $crate::filters::shape::solver::output_descs(&DEF, inputs, $crate::value::DataKind::$In, $crate::value::DataKind::$Out)
            }
            #[allow(unused_variables)]
            fn run_cpu(&self, inputs: &[&$crate::value::Value], _: &[$crate::value::ValueDesc]) -> $crate::Result<Vec<$crate::value::Value>> {
                let Some($crate::value::Data::$In($cx)) = inputs.first().and_then(|v| v.as_data()) else {
                    return Err($crate::filters::shape::solver::wrong_input(&DEF, $crate::value::DataKind::$In));
                };
                let $cf = self;
                Ok(vec![$crate::value::Value::Data($crate::value::Data::$Out($cpu))])
            }
            fn record_gpu(
                &self,
                rec: &mut $crate::runtime::NodeRecorder<'_>,
                inputs: &[$crate::runtime::GpuSlot],
                outputs: &[$crate::runtime::GpuSlot],
            ) -> $crate::Result<()> {
                let params: $crate::filters::shape::solver::SolveParams =
                    $crate::__pf_or!([$( { let $sf = self; $solve } )?] [Default::default()]);
                $crate::filters::shape::solver::record_solver(&DEF, rec, inputs, outputs, $entry, params)
            }
            fn box_clone(&self) -> Box<dyn $crate::filters::registry::Filter> {
                Box::new(self.clone())
            }
        }
    };
}

/// `solver_filter!`'s parameter checks in `new`: `value` checks a value against its range
/// (floats as `check_float`, a choice's index left for later), `choice` checks a choice's index.
#[doc(hidden)]
#[macro_export]
macro_rules! __solver_check {
    (value float $def:ident, $p:ident) => {
        $crate::graph::params::check_float(&$def, stringify!($p), $p)?;
    };
    (value choice $def:ident, $p:ident) => {};
    (value $kind:ident $def:ident, $p:ident) => {
        $crate::graph::params::check_value(
            &$def,
            stringify!($p),
            $crate::__pf_param!(raw $kind $p, $def),
        )?;
    };
    (choice choice $def:ident, $p:ident) => {
        $crate::filters::shape::solver::check_choice(&$def, stringify!($p), $p)?;
    };
    (choice $kind:ident $def:ident, $p:ident) => {};
}
