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
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Pixel format.
    pub format: PixelFormat,
}

impl ImageDesc {
    /// An image description.
    pub fn new(width: u32, height: u32, format: PixelFormat) -> Self {
        Self {
            width,
            height,
            format,
        }
    }
    /// Width times height.
    pub fn pixels(&self) -> usize {
        self.width as usize * self.height as usize
    }
    /// The same size in another format.
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
    /// Size and format.
    pub fn desc(&self) -> ImageDesc {
        self.desc
    }
    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.desc.width
    }
    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.desc.height
    }
    /// Pixel format.
    pub fn format(&self) -> PixelFormat {
        self.desc.format
    }
    /// The samples, by sample type.
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
    /// 8-bit samples, mutable; an empty slice for other images.
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
    /// 16-bit samples, mutable; an empty slice for other images.
    pub fn as_u16_mut(&mut self) -> &mut [u16] {
        match &mut self.data {
            ImageData::U16(v) => v,
            _ => &mut [],
        }
    }
    /// Float samples; an empty slice for other images.
    pub fn as_f32(&self) -> &[f32] {
        match &self.data {
            ImageData::F32(v) => v,
            _ => &[],
        }
    }
    /// Float samples, mutable; an empty slice for other images.
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

/// Bytes per pixel of `format`'s samples as `Image` holds them.
pub fn sample_bytes_per_pixel(format: PixelFormat) -> usize {
    match format {
        PixelFormat::Rgba8 => 4,
        PixelFormat::Gray8 => 1,
        PixelFormat::Rgba16 => 8,
        PixelFormat::Rgba32F => 16,
        PixelFormat::R32F => 4,
    }
}

/// Bytes of one packed row of `desc`.
pub fn row_bytes(desc: ImageDesc) -> usize {
    desc.width as usize * sample_bytes_per_pixel(desc.format)
}

/// An image (`rows` x width) from packed sample bytes in `format`.
pub(crate) fn image_from_bytes(
    width: u32,
    rows: u32,
    format: PixelFormat,
    bytes: &[u8],
) -> Result<Image> {
    match format {
        PixelFormat::Rgba8 | PixelFormat::Gray8 => {
            Image::from_u8(width, rows, format, bytes.to_vec())
        }
        PixelFormat::Rgba16 => Image::from_u16(
            width,
            rows,
            bytes
                .chunks_exact(2)
                .map(|b| u16::from_ne_bytes([b[0], b[1]]))
                .collect(),
        ),
        _ => Image::from_f32(
            width,
            rows,
            format,
            bytes
                .chunks_exact(4)
                .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
        ),
    }
}

/// `image_from_bytes` taking the bytes: 8-bit images keep the vector (no copy).
pub(crate) fn image_from_vec(
    width: u32,
    rows: u32,
    format: PixelFormat,
    bytes: Vec<u8>,
) -> Result<Image> {
    match format {
        PixelFormat::Rgba8 | PixelFormat::Gray8 => Image::from_u8(width, rows, format, bytes),
        _ => image_from_bytes(width, rows, format, &bytes),
    }
}

/// An image's samples as bytes (native-endian), borrowed.
pub(crate) fn image_bytes(img: &Image) -> &[u8] {
    match img.data() {
        ImageData::U8(d) => d.as_slice(),
        ImageData::U16(d) => bytemuck::cast_slice(d.as_slice()),
        ImageData::F32(d) => bytemuck::cast_slice(d.as_slice()),
    }
}

/// An image's samples as bytes (native-endian), to write.
pub(crate) fn image_bytes_mut(img: &mut Image) -> &mut [u8] {
    match img.format() {
        PixelFormat::Rgba8 | PixelFormat::Gray8 => img.as_u8_mut(),
        PixelFormat::Rgba16 => bytemuck::cast_slice_mut(img.as_u16_mut()),
        _ => bytemuck::cast_slice_mut(img.as_f32_mut()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn gray_gpu_layout_pads_rows() {
        let img = Image::from_u8(5, 2, PixelFormat::Gray8, (0..10).collect()).unwrap();
        let b = img.to_gpu_bytes();
        assert_eq!(b, vec![0, 1, 2, 3, 4, 0, 0, 0, 5, 6, 7, 8, 9, 0, 0, 0]);
        assert_eq!(Image::from_gpu_bytes(img.desc(), &b).unwrap(), img);
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
