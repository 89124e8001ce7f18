//! The chain API for the common case: a linear sequence of filters, with extra image inputs
//! for multi-input filters. It builds a `Graph` for the input's size on each run.

use super::fit::{add_fit, Fit};
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
    /// How those images are brought to the input's size (`fit=`), when they differ.
    fit: Fit,
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
        self.stages.push(Stage { filter: Box::new(filter), extra: vec![], fit: Fit::None });
        self
    }
    /// Appends a multi-input filter; `extra` feeds its inputs after the first.
    pub fn then_with(mut self, filter: impl Filter + 'static, extra: Vec<Image>) -> Self {
        self.stages.push(Stage { filter: Box::new(filter), extra, fit: Fit::None });
        self
    }
    /// `then_with`, the extra images fitted to the input's size by `fit` where they differ.
    pub fn then_fitted(mut self, filter: impl Filter + 'static, extra: Vec<Image>, fit: Fit) -> Self {
        self.stages.push(Stage { filter: Box::new(filter), extra, fit });
        self
    }
    /// Appends a boxed filter (as the registry builds them).
    pub fn push(&mut self, filter: Box<dyn Filter>, extra: Vec<Image>) {
        self.stages.push(Stage { filter, extra, fit: Fit::None });
    }
    /// `push` with a `fit` for the extra images.
    pub fn push_fitted(&mut self, filter: Box<dyn Filter>, extra: Vec<Image>, fit: Fit) {
        self.stages.push(Stage { filter, extra, fit });
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
            let fit = if def.params.iter().any(|p| p.name == "fit") { Fit::parse(args.choice("fit")?)? } else { Fit::None };
            p.push_fitted(filter, extra, fit);
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
            let size = g.desc(cur).image().map(|d| (d.width, d.height));
            let blend = stage.filter.def().family == crate::registry::Family::Blend;
            for (k, img) in stage.extra.iter().enumerate() {
                let name = format!("extra{s}_{k}");
                let mut port = g.source(&name, img.desc())?;
                images.push((name, img));
                // a grey mask or second image (a grey PNG) is widened for a blend, losslessly
                if blend && img.format() == crate::PixelFormat::Gray8 {
                    port = g.add1(crate::filters::convert::ToRgba, &[port])?;
                }
                if let Some(size) = size {
                    port = add_fit(&mut g, port, size, stage.fit)?;
                }
                ins.push(port);
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

    /// `run` over many images, up to `in_flight` of them at once (threads sharing the backend:
    /// one device, kernels compiled once); results in the order of `images`, a failure in its
    /// own place without stopping the others.
    pub fn run_many(&self, backend: &Backend, images: &[Image], in_flight: usize) -> Vec<Result<Value>> {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let results: Vec<std::sync::Mutex<Option<Result<Value>>>> = images.iter().map(|_| std::sync::Mutex::new(None)).collect();
        std::thread::scope(|s| {
            for _ in 0..in_flight.max(1).min(images.len()) {
                s.spawn(|| loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(img) = images.get(k) else { break };
                    let r = self.run(backend, img);
                    if let Ok(mut slot) = results[k].lock() {
                        *slot = Some(r);
                    }
                });
            }
        });
        results.into_iter().map(|m| m.into_inner().ok().flatten().unwrap_or_else(|| Err(Error::Graph("a worker stopped".into())))).collect()
    }

    /// `run` with options; the result also carries timings.
    pub fn run_with(&self, backend: &Backend, input: &Image, opts: &RunOptions) -> Result<RunResult> {
        let (g, images) = self.graph_borrowed(input)?;
        let refs: Vec<(&str, &Image)> = images.iter().map(|(n, i)| (n.as_str(), *i)).collect();
        backend.run(&g, &refs, opts)
    }
}
