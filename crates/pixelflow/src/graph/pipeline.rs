//! The chain API for the common case: a linear sequence of filters, with extra image inputs
//! for multi-input filters. It builds a `Graph` for the input's size on each run.

use super::{spec, Backend, Graph, RunOptions, RunResult};
use crate::error::{Error, Result};
use crate::image::Image;
use crate::registry::Filter;
use crate::value::Value;

#[derive(Clone, Debug)]
struct Stage {
    filter: Box<dyn Filter>,
    /// Images for the filter's inputs after the first.
    extra: Vec<Image>,
}

/// `Pipeline::new().then(GaussianBlur::new(2.0)?).then(SobelEdgeDetection::default())`.
#[derive(Clone, Debug, Default)]
pub struct Pipeline {
    stages: Vec<Stage>,
}

impl Pipeline {
    pub fn new() -> Self {
        Self::default()
    }
    /// Appends a one-input filter.
    pub fn then(mut self, filter: impl Filter + 'static) -> Self {
        self.stages.push(Stage { filter: Box::new(filter), extra: vec![] });
        self
    }
    /// Appends a multi-input filter; `extra` feeds its inputs after the first.
    pub fn then_with(mut self, filter: impl Filter + 'static, extra: Vec<Image>) -> Self {
        self.stages.push(Stage { filter: Box::new(filter), extra });
        self
    }
    /// Appends a boxed filter (as the registry builds them).
    pub fn push(&mut self, filter: Box<dyn Filter>, extra: Vec<Image>) {
        self.stages.push(Stage { filter, extra });
    }
    pub fn len(&self) -> usize {
        self.stages.len()
    }
    pub fn is_empty(&self) -> bool {
        self.stages.is_empty()
    }

    /// Parses a text spec; `load` opens the images named by image parameters.
    pub fn parse(text: &str, load: &mut dyn FnMut(&str) -> Result<Image>) -> Result<Pipeline> {
        let mut p = Pipeline::new();
        for call in spec::parse(text)? {
            let (def, args) = spec::resolve(&call)?;
            let filter = (def.build)(&args)?;
            let mut extra = Vec::new();
            for (_, path) in args.image_paths() {
                extra.push(load(path)?);
            }
            p.push(filter, extra);
        }
        Ok(p)
    }

    /// The graph for an input image; sources are `input` and `extra<stage>_<k>`.
    pub fn graph(&self, input: &Image) -> Result<(Graph, Vec<(String, Image)>)> {
        let (g, images) = self.graph_borrowed(input)?;
        Ok((g, images.into_iter().map(|(n, i)| (n, i.clone())).collect()))
    }

    /// `graph` with the images borrowed, not copied (runs use this).
    fn graph_borrowed<'a>(&'a self, input: &'a Image) -> Result<(Graph, Vec<(String, &'a Image)>)> {
        if self.stages.is_empty() {
            return Err(Error::Graph("the pipeline is empty".into()));
        }
        let mut g = Graph::new();
        let mut cur = g.source("input", input.desc())?;
        let mut images = vec![("input".to_string(), input)];
        for (s, stage) in self.stages.iter().enumerate() {
            let mut ins = vec![cur];
            for (k, img) in stage.extra.iter().enumerate() {
                let name = format!("extra{s}_{k}");
                ins.push(g.source(&name, img.desc())?);
                images.push((name, img));
            }
            // A grey image (a grey JPEG or PNG) meets a filter that takes RGBA8 only: widened
            // first, losslessly, as a user expects; the Graph API itself stays strict.
            let outs = match g.add_boxed(stage.filter.clone(), &ins) {
                Ok(outs) => outs,
                Err(e) => match g.desc(cur).image() {
                    Some(d) if d.format == crate::PixelFormat::Gray8 => {
                        ins[0] = g.add1(crate::filters::convert::ToRgba, &[cur])?;
                        g.add_boxed(stage.filter.clone(), &ins).map_err(|_| e)?
                    }
                    _ => return Err(e),
                },
            };
            cur = *outs.first().ok_or_else(|| Error::Graph(format!("`{}` has no outputs", stage.filter.def().name)))?;
        }
        g.output("output", cur)?;
        Ok((g, images))
    }

    /// Runs on `backend`; returns the last stage's output (an image or data).
    pub fn run(&self, backend: &Backend, input: &Image) -> Result<Value> {
        let mut r = self.run_with(backend, input, &RunOptions::default())?;
        r.take("output").ok_or_else(|| Error::Graph("no output".into()))
    }

    /// `run` with options; the result also carries timings.
    pub fn run_with(&self, backend: &Backend, input: &Image, opts: &RunOptions) -> Result<RunResult> {
        let (g, images) = self.graph_borrowed(input)?;
        let refs: Vec<(&str, &Image)> = images.iter().map(|(n, i)| (n.as_str(), *i)).collect();
        backend.run(&g, &refs, opts)
    }
}
