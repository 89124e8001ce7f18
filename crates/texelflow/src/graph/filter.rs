//! What the graph knows of a filter: the `Filter` trait, its declaration (`FilterDef`: name,
//! parameters, ports, tolerance), footprints and ports, and the helpers filters share. The
//! catalogue of every filter is one layer up (`crate::filters::registry`); what the graph must build by
//! itself (format conversions, premultiplied alpha, fitting a second image, a data tile's
//! crop) it asks of a `Catalogue` handed down to it, so this layer names no filter.

use crate::error::{Error, Result};
use crate::graph::params::{Args, ParamDef};
use crate::graph::{Fit, Graph, Port};
pub use crate::region::Rect;
pub use crate::runtime::uniform::UniformLayout;
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{DataKind, Value, ValueDesc};

/// Filter families, as GPUImage groups them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Family {
    /// Colour adjustments.
    Color,
    /// Blends of two images.
    Blend,
    /// Neighbourhood filters: blurs, edges, corners.
    Neighborhood,
    /// Dilation, erosion and their compositions.
    Morphology,
    /// Reductions to data, and filters that use data.
    Analysis,
    /// Lookup tables.
    Lookup,
    /// Crops, resizes, flips, warps.
    Geometry,
    /// Pixel format conversions.
    Convert,
    /// Visual effects.
    Effect,
    /// Images made from nothing or from data.
    Generator,
    /// Filters of a sequence of frames (a video): they carry state from frame to frame.
    Temporal,
}

impl Family {
    /// The family's name in listings.
    pub fn name(self) -> &'static str {
        match self {
            Family::Color => "colour adjustment",
            Family::Blend => "blend",
            Family::Neighborhood => "image processing",
            Family::Morphology => "morphology",
            Family::Analysis => "analysis",
            Family::Lookup => "lookup",
            Family::Geometry => "geometry",
            Family::Convert => "conversion",
            Family::Effect => "visual effect",
            Family::Generator => "generator",
            Family::Temporal => "temporal (video)",
        }
    }
}

/// What a port carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortKind {
    /// An image.
    Image,
    /// Data of one kind.
    Data(DataKind),
}

/// A named input or output.
#[derive(Clone, Copy, Debug)]
pub struct PortDef {
    /// The port's name in specs and outputs.
    pub name: &'static str,
    /// What the port carries.
    pub kind: PortKind,
}

/// Standard single image port.
pub const IMAGE: &[PortDef] = &[PortDef {
    name: "image",
    kind: PortKind::Image,
}];

/// The ports of a blend: the image, and the second image given as `with=PATH`.
pub const TWO_IMAGES: &[PortDef] = &[
    PortDef {
        name: "image",
        kind: PortKind::Image,
    },
    PortDef {
        name: "with",
        kind: PortKind::Image,
    },
];

/// The ports of a masked blend: the image, the second image (`with=PATH`) and the mask (`mask=PATH`).
pub const THREE_IMAGES: &[PortDef] = &[
    PortDef {
        name: "image",
        kind: PortKind::Image,
    },
    PortDef {
        name: "with",
        kind: PortKind::Image,
    },
    PortDef {
        name: "mask",
        kind: PortKind::Image,
    },
];

/// Agreement required between the GPU kernel and the CPU twin on 8-bit outputs.
#[derive(Clone, Copy, Debug)]
pub struct Tolerance {
    /// Max abs difference per 8-bit sample.
    pub max_diff: u8,
    /// Why, when above 1.
    pub why: &'static str,
}

/// The default tolerance: at most 1 level apart.
pub const EXACT_ENOUGH: Tolerance = Tolerance {
    max_diff: 1,
    why: "",
};

/// `FilterDef::test_inputs`: the extra inputs for a main input of `(width, height)`, from a seed.
type TestInputs = fn(u32, u32, u64) -> Vec<crate::Image>;

/// The declaration of one filter.
pub struct FilterDef {
    /// The filter's name in specs.
    pub name: &'static str,
    /// Its family.
    pub family: Family,
    /// One line for `texelflow list` and docs/filters.md.
    pub summary: &'static str,
    /// Longer notes for `texelflow help` (algorithm, border handling, precision).
    pub doc: &'static str,
    /// The GPUImage filter this matches ("" if none).
    pub gpuimage: &'static str,
    /// Its parameters, in positional order.
    pub params: &'static [ParamDef],
    /// Its image or data inputs.
    pub inputs: &'static [PortDef],
    /// Its outputs.
    pub outputs: &'static [PortDef],
    /// How far its GPU output may be from the CPU reference.
    pub tolerance: Tolerance,
    /// Builds the filter from validated arguments.
    pub build: fn(&Args) -> Result<Box<dyn Filter>>,
    /// Uniform structs shared by Rust and WGSL, checked by the layout test.
    pub uniforms: &'static [UniformLayout],
    /// Extra inputs for tests (e.g. a LUT image), given the main input's size; `None` means
    /// random images of the main input's size.
    pub test_inputs: Option<TestInputs>,
    /// GPU schedules besides the default, by `runtime::schedule` variant name; the
    /// GPU-vs-CPU test matrix runs every one, `texelflow bench --experiments` times them.
    pub schedules: &'static [&'static str],
}

impl std::fmt::Debug for FilterDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FilterDef({})", self.name)
    }
}

/// A filter's GPU side as a per-pixel function, so chains of them fuse into one kernel.
#[derive(Clone, Debug)]
pub struct PixelOpGpu {
    /// WGSL function name; its parameter struct is named `<PascalName>Params`. Built-in ops
    /// borrow it; a user kernel (`filters::user_kernel`) owns its generated one.
    pub fn_name: std::borrow::Cow<'static, str>,
    /// The WGSL parameter struct's name.
    pub params_struct: std::borrow::Cow<'static, str>,
    /// The WGSL function and its parameter struct: a built-in op's is static (a `Kernel`
    /// source), a user kernel's is generated and goes into the fused kernel's generated part.
    pub wgsl: std::borrow::Cow<'static, str>,
    /// Uniform bytes (size a multiple of 16).
    pub uniform: Vec<u8>,
    /// Where each parameter sits in `uniform` (checked against the WGSL struct by naga).
    pub fields: Vec<crate::runtime::uniform::FieldLayout>,
    /// The WGSL function takes the pixel's position (`at: PixelAt`) as its last argument.
    pub position: bool,
    /// 2 for two-input ops (blends): the function takes the second image's pixel `t` after `c`,
    /// and the fused kernel binds that image.
    pub inputs: u32,
    /// Each output channel depends on the same input channel alone (`PixelOp::PER_CHANNEL`),
    /// so the op can run as a 256-entry table (schedule `table`).
    pub per_channel: bool,
    /// With `per_channel`: `table` is the default schedule.
    pub table_by_default: bool,
    /// `PixelOp::body_by_reference`: when set, `wgsl` holds the parameter struct and helpers
    /// only, and the fused kernel generates the function around this body per use, with `p`
    /// a pointer to the op's block in its uniform instead of a copy.
    pub body_by_reference: Option<&'static str>,
}

/// For `Filter::windowed`: the input part `filter` needs for output part `out` of an input of
/// `input`'s size (`window_input`), or an error where there is none or `have` does not cover it.
pub fn window_need(
    filter: &dyn Filter,
    input: crate::ImageDesc,
    have: Rect,
    out: Rect,
) -> Result<Rect> {
    let name = filter.def().name;
    let need = filter.window_input(input, out).ok_or_else(|| {
        Error::invalid(format!(
            "`{name}` has no part {}x{} at ({}, {})",
            out.w, out.h, out.x, out.y
        ))
    })?;
    if !have.contains(&need) {
        return Err(Error::invalid(format!(
            "`{name}`'s part {}x{} at ({}, {}) needs input {need:?}, more than {have:?}",
            out.w, out.h, out.x, out.y
        )));
    }
    Ok(need)
}

/// What one output pixel reads of the input images. Tiling images larger than the GPU
/// allows is built on it (a tile plus its footprint is what a tile's kernel needs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Footprint {
    /// The same pixel of each input image.
    Pixel,
    /// Input pixels at most this many columns and rows away (borders replicated).
    Radius(u32),
    /// Resampling: output pixel (x, y) reads the input within `margin` pixels of
    /// ((x + 0.5) * scale + offset - 0.5, same for y), e.g. a crop or a resize.
    Resample {
        /// Output-to-input scale per axis.
        scale: [f64; 2],
        /// Output-to-input offset per axis, input pixels.
        offset: [f64; 2],
        /// Extra input pixels read around the mapped point.
        margin: u32,
    },
    /// Any pixel of the input (reductions, and filters that read a reduction's result).
    WholeImage,
}

impl Footprint {
    /// The footprint of `self` applied to the result of `inner` (what an output pixel of the
    /// pair reads of the first input), conservatively.
    pub fn after(self, inner: Footprint) -> Footprint {
        use Footprint::*;
        match (self, inner) {
            (WholeImage, _) | (_, WholeImage) => WholeImage,
            (Pixel, x) | (x, Pixel) => x,
            (Radius(a), Radius(b)) => Radius(a + b),
            (
                Radius(a),
                Resample {
                    scale,
                    offset,
                    margin,
                },
            ) => Resample {
                scale,
                offset,
                margin: margin + (a as f64 * scale[0].max(scale[1])).ceil() as u32,
            },
            (
                Resample {
                    scale,
                    offset,
                    margin,
                },
                Radius(b),
            ) => Resample {
                scale,
                offset,
                margin: margin + b,
            },
            (
                Resample {
                    scale: s1,
                    offset: o1,
                    margin: m1,
                },
                Resample {
                    scale: s2,
                    offset: o2,
                    margin: m2,
                },
            ) => Resample {
                scale: [s1[0] * s2[0], s1[1] * s2[1]],
                offset: [o1[0] * s2[0] + o2[0], o1[1] * s2[1] + o2[1]],
                margin: m2 + (m1 as f64 * s2[0].max(s2[1])).ceil() as u32,
            },
        }
    }
    /// The larger of two footprints on the same input (a node reading it twice).
    pub fn union(self, other: Footprint) -> Footprint {
        use Footprint::*;
        match (self, other) {
            (WholeImage, _) | (_, WholeImage) => WholeImage,
            (Pixel, x) | (x, Pixel) => x,
            (Radius(a), Radius(b)) => Radius(a.max(b)),
            (
                Resample {
                    scale,
                    offset,
                    margin,
                },
                Radius(r),
            )
            | (
                Radius(r),
                Resample {
                    scale,
                    offset,
                    margin,
                },
            ) => Resample {
                scale,
                offset,
                margin: margin + r,
            },
            (a @ Resample { .. }, Resample { .. }) => a.union(WholeImage),
        }
    }
}

/// A filter instance with typed parameters.
pub trait Filter: Send + Sync + std::fmt::Debug {
    /// Its registry entry.
    fn def(&self) -> &'static FilterDef;
    /// Output descriptions for the given inputs; rejects unsupported formats and sizes.
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>>;
    /// CPU reference.
    fn run_cpu(&self, inputs: &[&Value], outputs: &[ValueDesc]) -> Result<Vec<Value>>;
    /// Records GPU work that reads `inputs` and writes every byte of `outputs`.
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()>;
    /// What an output pixel reads of the input images of these descriptions.
    fn footprint(&self, inputs: &[ValueDesc]) -> Footprint;
    /// Whether an output pixel depends on where it is in the image or on the image's size
    /// (generators, a vignette), beyond what `footprint` says: such filters do not run in
    /// tiles. Per-pixel ops say so with `PixelOpGpu::position`.
    fn depends_on_position(&self) -> bool {
        false
    }
    /// A grid the GPU result is computed on (a decimated blur's node spacing): tiles start at
    /// multiples of it so that each sees the untiled grid. 1 where there is none.
    fn tile_alignment(&self) -> u32 {
        1
    }
    /// Whether its data output (one, of a kind `DataKind::merge_refusal` allows) is a sum over
    /// its one input image's pixels of terms that each read one pixel alone (counts, sums,
    /// minima, maxima), nothing of position or size: then results over disjoint parts of the
    /// image merge into the whole image's exactly (`Data::merge`), and a pipeline ending in it
    /// runs in tiles (`Pipeline::run_tiled_data`).
    fn merges_partials(&self) -> bool {
        false
    }
    /// For filters that move or resample pixels (resize, crop, flips and turns), which run in
    /// tiles through their coordinate transform: the part of an input of `input`'s size that
    /// output part `out` reads. `None` (the default): not windowed so (filters that keep the
    /// size tile by their `footprint` instead).
    fn window_input(&self, _input: crate::ImageDesc, _out: Rect) -> Option<Rect> {
        None
    }
    /// The filters that make exactly output part `out` of what `self` makes of an input of
    /// `input`'s size, from input part `have` (which covers `window_input(input, out)`): the
    /// same pixels, bit for bit, as the whole run has there.
    fn windowed(
        &self,
        _input: crate::ImageDesc,
        _have: Rect,
        _out: Rect,
    ) -> Result<Vec<Box<dyn Filter>>> {
        Err(Error::Graph(crate::GraphError::FilterNotTileable(
            self.def().name.to_string(),
        )))
    }
    /// `Some` for per-pixel RGBA8 filters that can be fused with their neighbours.
    fn pixel_op(&self) -> Option<PixelOpGpu> {
        None
    }
    /// A caller's buffer that already holds this filter's one output, in texelflow's layout of
    /// its format (a graph's input given as a wgpu buffer): the executor takes it as the
    /// output's slot and records nothing for the node, so the input is not copied. `None`
    /// (the default): the node makes its output.
    fn output_buffer(&self) -> Option<&wgpu::Buffer> {
        None
    }
    /// A caller's buffer where this filter's one input may be made, in texelflow's layout of
    /// its format (a graph's result written into a wgpu buffer), and how many bytes from its
    /// start the run may write: where nothing else reads that input and those bytes hold a
    /// slot of its size (`size_class`: a kernel may write a slot's padding), the node before
    /// writes it there directly, and this node's `record_gpu` sees its input's slot is that
    /// buffer. `None` (the default): no such buffer.
    fn input_buffer(&self) -> Option<(&wgpu::Buffer, u64)> {
        None
    }
    /// Composite filters expand into primitives here instead of having their own kernel.
    fn lower(&self, _graph: &mut Graph, _inputs: &[Port]) -> Option<Result<Vec<Port>>> {
        None
    }
    /// Clones behind the box.
    fn box_clone(&self) -> Box<dyn Filter>;
}

impl Clone for Box<dyn Filter> {
    fn clone(&self) -> Self {
        self.box_clone()
    }
}

/// The filters that average the colours of several pixels (blurs, resampling, distortions
/// that sample between pixels): the graph gives them premultiplied colour (a `premultiply_alpha`
/// node before, `unpremultiply_alpha` after, for RGBA8 and RGBA16 images; the CPU reference runs
/// the same nodes), so that the colour under a transparent pixel does not bleed into the
/// edge of what is visible, as libvips and Pillow do. A list here rather than a `FilterDef`
/// field: declarations stay as they are. Filters a graph's caller adds get it, not those a
/// composite filter adds for its own arithmetic (`colour_fast_feature_detector`'s box blur).
/// An opaque image comes out unchanged; `Graph::set_straight_alpha`
/// turns it off for a graph (benchmarks on opaque images).
pub const PREMULTIPLIED_ALPHA: &[&str] = &[
    "gaussian_blur",
    "box_blur",
    "motion_blur",
    "zoom_blur",
    "resize",
    "transform",
    "bulge_distortion",
    "pinch_distortion",
    "stretch_distortion",
    "swirl",
];

impl FilterDef {
    /// Whether the graph gives this filter premultiplied colour (`PREMULTIPLIED_ALPHA`).
    pub fn premultiplied(&self) -> bool {
        PREMULTIPLIED_ALPHA.contains(&self.name)
    }
}

/// Helper for filters with one RGBA8 (or listed) image input: returns its desc or a clear error.
pub fn expect_image(
    def: &FilterDef,
    inputs: &[ValueDesc],
    index: usize,
    formats: &[crate::PixelFormat],
) -> Result<crate::ImageDesc> {
    match inputs.get(index) {
        Some(ValueDesc::Image(d)) if formats.contains(&d.format) => Ok(*d),
        Some(other) => Err(Error::wrong_input(
            def.name,
            format!(
                "input `{}` must be an image in {}, got {other}",
                def.inputs.get(index).map_or("?", |p| p.name),
                formats
                    .iter()
                    .map(|f| f.name())
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
        )),
        None => Err(Error::wrong_input(
            def.name,
            format!("is missing input {index}"),
        )),
    }
}

/// The image formats a filter takes (every image input in that format), found by asking its
/// `output_descs` with default parameters; `None` where the defaults do not build it (a
/// required file) or it reads data inputs.
pub fn image_formats(def: &FilterDef) -> Option<Vec<crate::PixelFormat>> {
    use crate::PixelFormat::*;
    if def.inputs.iter().any(|p| p.kind != PortKind::Image) {
        return None;
    }
    let filter = (def.build)(&Args::defaults(def)).ok()?;
    let takes = |f: crate::PixelFormat| {
        filter
            .output_descs(&vec![
                ValueDesc::Image(crate::ImageDesc::new(4, 4, f));
                def.inputs.len()
            ])
            .is_ok()
    };
    Some(
        [Rgba8, Gray8, Rgba16, Rgba32F, R32F]
            .into_iter()
            .filter(|&f| takes(f))
            .collect(),
    )
}

/// Helper: the `index`-th input as a data buffer of `kind`.
pub fn expect_data(
    def: &FilterDef,
    inputs: &[ValueDesc],
    index: usize,
    kind: DataKind,
) -> Result<()> {
    match inputs.get(index) {
        Some(ValueDesc::Data(k)) if *k == kind => Ok(()),
        Some(other) => Err(Error::wrong_input(
            def.name,
            format!("input {index} must be {} data, got {other}", kind.name()),
        )),
        None => Err(Error::wrong_input(
            def.name,
            format!("is missing input {index}"),
        )),
    }
}

/// The `index`-th input value as an image. Graph validation already guarantees it; this keeps
/// `run_cpu` free of panics with one message for every filter.
pub fn input_image<'v>(
    def: &FilterDef,
    inputs: &[&'v Value],
    index: usize,
) -> Result<&'v crate::Image> {
    inputs
        .get(index)
        .and_then(|v| v.as_image())
        .ok_or_else(|| Error::wrong_input(def.name, format!("input {index} must be an image")))
}

/// The image description of the `index`-th GPU slot (the `record_gpu` twin of `input_image`).
pub fn slot_image(def: &FilterDef, slots: &[GpuSlot], index: usize) -> Result<crate::ImageDesc> {
    slots
        .get(index)
        .and_then(|s| s.desc.image())
        .ok_or_else(|| Error::wrong_input(def.name, format!("input {index} must be an image")))
}

/// The single input and output slots of a one-in, one-out image filter, with the input's
/// description.
pub fn one_to_one<'s>(
    def: &FilterDef,
    inputs: &'s [GpuSlot],
    outputs: &'s [GpuSlot],
) -> Result<(&'s GpuSlot, &'s GpuSlot, crate::ImageDesc)> {
    match (inputs.first(), outputs.first()) {
        (Some(i), Some(o)) => Ok((i, o, slot_image(def, inputs, 0)?)),
        _ => Err(Error::wrong_input(
            def.name,
            "needs one input and one output",
        )),
    }
}

/// The two image inputs, the output and both inputs' descriptions, for filters that read a
/// second image of its own size (a map, a tile set).
#[allow(clippy::type_complexity)]
pub fn two_to_one<'s>(
    def: &FilterDef,
    inputs: &'s [GpuSlot],
    outputs: &'s [GpuSlot],
) -> Result<(
    &'s GpuSlot,
    &'s GpuSlot,
    &'s GpuSlot,
    crate::ImageDesc,
    crate::ImageDesc,
)> {
    match (inputs.first(), inputs.get(1), outputs.first()) {
        (Some(a), Some(b), Some(o)) => Ok((
            a,
            b,
            o,
            slot_image(def, inputs, 0)?,
            slot_image(def, inputs, 1)?,
        )),
        _ => Err(Error::wrong_input(
            def.name,
            "needs two inputs and one output",
        )),
    }
}

/// `Catalogue::crop_px`: a crop filter from `(x, y, width, height)` in pixels.
type CropPx = fn(u32, u32, u32, u32) -> Result<Box<dyn Filter>>;

/// What the graph layer needs of the filters above it, handed down as data (a dependency
/// inverted): the catalogue to look names up in and the filters the graph inserts itself.
/// The filters layer gives the one instance (`crate::filters::registry::catalogue()`); `Graph::new`,
/// `Pipeline::new` and `Pipeline::parse` use it.
pub struct Catalogue {
    /// Every registered filter, in catalogue order.
    pub defs: fn() -> &'static [&'static FilterDef],
    /// Conversion of any image to RGBA8 (before a filter that takes 8-bit images).
    pub to_rgba: fn() -> Box<dyn Filter>,
    /// Premultiplies colour by alpha (before the filters that average colours).
    pub premultiply: fn() -> Box<dyn Filter>,
    /// Undoes `premultiply`.
    pub unpremultiply: fn() -> Box<dyn Filter>,
    /// A crop in pixels: `(x, y, width, height)` (a data tile's core out of its halo).
    pub crop_px: CropPx,
    /// Brings an image port to `(width, height)` by `Fit` (a blend's second image).
    pub fit: fn(&mut Graph, Port, (u32, u32), Fit) -> Result<Port>,
}

impl std::fmt::Debug for Catalogue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Catalogue({} filters)", (self.defs)().len())
    }
}

impl Catalogue {
    /// Looks a filter up by name, suggesting the nearest on a miss.
    pub fn find(&self, name: &str) -> Result<&'static FilterDef> {
        let all = (self.defs)();
        all.iter()
            .copied()
            .find(|d| d.name == name)
            .ok_or_else(|| Error::UnknownFilter {
                name: name.to_string(),
                suggestion: crate::error::nearest(name, all.iter().map(|d| d.name)),
            })
    }
}
