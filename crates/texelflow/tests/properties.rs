//! Property tests (proptest, with shrinking) over image sizes and parameter ranges for one
//! filter of each kernel shape. The registry-wide matrix in equivalence.rs covers the rest.

mod common;

use common::*;
use proptest::prelude::*;
use texelflow::params::{Args, RawValue};
use texelflow::{registry, Backend, Pipeline, PixelFormat, RunOptions};

fn check(
    spec_name: &str,
    raw: Vec<(String, RawValue)>,
    w: u32,
    h: u32,
    seed: u64,
) -> Result<(), TestCaseError> {
    let def = registry::find(spec_name).unwrap();
    let args = Args::resolve(def, &raw).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let f = (def.build)(&args).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let img = random_image(w, h, PixelFormat::Rgba8, seed);
    let mut p = Pipeline::new();
    // straight colour: the twins are compared to one level (tests/alpha.rs: the premultiplied path)
    p.set_straight_alpha(true);
    p.push(f, vec![]);
    let opts = RunOptions {
        poison: true,
        ..Default::default()
    };
    let a = p
        .run_with(&gpu_backend(), &img, &opts)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let b = p
        .run_with(&Backend::Cpu, &img, &opts)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let d = max_diff(&a.outputs[0].1, &b.outputs[0].1).map_err(TestCaseError::fail)?;
    let tol = if a.outputs[0].1.as_image().is_some() {
        def.tolerance.max_diff as f64
    } else {
        0.0
    };
    prop_assert!(d <= tol, "{spec_name} {w}x{h} {raw:?}: diff {d}");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]

    #[test]
    fn contrast_any_size(w in 1u32..70, h in 1u32..70, c in 0.0f64..4.0, seed in 0u64..1000) {
        check("contrast", vec![("contrast".into(), RawValue::Number(c))], w, h, seed)?;
    }

    #[test]
    fn gaussian_any_size(w in 1u32..70, h in 1u32..70, s in 0.1f64..6.0, seed in 0u64..1000) {
        check("gaussian_blur", vec![("sigma".into(), RawValue::Number(s))], w, h, seed)?;
    }

    #[test]
    fn dilation_any_size(w in 1u32..70, h in 1u32..70, r in 1u32..20, seed in 0u64..1000) {
        check("dilation", vec![("radius".into(), RawValue::Number(r as f64))], w, h, seed)?;
    }

    #[test]
    fn histogram_any_size(w in 1u32..90, h in 1u32..90, seed in 0u64..1000) {
        check("histogram", vec![], w, h, seed)?;
    }

    #[test]
    fn resize_any_size(w in 1u32..70, h in 1u32..70, s in 0.05f64..4.0, seed in 0u64..1000) {
        check("resize", vec![("scale".into(), RawValue::Number(s))], w, h, seed)?;
    }
}
