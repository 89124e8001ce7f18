//! A file through a pipeline (`apply_file`): load, plan, run, save, with the input's metadata
//! carried to the output and the same-file rule, shared by the Python module and the CLI's
//! decisions (when to stream, which paths to refuse).

use std::path::Path;

use crate::error::{Error, Result};
use crate::graph::{Backend, Pipeline, RunOptions};
use crate::image::{Image, ImageDesc};
use crate::value::Value;

use super::{FileReport, LoadOptions, SaveOptions};

/// Images of at least this many pixels (64 MP: 256 MiB as RGBA8) are streamed in bands by
/// default, where the pipeline allows it.
pub const STREAM_FROM_PIXELS: u64 = 1 << 26;

/// Whether an input of `desc` is streamed in bands unless asked otherwise.
pub fn streams_by_default(desc: ImageDesc) -> bool {
    desc.width as u64 * desc.height as u64 >= STREAM_FROM_PIXELS
}

/// Whether `path` names a JPEG by its extension (`.jpg`, `.jpeg`, any case).
pub fn is_jpeg_path(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("jpg") || e.eq_ignore_ascii_case("jpeg"))
}

/// Whether `a` and `b` name the same existing file (through `..`, links or by name).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Shrink-on-load (issue 30): `load` with the `LoadOptions::min_size` that `input` is to be
/// decoded with to run through `pipe`: `graph::shrink_on_load_size` of the input's header
/// (`rows::probe`: upright, as `LoadOptions::min_size` is, after the EXIF orientation) where
/// `run.shrink_on_load` (the default) and `load` names no size of its own, else `load` as it
/// is. A JPEG is then decoded at the DCT scale (1/2, 1/4, 1/8) that keeps that size, and the
/// pipeline's leading resize runs from there. Every path that decodes a file for a pipeline
/// takes it: `apply_file`, `Pipeline::stream_file` (a JPEG is decoded whole before its bands,
/// so at the DCT scale; PNG and TIFF stream at full size), the CLI's `apply` (one image, a
/// batch, streamed or not).
pub fn shrink_on_load(
    pipe: &Pipeline,
    input: &Path,
    load: &LoadOptions,
    run: &RunOptions,
) -> LoadOptions {
    let mut load = *load;
    if run.shrink_on_load && load.min_size.is_none() {
        if let Ok(desc) = super::rows::probe(input) {
            load.min_size = crate::graph::shrink_on_load_size(pipe, desc);
        }
    }
    load
}

/// How `apply_file` reads, runs and writes.
#[derive(Clone, Debug, Default)]
pub struct ApplyOptions {
    /// How the input is decoded (limits, damaged files).
    pub load: LoadOptions,
    /// How the output is encoded; its ICC profile and EXIF default to the input's.
    pub save: SaveOptions,
    /// The run's options (tiling policy, schedules).
    pub run: RunOptions,
    /// Stream in bands (`Some(true)`), never (`Some(false)`), or from `STREAM_FROM_PIXELS`
    /// (`None`); a pipeline that cannot run in bands is run whole either way.
    pub stream: Option<bool>,
    /// Encode a JPEG output wholly on the host. By default a whole run on a GPU encodes it
    /// there too (`jpeg_file`: only the file's bytes are read back; the same file).
    pub host_encode: bool,
}

/// What `apply_file` did.
#[derive(Clone, Debug, Default)]
pub struct ApplyReport {
    /// Whether the image went through in bands (`file` says how).
    pub streamed: bool,
    /// The streamed run's report.
    pub file: Option<FileReport>,
    /// What was done that the user should know (a conversion, the tiling), one line each.
    pub notes: Vec<String>,
    /// What was wrong with the input (a damaged file accepted with `allow_truncated`).
    pub warnings: Vec<String>,
}

/// `input` through `pipe` into `output` (an image file, written atomically): streamed in bands
/// where the pipeline allows it and `opts.stream` (or the image's size) asks for it, else
/// decoded whole, run by the run planner and saved with the input's colour profile and EXIF.
/// An output that is the input itself is refused before anything is read.
///
/// # Examples
///
/// ```no_run
/// use texelflow::io::{apply_file, ApplyOptions};
/// use texelflow::{Backend, GpuOptions, Image, Pipeline};
/// # fn main() -> texelflow::Result<()> {
/// let (backend, _note) = Backend::auto(&GpuOptions::default());
/// let pipe = Pipeline::parse("gaussian_blur(sigma=2) | sobel_edge_detection", &mut |p: &str| {
///     Image::open(p)
/// })?;
/// let report = apply_file(&pipe, &backend, "in.jpg".as_ref(), "edges.png".as_ref(), &ApplyOptions::default())?;
/// for note in &report.notes {
///     eprintln!("{note}");
/// }
/// # Ok(())
/// # }
/// ```
pub fn apply_file(
    pipe: &Pipeline,
    backend: &Backend,
    input: &Path,
    output: &Path,
    opts: &ApplyOptions,
) -> Result<ApplyReport> {
    if same_file(input, output) {
        return Err(Error::SameFile {
            path: input.to_path_buf(),
        });
    }
    // shrink-on-load (issue 30): a leading shrink lets a JPEG be decoded at a DCT scale; the
    // choice to stream and the checks before the decode are made on the size decoded
    let load = shrink_on_load(pipe, input, &opts.load, &opts.run);
    let decoded = super::rows::probe_load(input, &load);
    let stream = opts
        .stream
        .unwrap_or_else(|| decoded.as_ref().is_ok_and(|d| streams_by_default(*d)));
    if stream {
        if let Some(r) =
            pipe.stream_file(backend, input, output, &opts.load, &opts.save, &opts.run)?
        {
            return Ok(ApplyReport {
                streamed: true,
                notes: r.notes.clone(),
                warnings: r.warnings.clone(),
                file: Some(r),
            });
        }
    }
    // a run too large for the limits is refused from the header, before the input is decoded
    if let Ok(desc) = decoded {
        pipe.check_run(backend, desc, &opts.run)?;
    }
    let loaded = Image::load(input, &load)?;
    let save = SaveOptions {
        icc_profile: opts
            .save
            .icc_profile
            .clone()
            .or(loaded.metadata.icc_profile),
        exif: opts.save.exif.clone().or(loaded.metadata.exif),
        ..opts.save.clone()
    };
    let report = |notes| ApplyReport {
        streamed: false,
        file: None,
        notes,
        warnings: loaded.warnings.clone(),
    };
    if !opts.host_encode {
        if let Some(notes) =
            encode_on_device(pipe, backend, &loaded.image, output, &save, &opts.run)?
        {
            return Ok(report(notes));
        }
    }
    let mut r = pipe.run_with(backend, &loaded.image, &opts.run)?;
    let Some(Value::Image(img)) = r.take("output") else {
        return Err(Error::invalid(
            "the pipeline ends in data, not an image: run it on an image in memory for its data",
        ));
    };
    img.save_with(output, &save)?;
    Ok(report(r.notes))
}

/// `image` through `pipe` into the JPEG `output` with the encode on the GPU (`jpeg_file`):
/// the run's notes, or `None` where that does not apply (not a JPEG, not a GPU, not one whole
/// run, an image with transparency) and the caller runs and saves as usual.
#[cfg(feature = "turbojpeg")]
fn encode_on_device(
    pipe: &Pipeline,
    backend: &Backend,
    image: &Image,
    output: &Path,
    save: &SaveOptions,
    run: &RunOptions,
) -> Result<Option<Vec<String>>> {
    if !is_jpeg_path(output) || !matches!(backend, Backend::Gpu(_)) {
        return Ok(None);
    }
    let node = super::jpeg_file::for_save(save)?;
    let Some(mut r) = pipe.try_run_then(backend, image, Box::new(node), run)? else {
        return Ok(None);
    };
    match r.take("output") {
        Some(Value::Data(crate::value::Data::Bytes(stream))) => {
            Ok(super::jpeg_file::save(output, &stream, save)?.then_some(r.notes))
        }
        _ => Ok(None),
    }
}

#[cfg(not(feature = "turbojpeg"))]
fn encode_on_device(
    _: &Pipeline,
    _: &Backend,
    _: &Image,
    _: &Path,
    _: &SaveOptions,
    _: &RunOptions,
) -> Result<Option<Vec<String>>> {
    Ok(None)
}
