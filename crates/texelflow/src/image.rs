//! The image model shared by the CPU reference and the GPU runtime.
//!
//! On the CPU an image is a tightly packed array. On the GPU each format has a fixed
//! storage-buffer layout that every kernel agrees on:
//!
//! | format    | CPU                        | GPU storage buffer                                  |
//! |-----------|----------------------------|-----------------------------------------------------|
//! | `Rgba8`   | `w*h*4` bytes              | one `u32` per pixel (`unpack4x8unorm`)              |
//! | `Rgba16`  | `w*h*4` `u16`              | two `u32` per pixel: `pack2x16unorm(r, g)`, `pack2x16unorm(b, a)` |
//! | `Gray8`   | `w*h` bytes                | 4 pixels per `u32`, rows padded to a whole word     |
//! | `Rgba32F` | `w*h*4` `f32`              | one `vec4<f32>` per pixel                           |
//! | `R32F`    | `w*h` `f32`                | one `f32` per pixel                                 |

use crate::error::{Error, Result};

/// Pixel format of an image on the CPU and the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PixelFormat {
    /// 8-bit RGBA, the format of loaded and saved images.
    Rgba8,
    /// 8-bit single channel (luminance, masks).
    Gray8,
    /// 16-bit RGBA: 16-bit PNG and TIFF files load as this and save back exactly. Per-pixel
    /// filters, `gaussian_blur` and `box_blur` take it; before other filters a pipeline
    /// narrows it to `Rgba8` (and says so in `RunResult::notes`).
    Rgba16,
    /// 32-bit float RGBA for intermediates that need precision.
    Rgba32F,
    /// 32-bit float single channel.
    R32F,
}

impl PixelFormat {
    /// Channels per pixel.
    pub fn channels(self) -> usize {
        match self {
            PixelFormat::Rgba8 | PixelFormat::Rgba16 | PixelFormat::Rgba32F => 4,
            PixelFormat::Gray8 | PixelFormat::R32F => 1,
        }
    }
    /// Short lowercase name used in messages and specs.
    pub fn name(self) -> &'static str {
        match self {
            PixelFormat::Rgba8 => "rgba8",
            PixelFormat::Gray8 => "gray8",
            PixelFormat::Rgba16 => "rgba16",
            PixelFormat::Rgba32F => "rgba32f",
            PixelFormat::R32F => "r32f",
        }
    }
    /// Whether samples are 8-bit integers (tolerances apply in 1/255 steps).
    pub fn is_8bit(self) -> bool {
        matches!(self, PixelFormat::Rgba8 | PixelFormat::Gray8)
    }
    /// Whether samples are floats (`Rgba32F`, `R32F`).
    pub fn is_float(self) -> bool {
        matches!(self, PixelFormat::Rgba32F | PixelFormat::R32F)
    }
    /// Bytes one row occupies in the GPU storage buffer layout.
    pub fn gpu_row_bytes(self, width: u32) -> u64 {
        let w = width as u64;
        match self {
            PixelFormat::Rgba8 => w * 4,
            PixelFormat::Gray8 => w.div_ceil(4) * 4,
            PixelFormat::Rgba16 => w * 8,
            PixelFormat::Rgba32F => w * 16,
            PixelFormat::R32F => w * 4,
        }
    }
    /// Bytes of a whole image in the GPU layout.
    pub fn gpu_bytes(self, width: u32, height: u32) -> u64 {
        self.gpu_row_bytes(width) * height as u64
    }
}

/// Width, height and format: what a graph knows about an image before it has pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageDesc {
    pub width: u32,
    pub height: u32,
    pub format: PixelFormat,
}

impl ImageDesc {
    pub fn new(width: u32, height: u32, format: PixelFormat) -> Self {
        Self {
            width,
            height,
            format,
        }
    }
    pub fn pixels(&self) -> usize {
        self.width as usize * self.height as usize
    }
    pub fn with_format(self, format: PixelFormat) -> Self {
        Self { format, ..self }
    }
}

impl std::fmt::Display for ImageDesc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{} {}", self.width, self.height, self.format.name())
    }
}

/// Pixel storage on the CPU.
#[derive(Clone, Debug, PartialEq)]
pub enum ImageData {
    /// 8-bit samples (`Rgba8`, `Gray8`).
    U8(Vec<u8>),
    /// 16-bit samples (`Rgba16`).
    U16(Vec<u16>),
    /// float samples (`Rgba32F`, `R32F`).
    F32(Vec<f32>),
}

/// An image in CPU memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    desc: ImageDesc,
    data: ImageData,
}

/// Largest side of an image a filter makes (resize, pad, transform, generators). Loading
/// is bounded by `limits::Limits` (pixels and memory) instead, so that whatever texelflow
/// writes it can read back.
pub const MAX_SIDE: u32 = 1 << 15;

impl Image {
    /// Builds an 8-bit image; fails if the buffer length does not match.
    pub fn from_u8(width: u32, height: u32, format: PixelFormat, data: Vec<u8>) -> Result<Self> {
        if !format.is_8bit() {
            return Err(Error::Image(format!(
                "{} is not an 8-bit format",
                format.name()
            )));
        }
        Self::check_dims(width, height)?;
        let need = width as usize * height as usize * format.channels();
        if data.len() != need {
            return Err(Error::Image(format!(
                "{}x{} {} needs {need} bytes, got {}",
                width,
                height,
                format.name(),
                data.len()
            )));
        }
        Ok(Self {
            desc: ImageDesc::new(width, height, format),
            data: ImageData::U8(data),
        })
    }
    /// Builds a 16-bit image (`Rgba16`); fails if the buffer length does not match.
    pub fn from_u16(width: u32, height: u32, data: Vec<u16>) -> Result<Self> {
        Self::check_dims(width, height)?;
        let need = width as usize * height as usize * 4;
        if data.len() != need {
            return Err(Error::Image(format!(
                "{width}x{height} rgba16 needs {need} samples, got {}",
                data.len()
            )));
        }
        Ok(Self {
            desc: ImageDesc::new(width, height, PixelFormat::Rgba16),
            data: ImageData::U16(data),
        })
    }
    /// Builds a float image; fails if the buffer length does not match.
    pub fn from_f32(width: u32, height: u32, format: PixelFormat, data: Vec<f32>) -> Result<Self> {
        if !format.is_float() {
            return Err(Error::Image(format!(
                "{} is not a float format",
                format.name()
            )));
        }
        Self::check_dims(width, height)?;
        let need = width as usize * height as usize * format.channels();
        if data.len() != need {
            return Err(Error::Image(format!(
                "{}x{} {} needs {need} floats, got {}",
                width,
                height,
                format.name(),
                data.len()
            )));
        }
        Ok(Self {
            desc: ImageDesc::new(width, height, format),
            data: ImageData::F32(data),
        })
    }
    fn check_dims(width: u32, height: u32) -> Result<()> {
        if width == 0 || height == 0 {
            return Err(Error::Image(format!("empty image ({width}x{height})")));
        }
        Ok(())
    }
    /// A zero-filled image.
    pub fn zeroed(desc: ImageDesc) -> Self {
        let n = desc.pixels() * desc.format.channels();
        let data = match desc.format {
            PixelFormat::Rgba16 => ImageData::U16(vec![0; n]),
            f if f.is_8bit() => ImageData::U8(vec![0; n]),
            _ => ImageData::F32(vec![0.0; n]),
        };
        Self { desc, data }
    }
    pub fn desc(&self) -> ImageDesc {
        self.desc
    }
    pub fn width(&self) -> u32 {
        self.desc.width
    }
    pub fn height(&self) -> u32 {
        self.desc.height
    }
    pub fn format(&self) -> PixelFormat {
        self.desc.format
    }
    pub fn data(&self) -> &ImageData {
        &self.data
    }
    /// 8-bit samples; panics never: returns an empty slice for other images.
    pub fn as_u8(&self) -> &[u8] {
        match &self.data {
            ImageData::U8(v) => v,
            _ => &[],
        }
    }
    pub fn as_u8_mut(&mut self) -> &mut [u8] {
        match &mut self.data {
            ImageData::U8(v) => v,
            _ => &mut [],
        }
    }
    /// 16-bit samples; an empty slice for other images.
    pub fn as_u16(&self) -> &[u16] {
        match &self.data {
            ImageData::U16(v) => v,
            _ => &[],
        }
    }
    pub fn as_u16_mut(&mut self) -> &mut [u16] {
        match &mut self.data {
            ImageData::U16(v) => v,
            _ => &mut [],
        }
    }
    pub fn as_f32(&self) -> &[f32] {
        match &self.data {
            ImageData::F32(v) => v,
            _ => &[],
        }
    }
    pub fn as_f32_mut(&mut self) -> &mut [f32] {
        match &mut self.data {
            ImageData::F32(v) => v,
            _ => &mut [],
        }
    }

    /// The GPU storage layout, borrowed where it is the image's own (RGBA8, RGBA16, the float
    /// formats; little-endian hosts, as the float formats already assume):
    /// uploads need no copy of the pixels.
    pub fn gpu_bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        match (&self.data, self.desc.format) {
            (ImageData::U8(v), PixelFormat::Rgba8) => std::borrow::Cow::Borrowed(v.as_slice()),
            (ImageData::F32(v), _) => std::borrow::Cow::Borrowed(bytemuck::cast_slice(v)),
            (ImageData::U16(v), _) => std::borrow::Cow::Borrowed(bytemuck::cast_slice(v)),
            _ => std::borrow::Cow::Owned(self.to_gpu_bytes()),
        }
    }

    /// Serialises into the GPU storage layout (see module docs).
    pub fn to_gpu_bytes(&self) -> Vec<u8> {
        match (&self.data, self.desc.format) {
            (ImageData::U8(v), PixelFormat::Gray8) => {
                let w = self.desc.width as usize;
                let row = self.desc.format.gpu_row_bytes(self.desc.width) as usize;
                let mut out = vec![0u8; row * self.desc.height as usize];
                for (src, dst) in v.chunks_exact(w).zip(out.chunks_exact_mut(row)) {
                    dst[..w].copy_from_slice(src);
                }
                out
            }
            (ImageData::U8(v), _) => v.clone(),
            // r | g << 16 in the first word, b | a << 16 in the second: `pack2x16unorm`'s order
            (ImageData::U16(v), _) => v.iter().flat_map(|s| s.to_le_bytes()).collect(),
            (ImageData::F32(v), _) => bytemuck::cast_slice(v).to_vec(),
        }
    }

    /// `from_gpu_bytes` taking the bytes: an RGBA8 image keeps the vector (no copy).
    pub fn from_gpu_vec(desc: ImageDesc, mut bytes: Vec<u8>) -> Result<Self> {
        let need = desc.format.gpu_bytes(desc.width, desc.height) as usize;
        if desc.format == PixelFormat::Rgba8 && bytes.len() >= need {
            bytes.truncate(need);
            return Self::from_u8(desc.width, desc.height, desc.format, bytes);
        }
        Self::from_gpu_bytes(desc, &bytes)
    }

    /// Parses the GPU storage layout back into an image.
    pub fn from_gpu_bytes(desc: ImageDesc, bytes: &[u8]) -> Result<Self> {
        let need = desc.format.gpu_bytes(desc.width, desc.height) as usize;
        if bytes.len() < need {
            return Err(Error::Image(format!(
                "GPU buffer holds {} bytes, {desc} needs {need}",
                bytes.len()
            )));
        }
        let bytes = &bytes[..need];
        match desc.format {
            PixelFormat::Gray8 => {
                let w = desc.width as usize;
                let row = desc.format.gpu_row_bytes(desc.width) as usize;
                let mut out = Vec::with_capacity(w * desc.height as usize);
                for r in bytes.chunks_exact(row) {
                    out.extend_from_slice(&r[..w]);
                }
                Self::from_u8(desc.width, desc.height, desc.format, out)
            }
            PixelFormat::Rgba8 => {
                Self::from_u8(desc.width, desc.height, desc.format, bytes.to_vec())
            }
            PixelFormat::Rgba16 => Self::from_u16(
                desc.width,
                desc.height,
                bytes
                    .chunks_exact(2)
                    .map(|c| u16::from_le_bytes([c[0], c[1]]))
                    .collect(),
            ),
            PixelFormat::Rgba32F | PixelFormat::R32F => {
                let v: Vec<f32> = bytes
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                Self::from_f32(desc.width, desc.height, desc.format, v)
            }
        }
    }

    /// Explicit format conversion. 8-bit to gray uses GPUImage's luminance weights
    /// (0.2125, 0.7154, 0.0721), rounded; gray to RGBA replicates and sets alpha to 255.
    /// RGBA16 to RGBA8 rounds to nearest (`narrow16`), RGBA8 to RGBA16 is exact (`v * 257`).
    pub fn convert(&self, format: PixelFormat) -> Image {
        if format == self.desc.format {
            return self.clone();
        }
        let d = self.desc.with_format(format);
        // exact integer paths between the two integer RGBA formats
        match (&self.data, format) {
            (ImageData::U16(v), PixelFormat::Rgba8) => {
                return Image {
                    desc: d,
                    data: ImageData::U8(v.iter().map(|&s| narrow16(s)).collect()),
                }
            }
            (ImageData::U8(v), PixelFormat::Rgba16) if self.desc.format == PixelFormat::Rgba8 => {
                return Image {
                    desc: d,
                    data: ImageData::U16(v.iter().map(|&b| b as u16 * 257).collect()),
                }
            }
            _ => {}
        }
        let rgba = self.to_rgba_f32();
        match format {
            PixelFormat::Rgba32F => Image {
                desc: d,
                data: ImageData::F32(rgba),
            },
            PixelFormat::Rgba16 => Image {
                desc: d,
                data: ImageData::U16(rgba.iter().map(|&v| unorm16(v)).collect()),
            },
            PixelFormat::Rgba8 => Image {
                desc: d,
                data: ImageData::U8(rgba.iter().map(|&v| unorm8(v)).collect()),
            },
            PixelFormat::R32F => Image {
                desc: d,
                data: ImageData::F32(rgba.chunks_exact(4).map(luminance).collect()),
            },
            PixelFormat::Gray8 => Image {
                desc: d,
                data: ImageData::U8(rgba.chunks_exact(4).map(|p| unorm8(luminance(p))).collect()),
            },
        }
    }

    /// Every pixel as RGBA in [0,1] (gray replicated, alpha 1).
    pub fn to_rgba_f32(&self) -> Vec<f32> {
        match (&self.data, self.desc.format) {
            (ImageData::U8(v), PixelFormat::Rgba8) => v.iter().map(|&b| b as f32 / 255.0).collect(),
            (ImageData::U8(v), _) => v
                .iter()
                .flat_map(|&b| {
                    let g = b as f32 / 255.0;
                    [g, g, g, 1.0]
                })
                .collect(),
            (ImageData::U16(v), _) => v.iter().map(|&s| s as f32 / 65535.0).collect(),
            (ImageData::F32(v), PixelFormat::Rgba32F) => v.clone(),
            (ImageData::F32(v), _) => v.iter().flat_map(|&g| [g, g, g, 1.0]).collect(),
        }
    }

    /// Decodes a file through the `image` crate, turned upright by its EXIF orientation if it
    /// has one: 16-bit files (PNG, TIFF) into RGBA16, everything else into RGBA8 (or Gray8).
    /// The process-wide `Limits` apply, and a truncated or damaged file is an error (see `load`).
    pub fn open(path: impl AsRef<std::path::Path>) -> Result<Image> {
        Self::load(path, &LoadOptions::default()).map(|l| l.image)
    }

    /// `open`, and what of the file's metadata an output of it should carry (`read_metadata`);
    /// a JPEG is read and parsed once for both.
    pub fn open_with_metadata(path: impl AsRef<std::path::Path>) -> Result<(Image, SaveOptions)> {
        Self::load(path, &LoadOptions::default()).map(|l| (l.image, l.metadata))
    }

    /// Decodes a file as `options` say: its size is checked against the limits (pixels, and
    /// memory by the formula of `limits`) from the header, before any pixel memory is taken; a
    /// truncated or damaged file is an error unless `allow_truncated`, which takes what the
    /// decoder recovered (JPEG: the missing rows grey) with a warning in `Loaded::warnings`.
    pub fn load(path: impl AsRef<std::path::Path>, options: &LoadOptions) -> Result<Loaded> {
        let path = path.as_ref();
        let io = |message: String| Error::ImageIo {
            path: path.to_path_buf(),
            message,
        };
        if !path.exists() {
            return Err(io("file not found".into()));
        }
        if std::fs::metadata(path).is_ok_and(|m| m.len() == 0) {
            return Err(io("empty file (0 bytes)".into()));
        }
        let limits = options.limits.unwrap_or_else(crate::limits::Limits::global);
        let reader = image::ImageReader::open(path).map_err(|e| io(e.to_string()))?;
        let reader = reader
            .with_guessed_format()
            .map_err(|e| io(e.to_string()))?;
        if reader.format().is_none() {
            return Err(io(
                "unrecognised image format (supported: PNG, JPEG, WebP, TIFF, BMP)".into(),
            ));
        }
        if reader.format() == Some(image::ImageFormat::Jpeg) {
            let bytes = std::fs::read(path).map_err(|e| io(e.to_string()))?;
            let d =
                crate::codec::decode_jpeg(&bytes, &limits, options.allow_truncated).map_err(io)?;
            let metadata = SaveOptions {
                icc_profile: d.icc_profile,
                exif: d.exif.map(|e| exif_upright(&e)),
                ..SaveOptions::default()
            };
            return Ok(Loaded {
                image: d.image,
                metadata,
                warnings: d.warnings,
            });
        }
        // with `allow_truncated`, PNG and TIFF are decoded by rows (`rows`), keeping the rows
        // before the damage; other layouts of them fall through to the whole decoders
        if options.allow_truncated
            && matches!(
                reader.format(),
                Some(image::ImageFormat::Png | image::ImageFormat::Tiff)
            )
        {
            let source: Option<Box<dyn crate::rows::RowSource>> = match reader.format() {
                Some(image::ImageFormat::Png) => {
                    crate::rows::PngRows::open(path, true)?.map(|s| Box::new(s) as _)
                }
                _ => crate::rows::TiffRows::open(path, true)?.map(|s| Box::new(s) as _),
            };
            if let Some(mut source) = source {
                let d = source.desc();
                limits
                    .check_decode(
                        d.width,
                        d.height,
                        if d.format == PixelFormat::Rgba16 {
                            8
                        } else {
                            4
                        },
                    )
                    .map_err(io)?;
                let mut bytes = crate::limits::try_zeroed(
                    d.height as usize * crate::rows::row_bytes(d),
                    "the decoded image",
                )?;
                source.read_rows(&mut bytes)?;
                let image = crate::rows::image_from_vec(d.width, d.height, d.format, bytes)?;
                return Ok(Loaded {
                    image,
                    metadata: Self::read_metadata(path),
                    warnings: source.warnings(),
                });
            }
        }
        let webp = reader.format() == Some(image::ImageFormat::WebP);
        let by_rows = matches!(
            reader.format(),
            Some(image::ImageFormat::Png | image::ImageFormat::Tiff)
        );
        let allow = options.allow_truncated;
        let corrupt = |e: image::ImageError| {
            // the WebP decoder gives nothing of a damaged file: say so rather than ignore the flag
            let why = match (webp, by_rows, allow) {
                (true, _, true) => " (--allow-truncated cannot help: the WebP decoder recovers nothing of a damaged file)",
                (_, true, false) => " (--allow-truncated keeps the rows before the damage)",
                _ => "",
            };
            io(format!("corrupt, truncated or unsupported image: {e}{why}"))
        };
        let mut decoder = reader.into_decoder().map_err(corrupt)?;
        let (w, h) = image::ImageDecoder::dimensions(&decoder);
        let wide = image::ImageDecoder::color_type(&decoder).bytes_per_pixel()
            / image::ImageDecoder::color_type(&decoder)
                .channel_count()
                .max(1)
            > 1;
        // refused before any pixel memory is taken (a decompression bomb's header is small)
        limits
            .check_decode(w, h, if wide { 8 } else { 4 })
            .map_err(io)?;
        let mut decoder_limits = image::Limits::no_limits();
        decoder_limits.max_alloc = Some(limits.max_memory);
        image::ImageDecoder::set_limits(&mut decoder, decoder_limits).map_err(corrupt)?;
        // EXIF orientation (a phone's portrait photo is stored sideways): applied on load, as
        // viewers show it; a file without EXIF reads as upright
        let orientation = image::ImageDecoder::orientation(&mut decoder)
            .unwrap_or(image::metadata::Orientation::NoTransforms);
        let mut img = image::DynamicImage::from_decoder(decoder).map_err(corrupt)?;
        img.apply_orientation(orientation);
        Ok(Loaded {
            image: Image::from(img),
            metadata: Self::read_metadata(path),
            warnings: Vec::new(),
        })
    }

    /// What of a file's metadata an output of it should carry, read in one pass over its
    /// headers: the ICC colour profile, and the EXIF data (its TIFF structure) with the
    /// orientation set upright, as `open` turns the pixels. Empty where the file has none (or
    /// cannot be read: `open` reports that).
    pub fn read_metadata(path: impl AsRef<std::path::Path>) -> SaveOptions {
        let mut meta = SaveOptions::default();
        let Ok(reader) = image::ImageReader::open(path).and_then(|r| r.with_guessed_format())
        else {
            return meta;
        };
        let Ok(mut decoder) = reader.into_decoder() else {
            return meta;
        };
        meta.icc_profile = image::ImageDecoder::icc_profile(&mut decoder)
            .ok()
            .flatten();
        meta.exif = image::ImageDecoder::exif_metadata(&mut decoder)
            .ok()
            .flatten()
            .map(|e| exif_upright(&e));
        meta
    }

    /// Encodes to a file chosen by extension, atomically: a temporary file in the same
    /// folder is written and then renamed over the destination.
    pub fn save(&self, path: impl AsRef<std::path::Path>) -> Result<()> {
        self.save_with(path, &SaveOptions::default())
    }

    /// The image as JPEG bytes at `quality` (1-100; transparent pixels over white), e.g. for a thumbnail
    /// embedded in a report.
    pub fn to_jpeg_bytes(&self, quality: u8) -> Result<Vec<u8>> {
        let options = SaveOptions {
            jpeg_quality: quality,
            ..SaveOptions::default()
        };
        let io = |message: String| Error::ImageIo {
            path: "<memory>".into(),
            message,
        };
        if !(1..=100).contains(&quality) {
            return Err(io(format!(
                "JPEG quality {quality} is out of range [1, 100]"
            )));
        }
        let quantised;
        let img = match self.desc.format {
            PixelFormat::Rgba8 | PixelFormat::Gray8 => self,
            PixelFormat::Rgba32F | PixelFormat::Rgba16 => {
                quantised = self.convert(PixelFormat::Rgba8);
                &quantised
            }
            PixelFormat::R32F => {
                quantised = self.convert(PixelFormat::Gray8);
                &quantised
            }
        };
        let composited;
        let img = if img.has_transparency() {
            composited = img.over_background(options.background);
            &composited
        } else {
            img
        };
        crate::codec::encode_jpeg(img, &options).map_err(io)
    }

    /// `save` with encoder options.
    pub fn save_with(
        &self,
        path: impl AsRef<std::path::Path>,
        options: &SaveOptions,
    ) -> Result<()> {
        let path = path.as_ref();
        if !(1..=100).contains(&options.jpeg_quality) {
            return Err(Error::ImageIo {
                path: path.to_path_buf(),
                message: format!(
                    "JPEG quality {} is out of range [1, 100]",
                    options.jpeg_quality
                ),
            });
        }
        let io = |message: String| Error::ImageIo {
            path: path.to_path_buf(),
            message,
        };
        let format = image::ImageFormat::from_path(path).map_err(|_| {
            io("unknown output extension (use .png, .jpg, .webp, .tif, .bmp)".into())
        })?;
        // written beside the destination, renamed over it once complete, removed otherwise
        let file = crate::rows::TempFile::new(path);
        let tmp = file.tmp.clone();
        // PNG and TIFF keep 16 bits exactly; the other formats have 8 (rounded to nearest)
        if self.desc.format == PixelFormat::Rgba16
            && matches!(format, image::ImageFormat::Png | image::ImageFormat::Tiff)
        {
            encode_16bit(self, &tmp, format, options).map_err(io)?;
            return file.keep();
        }
        // 8-bit images are encoded from their own bytes (no copy); others are quantised first
        let quantised;
        let img = match self.desc.format {
            PixelFormat::Rgba8 | PixelFormat::Gray8 => self,
            PixelFormat::Rgba32F | PixelFormat::Rgba16 => {
                quantised = self.convert(PixelFormat::Rgba8);
                &quantised
            }
            PixelFormat::R32F => {
                quantised = self.convert(PixelFormat::Gray8);
                &quantised
            }
        };
        // a format without alpha: transparent pixels over the background, not their hidden colours
        let composited;
        let img = if !format_has_alpha(format) && img.has_transparency() {
            composited = img.over_background(options.background);
            &composited
        } else {
            img
        };
        let (w, h) = (img.width(), img.height());
        let color = if img.format() == PixelFormat::Gray8 {
            image::ExtendedColorType::L8
        } else {
            image::ExtendedColorType::Rgba8
        };
        let written = match format {
            // JPEG has no alpha: composited over `background` above (`codec`: libjpeg-turbo)
            image::ImageFormat::Jpeg => crate::codec::encode_jpeg(img, options)
                .and_then(|bytes| std::fs::write(&tmp, bytes).map_err(|e| e.to_string())),
            image::ImageFormat::Png => encode_png(img, &tmp, color, options),
            // formats without alpha (BMP can take it; the encoder says which cannot)
            _ => image::save_buffer_with_format(&tmp, img.as_u8(), w, h, color, format)
                .or_else(|_| img.to_dynamic().to_rgb8().save_with_format(&tmp, format))
                .map_err(|e| e.to_string()),
        };
        written.map_err(io)?;
        file.keep()
    }

    /// Whether any pixel is less than opaque (RGBA images; grey ones never are).
    pub fn has_transparency(&self) -> bool {
        match (&self.data, self.desc.format) {
            (ImageData::U8(v), PixelFormat::Rgba8) => v.chunks_exact(4).any(|p| p[3] != 255),
            (ImageData::U16(v), _) => v.chunks_exact(4).any(|p| p[3] != 65535),
            (ImageData::F32(v), PixelFormat::Rgba32F) => v.chunks_exact(4).any(|p| p[3] < 1.0),
            _ => false,
        }
    }

    /// An RGBA8 image composited over an opaque `background`: `c·a + bg·(1 − a)` per channel,
    /// rounded, alpha 255. Other formats are returned unchanged.
    pub fn over_background(&self, background: [u8; 3]) -> Image {
        let Some(v) = (self.desc.format == PixelFormat::Rgba8).then(|| self.as_u8()) else {
            return self.clone();
        };
        let data = v
            .chunks_exact(4)
            .flat_map(|p| {
                let a = p[3] as u32;
                let mix = |c: u8, b: u8| ((c as u32 * a + b as u32 * (255 - a) + 127) / 255) as u8;
                [
                    mix(p[0], background[0]),
                    mix(p[1], background[1]),
                    mix(p[2], background[2]),
                    255,
                ]
            })
            .collect();
        Image {
            desc: self.desc,
            data: ImageData::U8(data),
        }
    }

    /// Converts to an `image` crate value (RGBA8, RGBA16 or Luma8; float formats are quantised).
    pub fn to_dynamic(&self) -> image::DynamicImage {
        let (w, h) = (self.desc.width, self.desc.height);
        match self.desc.format {
            PixelFormat::Gray8 => image::DynamicImage::ImageLuma8(
                image::GrayImage::from_raw(w, h, self.as_u8().to_vec())
                    .unwrap_or_else(|| image::GrayImage::new(w, h)),
            ),
            PixelFormat::Rgba8 => image::DynamicImage::ImageRgba8(
                image::RgbaImage::from_raw(w, h, self.as_u8().to_vec())
                    .unwrap_or_else(|| image::RgbaImage::new(w, h)),
            ),
            PixelFormat::Rgba16 => image::DynamicImage::ImageRgba16(
                image::ImageBuffer::from_raw(w, h, self.as_u16().to_vec())
                    .unwrap_or_else(|| image::ImageBuffer::new(w, h)),
            ),
            PixelFormat::R32F => self.convert(PixelFormat::Gray8).to_dynamic(),
            PixelFormat::Rgba32F => self.convert(PixelFormat::Rgba8).to_dynamic(),
        }
    }
}

impl From<image::DynamicImage> for Image {
    fn from(img: image::DynamicImage) -> Self {
        match img {
            image::DynamicImage::ImageLuma8(g) => g.into(),
            // 16-bit files keep their precision (grey widened to RGB, missing alpha 65535)
            image::DynamicImage::ImageLuma16(_)
            | image::DynamicImage::ImageLumaA16(_)
            | image::DynamicImage::ImageRgb16(_)
            | image::DynamicImage::ImageRgba16(_) => {
                let rgba = img.to_rgba16();
                let (w, h) = rgba.dimensions();
                Image {
                    desc: ImageDesc::new(w, h, PixelFormat::Rgba16),
                    data: ImageData::U16(rgba.into_raw()),
                }
            }
            other => other.to_rgba8().into(),
        }
    }
}
impl From<image::RgbaImage> for Image {
    fn from(img: image::RgbaImage) -> Self {
        let (w, h) = img.dimensions();
        Image {
            desc: ImageDesc::new(w, h, PixelFormat::Rgba8),
            data: ImageData::U8(img.into_raw()),
        }
    }
}
impl From<image::GrayImage> for Image {
    fn from(img: image::GrayImage) -> Self {
        let (w, h) = img.dimensions();
        Image {
            desc: ImageDesc::new(w, h, PixelFormat::Gray8),
            data: ImageData::U8(img.into_raw()),
        }
    }
}
impl From<&Image> for image::DynamicImage {
    fn from(img: &Image) -> Self {
        img.to_dynamic()
    }
}

/// GPUImage's luminance weights (its `W` constant), used by grayscale and thresholds.
pub const LUMA_GPUIMAGE: [f32; 3] = [0.2125, 0.7154, 0.0721];

/// Luminance of an RGBA pixel in [0,1] with GPUImage's weights.
pub fn luminance(p: &[f32]) -> f32 {
    p[0] * LUMA_GPUIMAGE[0] + p[1] * LUMA_GPUIMAGE[1] + p[2] * LUMA_GPUIMAGE[2]
}

/// How `Image::load` reads a file.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadOptions {
    /// Limits on the decoded size; `None`: the process-wide `Limits::global()`.
    pub limits: Option<crate::limits::Limits>,
    /// Accept a truncated or damaged file with what the decoder recovered (a warning in
    /// `Loaded::warnings`) instead of failing.
    pub allow_truncated: bool,
}

/// A decoded file: its pixels (upright), the metadata an output of it should carry, and what
/// was wrong with it (only with `LoadOptions::allow_truncated`).
#[derive(Clone, Debug)]
pub struct Loaded {
    pub image: Image,
    pub metadata: SaveOptions,
    pub warnings: Vec<String>,
}

/// Encoder settings for `Image::save_with`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SaveOptions {
    /// JPEG quality, libjpeg's scale 1-100 (PNG, TIFF, WebP and BMP are written lossless).
    pub jpeg_quality: u8,
    /// An ICC colour profile to embed (JPEG and PNG; other formats are written without), e.g.
    /// the input's (`Image::read_metadata`), so colour-managed viewers show the same colours.
    pub icc_profile: Option<Vec<u8>>,
    /// EXIF data (the TIFF structure, as `Image::read_metadata` gives it) to embed (JPEG and PNG).
    pub exif: Option<Vec<u8>>,
    /// Chroma subsampling of colour JPEGs; `None`: 4:4:4 at quality 90 and above, else 4:2:0.
    pub jpeg_subsampling: Option<crate::codec::Subsampling>,
    /// PNG compression effort (the file stays lossless).
    pub png_compression: PngCompression,
    /// The colour (8-bit sRGB) that transparent pixels are composited over when the format
    /// has no alpha (JPEG): `out = c·a + background·(1 − a)`. White by default, as a browser
    /// shows a transparent image on a white page; the colours hidden under transparent pixels
    /// never come out.
    pub background: [u8; 3],
}

impl Default for SaveOptions {
    fn default() -> Self {
        Self {
            jpeg_quality: 90,
            icc_profile: None,
            exif: None,
            jpeg_subsampling: None,
            png_compression: PngCompression::Fast,
            background: [255, 255, 255],
        }
    }
}

/// Whether an image format holds alpha (the formats texelflow writes: all but JPEG).
pub fn format_has_alpha(format: image::ImageFormat) -> bool {
    format != image::ImageFormat::Jpeg
}

/// PNG compression effort: `fast` (the default: zlib's fastest level with adaptive row
/// filters, a few percent larger than `best` on photos at a fraction of the time), `default`, `best`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PngCompression {
    Fast,
    Default,
    Best,
}

impl PngCompression {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "fast" => Some(Self::Fast),
            "default" => Some(Self::Default),
            "best" => Some(Self::Best),
            _ => None,
        }
    }
    fn to_image(self) -> image::codecs::png::CompressionType {
        match self {
            Self::Fast => image::codecs::png::CompressionType::Fast,
            Self::Default => image::codecs::png::CompressionType::Default,
            Self::Best => image::codecs::png::CompressionType::Best,
        }
    }
}

/// `exif` (a TIFF structure) with its orientation tag set to 1 (upright), for an image that was
/// turned upright on load; unchanged where there is no such tag or the data is malformed.
pub fn exif_upright(exif: &[u8]) -> Vec<u8> {
    let mut out = exif.to_vec();
    let le = match exif.get(..2) {
        Some(b"II") => true,
        Some(b"MM") => false,
        _ => return out,
    };
    let u16_at = |b: &[u8], i: usize| {
        b.get(i..i + 2).map(|s| {
            if le {
                u16::from_le_bytes([s[0], s[1]])
            } else {
                u16::from_be_bytes([s[0], s[1]])
            }
        })
    };
    let u32_at = |b: &[u8], i: usize| {
        b.get(i..i + 4).map(|s| {
            if le {
                u32::from_le_bytes([s[0], s[1], s[2], s[3]])
            } else {
                u32::from_be_bytes([s[0], s[1], s[2], s[3]])
            }
        })
    };
    let Some(ifd) = u32_at(exif, 4).map(|v| v as usize) else {
        return out;
    };
    let Some(n) = u16_at(exif, ifd) else {
        return out;
    };
    for k in 0..n as usize {
        let e = ifd + 2 + 12 * k;
        if u16_at(exif, e) == Some(0x0112) && u16_at(exif, e + 2) == Some(3) {
            let one = if le {
                1u16.to_le_bytes()
            } else {
                1u16.to_be_bytes()
            };
            if let Some(v) = out.get_mut(e + 8..e + 10) {
                v.copy_from_slice(&one);
            }
        }
    }
    out
}

/// A PNG with an embedded ICC profile and EXIF, from the image's own bytes.
/// A PNG with the compression effort, ICC profile and EXIF of `options`.
fn encode_png(
    img: &Image,
    path: &std::path::Path,
    color: image::ExtendedColorType,
    options: &SaveOptions,
) -> std::result::Result<(), String> {
    use image::ImageEncoder;
    let file = std::io::BufWriter::new(std::fs::File::create(path).map_err(|e| e.to_string())?);
    let mut encoder = image::codecs::png::PngEncoder::new_with_quality(
        file,
        options.png_compression.to_image(),
        image::codecs::png::FilterType::Adaptive,
    );
    if let Some(icc) = &options.icc_profile {
        encoder
            .set_icc_profile(icc.clone())
            .map_err(|e| e.to_string())?;
    }
    if let Some(exif) = &options.exif {
        encoder
            .set_exif_metadata(exif.clone())
            .map_err(|e| e.to_string())?;
    }
    encoder
        .write_image(img.as_u8(), img.width(), img.height(), color)
        .map_err(|e| e.to_string())
}

/// A 16-bit PNG (with its ICC profile and EXIF, as `encode_png`) or TIFF.
fn encode_16bit(
    img: &Image,
    path: &std::path::Path,
    format: image::ImageFormat,
    options: &SaveOptions,
) -> std::result::Result<(), String> {
    use image::ImageEncoder;
    let file = std::io::BufWriter::new(std::fs::File::create(path).map_err(|e| e.to_string())?);
    // the encoders take 16-bit samples in native byte order
    let bytes: &[u8] = bytemuck::cast_slice(img.as_u16());
    let color = image::ExtendedColorType::Rgba16;
    if format == image::ImageFormat::Tiff {
        return image::codecs::tiff::TiffEncoder::new(file)
            .write_image(bytes, img.width(), img.height(), color)
            .map_err(|e| e.to_string());
    }
    let mut encoder = image::codecs::png::PngEncoder::new_with_quality(
        file,
        options.png_compression.to_image(),
        image::codecs::png::FilterType::Adaptive,
    );
    if let Some(icc) = &options.icc_profile {
        encoder
            .set_icc_profile(icc.clone())
            .map_err(|e| e.to_string())?;
    }
    if let Some(exif) = &options.exif {
        encoder
            .set_exif_metadata(exif.clone())
            .map_err(|e| e.to_string())?;
    }
    encoder
        .write_image(bytes, img.width(), img.height(), color)
        .map_err(|e| e.to_string())
}

/// BT.601 luma of 8-bit RGB as an exact integer, `round(0.299R + 0.587G + 0.114B)`:
/// the Y used by histograms and statistics (WGSL twin: `luma601` in `common.wgsl`).
pub fn luma601(r: u8, g: u8, b: u8) -> u8 {
    ((299 * r as u32 + 587 * g as u32 + 114 * b as u32 + 500) / 1000) as u8
}

/// `[0,1]` float to 8-bit exactly as WGSL's `pack4x8unorm` does: clamp, scale, round half away.
pub fn unorm8(v: f32) -> u8 {
    let v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
    (v * 255.0 + 0.5).floor() as u8
}

/// `[0,1]` float to 16-bit exactly as WGSL's `pack2x16unorm` does: clamp, scale, round half
/// away (the spec's `floor(0.5 + 65535 * clamp(e, 0, 1))`).
pub fn unorm16(v: f32) -> u16 {
    let v = if v.is_nan() { 0.0 } else { v.clamp(0.0, 1.0) };
    (v * 65535.0 + 0.5).floor() as u16
}

/// A 16-bit sample to the nearest 8-bit one, `round(v * 255 / 65535)` in integers (no ties:
/// `v / 257` is never an odd multiple of one half).
pub fn narrow16(v: u16) -> u8 {
    ((2 * 255 * v as u32 + 65535) / (2 * 65535)) as u8
}

#[cfg(test)]
mod tests {
    /// A 4x2 JPEG whose EXIF (a big-endian TIFF IFD of one entry: Orientation 0x0112 = 6) says
    /// "rotate 90 degrees clockwise", and that TIFF structure.
    fn jpeg_rotated_by_exif() -> (Vec<u8>, [u8; 26]) {
        let mut jpeg = Vec::new();
        let img =
            image::RgbImage::from_fn(4, 2, |x, y| image::Rgb([x as u8 * 60, y as u8 * 120, 0]));
        image::DynamicImage::ImageRgb8(img)
            .write_to(
                &mut std::io::Cursor::new(&mut jpeg),
                image::ImageFormat::Jpeg,
            )
            .expect("encodes");
        let tiff: [u8; 26] = [
            0x4d, 0x4d, 0, 0x2a, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0,
            0, 0,
        ];
        let mut file = jpeg[..2].to_vec();
        file.extend_from_slice(&[0xff, 0xe1, 0, (2 + 6 + tiff.len()) as u8]);
        file.extend_from_slice(b"Exif\0\0");
        file.extend_from_slice(&tiff);
        file.extend_from_slice(&jpeg[2..]);
        (file, tiff)
    }

    /// EXIF travels to a saved JPEG with its orientation set upright (the pixels were turned on
    /// load), so viewers do not turn the image a second time.
    #[test]
    fn exif_is_kept_with_the_orientation_upright() {
        let (file, tiff) = jpeg_rotated_by_exif();
        let dir = std::env::temp_dir();
        let (input, output) = (
            dir.join(format!("texelflow-exif-in-{}.jpg", std::process::id())),
            dir.join(format!("texelflow-exif-out-{}.jpg", std::process::id())),
        );
        std::fs::write(&input, &file).expect("writes");
        let img = Image::open(&input).expect("loads");
        let meta = Image::read_metadata(&input);
        assert!(meta.exif.is_some(), "has EXIF");
        img.save_with(&output, &meta).expect("saves");
        let mut decoder = image::ImageReader::open(&output)
            .expect("opens")
            .with_guessed_format()
            .expect("format")
            .into_decoder()
            .expect("decoder");
        let saved = image::ImageDecoder::exif_metadata(&mut decoder)
            .expect("reads")
            .expect("EXIF kept");
        assert_eq!(&saved[..10], &tiff[..10]);
        assert_eq!(
            image::ImageDecoder::orientation(&mut decoder).expect("orientation"),
            image::metadata::Orientation::NoTransforms
        );
        // read back, it is not turned again: still 2 wide
        assert_eq!(Image::open(&output).expect("loads").width(), 2);
        let _ = (std::fs::remove_file(&input), std::fs::remove_file(&output));
    }

    /// A JPEG whose EXIF says "rotate 90 degrees clockwise" loads upright: 4x2 stored, 2x4 shown.
    #[test]
    fn exif_orientation_is_applied_on_load() {
        let (file, _) = jpeg_rotated_by_exif();
        let path = std::env::temp_dir().join(format!("texelflow-exif-{}.jpg", std::process::id()));
        std::fs::write(&path, &file).expect("writes");
        let loaded = Image::open(&path).expect("loads");
        let _ = std::fs::remove_file(&path);
        assert_eq!((loaded.width(), loaded.height()), (2, 4));
    }

    use super::*;
    #[test]
    fn gray_gpu_layout_pads_rows() {
        let img = Image::from_u8(5, 2, PixelFormat::Gray8, (0..10).collect()).unwrap();
        let b = img.to_gpu_bytes();
        assert_eq!(b, vec![0, 1, 2, 3, 4, 0, 0, 0, 5, 6, 7, 8, 9, 0, 0, 0]);
        assert_eq!(Image::from_gpu_bytes(img.desc(), &b).unwrap(), img);
    }
    /// A 16-bit PNG and TIFF whose samples are not multiples of 257 (no 8-bit value widened)
    /// load as RGBA16 and save back bit for bit; grey files widen to RGB with alpha 65535.
    #[test]
    fn sixteen_bit_files_round_trip_exactly() {
        let dir = std::env::temp_dir();
        let samples: Vec<u16> = (0..5 * 3 * 4)
            .map(|i| (i as u16).wrapping_mul(4099).wrapping_add(7))
            .collect();
        assert!(samples.iter().any(|s| s % 257 != 0));
        let src = image::ImageBuffer::<image::Rgba<u16>, _>::from_raw(5, 3, samples.clone())
            .expect("sized");
        for ext in ["png", "tif"] {
            let (a, b) = (
                dir.join(format!("texelflow-16-a-{}.{ext}", std::process::id())),
                dir.join(format!("texelflow-16-b-{}.{ext}", std::process::id())),
            );
            image::DynamicImage::ImageRgba16(src.clone())
                .save(&a)
                .expect("writes");
            let img = Image::open(&a).expect("loads");
            assert_eq!(img.format(), PixelFormat::Rgba16, "{ext}");
            assert_eq!(img.as_u16(), samples.as_slice(), "{ext}");
            img.save(&b).expect("saves");
            let back = image::open(&b).expect("reads");
            assert_eq!(back.color(), image::ColorType::Rgba16, "{ext}");
            assert_eq!(back.to_rgba16().into_raw(), samples, "{ext}");
            let _ = (std::fs::remove_file(&a), std::fs::remove_file(&b));
        }
        let grey = image::ImageBuffer::<image::Luma<u16>, _>::from_raw(2, 1, vec![1000u16, 60001])
            .expect("sized");
        let path = dir.join(format!("texelflow-16-grey-{}.png", std::process::id()));
        image::DynamicImage::ImageLuma16(grey)
            .save(&path)
            .expect("writes");
        let img = Image::open(&path).expect("loads");
        let _ = std::fs::remove_file(&path);
        assert_eq!(
            img.as_u16(),
            &[1000, 1000, 1000, 65535, 60001, 60001, 60001, 65535]
        );
        // JPEG narrows to 8 bits rather than failing
        let jpg = dir.join(format!("texelflow-16-{}.jpg", std::process::id()));
        img.save(&jpg).expect("narrowed to 8 bits");
        let _ = std::fs::remove_file(&jpg);
    }
    #[test]
    fn narrowing_rounds_to_nearest_and_widening_is_exact() {
        for v in 0..=65535u16 {
            assert_eq!(narrow16(v) as f64, (v as f64 / 257.0).round(), "{v}");
            assert_eq!(unorm16(v as f32 / 65535.0), v);
        }
        let img = Image::from_u8(1, 1, PixelFormat::Rgba8, vec![0, 1, 128, 255]).unwrap();
        let wide = img.convert(PixelFormat::Rgba16);
        assert_eq!(wide.as_u16(), &[0, 257, 128 * 257, 65535]);
        assert_eq!(wide.convert(PixelFormat::Rgba8), img);
        assert_eq!(
            Image::from_gpu_bytes(wide.desc(), &wide.to_gpu_bytes()).unwrap(),
            wide
        );
    }
    #[test]
    fn wrong_length_is_an_error() {
        assert!(Image::from_u8(3, 3, PixelFormat::Rgba8, vec![0; 35]).is_err());
        assert!(Image::from_u8(0, 3, PixelFormat::Rgba8, vec![]).is_err());
    }
    #[test]
    fn luma601_matches_float_formula() {
        for (r, g, b) in [
            (0u8, 0u8, 0u8),
            (255, 255, 255),
            (10, 200, 30),
            (255, 0, 0),
            (1, 2, 3),
        ] {
            let f = 0.299 * r as f64 + 0.587 * g as f64 + 0.114 * b as f64;
            assert!((luma601(r, g, b) as f64 - f).abs() <= 0.5 + 1e-9);
        }
    }
}
