//! Morphology (GPUImage's dilation, erosion, opening and closing), on RGBA8 (every channel
//! independently) and Gray8. Dilation and erosion share one separable van Herk / Gil-Werman
//! engine (`separable.rs`, `morphology.wgsl`) whose cost does not depend on the radius,
//! with one-pass schedules for RGBA8 up to radius 14 (`window.rs`, `onepass.rs`);
//! opening and closing are composites that lower to two of those nodes.

/// Declares `dilation` or `erosion` (the same filter with `Op::Max` or `Op::Min`): the struct
/// with its radius, `new` and `Default`, the registry entry and the `Filter` impl, all on
/// `separable.rs`'s engine.
macro_rules! morphology_filter {
    (
        $(#[$meta:meta])*
        pub struct $Name:ident;
        op: $op:ident,
        name: $name:literal,
        gpuimage: $gpuimage:literal,
        summary: $summary:literal,
        doc: $doc:expr,
    ) => {
        use crate::error::Result;
        use crate::filters::morphology::separable::{self, Op, EXACT, RADIUS, UNIFORMS};
        use crate::filters::registry::{Family, Filter, FilterDef, IMAGE};
        use crate::graph::params::check_int;
        use crate::runtime::{GpuSlot, NodeRecorder};
        use crate::value::{Value, ValueDesc};

        $(#[$meta])*
        #[derive(Clone, Debug)]
        pub struct $Name {
            /// Window half-size: the window is (2r+1)x(2r+1).
            pub radius: u32,
        }

        impl $Name {
            /// Fails when `radius` is outside [1, 32].
            pub fn new(radius: u32) -> Result<Self> {
                Ok(Self {
                    radius: check_int(&DEF, "radius", radius)?,
                })
            }
        }

        impl Default for $Name {
            fn default() -> Self {
                Self { radius: 1 }
            }
        }

        /// The filter's registry entry.
        pub static DEF: FilterDef = FilterDef {
            name: $name,
            family: Family::Morphology,
            summary: $summary,
            doc: $doc,
            gpuimage: $gpuimage,
            params: &[RADIUS],
            inputs: IMAGE,
            outputs: IMAGE,
            tolerance: EXACT,
            build: |a| Ok(Box::new($Name::new(a.u32("radius")?)?)),
            uniforms: UNIFORMS,
            test_inputs: None,
            schedules: separable::SCHEDULES,
        };

        impl Filter for $Name {
            fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
                crate::filters::registry::Footprint::Radius(self.radius)
            }
            fn def(&self) -> &'static FilterDef {
                &DEF
            }
            fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
                separable::output_descs(&DEF, inputs)
            }
            fn run_cpu(&self, inputs: &[&Value], _outputs: &[ValueDesc]) -> Result<Vec<Value>> {
                separable::run_cpu(&DEF, inputs, self.radius, Op::$op)
            }
            fn record_gpu(
                &self,
                rec: &mut NodeRecorder<'_>,
                inputs: &[GpuSlot],
                outputs: &[GpuSlot],
            ) -> Result<()> {
                // the fields are public: values set past `new`'s checks are errors here, not overflows
                check_int(&DEF, "radius", self.radius)?;
                let (input, output, _) =
                    crate::filters::registry::one_to_one(&DEF, inputs, outputs)?;
                separable::record(rec, DEF.name, input, output, self.radius, Op::$op)
            }
            fn box_clone(&self) -> Box<dyn Filter> {
                Box::new(self.clone())
            }
        }
    };
}
pub(crate) use morphology_filter;

include!(concat!(env!("OUT_DIR"), "/filters_morphology.rs"));
mod onepass;
mod separable;
mod window;

pub use separable::MorphParams;
