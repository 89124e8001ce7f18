//! Images read and written a band of rows at a time, so that an image too large to hold whole
//! (and whole again for every intermediate) goes through a pipeline with bounded memory
//! (`Pipeline::run_streamed`, issue 20), as libvips streams.
//!
//! - PNG (not interlaced) is decoded and encoded row by row (the `png` crate);
//! - TIFF in strips (chunky 8/16-bit grey, RGB or RGBA, the common layout) is decoded strip
//!   by strip and written in strips;
//! - every other file (JPEG, WebP, BMP, an interlaced PNG, a tiled TIFF, an EXIF-rotated
//!   image) is decoded whole and handed out by rows (`ImageRows`), or collected whole and
//!   encoded at the end (`ImageSink`): those hold one whole image on the way in or out.
//!
//! Rows are tightly packed samples in `Image`'s layout (16-bit samples native-endian), and a
//! streamed file decodes to the same pixels as `Image::load` (same formats: grey 8-bit files to
//! `Gray8`, other 8-bit files to `Rgba8`, 16-bit files to `Rgba16`).

use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::output::{Output, OutputOptions};
use super::{LoadOptions, SaveOptions};
use crate::error::{Error, Result};
pub use crate::graph::rows::{ImageRows, MemorySink, RowSink, RowSource};
use crate::image::{image_bytes, Image, ImageData, ImageDesc, PixelFormat};
pub use crate::image::{row_bytes, sample_bytes_per_pixel};

/// The size and format `path` decodes to (as `Image::load` decodes it), from its header:
/// upright, its sides swapped where its EXIF orientation turns it a quarter (5-8).
pub fn probe(path: &Path) -> Result<ImageDesc> {
    probe_load(path, &LoadOptions::default())
}

/// `probe` under `load`: the size `Image::load` with these options decodes `path` at, from its
/// header, where a JPEG with `LoadOptions::min_size` is decoded at a DCT scale (shrink-on-load,
/// issue 30; libjpeg-turbo, which takes nearly every JPEG: where it does not, the decode is
/// full size and checked at that size). The checks made before a decode (limits, memory,
/// the run planner's choice of bands or tiles) are made on this size.
pub fn probe_load(path: &Path, load: &LoadOptions) -> Result<ImageDesc> {
    let io = |message: String| Error::ImageIo {
        path: path.to_path_buf(),
        message,
    };
    let reader = crate::input::image_reader(path).map_err(io)?;
    if reader.format() == Some(image::ImageFormat::Jpeg) {
        // the `image` crate's JPEG decoder reads the whole file to find its size: the header
        // is read here instead, however long the file
        let (w, h, components, orientation) = jpeg_frame_header(path).map_err(io)?;
        let format = if components == 1 {
            PixelFormat::Gray8
        } else {
            PixelFormat::Rgba8
        };
        let denom =
            super::codec::dct_denom_upright(w as usize, h as usize, orientation, load.min_size)
                as u32;
        let (w, h) = (w.div_ceil(denom), h.div_ceil(denom));
        return Ok(if super::codec::quarter_turn(orientation) {
            ImageDesc::new(h, w, format)
        } else {
            ImageDesc::new(w, h, format)
        });
    }
    let mut decoder = reader
        .into_decoder()
        .map_err(|e| io(format!("corrupt, truncated or unsupported image: {e}")))?;
    let (w, h) = image::ImageDecoder::dimensions(&decoder);
    let ct = image::ImageDecoder::color_type(&decoder);
    let format = if ct.bytes_per_pixel() / ct.channel_count().max(1) > 1 {
        PixelFormat::Rgba16
    } else if ct == image::ColorType::L8 {
        PixelFormat::Gray8
    } else {
        PixelFormat::Rgba8
    };
    // as `Image::load` turns it (what the decoder knows of the orientation from the header)
    let turned =
        image::ImageDecoder::orientation(&mut decoder).is_ok_and(super::codec::quarter_turn);
    Ok(if turned {
        ImageDesc::new(h, w, format)
    } else {
        ImageDesc::new(w, h, format)
    })
}

/// The stored width and height, the component count and the EXIF orientation of JPEG file
/// `path`, from its frame header (SOF: `codec::jpeg_frame_header`, which skips the segments
/// before it without reading them) and its APP1 `Exif` segments (`codec::jpeg_orientation`).
fn jpeg_frame_header(
    path: &Path,
) -> std::result::Result<(u32, u32, u8, image::metadata::Orientation), String> {
    let bad = || "corrupt, truncated or unsupported image: no JPEG frame header".to_string();
    let (file, _) = crate::input::open_regular(path)?;
    let mut reader = BufReader::new(file);
    let frame = super::codec::jpeg_frame_header(&mut reader).ok_or_else(bad)?;
    let (w, h) = frame.size();
    if w == 0 || h == 0 {
        return Err(bad());
    }
    std::io::Seek::rewind(&mut reader).map_err(|e| e.to_string())?;
    let orientation = super::codec::jpeg_orientation(&mut reader);
    Ok((w, h, frame.components(), orientation))
}

/// Opens `path` for reading by rows: streamed where the format allows (see the module docs),
/// else decoded whole. The size is checked against the limits' pixel count from the header;
/// the memory of a streamed file is the caller's to bound. Returns the source and the metadata
/// an output should carry.
pub fn open_rows(path: &Path, options: &LoadOptions) -> Result<(Box<dyn RowSource>, SaveOptions)> {
    let io = |message: String| Error::ImageIo {
        path: path.to_path_buf(),
        message,
    };
    let limits = options.limits.unwrap_or_default();
    let format = crate::input::image_reader(path).map_err(io)?.format();
    let streamed: Option<Box<dyn RowSource>> = match format {
        Some(image::ImageFormat::Png) => {
            PngRows::open(path, options.allow_truncated)?.map(|s| Box::new(s) as Box<dyn RowSource>)
        }
        Some(image::ImageFormat::Tiff) => TiffRows::open(path, options.allow_truncated)?
            .map(|s| Box::new(s) as Box<dyn RowSource>),
        _ => None,
    };
    if let Some(s) = streamed {
        let d = s.desc();
        limits.check_decode_pixels(d.width, d.height).map_err(io)?;
        return Ok((s, Image::read_metadata(path)));
    }
    let loaded = Image::load(path, options)?;
    Ok((
        Box::new(ImageRows::new(loaded.image).with_warnings(loaded.warnings)),
        loaded.metadata,
    ))
}

/// Creates `path` for writing an image of `desc` (the pipeline's output) by rows: PNG and TIFF
/// are encoded as rows come, other formats collected and encoded whole by `Image::save_with`.
pub fn create_rows(
    path: &Path,
    desc: ImageDesc,
    options: &SaveOptions,
) -> Result<Box<dyn RowSink>> {
    create_rows_with(path, desc, options, &crate::limits::Limits::default())
}

/// `create_rows` under `limits`: a format encoded whole must fit `max_memory` collected.
pub fn create_rows_with(
    path: &Path,
    desc: ImageDesc,
    options: &SaveOptions,
    limits: &crate::limits::Limits,
) -> Result<Box<dyn RowSink>> {
    let io = |message: String| Error::ImageIo {
        path: path.to_path_buf(),
        message,
    };
    let format = image::ImageFormat::from_path(path)
        .map_err(|_| io("unknown output extension (use .png, .jpg, .webp, .tif, .bmp)".into()))?;
    match format {
        image::ImageFormat::Png => Ok(Box::new(PngSink::create(path, desc, options)?)),
        image::ImageFormat::Tiff => Ok(Box::new(TiffSink::create(path, desc, options)?)),
        _ => {
            // written whole at the end (`Image::save_with`): its path is checked now
            crate::io::output::check_output(
                path,
                OutputOptions {
                    no_clobber: options.no_clobber,
                    special_files: false,
                },
            )?;
            limits.check_memory(
                &format!("collecting the {}x{} output", desc.width, desc.height),
                desc.pixels() as u64 * sample_bytes_per_pixel(desc.format) as u64,
            )?;
            Ok(Box::new(ImageSink {
                path: path.to_path_buf(),
                rows: MemorySink::new(desc),
                options: options.clone(),
            }))
        }
    }
}

/// The temporary file an output is written to before it is renamed into place (beside it, so
/// the rename stays on one file system): `io::output::temporary_path`.
pub fn temp_path(path: &Path) -> PathBuf {
    crate::io::output::temporary_path(path, "tmp")
}

/// An image output (`io::output::Output`): regular files only, `no_clobber` as `options` say.
pub(crate) fn image_output(path: &Path, options: &SaveOptions) -> Result<Output> {
    Output::create(
        path,
        OutputOptions {
            no_clobber: options.no_clobber,
            special_files: false,
        },
    )
}

/// A PNG decoded row by row (not interlaced; palette, low bit depths and tRNS expanded as
/// `Image::load` expands them).
pub struct PngRows {
    reader: png::Reader<BufReader<std::fs::File>>,
    desc: ImageDesc,
    color: png::ColorType,
    sixteen: bool,
    next: u32,
    path: PathBuf,
    allow_truncated: bool,
    /// Rows the decoder could not give (filled with zeros: transparent black).
    missing: u32,
    /// What the end of the data said once every row was read (a checksum that did not match).
    damaged: Option<String>,
}

impl PngRows {
    /// `None` for an interlaced PNG or one whose EXIF turns it (decoded whole instead).
    pub fn open(path: &Path, allow_truncated: bool) -> Result<Option<Self>> {
        let io = |message: String| Error::ImageIo {
            path: path.to_path_buf(),
            message,
        };
        let (file, _) = super::input::open_regular(path).map_err(io)?;
        let mut decoder = png::Decoder::new_with_limits(
            BufReader::with_capacity(1 << 20, file),
            // the metadata chunks (a compressed ICC profile) within the metadata bound; the
            // rows are the caller's to bound
            png::Limits {
                bytes: crate::limits::MAX_METADATA_BYTES as usize,
            },
        );
        decoder.set_transformations(png::Transformations::EXPAND);
        let reader = decoder
            .read_info()
            .map_err(|e| io(format!("corrupt, truncated or unsupported image: {e}")))?;
        let info = reader.info();
        let turned = info
            .exif_metadata
            .as_deref()
            .and_then(image::metadata::Orientation::from_exif_chunk)
            .is_some_and(|o| o != image::metadata::Orientation::NoTransforms);
        if info.interlaced || turned {
            return Ok(None);
        }
        let (color, depth) = reader.output_color_type();
        let sixteen = depth == png::BitDepth::Sixteen;
        let format = match (color, sixteen) {
            (_, true) => PixelFormat::Rgba16,
            (png::ColorType::Grayscale, false) => PixelFormat::Gray8,
            _ => PixelFormat::Rgba8,
        };
        let desc = ImageDesc::new(info.width, info.height, format);
        Ok(Some(Self {
            reader,
            desc,
            color,
            sixteen,
            next: 0,
            path: path.to_path_buf(),
            allow_truncated,
            missing: 0,
            damaged: None,
        }))
    }
}

/// One decoded PNG row (`color`, 8 or 16 bits) into `dst` in `Image`'s layout.
fn png_row_to_samples(src: &[u8], color: png::ColorType, sixteen: bool, dst: &mut [u8]) {
    let channels = match color {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        _ => 4,
    };
    if !sixteen {
        match channels {
            1 => dst.copy_from_slice(&src[..dst.len()]),
            4 => dst.copy_from_slice(&src[..dst.len()]),
            _ => {
                for (p, d) in src.chunks_exact(channels).zip(dst.chunks_exact_mut(4)) {
                    let px = if channels == 2 {
                        [p[0], p[0], p[0], p[1]]
                    } else {
                        [p[0], p[1], p[2], 255]
                    };
                    d.copy_from_slice(&px);
                }
            }
        }
        return;
    }
    // 16-bit samples are big-endian in the file; grey widened to RGB, missing alpha opaque
    let s = |p: &[u8], i: usize| u16::from_be_bytes([p[2 * i], p[2 * i + 1]]);
    for (p, d) in src.chunks_exact(2 * channels).zip(dst.chunks_exact_mut(8)) {
        let px = match channels {
            1 => [s(p, 0), s(p, 0), s(p, 0), 65535],
            2 => [s(p, 0), s(p, 0), s(p, 0), s(p, 1)],
            3 => [s(p, 0), s(p, 1), s(p, 2), 65535],
            _ => [s(p, 0), s(p, 1), s(p, 2), s(p, 3)],
        };
        for (k, v) in px.iter().enumerate() {
            d[2 * k..2 * k + 2].copy_from_slice(&v.to_ne_bytes());
        }
    }
}

impl RowSource for PngRows {
    fn desc(&self) -> ImageDesc {
        self.desc
    }
    fn read_rows(&mut self, dst: &mut [u8]) -> Result<()> {
        let rb = row_bytes(self.desc);
        for out in dst.chunks_exact_mut(rb.max(1)) {
            if self.missing > 0 {
                out.fill(0);
                self.next += 1;
                continue;
            }
            match self.reader.next_row() {
                Ok(Some(row)) => png_row_to_samples(row.data(), self.color, self.sixteen, out),
                other => {
                    let why = match other {
                        Err(e) => e.to_string(),
                        _ => "no more rows".into(),
                    };
                    if !self.allow_truncated {
                        return Err(Error::ImageIo { path: self.path.clone(), message: format!("corrupt or truncated image: row {} of {}: {why} (--allow-truncated keeps the rows before it)", self.next + 1, self.desc.height) });
                    }
                    out.fill(0);
                    self.missing = self.desc.height - self.next;
                }
            }
            self.next += 1;
        }
        // after the last row, the rest of the data (its checksums) is read as `Image::load`'s
        // decoder reads it: a damaged file is an error there, so here too
        if self.next == self.desc.height && self.missing == 0 && self.damaged.is_none() {
            if let Err(e) = self.reader.finish() {
                if !self.allow_truncated {
                    return Err(Error::ImageIo { path: self.path.clone(), message: format!("corrupt or truncated image: {e} (--allow-truncated keeps the rows as decoded)") });
                }
                self.damaged = Some(e.to_string());
            }
        }
        Ok(())
    }
    fn warnings(&self) -> Vec<String> {
        let mut w = Vec::new();
        if self.missing > 0 {
            w.push(format!("truncated or damaged PNG: the last {} of {} rows could not be decoded and are transparent black", self.missing, self.desc.height));
        }
        if let Some(e) = &self.damaged {
            w.push(format!("damaged PNG ({e}): its rows are as decoded"));
        }
        w
    }
    fn streams(&self) -> bool {
        true
    }
}

/// A TIFF in strips decoded strip by strip: chunky 8- or 16-bit unsigned grey, grey with
/// alpha, RGB or RGBA, upright (no orientation tag but 1).
pub struct TiffRows {
    decoder: tiff::decoder::Decoder<BufReader<std::fs::File>>,
    desc: ImageDesc,
    channels: usize,
    sixteen: bool,
    /// Decoded rows of the current strip not handed out yet, in `Image`'s layout.
    pending: Vec<u8>,
    pending_at: usize,
    next_strip: u32,
    path: PathBuf,
    allow_truncated: bool,
    /// Rows after the first strip that could not be decoded (zeros: transparent black).
    missing: u32,
    /// Rows handed out so far.
    given: u32,
}

impl TiffRows {
    /// `None` where the layout is not one of the above (decoded whole instead).
    pub fn open(path: &Path, allow_truncated: bool) -> Result<Option<Self>> {
        use tiff::tags::Tag;
        let io = |message: String| Error::ImageIo {
            path: path.to_path_buf(),
            message,
        };
        let corrupt =
            |e: tiff::TiffError| io(format!("corrupt, truncated or unsupported image: {e}"));
        let (file, _) = super::input::open_regular(path).map_err(io)?;
        // writers put the directory after the pixels: a cut file has none left to read
        let no_directory = |e: tiff::TiffError| {
            let why = if allow_truncated {
                " (--allow-truncated cannot help: the TIFF's directory of strips is damaged or cut off)"
            } else {
                ""
            };
            io(format!("corrupt, truncated or unsupported image: {e}{why}"))
        };
        let mut decoder = tiff::decoder::Decoder::new(BufReader::with_capacity(1 << 20, file))
            .map_err(no_directory)?
            .with_limits(tiff::decoder::Limits::unlimited());
        let (w, h) = decoder.dimensions().map_err(corrupt)?;
        let tag = |d: &mut tiff::decoder::Decoder<_>, t: Tag| {
            d.find_tag_unsigned::<u32>(t).ok().flatten()
        };
        let photometric = tag(&mut decoder, Tag::PhotometricInterpretation);
        let planar = tag(&mut decoder, Tag::PlanarConfiguration).unwrap_or(1);
        let sample_format = tag(&mut decoder, Tag::SampleFormat).unwrap_or(1);
        let orientation = tag(&mut decoder, Tag::Orientation).unwrap_or(1);
        let strips = decoder.get_chunk_type() == tiff::decoder::ChunkType::Strip;
        let (channels, bits) = match decoder.colortype().map_err(corrupt)? {
            tiff::ColorType::Gray(b) => (1, b),
            tiff::ColorType::GrayA(b) => (2, b),
            tiff::ColorType::RGB(b) => (3, b),
            tiff::ColorType::RGBA(b) => (4, b),
            _ => return Ok(None),
        };
        let plain = matches!(photometric, Some(1) | Some(2))
            && planar == 1
            && sample_format == 1
            && orientation == 1
            && strips
            && matches!(bits, 8 | 16);
        if !plain {
            return Ok(None);
        }
        let sixteen = bits == 16;
        let format = match (channels, sixteen) {
            (_, true) => PixelFormat::Rgba16,
            (1, false) => PixelFormat::Gray8,
            _ => PixelFormat::Rgba8,
        };
        Ok(Some(Self {
            decoder,
            desc: ImageDesc::new(w, h, format),
            channels,
            sixteen,
            pending: Vec::new(),
            pending_at: 0,
            next_strip: 0,
            path: path.to_path_buf(),
            allow_truncated,
            missing: 0,
            given: 0,
        }))
    }

    /// Decodes the next strip into `pending`.
    fn next_strip(&mut self) -> Result<()> {
        let io = |message: String| Error::ImageIo {
            path: self.path.clone(),
            message,
        };
        let strip = self.next_strip;
        let data = self.decoder.read_chunk(strip).map_err(|e| io(format!("corrupt or truncated image: strip {strip}: {e} (--allow-truncated keeps the rows before it)")))?;
        self.next_strip += 1;
        let c = self.channels;
        self.pending.clear();
        self.pending_at = 0;
        match data {
            tiff::decoder::DecodingResult::U8(v) if !self.sixteen => {
                if c == 1 || c == 4 {
                    self.pending.extend_from_slice(&v);
                } else {
                    for p in v.chunks_exact(c) {
                        self.pending.extend_from_slice(&if c == 2 {
                            [p[0], p[0], p[0], p[1]]
                        } else {
                            [p[0], p[1], p[2], 255]
                        });
                    }
                }
            }
            tiff::decoder::DecodingResult::U16(v) if self.sixteen => {
                for p in v.chunks_exact(c) {
                    let px = match c {
                        1 => [p[0], p[0], p[0], 65535],
                        2 => [p[0], p[0], p[0], p[1]],
                        3 => [p[0], p[1], p[2], 65535],
                        _ => [p[0], p[1], p[2], p[3]],
                    };
                    for s in px {
                        self.pending.extend_from_slice(&s.to_ne_bytes());
                    }
                }
            }
            _ => return Err(io("unexpected TIFF sample type".into())),
        }
        Ok(())
    }
}

impl RowSource for TiffRows {
    fn desc(&self) -> ImageDesc {
        self.desc
    }
    fn read_rows(&mut self, dst: &mut [u8]) -> Result<()> {
        let rb = row_bytes(self.desc).max(1);
        let mut at = 0;
        while at < dst.len() {
            if self.missing > 0 {
                dst[at..].fill(0);
                break;
            }
            if self.pending_at >= self.pending.len() {
                let decoded = self.next_strip().and_then(|_| {
                    if self.pending.is_empty() {
                        return Err(Error::ImageIo {
                            path: self.path.clone(),
                            message: "corrupt or truncated image: an empty strip".into(),
                        });
                    }
                    Ok(())
                });
                match decoded {
                    Ok(()) => {}
                    Err(e) if !self.allow_truncated => return Err(e),
                    Err(_) => {
                        self.missing = self.desc.height - (self.given + (at / rb) as u32);
                        dst[at..].fill(0);
                        break;
                    }
                }
            }
            let n = (dst.len() - at).min(self.pending.len() - self.pending_at);
            dst[at..at + n].copy_from_slice(&self.pending[self.pending_at..self.pending_at + n]);
            at += n;
            self.pending_at += n;
        }
        self.given += (dst.len() / rb) as u32;
        Ok(())
    }
    fn warnings(&self) -> Vec<String> {
        if self.missing == 0 {
            return Vec::new();
        }
        vec![format!("truncated or damaged TIFF: the last {} of {} rows could not be decoded and are transparent black", self.missing, self.desc.height)]
    }
    fn streams(&self) -> bool {
        true
    }
}

/// The samples of `band` as the 8-bit or 16-bit file formats take them: float images
/// quantised to 8 bits (as `Image::save_with` does).
fn storable(band: &Image) -> std::borrow::Cow<'_, Image> {
    match band.format() {
        PixelFormat::Rgba32F => std::borrow::Cow::Owned(band.convert(PixelFormat::Rgba8)),
        PixelFormat::R32F => std::borrow::Cow::Owned(band.convert(PixelFormat::Gray8)),
        _ => std::borrow::Cow::Borrowed(band),
    }
}

/// A PNG encoded row by row, with the input's ICC profile and EXIF.
pub struct PngSink {
    writer: png::StreamWriter<'static, BufWriter<std::fs::File>>,
    file: Output,
    path: PathBuf,
}

impl PngSink {
    pub(crate) fn create(path: &Path, desc: ImageDesc, options: &SaveOptions) -> Result<Self> {
        let file = image_output(path, options)?;
        let io = |message: String| Error::ImageIo {
            path: path.to_path_buf(),
            message,
        };
        let out = file.file()?.ok_or_else(|| io("not a file".into()))?;
        let mut info = png::Info::with_size(desc.width, desc.height);
        info.icc_profile = options.icc_profile.clone().map(Into::into);
        info.exif_metadata = options.exif.clone().map(Into::into);
        let (color, depth) = match desc.format {
            PixelFormat::Rgba16 => (png::ColorType::Rgba, png::BitDepth::Sixteen),
            PixelFormat::Gray8 | PixelFormat::R32F => {
                (png::ColorType::Grayscale, png::BitDepth::Eight)
            }
            _ => (png::ColorType::Rgba, png::BitDepth::Eight),
        };
        info.color_type = color;
        info.bit_depth = depth;
        let mut encoder = png::Encoder::with_info(BufWriter::with_capacity(1 << 20, out), info)
            .map_err(|e| io(e.to_string()))?;
        encoder.set_compression(match options.png_compression {
            crate::PngCompression::Fast => png::Compression::Fast,
            crate::PngCompression::Default => png::Compression::Balanced,
            crate::PngCompression::Best => png::Compression::High,
        });
        encoder.set_filter(png::Filter::Adaptive);
        let writer = encoder
            .write_header()
            .and_then(|w| w.into_stream_writer_with_size(1 << 20))
            .map_err(|e| io(e.to_string()))?;
        Ok(Self {
            writer,
            file,
            path: path.to_path_buf(),
        })
    }
}

impl RowSink for PngSink {
    fn write_rows(&mut self, band: &Image) -> Result<()> {
        let io = |e: std::io::Error| Error::ImageIo {
            path: self.path.clone(),
            message: e.to_string(),
        };
        let band = storable(band);
        match band.data() {
            ImageData::U16(v) => {
                let bytes: Vec<u8> = v.iter().flat_map(|s| s.to_be_bytes()).collect();
                self.writer.write_all(&bytes).map_err(io)
            }
            _ => self.writer.write_all(image_bytes(&band)).map_err(io),
        }
    }
    fn finish(self: Box<Self>) -> Result<Vec<String>> {
        let Self { writer, file, path } = *self;
        writer.finish().map_err(|e| Error::ImageIo {
            path,
            message: e.to_string(),
        })?;
        file.commit()?;
        Ok(Vec::new())
    }
    fn streams(&self) -> bool {
        true
    }
}

/// A TIFF written in strips (uncompressed, as `Image::save_with` writes TIFF). The encoder
/// lives on a thread of its own (its image writer borrows it), fed rows through a channel.
pub struct TiffSink {
    rows: Option<std::sync::mpsc::SyncSender<Vec<u8>>>,
    writer: Option<std::thread::JoinHandle<std::result::Result<(), String>>>,
    file: Option<Output>,
    path: PathBuf,
}

/// Rows per TIFF strip.
const TIFF_STRIP_ROWS: u32 = 64;

/// Writes rows (packed native-endian samples of `C`) as they arrive into strips of `tmp`.
fn write_tiff_strips<C: tiff::encoder::colortype::ColorType>(
    tmp: &Path,
    w: u32,
    h: u32,
    rx: std::sync::mpsc::Receiver<Vec<u8>>,
    from_bytes: fn(&[u8]) -> Vec<C::Inner>,
) -> std::result::Result<(), String>
where
    [C::Inner]: tiff::encoder::TiffValue,
{
    let out = std::fs::File::create(tmp).map_err(|e| e.to_string())?;
    let mut encoder = tiff::encoder::TiffEncoder::new(BufWriter::with_capacity(1 << 20, out))
        .map_err(|e| e.to_string())?;
    let mut img = encoder.new_image::<C>(w, h).map_err(|e| e.to_string())?;
    img.rows_per_strip(TIFF_STRIP_ROWS)
        .map_err(|e| e.to_string())?;
    let mut pending: Vec<C::Inner> = Vec::new();
    let mut rows = 0u32;
    let strip =
        |rows: u32| (TIFF_STRIP_ROWS.min(h - rows)) as usize * w as usize * C::SAMPLE_FORMAT.len();
    for bytes in rx {
        pending.extend(from_bytes(&bytes));
        while rows < h && pending.len() >= strip(rows) {
            let n = strip(rows);
            img.write_strip(&pending[..n]).map_err(|e| e.to_string())?;
            pending.drain(..n);
            rows += TIFF_STRIP_ROWS.min(h - rows);
        }
    }
    if rows < h {
        return Err(format!("only {rows} of {h} rows were written"));
    }
    img.finish().map_err(|e| e.to_string())
}

impl TiffSink {
    pub(crate) fn create(path: &Path, desc: ImageDesc, options: &SaveOptions) -> Result<Self> {
        use tiff::encoder::colortype::{Gray8, RGBA16, RGBA8};
        let file = image_output(path, options)?;
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(1);
        let tmp = file.write_path().unwrap_or(path).to_path_buf();
        let (w, h) = (desc.width, desc.height);
        let bytes8: fn(&[u8]) -> Vec<u8> = |b| b.to_vec();
        let bytes16: fn(&[u8]) -> Vec<u16> = |b| {
            b.chunks_exact(2)
                .map(|s| u16::from_ne_bytes([s[0], s[1]]))
                .collect()
        };
        let writer = std::thread::Builder::new().name("texelflow-tiff".into());
        let spawned = match desc.format {
            PixelFormat::Gray8 | PixelFormat::R32F => {
                writer.spawn(move || write_tiff_strips::<Gray8>(&tmp, w, h, rx, bytes8))
            }
            PixelFormat::Rgba16 => {
                writer.spawn(move || write_tiff_strips::<RGBA16>(&tmp, w, h, rx, bytes16))
            }
            _ => writer.spawn(move || write_tiff_strips::<RGBA8>(&tmp, w, h, rx, bytes8)),
        };
        let handle = spawned.map_err(|e| Error::ImageIo {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Ok(Self {
            rows: Some(tx),
            writer: Some(handle),
            file: Some(file),
            path: path.to_path_buf(),
        })
    }

    /// The writer thread's outcome (after the channel closed).
    fn join(&mut self) -> Result<()> {
        self.rows = None;
        let io = |message: String| Error::ImageIo {
            path: self.path.clone(),
            message,
        };
        match self.writer.take().map(|h| h.join()) {
            Some(Ok(Ok(()))) | None => Ok(()),
            Some(Ok(Err(e))) => Err(io(e)),
            Some(Err(_)) => Err(io("the TIFF writer panicked".into())),
        }
    }
}

impl RowSink for TiffSink {
    fn write_rows(&mut self, band: &Image) -> Result<()> {
        let band = storable(band);
        let sent = self
            .rows
            .as_ref()
            .is_some_and(|tx| tx.send(image_bytes(&band).to_vec()).is_ok());
        if !sent {
            // the writer stopped: its error says why
            self.join()?;
            return Err(Error::ImageIo {
                path: self.path.clone(),
                message: "the TIFF writer stopped".into(),
            });
        }
        Ok(())
    }
    fn finish(mut self: Box<Self>) -> Result<Vec<String>> {
        self.join()?;
        if let Some(file) = self.file.take() {
            file.commit()?;
        }
        Ok(Vec::new())
    }
    fn streams(&self) -> bool {
        true
    }
}

impl Drop for TiffSink {
    fn drop(&mut self) {
        // the writer ends when the channel closes; wait so the temporary file can go
        let _ = self.join();
    }
}

/// An output collected whole and encoded at the end by `Image::save_with` (JPEG, WebP, BMP).
pub struct ImageSink {
    path: PathBuf,
    rows: MemorySink,
    options: SaveOptions,
}

impl RowSink for ImageSink {
    fn write_rows(&mut self, band: &Image) -> Result<()> {
        self.rows.write_rows(band)
    }
    fn finish(self: Box<Self>) -> Result<Vec<String>> {
        let Self {
            path,
            rows,
            options,
        } = *self;
        let image = rows.into_image()?;
        let mut notes = Vec::new();
        let no_alpha =
            image::ImageFormat::from_path(&path).is_ok_and(|f| !crate::io::format_has_alpha(f));
        if no_alpha && image.has_transparency() {
            let [r, g, b] = options.background;
            notes.push(format!("JPEG has no alpha: transparent pixels were composited over rgb({r}, {g}, {b}) (--background)"));
        }
        image.save_with(&path, &options)?;
        Ok(notes)
    }
    fn streams(&self) -> bool {
        false
    }
}
