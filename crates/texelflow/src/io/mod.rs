//! Files: decoding and encoding images (PNG, JPEG, WebP, TIFF, BMP), their metadata (EXIF,
//! ICC), the file limits checked before pixel memory is taken, JPEG through libjpeg-turbo
//! (`codec`), and images read and written a band of rows at a time (`rows`). The pixel
//! container itself (`crate::image`) knows no file format.

mod apply;
pub mod codec;
#[cfg(feature = "turbojpeg")]
pub mod jpeg_coef;
#[cfg(feature = "turbojpeg")]
pub mod jpeg_encode;
#[cfg(feature = "turbojpeg")]
pub mod jpeg_file;
#[cfg(feature = "turbojpeg")]
pub mod jpeg_huffdec;
pub use crate::input;
pub mod output;
pub mod rows;
mod stream;
pub mod texture;

pub use apply::{
    apply_file, is_jpeg_path, same_file, shrink_on_load, streams_by_default, ApplyOptions,
    ApplyReport, STREAM_FROM_PIXELS,
};

pub use stream::FileReport;

use crate::error::{Error, Result};
use crate::image::{Image, PixelFormat};

impl Image {
    /// Decodes a file through the `image` crate, turned upright by its EXIF orientation if it
    /// has one: 16-bit files (PNG, TIFF) into RGBA16, everything else into RGBA8 (or Gray8).
    /// The default `Limits` apply (`load` takes others), and a truncated or damaged file is an error (see `load`).
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
    // `drop` closes the file natively; on wasm32 (no file system) `File` has no `Drop`
    #[cfg_attr(target_arch = "wasm32", allow(clippy::drop_non_drop))]
    pub fn load(path: impl AsRef<std::path::Path>, options: &LoadOptions) -> Result<Loaded> {
        let path = path.as_ref();
        let io = |message: String| Error::ImageIo {
            path: path.to_path_buf(),
            message,
        };
        // regular files only, never blocking on a FIFO (`input`)
        let (file, len) = input::open_regular(path).map_err(io)?;
        if len == 0 {
            return Err(io(input::zero_size(&file)));
        }
        drop(file);
        let limits = options.limits.unwrap_or_default();
        let reader = input::image_reader(path).map_err(io)?;
        if reader.format().is_none() {
            return Err(io(
                "unrecognised image format (supported: PNG, JPEG, WebP, TIFF, BMP)".into(),
            ));
        }
        if reader.format() == Some(image::ImageFormat::Jpeg) {
            // the compressed file is held whole: bounded by the memory limit
            let bytes =
                input::read_capped(path, limits.max_memory, "the memory limit (--max-memory)")
                    .map_err(io)?;
            let d = crate::io::codec::decode_jpeg_at_least(
                &bytes,
                &limits,
                options.allow_truncated,
                options.min_size,
            )
            .map_err(io)?;
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
            let source: Option<Box<dyn crate::io::rows::RowSource>> = match reader.format() {
                Some(image::ImageFormat::Png) => {
                    crate::io::rows::PngRows::open(path, true)?.map(|s| Box::new(s) as _)
                }
                _ => crate::io::rows::TiffRows::open(path, true)?.map(|s| Box::new(s) as _),
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
                    d.height as usize * crate::image::row_bytes(d),
                    "the decoded image",
                )?;
                source.read_rows(&mut bytes)?;
                let image = crate::image::image_from_vec(d.width, d.height, d.format, bytes)?;
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
            // a kind of image the decoder does not take (a float32 TIFF, ...) is not damaged:
            // no `--allow-truncated` hint for it (issue 29 item 13)
            if let image::ImageError::Unsupported(u) = &e {
                return io(format!(
                    "unsupported kind of image: {u}; convert it to an 8- or 16-bit integer PNG, \
                     TIFF or JPEG"
                ));
            }
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

    /// `load` for a run on the GPU: a JPEG that the GPU-assisted decode takes (8-bit,
    /// greyscale or YCbCr, sampling 1:1 or 2:1) becomes a node that makes its pixels on the
    /// device (`Pipeline::try_run_produced`); anything else is decoded as `load` does, with
    /// the reason where it is a JPEG. A baseline JPEG in one scan is not even entropy-decoded
    /// here: the device decodes its Huffman-coded data too ([`Image::load_for_device_with`]).
    pub fn load_for_device(
        path: impl AsRef<std::path::Path>,
        options: &LoadOptions,
    ) -> Result<ForDevice> {
        Self::load_for_device_with(path, options, true)
    }

    /// [`Image::load_for_device`], the entropy decode on the device or not: with
    /// `gpu_entropy`, a baseline JPEG in one scan (what `io::jpeg_huffdec` takes) is not
    /// entropy-decoded here; its node uploads the file's bytes and the device decodes the
    /// Huffman-coded data too (`jpeg_coef::JpegDecode::from_file`). Damage there that
    /// libjpeg-turbo warns about is flagged by the device: `Pipeline::try_run_produced` then
    /// gives `Error::ProducerRejected`, and the caller loads the file again without
    /// `gpu_entropy` (libjpeg-turbo's entropy decode here, whose warnings send a damaged file
    /// to the host decode and its policy for damaged files).
    pub fn load_for_device_with(
        path: impl AsRef<std::path::Path>,
        options: &LoadOptions,
        gpu_entropy: bool,
    ) -> Result<ForDevice> {
        let path = path.as_ref();
        // a DCT-scaled decode (shrink-on-load) is on the host: libjpeg-turbo's scaled IDCT
        let jpeg = !options.allow_truncated
            && options.min_size.is_none()
            && input::image_reader(path)
                .is_ok_and(|r| r.format() == Some(image::ImageFormat::Jpeg));
        if !jpeg {
            return Self::load(path, options).map(|loaded| ForDevice::Host { loaded, why: None });
        }
        Self::jpeg_for_device(path, options, gpu_entropy)
    }

    /// `load_for_device_with` of a JPEG: its coefficients (libjpeg-turbo's entropy decode) or
    /// its bytes for the device, else decoded here with the reason.
    #[cfg(feature = "turbojpeg")]
    fn jpeg_for_device(
        path: &std::path::Path,
        options: &LoadOptions,
        gpu_entropy: bool,
    ) -> Result<ForDevice> {
        let io = |message: String| Error::ImageIo {
            path: path.to_path_buf(),
            message,
        };
        let limits = options.limits.unwrap_or_default();
        let bytes = input::read_capped(path, limits.max_memory, "the memory limit (--max-memory)")
            .map_err(io)?;
        match crate::io::codec::jpeg_for_device(&bytes, &limits, gpu_entropy).map_err(io)? {
            crate::io::codec::DeviceJpeg::Coefficients {
                decode,
                icc_profile,
                exif,
            } => Ok(ForDevice::Jpeg {
                decode,
                metadata: SaveOptions {
                    icc_profile,
                    exif: exif.map(|e| exif_upright(&e)),
                    ..SaveOptions::default()
                },
            }),
            crate::io::codec::DeviceJpeg::Host(why) => {
                let d = crate::io::codec::decode_jpeg_at_least(&bytes, &limits, false, None)
                    .map_err(io)?;
                Ok(ForDevice::Host {
                    loaded: Loaded {
                        image: d.image,
                        metadata: SaveOptions {
                            icc_profile: d.icc_profile,
                            exif: d.exif.map(|e| exif_upright(&e)),
                            ..SaveOptions::default()
                        },
                        warnings: d.warnings,
                    },
                    why: Some(format!("decoded on the CPU: {why}")),
                })
            }
        }
    }

    /// Without libjpeg-turbo there is no GPU-assisted decode: the JPEG is decoded here.
    #[cfg(not(feature = "turbojpeg"))]
    fn jpeg_for_device(
        path: &std::path::Path,
        options: &LoadOptions,
        _gpu_entropy: bool,
    ) -> Result<ForDevice> {
        Self::load(path, options).map(|loaded| ForDevice::Host {
            loaded,
            why: Some(
                "decoded on the CPU: built without libjpeg-turbo (feature `turbojpeg`)".into(),
            ),
        })
    }

    /// What of a file's metadata an output of it should carry, read in one pass over its
    /// headers: the ICC colour profile, and the EXIF data (its TIFF structure) with the
    /// orientation set upright, as `open` turns the pixels. Empty where the file has none (or
    /// cannot be read: `open` reports that).
    pub fn read_metadata(path: impl AsRef<std::path::Path>) -> SaveOptions {
        let mut meta = SaveOptions::default();
        let Ok(reader) = crate::input::image_reader(path.as_ref()) else {
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
        let img = match self.format() {
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
        crate::io::codec::encode_jpeg(img, &options).map_err(io)
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
        // (`io::output`: only a regular file is ever replaced)
        let file = crate::io::rows::image_output(path, options)?;
        let tmp = file.write_path().unwrap_or(path).to_path_buf();
        // PNG and TIFF keep 16 bits exactly; the other formats have 8 (rounded to nearest)
        if self.format() == PixelFormat::Rgba16
            && matches!(format, image::ImageFormat::Png | image::ImageFormat::Tiff)
        {
            encode_16bit(self, &tmp, format, options).map_err(io)?;
            return file.commit();
        }
        // 8-bit images are encoded from their own bytes (no copy); others are quantised first
        let quantised;
        let img = match self.format() {
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
            image::ImageFormat::Jpeg => crate::io::codec::encode_jpeg(img, options)
                .and_then(|bytes| std::fs::write(&tmp, bytes).map_err(|e| e.to_string())),
            image::ImageFormat::Png => encode_png(img, &tmp, color, options),
            // formats without alpha (BMP can take it; the encoder says which cannot)
            _ => image::save_buffer_with_format(&tmp, img.as_u8(), w, h, color, format)
                .or_else(|_| img.to_dynamic().to_rgb8().save_with_format(&tmp, format))
                .map_err(|e| e.to_string()),
        };
        written.map_err(io)?;
        file.commit()
    }
}

/// How `Image::load` reads a file.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadOptions {
    /// Limits on the decoded size; `None`: `Limits::default()`.
    pub limits: Option<crate::limits::Limits>,
    /// Accept a truncated or damaged file with what the decoder recovered (a warning in
    /// `Loaded::warnings`) instead of failing.
    pub allow_truncated: bool,
    /// Shrink-on-load (issue 30): the least size (width, height, upright) the caller needs. A
    /// JPEG is then decoded at the smallest DCT scale (1/2, 1/4, 1/8; libjpeg-turbo's scaled
    /// IDCT) whose output is still at least this size in both axes, and the caller resizes it to
    /// its exact size; the result may be larger than this, never smaller (unless the file is).
    /// Other formats, and JPEG without the `turbojpeg` feature, decode at full size. `None`:
    /// full size.
    pub min_size: Option<(u32, u32)>,
}

/// A decoded file: its pixels (upright), the metadata an output of it should carry, and what
/// was wrong with it (only with `LoadOptions::allow_truncated`).
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The pixels, upright.
    pub image: Image,
    /// Metadata an output of it should carry (ICC profile, EXIF).
    pub metadata: SaveOptions,
    /// What was wrong with the file.
    pub warnings: Vec<String>,
}

/// A file made ready for a run on the GPU (`Image::load_for_device`).
#[derive(Clone, Debug)]
pub enum ForDevice {
    /// Decoded on the host; for a JPEG, why not on the GPU.
    Host {
        /// The decoded file.
        loaded: Loaded,
        /// Why a JPEG was not decoded on the GPU.
        why: Option<String>,
    },
    /// A JPEG's coefficients: the graph's first node decodes them on the device (feature
    /// `turbojpeg`: libjpeg-turbo's entropy decode).
    #[cfg(feature = "turbojpeg")]
    Jpeg {
        /// The node (`Pipeline::try_run_produced` takes it).
        decode: jpeg_coef::JpegDecode,
        /// Metadata an output of it should carry (ICC profile, EXIF set upright).
        metadata: SaveOptions,
    },
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
    pub jpeg_subsampling: Option<crate::io::codec::Subsampling>,
    /// PNG compression effort (the file stays lossless).
    pub png_compression: PngCompression,
    /// The colour (8-bit sRGB) that transparent pixels are composited over when the format
    /// has no alpha (JPEG): `out = c·a + background·(1 − a)`. White by default, as a browser
    /// shows a transparent image on a white page; the colours hidden under transparent pixels
    /// never come out.
    pub background: [u8; 3],
    /// Fail with `Error::OutputExists` where the output exists instead of replacing it,
    /// checked again at the final rename (of writers racing for one path, one wins).
    pub no_clobber: bool,
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
            no_clobber: false,
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
    /// zlib's fastest level, adaptive row filters.
    Fast,
    /// The encoder's default level.
    Default,
    /// The smallest file.
    Best,
}

impl PngCompression {
    /// `fast`, `default` or `best`.
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

#[cfg(test)]
mod tests {
    use crate::image::{Image, PixelFormat};

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
}
