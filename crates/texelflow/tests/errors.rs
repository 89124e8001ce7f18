//! Errors are typed: each cause a caller may want to tell apart is a variant of `Error` or of
//! `GraphError`, matched here by variant and fields, never by message text.

mod common;

use common::*;
use texelflow::filters::color::Brightness;
use texelflow::params::Args;
use texelflow::{
    registry, Backend, Error, Graph, GraphError, ImageDesc, Pipeline, PixelFormat, RunOptions,
};

fn by_name(name: &str) -> Box<dyn texelflow::Filter> {
    let d = registry::find(name).unwrap();
    (d.build)(&Args::defaults(d)).unwrap()
}

#[test]
fn graph_building_errors_name_their_cause() {
    let d = ImageDesc::new(8, 8, PixelFormat::Rgba8);
    let mut g = Graph::new();
    let s = g.source("a", d).unwrap();
    match g.add(Brightness::default(), &[s, s]).unwrap_err() {
        Error::Graph(GraphError::InputCount {
            node,
            expected,
            got,
            ..
        }) => assert_eq!((node.as_str(), expected, got), ("brightness", 1, 2)),
        e => panic!("not InputCount: {e:?}"),
    }
    let h = g.add_boxed(by_name("histogram"), &[s]).unwrap()[0];
    match g.add(Brightness::default(), &[h]).unwrap_err() {
        Error::Graph(GraphError::WrongInput { node, .. }) => assert_eq!(node, "brightness"),
        e => panic!("not WrongInput: {e:?}"),
    }
    let mut other = Graph::new();
    let foreign = other.source("x", d).unwrap();
    assert!(matches!(
        g.add(Brightness::default(), &[foreign]).unwrap_err(),
        Error::Graph(GraphError::ForeignPort { node: Some(n) }) if n == "brightness"
    ));
    assert!(matches!(
        g.output("o", foreign).unwrap_err(),
        Error::Graph(GraphError::ForeignPort { node: None })
    ));
    assert!(matches!(
        g.source("a", d).unwrap_err(),
        Error::Graph(GraphError::DuplicateName { what: "sources", name }) if name == "a"
    ));
    g.output("o", s).unwrap();
    assert!(matches!(
        g.output("o", s).unwrap_err(),
        Error::Graph(GraphError::DuplicateName {
            what: "outputs",
            ..
        })
    ));
    // a state that is never fed
    let mut st = Graph::new();
    let a = st.source("a", d).unwrap();
    let state = st.state(a).unwrap();
    st.output("o", state).unwrap();
    let img = random_image(8, 8, PixelFormat::Rgba8, 1);
    assert!(matches!(
        Backend::Cpu
            .run(&st, &[("a", &img)], &RunOptions::default())
            .unwrap_err(),
        Error::Graph(GraphError::State(_))
    ));
}

#[test]
fn run_errors_name_their_cause() {
    let d = ImageDesc::new(8, 8, PixelFormat::Rgba8);
    let mut g = Graph::new();
    let s = g.source("a", d).unwrap();
    let b = g.add1(Brightness::default(), &[s]).unwrap();
    let img = random_image(8, 8, PixelFormat::Rgba8, 1);
    let wrong = random_image(5, 5, PixelFormat::Rgba8, 1);
    // no outputs yet
    assert_eq!(
        Backend::Cpu
            .run(&g, &[("a", &img)], &RunOptions::default())
            .unwrap_err()
            .to_string(),
        Error::Graph(GraphError::NoOutputs).to_string()
    );
    assert!(matches!(
        Backend::Cpu.run(&g, &[("a", &img)], &RunOptions::default()),
        Err(Error::Graph(GraphError::NoOutputs))
    ));
    g.output("o", b).unwrap();
    for backend in [Backend::Cpu, gpu_backend()] {
        match backend.run(&g, &[], &RunOptions::default()).unwrap_err() {
            Error::Graph(
                GraphError::SourceNotImage { name } | GraphError::SourceMissing { name },
            ) => {
                assert_eq!(name, "a")
            }
            e => panic!("not a missing source: {e:?}"),
        }
        match backend
            .run(&g, &[("a", &wrong)], &RunOptions::default())
            .unwrap_err()
        {
            Error::Graph(GraphError::SourceMismatch { name, .. }) => assert_eq!(name, "a"),
            e => panic!("not SourceMismatch: {e:?}"),
        }
    }
}

#[test]
fn an_unknown_schedule_is_typed_with_the_known_ones() {
    let p = Pipeline::parse("gaussian_blur(sigma=2)", &mut |_| unreachable!()).unwrap();
    let img = random_image(17, 9, PixelFormat::Rgba8, 2);
    let opts = RunOptions {
        schedules: vec![("gaussian_blur".into(), "no_such_variant".into())],
        ..Default::default()
    };
    let e = p.run_with(&gpu_backend(), &img, &opts).unwrap_err();
    let e = match e {
        Error::InStep { source, .. } => *source,
        e => e,
    };
    match e {
        Error::Graph(GraphError::UnknownSchedule {
            filter,
            variant,
            known,
        }) => {
            assert_eq!(
                (filter.as_str(), variant.as_str()),
                ("gaussian_blur", "no_such_variant")
            );
            assert!(!known.is_empty());
        }
        e => panic!("not UnknownSchedule: {e:?}"),
    }
}

#[test]
fn a_pipeline_that_cannot_tile_says_so_by_variant() {
    let p = Pipeline::parse("histogram_equalization", &mut |_| unreachable!()).unwrap();
    let img = random_image(40, 30, PixelFormat::Rgba8, 3);
    match p.run_tiled(&Backend::Cpu, &img, 16, 1).unwrap_err() {
        Error::Graph(GraphError::NotTileable { why }) => assert!(!why.is_empty()),
        e => panic!("not NotTileable: {e:?}"),
    }
}
