//! The chain API for the common case: a linear sequence of filters, with extra image inputs
//! for multi-input filters. It builds a `Graph` for the input's size on each run.
//!
//! Formats are matched to what each filter takes: a grey image is widened to RGBA8 before a
//! filter that takes RGBA only; a 16-bit image meeting a filter that takes no 16-bit images is
//! narrowed to RGBA8 before it (a `to_rgba` node, reported in `RunResult::notes`); an 8-bit
//! second image (a blend's `with=`) meeting a 16-bit one is widened to 16 bits, exactly.

use std::borrow::Cow;

use super::filter::{Catalogue, Family, Filter, PortDef, PortKind};
use super::fit::Fit;
use super::run_plan::RunPlan;
use super::{spec, Backend, Graph, Port, RunOptions, RunResult};
use crate::error::{Error, Result};
use crate::image::{Image, ImageDesc, PixelFormat};
use crate::value::{Value, ValueDesc};

/// The graph output of a producer's status (`Pipeline::try_run_produced`): its second output,
/// where it has one and it is a `DataKind::Bytes`, whose word 1 is not 0 where what it made is
/// not to be used (a JPEG's damaged entropy-coded data).
const PRODUCER_STATUS: &str = "producer_status";

/// `Error::ProducerRejected` where the run's producer status says so; the status output is
/// taken out of `r`.
fn producer_ok(mut r: RunResult) -> Result<RunResult> {
    if let Some(Value::Data(crate::value::Data::Bytes(b))) = r.take(PRODUCER_STATUS) {
        if b.words[0] != 0 {
            return Err(Error::ProducerRejected { status: b.words[0] });
        }
    }
    Ok(r)
}

/// A graph's source images by name, borrowed where unconverted.
pub type NamedImages<'a> = Vec<(String, Cow<'a, Image>)>;

/// Where a pipeline's graph gets its first image.
enum Input {
    /// The source named `input`, bound at run time.
    Source(ImageDesc),
    /// A node with no inputs that makes it on the device.
    Produced(Box<dyn super::filter::Filter>),
}

/// How a stage's inputs are converted so that its filter takes them.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Adapt {
    /// As they are.
    None,
    /// A grey first image widened to RGBA8.
    WidenGray,
    /// 8-bit second images widened to RGBA16 beside a 16-bit first image.
    WidenExtras,
    /// Every 16-bit image narrowed to RGBA8 (and a grey first image widened to RGBA8).
    Narrow,
}

impl Adapt {
    /// The format an input of format `f` gets (`first`: the stage's first input).
    fn format(self, f: PixelFormat, first: bool) -> PixelFormat {
        match (self, f) {
            (Adapt::WidenGray | Adapt::Narrow, PixelFormat::Gray8) if first => PixelFormat::Rgba8,
            (Adapt::WidenExtras, PixelFormat::Rgba8) if !first => PixelFormat::Rgba16,
            (Adapt::Narrow, PixelFormat::Rgba16) => PixelFormat::Rgba8,
            _ => f,
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct Stage {
    pub(super) filter: Box<dyn Filter>,
    /// Images for the filter's inputs after the first.
    pub(super) extra: Vec<Image>,
    /// How those images are brought to the input's size (`fit=`), when they differ.
    pub(super) fit: Fit,
}

/// A chain of filters, each taking the image the one before made (and, for a blend, images of
/// its own): built in code or parsed from the spec the CLI takes, run on a `Backend` by the run
/// planner (whole, or in bands and tiles when the image is too large for the GPU).
///
/// # Examples
///
/// Built in code, run on the CPU reference (`Backend::auto` opens the best GPU):
///
/// ```
/// use texelflow::filters::{color::Brightness, neighborhood::GaussianBlur};
/// use texelflow::{Backend, Image, PixelFormat, Pipeline, Value};
/// # fn main() -> texelflow::Result<()> {
/// let img = Image::from_u8(8, 8, PixelFormat::Rgba8, vec![100; 8 * 8 * 4])?;
/// let pipe = Pipeline::new().then(GaussianBlur::new(2.0)?).then(Brightness::new(0.1)?);
/// let out = pipe.run(&Backend::Cpu, &img)?;
/// assert!(matches!(out, Value::Image(ref i) if i.width() == 8));
/// # Ok(())
/// # }
/// ```
///
/// Parsed from a spec, with options for the run (here a GPU memory budget, under which a large
/// image runs in tiles):
///
/// ```
/// use texelflow::{Backend, Image, PixelFormat, Pipeline, RunOptions, TilePolicy};
/// # fn main() -> texelflow::Result<()> {
/// let pipe = Pipeline::parse("gaussian_blur(sigma=2) | sobel_edge_detection", &mut |p: &str| {
///     Image::open(p)
/// })?;
/// let img = Image::from_u8(8, 8, PixelFormat::Rgba8, vec![100; 8 * 8 * 4])?;
/// let opts = RunOptions {
///     tiling: TilePolicy { max_gpu_memory: Some(1 << 30), ..Default::default() },
///     ..Default::default()
/// };
/// let r = pipe.run_with(&Backend::Cpu, &img, &opts)?;
/// assert!(r.get("output").is_some());
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Pipeline {
    pub(super) stages: Vec<Stage>,
    /// Graphs built without premultiplied-alpha nodes (`Graph::set_straight_alpha`).
    straight_alpha: bool,
    /// Where its graphs take the conversions they insert (`Graph::with_catalogue`).
    catalogue: &'static Catalogue,
}

impl Pipeline {
    /// An empty pipeline whose graphs insert their conversions from `catalogue`
    /// (`Pipeline::new` gives the whole registry's).
    pub fn with_catalogue(catalogue: &'static Catalogue) -> Self {
        Self {
            stages: Vec::new(),
            straight_alpha: false,
            catalogue,
        }
    }
    /// The catalogue its graphs insert their conversions from.
    pub fn catalogue(&self) -> &'static Catalogue {
        self.catalogue
    }
    /// Appends a one-input filter.
    pub fn then(mut self, filter: impl Filter + 'static) -> Self {
        self.stages.push(Stage {
            filter: Box::new(filter),
            extra: vec![],
            fit: Fit::None,
        });
        self
    }
    /// Appends a multi-input filter; `extra` feeds its inputs after the first.
    pub fn then_with(mut self, filter: impl Filter + 'static, extra: Vec<Image>) -> Self {
        self.stages.push(Stage {
            filter: Box::new(filter),
            extra,
            fit: Fit::None,
        });
        self
    }
    /// `then_with`, the extra images fitted to the input's size by `fit` where they differ.
    pub fn then_fitted(
        mut self,
        filter: impl Filter + 'static,
        extra: Vec<Image>,
        fit: Fit,
    ) -> Self {
        self.stages.push(Stage {
            filter: Box::new(filter),
            extra,
            fit,
        });
        self
    }
    /// Appends a boxed filter (as the registry builds them).
    pub fn push(&mut self, filter: Box<dyn Filter>, extra: Vec<Image>) {
        self.stages.push(Stage {
            filter,
            extra,
            fit: Fit::None,
        });
    }
    /// `push` with a `fit` for the extra images.
    pub fn push_fitted(&mut self, filter: Box<dyn Filter>, extra: Vec<Image>, fit: Fit) {
        self.stages.push(Stage { filter, extra, fit });
    }
    /// Appends `other`'s stages (with their extra images), e.g. to put conversions around a
    /// parsed pipeline.
    pub fn extend(&mut self, other: &Pipeline) {
        self.stages.extend(other.stages.iter().cloned());
    }
    /// Builds graphs whose averaging filters see straight colour (`Graph::set_straight_alpha`):
    /// for inputs known to be opaque.
    pub fn set_straight_alpha(&mut self, straight: bool) {
        self.straight_alpha = straight;
    }
    /// Number of stages.
    pub fn len(&self) -> usize {
        self.stages.len()
    }
    /// Whether there are no stages.
    pub fn is_empty(&self) -> bool {
        self.stages.is_empty()
    }

    /// Parses a text spec with the filters of `catalogue`; `load` opens the images named by
    /// image parameters (`Pipeline::parse` takes the whole registry).
    pub fn parse_with(
        catalogue: &'static Catalogue,
        text: &str,
        load: &mut dyn FnMut(&str) -> Result<Image>,
    ) -> Result<Pipeline> {
        let mut p = Pipeline::with_catalogue(catalogue);
        for call in spec::parse(text)? {
            let (def, args) = spec::resolve(catalogue, &call)?;
            let filter = (def.build)(&args)?;
            // in the order the filter declares its image parameters (its input ports), not
            // the order they were written in: `mask=m.png with=a.png` is still with, mask
            let mut extra = Vec::new();
            for p in def
                .params
                .iter()
                .filter(|p| matches!(p.kind, crate::graph::params::ParamKind::Image))
            {
                if let Some((_, path)) = args.image_paths().find(|(n, _)| *n == p.name) {
                    extra.push(load(path)?);
                }
            }
            let fit = if def.params.iter().any(|p| p.name == "fit") {
                Fit::parse(args.choice("fit")?)?
            } else {
                Fit::None
            };
            p.push_fitted(filter, extra, fit);
        }
        Ok(p)
    }

    /// The graph for an input image; sources are `input` and `extra<stage>_<k>`.
    pub fn graph(&self, input: &Image) -> Result<(Graph, Vec<(String, Image)>)> {
        let (g, images) = self.graph_borrowed(input)?;
        Ok((
            g,
            images
                .into_iter()
                .map(|(n, i)| (n, i.into_owned()))
                .collect(),
        ))
    }

    /// `graph` with the images borrowed, not copied, where they need no conversion (runs use this).
    fn graph_borrowed<'a>(&'a self, input: &'a Image) -> Result<(Graph, NamedImages<'a>)> {
        let (g, mut images) = self.graph_for(input.desc())?;
        images.insert(0, ("input".to_string(), Cow::Borrowed(input)));
        Ok((g, images))
    }

    /// The graph for an input of description `input` (source `input`) and the images of its
    /// other sources (`extra<stage>_<k>`), borrowed where they need no conversion: for callers
    /// that bind the input themselves (`Backend::run_host`).
    pub fn graph_for(&self, input: ImageDesc) -> Result<(Graph, NamedImages<'_>)> {
        self.graph_of(self.stages.iter(), input, &[])
    }

    /// `graph_for` of some stages (a part of this pipeline, or a tile's stages:
    /// `chain::TileChain`) with this pipeline's settings.
    /// `windows[s]`, where given, is the window stage `s`'s nodes lie in (`Graph::set_pixel_window`).
    pub(super) fn graph_of<'a>(
        &self,
        stages: impl ExactSizeIterator<Item = &'a Stage>,
        input: ImageDesc,
        windows: &[Option<crate::region::PixelWindow>],
    ) -> Result<(Graph, NamedImages<'a>)> {
        self.graph_from(stages, Input::Source(input), windows)
    }

    /// `graph_of` whose first image is the `input` source or made by a producer node.
    fn graph_from<'a>(
        &self,
        stages: impl ExactSizeIterator<Item = &'a Stage>,
        input: Input,
        windows: &[Option<crate::region::PixelWindow>],
    ) -> Result<(Graph, NamedImages<'a>)> {
        if stages.len() == 0 {
            return Err(Error::invalid("the pipeline is empty"));
        }
        let mut g = Graph::with_catalogue(self.catalogue);
        g.set_straight_alpha(self.straight_alpha);
        let mut cur = match input {
            Input::Source(desc) => g.source("input", desc)?,
            Input::Produced(f) => {
                let outs = g.add_boxed(f, &[])?;
                // its status, read back with the run (before "output", which stays last)
                if let Some(&status) = outs.get(1) {
                    if matches!(
                        g.desc(status),
                        ValueDesc::Data(crate::value::DataKind::Bytes { .. })
                    ) {
                        g.output(PRODUCER_STATUS, status)?;
                    }
                }
                *outs
                    .first()
                    .ok_or_else(|| Error::invalid("the producer makes no image"))?
            }
        };
        let mut images: NamedImages<'a> = Vec::new();
        // the last image made, for a stage that takes an image and the data just made
        let mut last_image = cur;
        for (s, stage) in stages.enumerate() {
            if let Some(&w) = windows.get(s) {
                g.set_pixel_window(w, s == 0);
            }
            // image + data stages (crosshair after corner_points, histogram_generator after
            // histogram): the data, with the last image before it (which gives the size)
            if let (
                ValueDesc::Data(kind),
                [PortDef {
                    kind: PortKind::Image,
                    ..
                }, PortDef {
                    kind: PortKind::Data(want),
                    ..
                }],
            ) = (g.desc(cur), stage.filter.def().inputs)
            {
                if kind == *want && stage.extra.is_empty() {
                    let outs = g.add_boxed(stage.filter.clone(), &[last_image, cur])?;
                    cur = *outs.first().ok_or_else(|| {
                        Error::invalid(format!("`{}` has no outputs", stage.filter.def().name))
                    })?;
                    if g.desc(cur).image().is_some() {
                        last_image = cur;
                    }
                    continue;
                }
            }
            // The Graph API itself stays strict; a pipeline converts what a user expects it to.
            let adapt = choose_adapt(stage, g.desc(cur));
            let first = match (adapt, g.desc(cur).image()) {
                (Adapt::None | Adapt::WidenExtras, _) => cur,
                (Adapt::WidenGray | Adapt::Narrow, Some(d))
                    if adapt.format(d.format, true) != d.format =>
                {
                    if d.format == PixelFormat::Rgba16 {
                        g.note(format!("`{}` takes 8-bit images: the 16-bit image was narrowed to 8 bits before it", stage.filter.def().name));
                    }
                    g.add1_boxed((self.catalogue.to_rgba)(), &[cur])?
                }
                _ => cur,
            };
            let size = g.desc(first).image().map(|d| (d.width, d.height));
            let mut ins: Vec<Port> = vec![first];
            for (k, img) in stage.extra.iter().enumerate() {
                let name = format!("extra{s}_{k}");
                let want = adapt.format(extra_format(stage, img), false);
                let img = if want == img.format() {
                    Cow::Borrowed(img)
                } else {
                    Cow::Owned(img.convert(want))
                };
                if want == PixelFormat::Rgba8 && stage.extra[k].format() == PixelFormat::Rgba16 {
                    g.note(format!(
                        "`{}` takes 8-bit images: its 16-bit second image was narrowed to 8 bits",
                        stage.filter.def().name
                    ));
                }
                let mut port = g.source(&name, img.desc())?;
                images.push((name, img));
                if let Some(size) = size {
                    port = (self.catalogue.fit)(&mut g, port, size, stage.fit)?;
                }
                ins.push(port);
            }
            let outs = g.add_boxed(stage.filter.clone(), &ins)?;
            cur = *outs.first().ok_or_else(|| {
                Error::invalid(format!("`{}` has no outputs", stage.filter.def().name))
            })?;
            if g.desc(cur).image().is_some() {
                last_image = cur;
            }
        }
        g.output("output", cur)?;
        Ok((g, images))
    }

    /// Runs on `backend`; returns the last stage's output (an image or data).
    pub fn run(&self, backend: &Backend, input: &Image) -> Result<Value> {
        let mut r = self.run_with(backend, input, &RunOptions::default())?;
        r.take("output").ok_or_else(|| Error::invalid("no output"))
    }

    /// `run_with` on an input that writes itself into staging memory, image outputs left in
    /// mapped read-back memory (`Backend::run_host`); the result is named `output`. Planned
    /// as `run_with` is (`plan_run`): an input too large for the GPU's binding or memory budget
    /// runs in bands or tiles where the pipeline allows it (issue 29 item 8), its outputs then
    /// `HostValue::Value`s.
    pub fn run_host(
        &self,
        backend: &Backend,
        input: &dyn super::HostImage,
        opts: &RunOptions,
    ) -> Result<super::HostRunResult> {
        if matches!(backend, Backend::Gpu(_)) {
            let (g, _) = self.graph_for(input.desc())?;
            let plan = super::run_plan::plan_run(self, backend, &g, input.desc(), opts)?;
            if plan != super::run_plan::RunPlan::Whole {
                let image = input.to_image()?;
                let r = self.run_with(backend, &image, opts)?;
                return Ok(super::HostRunResult {
                    outputs: r
                        .outputs
                        .into_iter()
                        .map(|(n, v)| (n, super::HostValue::Value(v)))
                        .collect(),
                    timings: r.timings,
                    host: r.host,
                    notes: r.notes,
                });
            }
        }
        self.run_host_in(backend, input, opts, None)
    }

    /// `run_host` of a part of a larger image (a tile) that lies at `window`: per-pixel
    /// filters that read their position (vignette) see the whole image's coordinates.
    pub(crate) fn run_host_in(
        &self,
        backend: &Backend,
        input: &dyn super::HostImage,
        opts: &RunOptions,
        window: Option<crate::region::PixelWindow>,
    ) -> Result<super::HostRunResult> {
        let (mut g, extra) = self.graph_for(input.desc())?;
        g.set_pixel_window(window, true);
        let mut refs: Vec<(&str, &dyn super::HostImage)> = vec![("input", input)];
        refs.extend(
            extra
                .iter()
                .map(|(n, i)| (n.as_str(), &**i as &dyn super::HostImage)),
        );
        backend.run_host(&g, &refs, opts)
    }

    /// `run_with` on the image that `producer` makes on the device: a node with no inputs
    /// and one image output (the GPU half of a JPEG decode, `io::jpeg_coef::JpegDecode`), so
    /// the pixels are never on the host. `None` where the run planner would not run the image
    /// whole (tiles, bands): the caller decodes on the host and calls `run_with`.
    /// `Error::ProducerRejected` where the producer's status (its second output, where it has
    /// one) says what it made is not to be used (a JPEG's damaged entropy-coded data): the
    /// caller decodes on the host.
    pub fn try_run_produced(
        &self,
        backend: &Backend,
        producer: Box<dyn super::filter::Filter>,
        opts: &RunOptions,
    ) -> Result<Option<RunResult>> {
        let desc = producer
            .output_descs(&[])?
            .first()
            .and_then(|d| d.image())
            .ok_or_else(|| Error::invalid("the producer makes no image"))?;
        let (planned, _) = self.graph_for(desc)?;
        if super::run_plan::plan_run(self, backend, &planned, desc, opts)? != RunPlan::Whole {
            return Ok(None);
        }
        let (g, images) = self.graph_from(self.stages.iter(), Input::Produced(producer), &[])?;
        let refs: Vec<(&str, &Image)> = images.iter().map(|(n, i)| (n.as_str(), &**i)).collect();
        producer_ok(backend.run(&g, &refs, opts)?).map(Some)
    }

    /// `try_run_produced` with `tail` after the last stage: a node that takes the last stage's
    /// image and makes the run's output, `output` (`io::jpeg_file::JpegFile`: the image's JPEG
    /// data, so the pixels are never read back). `None` where the planner would not run the
    /// image whole, or `tail` does not take the last stage's output (a format, a size);
    /// `Error::ProducerRejected` as `try_run_produced`.
    pub fn try_run_produced_then(
        &self,
        backend: &Backend,
        producer: Box<dyn super::filter::Filter>,
        tail: Box<dyn super::filter::Filter>,
        opts: &RunOptions,
    ) -> Result<Option<RunResult>> {
        self.run_then(backend, Input::Produced(producer), None, tail, opts)
    }

    /// `try_run_produced_then`, recorded into the caller's `encoder` instead of run: nothing is
    /// submitted, waited for or read back (the tail writes where the caller reads, e.g. a
    /// texture: `io::texture::encode_textures`). `None` where the planner would not run the
    /// image whole, or `tail` does not take the last stage's output.
    pub fn encode_produced_then(
        &self,
        gpu: &std::sync::Arc<crate::runtime::Gpu>,
        producer: Box<dyn super::filter::Filter>,
        tail: Box<dyn super::filter::Filter>,
        encoder: &mut wgpu::CommandEncoder,
        opts: &RunOptions,
    ) -> Result<Option<()>> {
        // the buffers are dropped: the caller's encoder holds what it needs until it submits
        Ok(self
            .encode_produced_then_keeping(gpu, producer, tail, encoder, opts)?
            .map(|_| ()))
    }

    /// `encode_produced_then`, returning the run's buffers for the device's pool once the
    /// caller has waited for the submission holding the run (`Gpu::give_back`).
    pub(crate) fn encode_produced_then_keeping(
        &self,
        gpu: &std::sync::Arc<crate::runtime::Gpu>,
        producer: Box<dyn super::filter::Filter>,
        tail: Box<dyn super::filter::Filter>,
        encoder: &mut wgpu::CommandEncoder,
        opts: &RunOptions,
    ) -> Result<Option<Vec<std::sync::Arc<wgpu::Buffer>>>> {
        match self.produced_graph(gpu, producer, tail, opts, "recorded into an encoder")? {
            Some(g) => super::execute::encode_into_keeping(gpu, &g, opts, encoder).map(Some),
            None => Ok(None),
        }
    }

    /// The graph from `producer` through the stages into `tail`, all on the device; `None`
    /// where it would not run whole or `tail` does not fit; an error where the pipeline has
    /// images of its own (not `done` yet: "recorded into an encoder", "prepared").
    fn produced_graph(
        &self,
        gpu: &std::sync::Arc<crate::runtime::Gpu>,
        producer: Box<dyn super::filter::Filter>,
        tail: Box<dyn super::filter::Filter>,
        opts: &RunOptions,
        done: &str,
    ) -> Result<Option<Graph>> {
        let backend = Backend::Gpu(gpu.clone());
        let Some((g, images)) = self.graph_then(&backend, Input::Produced(producer), tail, opts)?
        else {
            return Ok(None);
        };
        if !images.is_empty() {
            return Err(Error::unsupported(format!(
                "a pipeline with images of its own (with=...) is not {done} yet"
            )));
        }
        Ok(Some(g))
    }

    /// `encode_produced_then`, recorded once to be run again and again (`PreparedRun`: a frame
    /// loop, a stream of tensors): each later run replays the same commands on the same
    /// buffers, with nothing of the graph rebuilt. `None` where the planner would not run the
    /// image whole, or `tail` does not take the last stage's output. An error where the
    /// pipeline has images of its own, keeps state between runs (temporal filters) or sends
    /// data of its own each run.
    pub fn prepare_produced_then(
        &self,
        gpu: &std::sync::Arc<crate::runtime::Gpu>,
        producer: Box<dyn super::filter::Filter>,
        tail: Box<dyn super::filter::Filter>,
        opts: &RunOptions,
    ) -> Result<Option<super::execute::PreparedRun>> {
        match self.produced_graph(gpu, producer, tail, opts, "prepared")? {
            Some(g) => super::execute::PreparedRun::new(gpu, &g, opts).map(Some),
            None => Ok(None),
        }
    }

    /// `run_with` with `tail` after the last stage, as `try_run_produced_then`.
    pub fn try_run_then(
        &self,
        backend: &Backend,
        input: &Image,
        tail: Box<dyn super::filter::Filter>,
        opts: &RunOptions,
    ) -> Result<Option<RunResult>> {
        self.run_then(
            backend,
            Input::Source(input.desc()),
            Some(input),
            tail,
            opts,
        )
    }

    fn run_then(
        &self,
        backend: &Backend,
        input: Input,
        bound: Option<&Image>,
        tail: Box<dyn super::filter::Filter>,
        opts: &RunOptions,
    ) -> Result<Option<RunResult>> {
        let Some((g, images)) = self.graph_then(backend, input, tail, opts)? else {
            return Ok(None);
        };
        let mut refs: Vec<(&str, &Image)> = bound.map(|i| ("input", i)).into_iter().collect();
        refs.extend(images.iter().map(|(n, i)| (n.as_str(), &**i)));
        producer_ok(backend.run(&g, &refs, opts)?).map(Some)
    }

    /// The graph of `run_then`, with the images of its other sources; `None` where the run
    /// would not go whole or the tail does not take the last stage's output.
    fn graph_then(
        &self,
        backend: &Backend,
        input: Input,
        tail: Box<dyn super::filter::Filter>,
        opts: &RunOptions,
    ) -> Result<Option<(Graph, NamedImages<'_>)>> {
        let desc = match &input {
            Input::Source(d) => *d,
            Input::Produced(p) => p
                .output_descs(&[])?
                .first()
                .and_then(|d| d.image())
                .ok_or_else(|| Error::invalid("the producer makes no image"))?,
        };
        let (planned, _) = self.graph_for(desc)?;
        if super::run_plan::plan_run(self, backend, &planned, desc, opts)? != RunPlan::Whole {
            return Ok(None);
        }
        let (mut g, images) = self.graph_from(self.stages.iter(), input, &[])?;
        let last = g
            .outputs
            .pop()
            .map(|(_, p)| p)
            .ok_or_else(|| Error::internal("a pipeline's graph has an output"))?;
        if tail.output_descs(&[g.desc(last)]).is_err() {
            return Ok(None);
        }
        let out = *g
            .add_boxed(tail, &[last])?
            .first()
            .ok_or_else(|| Error::invalid("the tail node has no output"))?;
        g.output("output", out)?;
        // the tail's own buffers (a JPEG's blocks, its stream) must fit the device too
        if let Backend::Gpu(gpu) = backend {
            if !super::tile::graph_fits(gpu, &g, &opts.tiling) {
                return Ok(None);
            }
        }
        Ok(Some((g, images)))
    }

    /// `run_with`, awaited (`Backend::run_async`): for a browser, which cannot block on the
    /// GPU, and for async code natively. The image runs whole: where the planner would cut it
    /// (an image past the device's binding limit), natively the blocking `run_with` runs it,
    /// and in a browser it is an error.
    pub async fn run_async(
        &self,
        backend: &Backend,
        input: &Image,
        opts: &RunOptions,
    ) -> Result<RunResult> {
        let (g, images) = self.graph_borrowed(input)?;
        let plan = super::run_plan::plan_run(self, backend, &g, input.desc(), opts)?;
        if plan != RunPlan::Whole {
            #[cfg(not(target_arch = "wasm32"))]
            return self.run_planned(backend, input, opts, (g, images), plan);
            #[cfg(target_arch = "wasm32")]
            return Err(Error::unsupported(format!(
                "a {}x{} image in a browser: it would run in parts here ({plan:?})",
                input.width(),
                input.height()
            )));
        }
        let refs: Vec<(&str, &Image)> = images.iter().map(|(n, i)| (n.as_str(), &**i)).collect();
        backend.run_async(&g, &refs, opts).await
    }

    /// `run` with options; the result also carries timings.
    ///
    /// The run planner decides how (`plan_run`): on the GPU, an image whose values do not fit
    /// one storage binding (or `opts.tiling.max_gpu_memory`) runs in bands of tiles with halos
    /// (`run_streamed`) where the pipeline allows it, bit-identical to an untiled run, through
    /// its change of geometry in tiles where it resizes, crops or turns, and one ending in a
    /// reduction whose partials merge runs so too (`run_tiled_data`); the result's notes say
    /// so. `opts.tiling.tile` forces square tiles of that side (tests, memory).
    pub fn run_with(
        &self,
        backend: &Backend,
        input: &Image,
        opts: &RunOptions,
    ) -> Result<RunResult> {
        let (g, images) = self.graph_borrowed(input)?;
        let plan = super::run_plan::plan_run(self, backend, &g, input.desc(), opts)?;
        self.run_planned(backend, input, opts, (g, images), plan)
    }

    /// `run_with` once the graph (`graph_borrowed`) is built and the planner has chosen.
    fn run_planned(
        &self,
        backend: &Backend,
        input: &Image,
        opts: &RunOptions,
        (g, images): (Graph, NamedImages<'_>),
        plan: RunPlan,
    ) -> Result<RunResult> {
        let (w, h) = (input.width(), input.height());
        let why = || match backend {
            Backend::Gpu(gpu) => why_tiled(gpu, &g, &opts.tiling),
            Backend::Cpu => String::new(),
        };
        let mut notes = g.notes.clone();
        let output = match plan {
            RunPlan::Whole => {
                let refs: Vec<(&str, &Image)> =
                    images.iter().map(|(n, i)| (n.as_str(), &**i)).collect();
                return backend.run(&g, &refs, opts);
            }
            RunPlan::Tiles { side } => {
                let tiles = w.div_ceil(side) as u64 * h.div_ceil(side) as u64;
                notes.push(format!(
                    "{w}x{h} ran in {tiles} tiles of up to {side}x{side} pixels (with halos): {}",
                    why()
                ));
                let (img, _) = self.run_tiled_with(backend, input, side, opts)?;
                Value::Image(img)
            }
            RunPlan::Bands => {
                let mut src = super::rows::ImageRows::borrowed(input);
                let mut sink = super::rows::MemorySink::new(self.output_desc(input.desc())?);
                let r = self.run_streamed_with(backend, &mut src, &mut sink, opts)?;
                notes.push(format!(
                    "{w}x{h} ran in {} tiles with halos, in {} bands of up to {} rows: {}",
                    r.tiles,
                    r.bands,
                    r.band_rows,
                    why()
                ));
                Value::Image(sink.into_image()?)
            }
            RunPlan::ChainTiles { width, height } => {
                let tiling = self.tiling(input.desc(), &opts.limits)?;
                let out_h = self.output_desc(input.desc())?.height;
                let (img, times) = self.run_region(
                    backend,
                    super::tile::RowsRef::of(input),
                    (w, h),
                    (0, out_h),
                    (width, height),
                    opts,
                    &tiling,
                )?;
                notes.push(format!("{w}x{h} ran in {} tiles of up to {width}x{height} output pixels, cut through the pipeline's change of geometry: {}", times.tiles, why()));
                Value::Image(img)
            }
            RunPlan::DataTiles { side } => {
                let tiles = w.div_ceil(side) as u64 * h.div_ceil(side) as u64;
                let data = self.run_tiled_data_with(backend, input, side, opts)?;
                notes.push(format!("{w}x{h} ran in {tiles} tiles of up to {side}x{side} pixels (with halos), their partial results merged: {}", why()));
                Value::Data(data)
            }
        };
        Ok(RunResult {
            outputs: vec![("output".into(), output)],
            timings: Vec::new(),
            host: Default::default(),
            notes,
        })
    }

    /// Runs frame `frame` of a sequence (a video): temporal filters (`low_pass`,
    /// `motion_detector`, ...) see what the frames before left in `seq`. Frames may be run from
    /// several threads at once; each waits for the earlier ones to be submitted (`Sequence`).
    /// A frame that cannot be made must be `Sequence::skip`ped.
    pub fn run_frame(
        &self,
        backend: &Backend,
        input: &Image,
        seq: &super::Sequence,
        frame: u64,
    ) -> Result<Value> {
        let mut r = self.run_frame_with(backend, input, &RunOptions::default(), seq, frame)?;
        r.take("output").ok_or_else(|| Error::invalid("no output"))
    }

    /// `run_frame` with options; the result also carries timings.
    pub fn run_frame_with(
        &self,
        backend: &Backend,
        input: &Image,
        opts: &RunOptions,
        seq: &super::Sequence,
        frame: u64,
    ) -> Result<RunResult> {
        let (g, images) = match self.graph_borrowed(input) {
            Ok(x) => x,
            Err(e) => {
                seq.skip(frame)?;
                return Err(e);
            }
        };
        let refs: Vec<(&str, &Image)> = images.iter().map(|(n, i)| (n.as_str(), &**i)).collect();
        seq.run_frame(backend, &g, &refs, opts, frame)
    }
}

/// Why a run went in tiles, for its note.
fn why_tiled(gpu: &crate::runtime::Gpu, g: &super::Graph, policy: &super::TilePolicy) -> String {
    if super::tile::forced_tile(policy).is_some() {
        return "a tile size was asked for".into();
    }
    let limit = gpu.max_binding();
    if g.nodes
        .iter()
        .flat_map(|n| n.outputs.iter())
        .any(|d| d.gpu_bytes() > limit)
    {
        return "one buffer of the whole image exceeds this GPU's binding limit".into();
    }
    let need = crate::limits::human_bytes(super::execute::graph_gpu_bytes(g));
    let budget = policy
        .max_gpu_memory
        .map_or_else(String::new, crate::limits::human_bytes);
    format!("the whole image would take about {need} of GPU memory, more than --max-gpu-memory {budget}")
}

/// The format a stage's second image enters it with before any 8/16-bit adaptation: a grey
/// mask or second image (a grey PNG) is widened to RGBA8 for a blend, losslessly.
fn extra_format(stage: &Stage, img: &Image) -> PixelFormat {
    if stage.filter.def().family == Family::Blend && img.format() == PixelFormat::Gray8 {
        PixelFormat::Rgba8
    } else {
        img.format()
    }
}

/// The first conversion of a stage's inputs that its filter takes (as they are, a grey first
/// image widened, 8-bit second images widened beside a 16-bit first one, 16-bit images
/// narrowed); `None` where nothing helps, so the filter's own error is reported.
fn choose_adapt(stage: &Stage, first: ValueDesc) -> Adapt {
    let Some(first) = first.image() else {
        return Adapt::None;
    };
    let takes = |adapt: Adapt| {
        let mut descs = vec![ValueDesc::Image(
            first.with_format(adapt.format(first.format, true)),
        )];
        // with `fit`, second images enter at the first one's size
        let size = |i: &Image| {
            if stage.fit == Fit::None {
                (i.width(), i.height())
            } else {
                (first.width, first.height)
            }
        };
        descs.extend(stage.extra.iter().map(|i| {
            ValueDesc::Image(ImageDesc::new(
                size(i).0,
                size(i).1,
                adapt.format(extra_format(stage, i), false),
            ))
        }));
        stage.filter.output_descs(&descs).is_ok()
    };
    let sixteen = first.format == PixelFormat::Rgba16
        || stage
            .extra
            .iter()
            .any(|i| i.format() == PixelFormat::Rgba16);
    let candidates: &[Adapt] = match (first.format, sixteen) {
        (PixelFormat::Gray8, false) => &[Adapt::None, Adapt::WidenGray],
        (PixelFormat::Rgba16, _) => &[Adapt::None, Adapt::WidenExtras, Adapt::Narrow],
        (_, true) => &[Adapt::None, Adapt::Narrow],
        _ => &[Adapt::None],
    };
    candidates
        .iter()
        .copied()
        .find(|&a| takes(a))
        .unwrap_or(Adapt::None)
}
