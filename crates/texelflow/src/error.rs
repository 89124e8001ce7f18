//! Library error type. Every failure a user can cause (bad spec, bad parameter, bad image,
//! no GPU, device lost) is a variant here, never a panic.

use std::path::PathBuf;

/// Result alias used throughout texelflow.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in texelflow. Match on the variant (and on [`GraphError`]'s
/// for a graph that cannot be built or run) rather than on the message; new causes may be
/// added, so a match needs a wildcard arm.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A filter name that is not in the registry.
    #[error("unknown filter `{name}`{}", suggestion_suffix(.suggestion))]
    UnknownFilter {
        /// The name as given.
        name: String,
        /// The nearest known name, if one is close.
        suggestion: Option<String>,
    },
    /// A parameter name the filter does not declare.
    #[error("filter `{filter}` has no parameter `{param}`{}; its parameters are: {known}", suggestion_suffix(.suggestion))]
    UnknownParam {
        /// The filter's name.
        filter: String,
        /// The parameter as given.
        param: String,
        /// The nearest declared parameter, if one is close.
        suggestion: Option<String>,
        /// The declared parameters, comma-separated.
        known: String,
    },
    /// A parameter value outside its declared range or of the wrong kind.
    #[error("parameter `{param}` of `{filter}`: {message}")]
    BadParam {
        /// The filter's name.
        filter: String,
        /// The parameter's name.
        param: String,
        /// What is wrong with the value.
        message: String,
    },
    /// The text spec could not be parsed.
    #[error("pipeline spec: {message} at column {column}")]
    Spec {
        /// What is wrong.
        message: String,
        /// Where, 1-based.
        column: usize,
    },
    /// The graph cannot be built or run as asked: [`GraphError`] says why. Not its source:
    /// the message holds it already, and a chain printed in full (`{:#}`) would say it twice.
    #[error("graph: {0}")]
    Graph(GraphError),
    /// An image file could not be read or written.
    #[error("image `{path}`: {message}")]
    ImageIo {
        /// The file.
        path: PathBuf,
        /// The codec's or the file system's message.
        message: String,
    },
    /// A file a filter reads when it is built (a `.cube` LUT, a `.acv` curve) is missing or
    /// malformed; the message names the problem (and the line, for text files).
    #[error("file `{path}`: {message}")]
    BadFile {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the line for text files.
        message: String,
    },
    /// A user kernel (`pixel_kernel`, `UserKernel`) is unusable: its WGSL does not parse or
    /// validate (the message gives `source:line:column`), its signature or parameters are not
    /// the contract's, its file cannot be read, or it has no CPU twin where one is needed.
    #[error("pixel_kernel: {0}")]
    Kernel(String),
    /// A user stencil kernel (`stencil_kernel`, `UserStencil`) is unusable: as `Kernel`, or
    /// its neighbourhood's length is not the one its radius makes.
    #[error("stencil_kernel: {0}")]
    StencilKernel(String),
    /// Image data is invalid (zero size, wrong buffer length, wrong format).
    #[error("image: {0}")]
    Image(String),
    /// The image does not fit in one GPU binding on this device.
    #[error("image of {width}x{height} needs {bytes} bytes per buffer but this GPU allows at most {limit} bytes per binding and this pipeline cannot run in tiles (a reduction whose partials do not merge, a whole-image read, or a change of size that does not tile); use --cpu or a smaller image")]
    TooLarge {
        /// Image width in pixels.
        width: u32,
        /// Image height in pixels.
        height: u32,
        /// Bytes one buffer of the image needs.
        bytes: u64,
        /// The device's largest binding, bytes.
        limit: u64,
    },
    /// No usable GPU adapter.
    #[error("no GPU adapter found{0}")]
    NoAdapter(String),
    /// A device selector (`DeviceSelector`, `CUDA_VISIBLE_DEVICES`) that does not parse.
    #[error("{0}")]
    BadDevice(String),
    /// The GPU reported an error (validation, out of memory, internal).
    #[error("GPU error: {0}")]
    Gpu(String),
    /// The GPU device was lost (driver reset, removal, crash).
    #[error("GPU device lost: {0}")]
    DeviceLost(String),
    /// A resource limit (`limits::Limits`: pixels, memory, graph nodes) would be exceeded, or
    /// an allocation failed; the message names the limit and the option that sets it.
    #[error("{0}")]
    Limit(String),
    /// A GPU failure while one step of a graph was recorded or ran, naming the step (its
    /// node labels, joined by `+` for a fused run).
    #[error("{source} (in step `{step}`)")]
    InStep {
        /// The step's node labels (`+`-joined for a fused run).
        step: String,
        /// The failure.
        source: Box<Error>,
    },
    /// The node that made a run's first image on the device (`Pipeline::try_run_produced`)
    /// found its input unusable there: a JPEG whose entropy-coded data the device's decode
    /// found damaged (`status`: `io::jpeg_coef::DAMAGE_*` bits, `io::jpeg_coef::damage_why`
    /// says them). Nothing of the run is to be used: the caller decodes the file on the host,
    /// whose policy for damaged files then applies.
    #[error(
        "the device's decode found its input damaged (status {status:#x}): decode it on the host"
    )]
    ProducerRejected {
        /// What the producer found (its own bits; not 0).
        status: u32,
    },
    /// A video job failed (`video`, feature `video`): ffmpeg or ffprobe missing or failing, an
    /// input that is not a video, options that do not fit together, a frame that failed, an
    /// interrupted run. The message is one line and names the file or the option.
    #[error("{0}")]
    Video(String),
    /// An output path that is the input file itself (through `..`, a link, or by name).
    #[error("refusing to overwrite the input `{}`; choose another output path", path.display())]
    SameFile {
        /// The input's path.
        path: PathBuf,
    },
    /// An output path that cannot be written: a folder, socket or device where a file is
    /// expected, a missing folder, a file system error (`io::output`).
    #[error("output `{}`: {message}", path.display())]
    Output {
        /// The output's path, as given.
        path: PathBuf,
        /// What is wrong and what to do.
        message: String,
    },
    /// An output that exists where it may not be replaced (`no_clobber`), found when it was
    /// checked or when it was to be put in place (another writer got there first).
    #[error("`{}` exists; nothing was replaced", path.display())]
    OutputExists {
        /// The output's path.
        path: PathBuf,
    },
    /// A batch (`batch::run_batch`) that cannot start, or a file of one that cannot be done
    /// for a reason of the batch's own: [`BatchError`] says which.
    #[error("{0}")]
    Batch(BatchError),
    /// The reader of an output (standard output, a pipe, a FIFO) went away: nobody reads the
    /// rest, which is not a failure of the run (`texelflow ... | head`).
    #[error("the reader of `{}` went away (broken pipe)", path.display())]
    OutputClosed {
        /// The output (`-` for standard output).
        path: PathBuf,
    },
}

/// Why a batch of files cannot run, or one of its files cannot be done (inside
/// [`Error::Batch`]). The batch's caller may say the first four in its own words (they name
/// its options: the name template, the output folder).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BatchError {
    /// The output name template holds a folder separator.
    #[error("the output name template is a file name, not a path: `{name}`")]
    NameIsPath {
        /// The template.
        name: String,
    },
    /// The output name template ends in an extension no encoder knows.
    #[error("the output name template `{name}`: unknown output extension (use .png, .jpg, .webp, .tif, .bmp, or {{ext}})")]
    UnknownExtension {
        /// The template.
        name: String,
    },
    /// An output that is one of the inputs (by name, through a link or `..`).
    #[error("the output of `{}` would be `{}`, which is one of the inputs; choose another name template or output folder", input.display(), output.display())]
    OutputIsAnInput {
        /// The input whose output it is.
        input: PathBuf,
        /// The output.
        output: PathBuf,
    },
    /// Two inputs whose outputs are one path.
    #[error("two inputs would both write `{}`; use {{name}} or {{ext}} in the name template", output.display())]
    SameOutput {
        /// The output.
        output: PathBuf,
    },
    /// A name with `*` or `?` that matches no file of its folder.
    #[error("`{}` matches no file", pattern.display())]
    NoMatch {
        /// The pattern as given.
        pattern: PathBuf,
    },
    /// A folder that cannot be listed.
    #[error("cannot read the folder `{}`: {message}", dir.display())]
    ReadFolder {
        /// The folder.
        dir: PathBuf,
        /// The file system's message.
        message: String,
    },
    /// Inputs that hold no image file.
    #[error("no image files in the inputs given")]
    NoFiles,
    /// An output folder that cannot be created.
    #[error("cannot create the output folder `{}`: {message}", dir.display())]
    CreateFolder {
        /// The folder.
        dir: PathBuf,
        /// The file system's message.
        message: String,
    },
    /// An output folder that cannot be written in (checked before any work).
    #[error("cannot write in the output folder `{}`: {message}", dir.display())]
    WriteFolder {
        /// The folder.
        dir: PathBuf,
        /// Why (the output check's message).
        message: String,
    },
    /// A file whose output is itself (found when its turn came).
    #[error("refusing to overwrite the input (`{}` is also its output)", path.display())]
    InputIsOutput {
        /// The path.
        path: PathBuf,
    },
    /// A pipeline that produced no output named `output`.
    #[error("pipeline produced no output")]
    NoOutput,
    /// A pipeline that ends in data, where a batch writes images.
    #[error("the pipeline ends in data, not an image")]
    EndsInData,
    /// A batch given an empty list of devices.
    #[error("a batch needs at least one device")]
    NoDevices,
    /// A worker thread of the batch panicked (a bug).
    #[error("a worker of the batch panicked")]
    WorkerPanicked,
}

/// Why a graph cannot be built or run (inside [`Error::Graph`]). The message of each cause is
/// one line; the variants are the causes a caller may want to tell apart.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GraphError {
    /// A source the run was not given.
    #[error("source `{name}` missing")]
    SourceMissing {
        /// The source's name.
        name: String,
    },
    /// A source given data where the graph declared an image.
    #[error("source `{name}` was not given an image")]
    SourceNotImage {
        /// The source's name.
        name: String,
    },
    /// A source given an image of another size or format than the graph was built for.
    #[error("source `{name}` was declared as {declared} but got image {got}; build the graph for this size")]
    SourceMismatch {
        /// The source's name.
        name: String,
        /// The declared image (`WxH format`).
        declared: String,
        /// The image given.
        got: String,
    },
    /// A graph with no output.
    #[error("the graph has no outputs")]
    NoOutputs,
    /// Two sources or two outputs with one name.
    #[error("two {what} are named `{name}`")]
    DuplicateName {
        /// `sources` or `outputs`.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// A port of another graph given to this one (`node` names who was given it; `None`: an
    /// output).
    #[error("{}", foreign_port(.node))]
    ForeignPort {
        /// The node or call that was given the port.
        node: Option<String>,
    },
    /// A filter given another number of inputs than it declares.
    #[error("`{node}` takes {expected} input(s) ({names}), got {got}")]
    InputCount {
        /// The filter.
        node: String,
        /// How many it declares.
        expected: usize,
        /// Their names, comma-separated.
        names: String,
        /// How many it was given.
        got: usize,
    },
    /// A filter input of the wrong kind or format (an image where data was expected, a
    /// format the filter does not take, a missing input): `detail` says which and what.
    #[error("`{node}` {detail}")]
    WrongInput {
        /// The filter.
        node: String,
        /// Which input and what is wrong with it.
        detail: String,
    },
    /// A state (`Graph::state`/`feed`) used wrongly: fed twice, never fed, fed another kind.
    #[error("{0}")]
    State(String),
    /// A filter that cannot compute a part of its output (tiles) from a part of its input.
    #[error("`{0}` does not run in tiles")]
    FilterNotTileable(String),
    /// A pipeline asked to run in tiles that cannot (`why` names the step).
    #[error("this pipeline cannot run in tiles: {why}")]
    NotTileable {
        /// Which step, and why.
        why: String,
    },
    /// A pipeline asked to run in bands of rows that cannot.
    #[error("this pipeline cannot run in bands: {why}")]
    NotBandable {
        /// Which step, and why.
        why: String,
    },
    /// A schedule override naming a variant the filter does not have.
    #[error("{filter}: unknown schedule `{variant}` (known: {known})")]
    UnknownSchedule {
        /// The filter (or the schedule key).
        filter: String,
        /// The variant asked for.
        variant: String,
        /// The variants it has, comma-separated.
        known: String,
    },
    /// A schedule that cannot run here: this device lacks a feature or the memory it needs, or
    /// the parameters are outside what it covers.
    #[error("{filter}: {why}")]
    ScheduleUnsupported {
        /// The filter (or the schedule key).
        filter: String,
        /// What the schedule needs that is missing.
        why: String,
    },
    /// An input the filter or the run does not support (a pixel format, a size beyond what one
    /// pass or one texture covers).
    #[error("{0}")]
    Unsupported(String),
    /// Anything else that makes the graph or its run invalid.
    #[error("{0}")]
    Invalid(String),
    /// An inconsistency inside the run (a worker that stopped, a result missing): a defect of
    /// texelflow, reported rather than panicking.
    #[error("{0}")]
    Internal(String),
}

fn foreign_port(node: &Option<String>) -> String {
    match node {
        Some(n) => format!("`{n}` was given a port from another graph"),
        None => "output port is from another graph".into(),
    }
}

impl From<GraphError> for Error {
    fn from(e: GraphError) -> Self {
        Error::Graph(e)
    }
}

impl Error {
    /// `Error::Graph(GraphError::Invalid(message))`: a graph or run that is invalid for a
    /// reason no other [`GraphError`] names.
    pub fn invalid(message: impl Into<String>) -> Error {
        Error::Graph(GraphError::Invalid(message.into()))
    }

    /// `Error::Graph(GraphError::Internal(message))`: an inconsistency inside the run.
    pub(crate) fn internal(message: impl Into<String>) -> Error {
        Error::Graph(GraphError::Internal(message.into()))
    }

    /// `Error::Graph(GraphError::Unsupported(message))`.
    pub(crate) fn unsupported(message: impl Into<String>) -> Error {
        Error::Graph(GraphError::Unsupported(message.into()))
    }

    /// `Error::Graph(GraphError::WrongInput { .. })` for filter `node`.
    pub(crate) fn wrong_input(node: impl Into<String>, detail: impl Into<String>) -> Error {
        Error::Graph(GraphError::WrongInput {
            node: node.into(),
            detail: detail.into(),
        })
    }

    /// `Error::Graph(GraphError::ScheduleUnsupported { .. })`.
    pub(crate) fn schedule_unsupported(filter: impl Into<String>, why: impl Into<String>) -> Error {
        Error::Graph(GraphError::ScheduleUnsupported {
            filter: filter.into(),
            why: why.into(),
        })
    }

    /// Whether this is the GPU failing (an error of the device, lost device, an image too
    /// large for it, no adapter) rather than bad input: what `--fallback cpu` retries on the
    /// CPU reference.
    pub fn is_gpu_failure(&self) -> bool {
        match self {
            Error::Gpu(_) | Error::DeviceLost(_) | Error::TooLarge { .. } | Error::NoAdapter(_) => {
                true
            }
            Error::InStep { source, .. } => source.is_gpu_failure(),
            _ => false,
        }
    }
}

fn suggestion_suffix(s: &Option<String>) -> String {
    match s {
        Some(s) => format!(" (did you mean `{s}`?)"),
        None => String::new(),
    }
}

/// The longest word `nearest` compares (twice the longest name or parameter in the catalogue).
const MAX_SUGGESTED_LEN: usize = 64;

/// Nearest candidate by edit distance, when it is close enough to be a plausible typo.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    // no name is near a word this long, and the edit distance is quadratic in its length (a
    // 1 MB unknown name took 6-7 s)
    if word.len() > MAX_SUGGESTED_LEN {
        return None;
    }
    let mut best: Option<(usize, usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(word, c);
        // substring matches ("blur" -> "box_blur") count as close too
        let d = if c.contains(word) && word.len() >= 3 {
            d.min(2)
        } else {
            d
        };
        // plausible typo: at most half the longer name wrong
        if d > (c.len().max(word.len()) / 2).max(2) {
            continue;
        }
        let prefix = word
            .chars()
            .zip(c.chars())
            .take_while(|(a, b)| a == b)
            .count();
        if best.is_none_or(|(bd, bp, _)| (d, usize::MAX - prefix) < (bd, usize::MAX - bp)) {
            best = Some((d, prefix, c));
        }
    }
    best.map(|(_, _, c)| c.to_string())
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn nearest_finds_typos() {
        let names = ["gaussian_blur", "box_blur", "sobel_edge_detection"];
        assert_eq!(
            nearest("gausian_blur", names).as_deref(),
            Some("gaussian_blur")
        );
        assert_eq!(
            nearest("sobel", names).as_deref(),
            Some("sobel_edge_detection")
        );
        assert_eq!(nearest("zzzzzzzzzzzzzzzzzzzzzzz", names), None);
        // a huge word is not compared at all (it took seconds)
        let t = std::time::Instant::now();
        assert_eq!(nearest(&"gaussian_blur".repeat(80_000), names), None);
        assert!(t.elapsed().as_secs_f64() < 0.5);
        assert_eq!(
            nearest("gausian", ["gamma", "gaussian_blur"]).as_deref(),
            Some("gaussian_blur")
        );
    }

    /// A graph error is said once when the whole chain is printed (`{:#}`, as the CLI does).
    #[test]
    fn graph_errors_are_not_their_own_source() {
        let e = Error::invalid("cannot write x");
        assert!(std::error::Error::source(&e).is_none());
        assert_eq!(e.to_string(), "graph: cannot write x");
    }
}
