//! A file streamed through a pipeline in bands (`Pipeline::stream_file`): the input decoded
//! and the output encoded as the bands go where the formats allow it (PNG, TIFF).

use crate::error::{Error, Result};
use crate::graph::{Backend, Pipeline, RunOptions, StreamReport};
use crate::image::{sample_bytes_per_pixel, ImageDesc};

/// What `Pipeline::stream_file` did.
#[derive(Clone, Debug, Default)]
pub struct FileReport {
    /// The bands and tiles (`run_streamed`'s report).
    pub stream: StreamReport,
    /// The host memory the run was estimated (and checked) to take: the module docs' formula
    /// plus a whole image on the side of a format that is not streamed.
    pub host_bytes: u64,
    /// Whether the input was decoded and the output encoded as the bands went (false: that
    /// side's format is decoded or encoded whole).
    pub input_streamed: bool,
    /// Whether the output was encoded as the bands went.
    pub output_streamed: bool,
    /// What was done (the bands, transparency composited for JPEG), one line each.
    pub notes: Vec<String>,
    /// What was wrong with the input (a damaged file accepted with `allow_truncated`).
    pub warnings: Vec<String>,
    /// Wall times (ms): opening the input and output, the streamed run, finishing the file.
    pub open_ms: f64,
    /// The streamed run.
    pub run_ms: f64,
    /// Finishing the output file.
    pub finish_ms: f64,
}

impl Pipeline {
    /// Reads `input`, runs the pipeline and writes `output` (through a temporary file renamed
    /// into place), streamed in bands (`run_streamed`; PNG and TIFF decoded and encoded as the
    /// bands go, other formats whole). `Ok(None)` where the pipeline cannot run in bands (it
    /// ends in data, resamples, depends on position): nothing was read or written. The input's
    /// size is checked against the limits' pixels and its estimated memory against their
    /// memory (`limits`) before anything is decoded. `save`'s ICC profile and EXIF default to
    /// the input's. A JPEG before a leading shrink is decoded at a DCT scale where
    /// `run.shrink_on_load` (`io::shrink_on_load`).
    pub fn stream_file(
        &self,
        backend: &Backend,
        input: &std::path::Path,
        output: &std::path::Path,
        load: &crate::LoadOptions,
        save: &crate::SaveOptions,
        run: &RunOptions,
    ) -> Result<Option<FileReport>> {
        let io = |message: String| Error::ImageIo {
            path: input.to_path_buf(),
            message,
        };
        // shrink-on-load (issue 30): a format decoded whole (JPEG) before a leading shrink is
        // decoded at the DCT scale that keeps the resize's size, and its bands run from there
        // (PNG and TIFF stream at full size); the checks and the plan below are of the size
        // decoded
        let load = super::apply::shrink_on_load(self, input, load, run);
        let desc = super::rows::probe_load(input, &load)?;
        let limits = load.limits.unwrap_or_default();
        // the pixel limit first, with the whole path's message (a decompression bomb's header)
        limits
            .check_decode_pixels(desc.width, desc.height)
            .map_err(io)?;
        let t0 = crate::runtime::Instant::now();
        // the memory from the header's size (an EXIF turn swaps the sides, not the pixels); a
        // pipeline that cannot run in bands (data, resampling, second images of another size)
        // takes the whole path, which reports any error of its own
        let Ok(plan) = self.plan_stream_with(backend, desc, run) else {
            return Ok(None);
        };
        let streams = |p: &std::path::Path| {
            matches!(
                image::ImageFormat::from_path(p),
                Ok(image::ImageFormat::Png | image::ImageFormat::Tiff)
            )
        };
        let whole = |d: ImageDesc| d.pixels() as u64 * sample_bytes_per_pixel(d.format) as u64;
        let (in_streams, out_streams) = (streams(input), streams(output));
        let need = plan.host_bytes
            + if in_streams { 0 } else { 2 * whole(desc) }
            + if out_streams {
                0
            } else {
                whole(self.output_desc(desc)?)
            };
        limits.check_memory(
            &format!("streaming {}x{} in bands", desc.width, desc.height),
            need,
        )?;
        let (mut source, meta) = super::rows::open_rows(input, &load)?;
        // the decoded image's own size and format (upright, as `Image::load` turns it)
        let desc = source.desc();
        let out_desc = self.output_desc(desc)?;
        let save = crate::SaveOptions {
            icc_profile: save.icc_profile.clone().or(meta.icc_profile),
            exif: save.exif.clone().or(meta.exif),
            ..save.clone()
        };
        let mut sink = super::rows::create_rows_with(output, out_desc, &save, &limits)?;
        let open_ms = t0.elapsed().as_secs_f64() * 1e3;
        let t_run = crate::runtime::Instant::now();
        let stream = self.run_streamed_with(backend, &mut *source, &mut *sink, run)?;
        let run_ms = t_run.elapsed().as_secs_f64() * 1e3;
        let t_finish = crate::runtime::Instant::now();
        let (input_streamed, output_streamed) = (source.streams(), sink.streams());
        let mut notes = sink.finish()?;
        let whole_note = match (input_streamed, output_streamed) {
            (true, true) => "",
            (false, true) => " (the input's format is decoded whole)",
            (true, false) => " (the output's format is encoded whole)",
            (false, false) => " (input and output formats are decoded and encoded whole)",
        };
        let cut = if stream.through_geometry {
            "cut through the pipeline's change of geometry".to_string()
        } else {
            format!("with a {}-pixel halo", stream.halo)
        };
        notes.push(format!(
            "{}x{} streamed in {} bands of {} rows, tiles up to {} pixels wide {cut}; host memory about {} by the formula in docs/cli.md{whole_note}",
            desc.width,
            desc.height,
            stream.bands,
            stream.band_rows,
            stream.tile_width,
            crate::limits::human_bytes(need)
        ));
        Ok(Some(FileReport {
            stream,
            host_bytes: need,
            input_streamed,
            output_streamed,
            notes,
            warnings: source.warnings(),
            open_ms,
            run_ms,
            finish_ms: t_finish.elapsed().as_secs_f64() * 1e3,
        }))
    }
}
