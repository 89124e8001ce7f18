//! An image streamed through a pipeline in bands of rows (issue 20): rows are decoded as the
//! band that needs them is reached, each band runs in tiles with halos (`run_region`, so the
//! result is bit-identical to a whole run) and is encoded as soon as it is done. Decoding,
//! the GPU and encoding run on three threads, one band apart.
//!
//! Host memory, in bytes, for a `W`-wide image with `b_in` / `b_out` bytes per input / output
//! pixel (`rows::sample_bytes_per_pixel`), bands of `B` rows, a halo of `r` and a grid of `a`:
//!
//! `W × [ (B + 2r + a) × b_in  (the rows at hand)  +  2 × B × b_in  (decoded ahead)
//!        + 3 × B × b_out  (the band being made, one queued, one being encoded) ]`
//! `+ min(in_flight, tiles per band) × tile × t` where `tile` is a tile's pixels with its halo
//! and `t` is `b_in + b_out` on a GPU (staging memory in and out) or `2 b_in + 2 b_out + 16`
//! on the CPU reference (its copies and a float RGBA temporary)
//!
//! plus whatever the file formats that are not streamed hold whole (`rows`), and on a GPU
//! that shares host memory (lavapipe) the tiles' intermediates. `StreamReport::host_bytes` is
//! this estimate for a run.
//!
//! Through a resize, crop, flip or turn (`chain.rs`) bands are of output rows, each reading
//! the input rows its tiles' parts need: `(B + 2r + a)` above becomes the most input rows a
//! band reads, and the band being made is `W_out` wide. Those rows must move down the image
//! (a vertical flip cannot stream but in one band); a turn reads every row for every band.

use std::sync::mpsc::{sync_channel, Receiver};

use super::rows::{RowSink, RowSource};
use super::tile::{RowsRef, Tiling};
use super::{Backend, Pipeline, RunOptions};
use crate::error::{Error, Result};
use crate::image::{row_bytes, sample_bytes_per_pixel};
use crate::image::{Image, ImageDesc};
use crate::limits::Limits;

/// How an image too large for the GPU is cut (`RunOptions::tiling`; `run_streamed` and
/// `stream_file` take it directly): the run planner (`plan_run`) reads nothing else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TilePolicy {
    /// Most GPU memory one run may take (bytes; `None`: the device's own limits): a run that
    /// would take more goes in tiles where its pipeline allows, else fails (the CLI's
    /// `--max-gpu-memory`).
    pub max_gpu_memory: Option<u64>,
    /// Square tiles of this side wherever the pipeline can run in tiles, even when the image
    /// fits (tests; the CLI's `TEXELFLOW_TILE`).
    pub tile: Option<u32>,
    /// Rows of output per band (`None`: `DEFAULT_BAND_ROWS`, lower where the GPU's binding or
    /// memory budget needs it; the CLI's `TEXELFLOW_STREAM_ROWS`).
    pub band_rows: Option<u32>,
    /// Core width of a band's tiles (`None`: as wide as the GPU's binding allows; the whole
    /// band on the CPU).
    pub tile_width: Option<u32>,
    /// Tiles in flight on the GPU (one uploading, one running, one read back).
    pub in_flight: usize,
}

/// Output rows per band by default: 1024 rows keep a 20000-pixel-wide RGBA8 band at 80 MB.
pub const DEFAULT_BAND_ROWS: u32 = 1024;

/// Tiles in flight by default: one tile's upload, another's kernels and a third's read-back
/// overlap.
pub const DEFAULT_IN_FLIGHT: usize = 3;

impl Default for TilePolicy {
    fn default() -> Self {
        Self {
            max_gpu_memory: None,
            tile: None,
            band_rows: None,
            tile_width: None,
            in_flight: DEFAULT_IN_FLIGHT,
        }
    }
}

/// What a streamed run did.
#[derive(Clone, Debug, Default)]
pub struct StreamReport {
    /// Input width in pixels.
    pub width: u32,
    /// Input height in pixels.
    pub height: u32,
    /// Bands run.
    pub bands: u32,
    /// Output rows per band.
    pub band_rows: u32,
    /// Tiles run, over all bands.
    pub tiles: u64,
    /// Width of a band's tiles, pixels.
    pub tile_width: u32,
    /// Pixels of halo around each tile (the pipeline's footprint).
    pub halo: u32,
    /// The grid tiles start on (a decimated blur's spacing; 1 for most pipelines).
    pub align: u32,
    /// Whether tiles are cut through the stages' geometry (a resize, crop, flip or turn:
    /// `chain.rs`) rather than with a halo alone.
    pub through_geometry: bool,
    /// The module docs' estimate of host memory for this run (bytes).
    pub host_bytes: u64,
    /// Most input rows held at once (the window's rows).
    pub max_rows_held: u32,
    /// Where the tiles' time went.
    pub times: super::TileTimes,
}

impl Pipeline {
    /// The output of this pipeline for an input of `desc`: an image's size and format, or an
    /// error where it ends in data.
    pub fn output_desc(&self, desc: ImageDesc) -> Result<ImageDesc> {
        graph_output_image(&self.graph_for(desc)?.0)
    }

    /// How `run_streamed` would cut an input of `desc` on `backend` (bands, tile width, halo)
    /// and the host memory it is estimated to take (module docs), without running anything.
    pub fn plan_stream(
        &self,
        backend: &Backend,
        desc: ImageDesc,
        opts: &TilePolicy,
    ) -> Result<StreamReport> {
        self.plan_bands(backend, desc, opts, &Limits::default())
            .map(|(r, _)| r)
    }

    /// `plan_stream` under a run's options (its tiling policy and limits).
    pub(crate) fn plan_stream_with(
        &self,
        backend: &Backend,
        desc: ImageDesc,
        run: &RunOptions,
    ) -> Result<StreamReport> {
        self.plan_bands(backend, desc, &run.tiling, &run.limits)
            .map(|(r, _)| r)
    }

    /// `plan_stream`, with the tiling it found.
    fn plan_bands(
        &self,
        backend: &Backend,
        desc: ImageDesc,
        opts: &TilePolicy,
        limits: &Limits,
    ) -> Result<(StreamReport, Tiling)> {
        let (w, h) = (desc.width, desc.height);
        // one graph for the halo, the output and the bytes a pixel takes; every image it makes
        // within the pixel limit
        let (g, _) = self.graph_for(desc)?;
        super::check::check_graph_pixels(&g, limits)?;
        let (halo, align) = match super::tile::graph_halo(&g) {
            Ok(tiling) => tiling,
            Err(why) => {
                return match self.tile_chain(desc)? {
                    Ok(chain) if chain.has_geometry() => {
                        self.plan_chain_bands(backend, desc, graph_output_image(&g)?, chain, opts)
                    }
                    Ok(_) => Err(Error::Graph(crate::GraphError::NotBandable {
                        why: why.to_string(),
                    })),
                    Err(stage_why) => Err(Error::Graph(crate::GraphError::NotBandable {
                        why: stage_why.to_string(),
                    })),
                };
            }
        };
        self.check_tiled_extras(w, h)?;
        let out = graph_output_image(&g)?;
        let margin = (2 * halo + align) as u64;
        let in_flight = opts.in_flight.max(1) as u64;
        let asked_rows = opts.band_rows.filter(|&v| v > 0);
        let mut band = asked_rows.unwrap_or(DEFAULT_BAND_ROWS).clamp(1, h.max(1));
        let (b_in, b_out) = (
            sample_bytes_per_pixel(desc.format) as u64,
            sample_bytes_per_pixel(out.format) as u64,
        );
        // the tile width and host memory of bands of `band` rows
        let estimate = |band: u32| {
            let (band, tile_width) = match backend {
                Backend::Gpu(gpu) => {
                    // the widest value of a tile fits a binding with a quarter spare; every value
                    // of the tiles in flight fits the memory budget: the pixels a tile may have
                    let widest = super::tile::widest_bytes_per_pixel(&g);
                    let all = super::execute::graph_gpu_bytes(&g)
                        .div_ceil(desc.pixels().max(1) as u64)
                        .max(1);
                    let tile_pixels = (gpu.max_binding() / 4 * 3 / widest).min(
                        opts.max_gpu_memory
                            .map_or(u64::MAX, |b| b / in_flight / all),
                    );
                    let band = if asked_rows.is_none() {
                        // bands low enough that a tile 64 pixels wide fits
                        band.min(
                            (tile_pixels / (64 + margin)).saturating_sub(margin).max(16) as u32,
                        )
                        .max(1)
                    } else {
                        band
                    };
                    let tile_width = match opts.tile_width {
                        Some(t) => t,
                        None => {
                            let fit = (tile_pixels / (band as u64 + margin))
                                .saturating_sub(margin)
                                .clamp(64, 16384) as u32;
                            even_tile_width(w, fit, in_flight as usize)
                        }
                    };
                    (band, tile_width)
                }
                Backend::Cpu => (band, opts.tile_width.unwrap_or(w)),
            };
            let tile_width = tile_width.clamp(1, w.max(1));
            let window_rows = (band + 2 * halo + align).min(h);
            let tile_px = (tile_width + 2 * halo + align).min(w) as u64 * window_rows as u64;
            // a tile on the GPU holds staging memory in and out; on the CPU its crop, the run's
            // copy, input and output and a float RGBA temporary (`limits`' CPU formula)
            let per_tile_pixel = match backend {
                Backend::Gpu(_) => b_in + b_out,
                Backend::Cpu => 2 * b_in + 2 * b_out + 16,
            };
            let at_once = in_flight.min(w.div_ceil(tile_width.max(1)) as u64);
            let host_bytes = w as u64
                * (window_rows as u64 * b_in + 2 * band as u64 * b_in + 3 * band as u64 * b_out)
                + at_once * tile_px * per_tile_pixel;
            (band, tile_width, host_bytes)
        };
        let (mut band_now, mut tile_width, mut host_bytes) = estimate(band);
        // bands lower until they fit half the memory limit (issue 29 item 7): a wide image's
        // bands of the default height can take more than a small `max_memory`; the other half
        // is the tiles' own GPU memory where the device is the CPU (lavapipe) and a format
        // decoded or encoded whole
        while asked_rows.is_none() && host_bytes > limits.max_memory / 2 && band_now > 16 {
            band = band_now / 2;
            (band_now, tile_width, host_bytes) = estimate(band);
        }
        let band = band_now;
        Ok((
            StreamReport {
                width: w,
                height: h,
                band_rows: band,
                tile_width,
                halo,
                align,
                host_bytes,
                ..Default::default()
            },
            Tiling::Halo(halo, align),
        ))
    }

    /// `plan_bands` through the stages' geometry (`chain.rs`): bands of output rows, each
    /// reading the input rows its tiles' parts need. Those rows must move down the image band
    /// by band (not a vertical flip); a turn reads every row for every band (the whole image
    /// held, in the estimate too).
    fn plan_chain_bands(
        &self,
        backend: &Backend,
        desc: ImageDesc,
        out: ImageDesc,
        chain: super::chain::TileChain,
        opts: &TilePolicy,
    ) -> Result<(StreamReport, Tiling)> {
        let (w, h) = (desc.width, desc.height);
        let (ow, oh) = (out.width, out.height);
        let in_flight = opts.in_flight.max(1);
        // by default, bands of output rows that read about DEFAULT_BAND_ROWS input rows
        let mut band = opts
            .band_rows
            .filter(|&v| v > 0)
            .unwrap_or_else(|| {
                (DEFAULT_BAND_ROWS as u64 * oh as u64 / h.max(1) as u64)
                    .clamp(16, DEFAULT_BAND_ROWS as u64) as u32
            })
            .clamp(1, oh.max(1));
        let tile_width = match backend {
            Backend::Gpu(gpu) => {
                let (tw, th) = chain.tile_size(
                    self,
                    gpu.max_binding(),
                    opts.max_gpu_memory,
                    in_flight,
                    band,
                )?;
                band = th;
                match opts.tile_width {
                    Some(t) => t,
                    None => even_tile_width(ow, tw, in_flight),
                }
            }
            Backend::Cpu => opts.tile_width.unwrap_or(ow),
        }
        .clamp(1, ow.max(1));
        // the input rows each band reads: moving down, and the most held at once
        let (mut last, mut window_rows) = ((0u32, 0u32), 0u32);
        let tiling = Tiling::Chain(chain);
        for y in (0..oh).step_by(band.max(1) as usize) {
            let rows = tiling.input_rows(self, h, ow, (y, (y + band).min(oh)))?;
            if rows.0 < last.0 || rows.1 < last.1 {
                return Err(Error::Graph(crate::GraphError::NotBandable { why: "its output rows read the input's rows bottom to top (a vertical flip or a turn)".into() }));
            }
            window_rows = window_rows.max(rows.1 - rows.0);
            last = rows;
        }
        let Tiling::Chain(chain) = &tiling else {
            return Err(Error::invalid("no chain"));
        };
        let (b_in, b_out) = (
            sample_bytes_per_pixel(desc.format) as u64,
            sample_bytes_per_pixel(out.format) as u64,
        );
        // a tile's input part (in the middle of the image, where no edge clamps it) and core
        let core = crate::region::Rect::new(
            (ow - tile_width) / 2,
            (oh - band.min(oh)) / 2,
            tile_width,
            band.min(oh),
        );
        let part = chain.input_part(self, core)?;
        let (in_px, core_px) = (part.w as u64 * part.h as u64, core.w as u64 * core.h as u64);
        // as in `plan_bands`: staging memory in and out on a GPU; copies, input, output and a
        // float RGBA temporary on the CPU
        let per_tile = match backend {
            Backend::Gpu(_) => in_px * b_in + core_px * b_out,
            Backend::Cpu => 2 * in_px * b_in + 2 * core_px * b_out + 16 * in_px.max(core_px),
        };
        let at_once = (in_flight as u64).min(ow.div_ceil(tile_width.max(1)) as u64);
        let host_bytes = w as u64 * (window_rows as u64 * b_in + 2 * band as u64 * b_in)
            + 3 * ow as u64 * band as u64 * b_out
            + at_once * per_tile;
        Ok((
            StreamReport {
                width: w,
                height: h,
                band_rows: band,
                tile_width,
                halo: 0,
                align: 1,
                through_geometry: true,
                host_bytes,
                ..Default::default()
            },
            tiling,
        ))
    }

    /// Runs `source` through the pipeline in bands of rows into `sink` (see the module docs
    /// for the memory this takes; `plan_stream` tells it beforehand); the sink is not finished
    /// (`RowSink::finish`). The output equals `run` on the whole image, byte for byte.
    pub fn run_streamed(
        &self,
        backend: &Backend,
        source: &mut dyn RowSource,
        sink: &mut dyn RowSink,
        opts: &TilePolicy,
    ) -> Result<StreamReport> {
        let run = RunOptions {
            tiling: *opts,
            ..RunOptions::default()
        };
        self.run_streamed_with(backend, source, sink, &run)
    }

    /// `run_streamed` with every option of a run (the tiling policy, schedules, fusion) in
    /// force for its tiles.
    pub fn run_streamed_with(
        &self,
        backend: &Backend,
        source: &mut dyn RowSource,
        sink: &mut dyn RowSink,
        run: &RunOptions,
    ) -> Result<StreamReport> {
        let opts = &run.tiling;
        let desc = source.desc();
        let (w, h) = (desc.width, desc.height);
        let (mut report, tiling) = self.plan_bands(backend, desc, opts, &run.limits)?;
        let (band, tile_width) = (report.band_rows, report.tile_width);
        if w == 0 || h == 0 {
            return Ok(report);
        }
        let rb = row_bytes(desc);
        std::thread::scope(|s| -> Result<()> {
            // decoding, one band of rows ahead
            let (chunk_tx, chunk_rx) = sync_channel::<Result<Vec<u8>>>(1);
            s.spawn(move || {
                let mut y = 0;
                while y < h {
                    let n = band.min(h - y);
                    let mut rows = vec![0u8; n as usize * rb];
                    let r = source.read_rows(&mut rows).map(|_| rows);
                    let failed = r.is_err();
                    if chunk_tx.send(r).is_err() || failed {
                        return;
                    }
                    y += n;
                }
            });
            // encoding, behind
            let (band_tx, band_rx) = sync_channel::<Image>(1);
            let writer = s.spawn(move || -> Result<()> {
                for b in band_rx {
                    sink.write_rows(&b)?;
                }
                Ok(())
            });
            let made = self.stream_bands(
                backend,
                desc,
                chunk_rx,
                &band_tx,
                band,
                tile_width,
                run,
                &tiling,
                &mut report,
            );
            drop(band_tx);
            let written = writer
                .join()
                .unwrap_or_else(|_| Err(Error::internal("the encoder thread panicked")));
            // the writer's error is the cause where both failed (a full disk stops the bands)
            written.and(made)
        })?;
        Ok(report)
    }

    /// The GPU's part of `run_streamed`: keeps the input rows the current band needs in a
    /// window, runs the band, hands it to the encoder.
    #[allow(clippy::too_many_arguments)]
    fn stream_bands(
        &self,
        backend: &Backend,
        desc: ImageDesc,
        chunks: Receiver<Result<Vec<u8>>>,
        bands: &std::sync::mpsc::SyncSender<Image>,
        band: u32,
        tile_width: u32,
        run: &RunOptions,
        tiling: &Tiling,
        report: &mut StreamReport,
    ) -> Result<()> {
        let (w, h) = (desc.width, desc.height);
        let out = self.output_desc(desc)?;
        let rb = row_bytes(desc);
        // input rows win_y0..win_y1 at hand, packed
        let mut window: Vec<u8> = Vec::new();
        let (mut win_y0, mut win_y1) = (0u32, 0u32);
        // decoded rows not yet in the window: a chunk and how far into it
        let mut chunk: Vec<u8> = Vec::new();
        let mut chunk_at = 0usize;
        let mut y = 0;
        while y < out.height {
            let y_end = (y + band).min(out.height);
            let (need0, need1) = tiling.input_rows(self, h, out.width, (y, y_end))?;
            // drop rows above what the band reads, skip rows no band reads (above a crop), then
            // read down to its end
            let drop = need0.saturating_sub(win_y0).min(win_y1 - win_y0);
            window.drain(..drop as usize * rb);
            win_y0 += drop;
            while win_y1 < need1 {
                if chunk_at >= chunk.len() {
                    chunk = chunks
                        .recv()
                        .map_err(|_| Error::internal("the decoder stopped"))??;
                    chunk_at = 0;
                }
                if win_y1 < need0 {
                    let skip = (need0 - win_y1).min(((chunk.len() - chunk_at) / rb.max(1)) as u32);
                    chunk_at += skip as usize * rb;
                    win_y1 += skip;
                    win_y0 = win_y1;
                    continue;
                }
                let take = ((need1 - win_y1) as usize * rb).min(chunk.len() - chunk_at);
                window.extend_from_slice(&chunk[chunk_at..chunk_at + take]);
                chunk_at += take;
                win_y1 += (take / rb) as u32;
            }
            report.max_rows_held = report.max_rows_held.max(win_y1 - win_y0);
            let src = RowsRef {
                bytes: &window,
                width: w,
                format: desc.format,
                y0: win_y0,
            };
            let (made, times) = self.run_region(
                backend,
                src,
                (w, h),
                (y, y_end),
                (tile_width, band),
                run,
                tiling,
            )?;
            report.tiles += times.tiles;
            report.times.merge(&times);
            report.bands += 1;
            if bands.send(made).is_err() {
                return Err(Error::internal("the encoder stopped"));
            }
            y = y_end;
        }
        Ok(())
    }
}

/// The tile width for a `width`-wide band whose tiles may be `fit` wide: at least as many tiles
/// as are in flight (each at least 1024 wide), so that one tile's upload, another's kernels and
/// a third's paste overlap within a band; of even widths (20000 in three: 6667, 6667, 6666).
pub(super) fn even_tile_width(width: u32, fit: u32, in_flight: usize) -> u32 {
    let tiles = width
        .div_ceil(fit.max(1))
        .max((in_flight as u32).min(width.div_ceil(1024)));
    width.div_ceil(tiles.max(1))
}

/// The image a pipeline's graph ends in (its `output`), or why not.
pub(super) fn graph_output_image(g: &super::Graph) -> Result<ImageDesc> {
    let out = g
        .outputs
        .iter()
        .find(|(n, _)| n == "output")
        .map(|(_, p)| g.desc(*p))
        .ok_or_else(|| Error::invalid("no output"))?;
    out.image()
        .ok_or_else(|| Error::invalid("the pipeline ends in data, not an image"))
}
