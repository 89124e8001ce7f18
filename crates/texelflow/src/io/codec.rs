//! JPEG on the file path (issue 13): libjpeg-turbo through the `turbojpeg` crate (cargo feature
//! `turbojpeg`, on by default; it builds libjpeg-turbo from source, which needs cmake and nasm)
//! decodes straight into RGBA (or grey) and encodes; zune-jpeg (the `image` crate's own JPEG
//! decoder) reads the headers and metadata, and decodes what libjpeg-turbo does not (headers it
//! rejects) or everything without the feature, where `jpeg-encoder` encodes. CMYK and YCCK
//! files (issue 29) come out as Pillow shows them, by either decoder (`cmyk_to_rgba`). Measured on one core (a
//! 3840×2160 photo-like JPEG, quality 90; docs/perf-notes.md): decode to RGBA 41 ms through
//! `image`, 31 ms by zune-jpeg directly, 26 ms by libjpeg-turbo; encode 4:4:4 / 4:2:0 / grey
//! 122 / 69 / 50 ms with `jpeg-encoder`, 34 / 21 / 15 ms with libjpeg-turbo.
//!
//! A colour image whose pixels are all grey and opaque (an edge map, a grayscale filter's
//! output) is written as a one-channel JPEG, as OpenCV writes a grey image: the same picture in
//! a smaller file, encoded in about half the time.

use crate::image::{Image, PixelFormat};
use crate::io::SaveOptions;
use crate::limits::Limits;

/// Chroma subsampling of a colour JPEG (libjpeg's `-sample`): 4:4:4 keeps full colour
/// resolution, 4:2:0 (libjpeg's and OpenCV's default) halves it both ways.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subsampling {
    /// Full chroma resolution.
    S444,
    /// Chroma halved horizontally.
    S422,
    /// Chroma halved both ways.
    S420,
}

impl Subsampling {
    /// `444`, `422` or `420` (also with colons: `4:2:0`).
    pub fn parse(text: &str) -> Option<Self> {
        match text.replace(':', "").as_str() {
            "444" => Some(Self::S444),
            "422" => Some(Self::S422),
            "420" => Some(Self::S420),
            _ => None,
        }
    }
    /// The default for a quality: full colour at 90 and above, 4:2:0 below (as before the
    /// option existed: `jpeg-encoder`'s choice).
    pub fn for_quality(quality: u8) -> Self {
        if quality >= 90 {
            Self::S444
        } else {
            Self::S420
        }
    }
}

/// A decoded JPEG: its pixels upright (EXIF orientation applied) and its metadata.
pub(crate) struct DecodedJpeg {
    pub image: Image,
    pub icc_profile: Option<Vec<u8>>,
    /// The EXIF TIFF structure as stored (orientation not yet reset).
    pub exif: Option<Vec<u8>>,
    /// What was wrong with the data (a truncated or damaged file accepted by `allow_truncated`).
    pub warnings: Vec<String>,
}

/// The most pixels a side of a JPEG can have: libjpeg's `JPEG_MAX_DIMENSION`. The header's
/// 16-bit fields reach 65535; a larger size than this is a damaged header (issue 29, item 17).
pub const MAX_JPEG_SIDE: usize = 65500;

/// How a JPEG's components become pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Model {
    /// One component: Gray8.
    Grey,
    /// YCbCr (or RGB): RGBA8.
    Colour,
    /// Four components, CMYK or YCCK (Adobe APP14 transform 2): RGBA8 by `cmyk_to_rgba`.
    Cmyk,
}

/// A JPEG's header, read and checked (size against `limits` and `MAX_JPEG_SIDE`, the data's
/// length against what the header promises unless `allow_truncated`) before any pixel memory
/// is taken.
struct Header<'a> {
    decoder: zune_jpeg::JpegDecoder<zune_core::bytestream::ZCursor<&'a [u8]>>,
    width: usize,
    height: usize,
    model: Model,
    /// The EXIF orientation the image is turned upright by.
    orientation: image::metadata::Orientation,
    /// The DCT scale denominator of the decode (`dct_denom`; 1: full size).
    denom: usize,
}

/// Whether EXIF orientation `o` turns the image a quarter (orientations 5-8): its upright
/// width and height are the stored height and width.
pub(crate) fn quarter_turn(o: image::metadata::Orientation) -> bool {
    use image::metadata::Orientation as O;
    matches!(
        o,
        O::Rotate90 | O::Rotate270 | O::Rotate90FlipH | O::Rotate270FlipH
    )
}

/// `dct_denom` of a stored `w`×`h` JPEG of orientation `o` for an upright `min_size` (the
/// stored axes swapped where `o` turns a quarter); 1 without `min_size`, or where libjpeg-turbo
/// is not built in (the `turbojpeg` feature: nothing else decodes at a DCT scale).
pub(crate) fn dct_denom_upright(
    w: usize,
    h: usize,
    o: image::metadata::Orientation,
    min_size: Option<(u32, u32)>,
) -> usize {
    match min_size {
        Some((nw, nh)) if cfg!(feature = "turbojpeg") => {
            dct_denom(w, h, if quarter_turn(o) { (nh, nw) } else { (nw, nh) })
        }
        _ => 1,
    }
}

/// Checks the decode of a `w`×`h` JPEG at DCT scale `1/denom` against `limits`, before any
/// pixel memory is taken: the pixels and memory (`Limits::check_decode`) of the decoded size
/// and, for a progressive file decoded at a reduced scale, libjpeg's whole-image coefficient
/// buffer at full size besides (2 bytes a coefficient, every component counted at full size:
/// a bound).
fn check_decode_at(
    bytes: &[u8],
    limits: &Limits,
    (w, h): (usize, usize),
    denom: usize,
) -> Result<(), String> {
    let (sw, sh) = (w.div_ceil(denom), h.div_ceil(denom));
    // at most MAX_JPEG_SIDE (checked by the caller)
    let (sw32, sh32) = (
        u32::try_from(sw).map_err(|_| "corrupt image: width out of range")?,
        u32::try_from(sh).map_err(|_| "corrupt image: height out of range")?,
    );
    limits.check_decode(sw32, sh32, 4)?;
    if denom == 1 {
        return Ok(());
    }
    let Some(frame) = jpeg_frame_header(&mut std::io::Cursor::new(bytes)) else {
        return Ok(());
    };
    if !matches!(frame.marker, 0xC2 | 0xC6 | 0xCA | 0xCE) {
        return Ok(());
    }
    let coefficients = u64::from(frame.components())
        .saturating_mul(w.next_multiple_of(32) as u64)
        .saturating_mul(h.next_multiple_of(32) as u64)
        .saturating_mul(2);
    let need = (sw as u64 * sh as u64)
        .saturating_mul(8)
        .saturating_add(coefficients);
    if need > limits.max_memory {
        return Err(format!(
            "{w}x{h} (progressive, decoded at 1/{denom}: {sw}x{sh}) needs about {} to decode, more than the limit of {} (--max-memory)",
            crate::limits::human_bytes(need),
            crate::limits::human_bytes(limits.max_memory)
        ));
    }
    Ok(())
}

fn checked_header<'a>(
    bytes: &'a [u8],
    limits: &Limits,
    allow_truncated: bool,
    min_size: Option<(u32, u32)>,
) -> Result<Header<'a>, String> {
    use zune_core::colorspace::ColorSpace;
    let corrupt = |e: zune_jpeg::errors::DecodeErrors| {
        format!("corrupt or unsupported image: {}", e.to_string().trim())
    };
    let mut d = zune_decoder(bytes, allow_truncated, ColorSpace::RGBA);
    d.decode_headers().map_err(corrupt)?;
    let (w, h) = d
        .dimensions()
        .ok_or("corrupt or unsupported image: no dimensions")?;
    if w > MAX_JPEG_SIDE || h > MAX_JPEG_SIDE {
        return Err(format!(
            "corrupt JPEG header: it says {w}x{h}, but a JPEG is at most {MAX_JPEG_SIDE} pixels a side"
        ));
    }
    let orientation = d
        .exif()
        .map(Vec::as_slice)
        .and_then(image::metadata::Orientation::from_exif_chunk)
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    // refused before any pixel memory is taken (a decompression bomb's header is small), at
    // the size it is decoded at (shrink-on-load: the DCT scale)
    let denom = dct_denom_upright(w, h, orientation, min_size);
    check_decode_at(bytes, limits, (w, h), denom)?;
    let model = match d.input_colorspace() {
        Some(ColorSpace::Luma) => Model::Grey,
        Some(ColorSpace::CMYK | ColorSpace::YCCK) => Model::Cmyk,
        _ => Model::Colour,
    };
    // a small file whose header claims a huge image would otherwise be decoded whole (seconds,
    // gigabytes) only to fail at its end
    if !allow_truncated {
        if let Some(need) = min_scan_bytes(bytes) {
            if (bytes.len() as u64) < need {
                return Err(format!(
                    "truncated or damaged JPEG: a {w}x{h} JPEG needs at least {need} bytes of image data, the file has {} (--allow-truncated accepts what can be decoded)",
                    bytes.len()
                ));
            }
        }
    }
    Ok(Header {
        decoder: d,
        width: w,
        height: h,
        model,
        orientation,
        denom,
    })
}

/// A JPEG for a run on the GPU: its coefficients, decoded to pixels on the device by the
/// graph's first node, or why it is decoded on the host instead.
#[cfg(feature = "turbojpeg")]
pub(crate) enum DeviceJpeg {
    /// Entropy-decoded here; dequantised, transformed, upsampled and converted on the GPU.
    Coefficients {
        /// The graph node that makes the pixels.
        decode: crate::io::jpeg_coef::JpegDecode,
        /// The ICC profile.
        icc_profile: Option<Vec<u8>>,
        /// The EXIF TIFF structure as stored (orientation not yet reset).
        exif: Option<Vec<u8>>,
    },
    /// Decoded on the host (`decode_jpeg`): why not on the GPU.
    Host(String),
}

/// The CPU half of the GPU-assisted decode (issue 30): the header checked as `decode_jpeg`
/// checks it, then libjpeg-turbo's entropy decoding into coefficients. Errors are those of
/// the header; a file this path does not take (CMYK, YCCK, 12-bit, sampling other than 1:1
/// and 2:1, data libjpeg warns about) is `DeviceJpeg::Host` with the reason, for the caller to
/// decode on the host with its policy for damaged files. With `gpu_entropy`, a file the
/// device's entropy decode takes (`io::jpeg_huffdec`: baseline, one scan) is not entropy-decoded
/// here at all: the node uploads its bytes, and damage within the entropy-coded data is
/// flagged by the device (`Error::ProducerRejected` from the run: the caller decodes again
/// without `gpu_entropy`).
#[cfg(feature = "turbojpeg")]
pub(crate) fn jpeg_for_device(
    bytes: &[u8],
    limits: &Limits,
    gpu_entropy: bool,
) -> Result<DeviceJpeg, String> {
    let Header {
        decoder: d, model, ..
    } = checked_header(bytes, limits, false, None)?;
    if model == Model::Cmyk {
        return Ok(DeviceJpeg::Host("a CMYK or YCCK JPEG".into()));
    }
    use crate::io::jpeg_coef::{read_coefficients, CoefError, JpegDecode};
    let exif = d.exif().cloned();
    let orientation = exif
        .as_deref()
        .and_then(image::metadata::Orientation::from_exif_chunk)
        .map_or(1, |o| o.to_exif());
    if gpu_entropy {
        if let Some(decode) = JpegDecode::from_file(bytes.to_vec(), orientation, limits.max_memory)
        {
            return Ok(DeviceJpeg::Coefficients {
                decode,
                icc_profile: d.icc_profile(),
                exif,
            });
        }
    }
    let c = match read_coefficients(bytes, limits.max_memory) {
        Ok(c) => c,
        Err(CoefError::Unsupported) => {
            return Ok(DeviceJpeg::Host(
                "a 12-bit, lossless or many-component JPEG".into(),
            ))
        }
        Err(CoefError::TooLarge(_)) => {
            return Ok(DeviceJpeg::Host(
                "its coefficients exceed the memory limit".into(),
            ))
        }
        Err(CoefError::Libjpeg(why)) => {
            return Ok(DeviceJpeg::Host(format!("libjpeg-turbo: {why}")))
        }
    };
    match JpegDecode::new(c, orientation) {
        Some(decode) => Ok(DeviceJpeg::Coefficients {
            decode,
            icc_profile: d.icc_profile(),
            exif,
        }),
        None => Ok(DeviceJpeg::Host(
            "its sampling factors or colour transform".into(),
        )),
    }
}

/// Decodes a JPEG into RGBA8 (Gray8 for a grey JPEG), turned upright by its EXIF orientation.
/// The size is checked against `limits` from the header, before any pixel memory is taken. A
/// truncated or damaged file (libjpeg's "Premature end of JPEG file", corrupt data) is an error
/// unless `allow_truncated`, which keeps what the decoder recovered (missing rows grey) and
/// says so in `warnings`; without it, a file too small to hold the scans its header promises is
/// refused before decoding (`min_scan_bytes`). CMYK and YCCK files come out as Pillow shows
/// them (`cmyk_to_rgba`).
///
/// Shrink-on-load: see `decode_jpeg_at_least` (`min_size`).
#[cfg(test)]
pub(crate) fn decode_jpeg(
    bytes: &[u8],
    limits: &Limits,
    allow_truncated: bool,
) -> Result<DecodedJpeg, String> {
    decode_jpeg_at_least(bytes, limits, allow_truncated, None)
}

/// The DCT scale denominator (1, 2, 4 or 8) of the smallest libjpeg-turbo scaled decode of a
/// `w`×`h` JPEG whose size (each side `ceil(side / denom)`, as libjpeg scales) is still at
/// least `need` (issue 30, shrink-on-load). 1 where no scale keeps the size, or `need` is 0.
pub(crate) fn dct_denom(w: usize, h: usize, need: (u32, u32)) -> usize {
    let (nw, nh) = (need.0 as usize, need.1 as usize);
    if nw == 0 || nh == 0 {
        return 1;
    }
    [8, 4, 2]
        .into_iter()
        .find(|&d| w.div_ceil(d) >= nw && h.div_ceil(d) >= nh)
        .unwrap_or(1)
}

/// `decode_jpeg`, decoded at a reduced DCT scale (1/2, 1/4, 1/8: libjpeg-turbo's scaled IDCT,
/// issue 30's shrink-on-load) where `min_size` is given: the smallest scale whose upright
/// output (after EXIF orientation; rotated orientations swap the axes) is at least
/// `min_size` in both axes. The caller resizes the result to its exact size. Without the
/// `turbojpeg` feature, or where libjpeg-turbo does not take the file, the decode is full size.
/// The limits are checked against the size decoded (`check_decode_at`): a file too large to
/// decode whole may be taken at a reduced scale.
pub(crate) fn decode_jpeg_at_least(
    bytes: &[u8],
    limits: &Limits,
    allow_truncated: bool,
    min_size: Option<(u32, u32)>,
) -> Result<DecodedJpeg, String> {
    let corrupt = |e: zune_jpeg::errors::DecodeErrors| {
        format!("corrupt or unsupported image: {}", e.to_string().trim())
    };
    let Header {
        decoder: d,
        width: w,
        height: h,
        model,
        orientation,
        denom,
    } = checked_header(bytes, limits, allow_truncated, min_size)?;
    let mut warnings = Vec::new();
    let (mut w, mut h) = (w, h);
    let scaled = |side: usize| side.div_ceil(denom);
    let mut by_turbo = true;
    let pixels = match turbo_decode(bytes, model, w, h, denom)? {
        Turbo::Done(pixels) => pixels,
        Turbo::Damaged(pixels, why) if allow_truncated => {
            warnings.push(format!(
                "truncated or damaged JPEG ({why}); the rows it lacks come out grey"
            ));
            pixels
        }
        Turbo::Damaged(_, why) => {
            return Err(format!(
                "truncated or damaged JPEG: {why} (--allow-truncated accepts what can be decoded)"
            ))
        }
        Turbo::Unsupported => {
            // zune-jpeg decodes at full size: checked at that size where the header's check was
            // of a DCT-scaled decode
            if denom > 1 {
                check_decode_at(bytes, limits, (w, h), 1)?;
            }
            zune_pixels(bytes, allow_truncated, model)
                .inspect(|_| by_turbo = false)
                .map_err(|e| {
                    if allow_truncated {
                        corrupt(e)
                    } else {
                        format!(
                            "{} (--allow-truncated accepts what can be decoded)",
                            corrupt(e)
                        )
                    }
                })?
        }
    };
    if by_turbo && denom > 1 {
        (w, h) = (scaled(w), scaled(h));
    }
    let grey = model == Model::Grey;
    if pixels.len() != w * h * if grey { 1 } else { 4 } {
        return Err(format!(
            "corrupt or unsupported image: decoded {} bytes for {w}x{h}",
            pixels.len()
        ));
    }
    let (w, h) = (w as u32, h as u32); // at most MAX_JPEG_SIDE (checked_header)
    let exif = d.exif().cloned();
    let icc_profile = d.icc_profile();
    let bad = || "corrupt or unsupported image: decoded size does not match its header".to_string();
    let mut dynamic = if grey {
        image::DynamicImage::ImageLuma8(image::GrayImage::from_raw(w, h, pixels).ok_or_else(bad)?)
    } else {
        image::DynamicImage::ImageRgba8(image::RgbaImage::from_raw(w, h, pixels).ok_or_else(bad)?)
    };
    if orientation != image::metadata::Orientation::NoTransforms {
        dynamic.apply_orientation(orientation);
    }
    Ok(DecodedJpeg {
        image: Image::from(dynamic),
        icc_profile,
        exif,
        warnings,
    })
}

/// A zune-jpeg decoder of `bytes` into `out`. The output colour space is set before the
/// headers are read: zune-jpeg 0.5 ignores a change made after them on some paths (4:4:4 came
/// out RGB).
fn zune_decoder(
    bytes: &[u8],
    allow_truncated: bool,
    out: zune_core::colorspace::ColorSpace,
) -> zune_jpeg::JpegDecoder<zune_core::bytestream::ZCursor<&[u8]>> {
    let options = zune_core::options::DecoderOptions::default()
        .set_strict_mode(!allow_truncated)
        .set_max_width(usize::MAX)
        .set_max_height(usize::MAX)
        .jpeg_set_out_colorspace(out);
    zune_jpeg::JpegDecoder::new_with_options(zune_core::bytestream::ZCursor::new(bytes), options)
}

/// The pixels by zune-jpeg (Gray8 or RGBA8), where libjpeg-turbo did not decode. A CMYK or
/// YCCK file is asked for as RGB (zune-jpeg 0.5.15 writes CMYK→RGBA 3 bytes a pixel into a
/// 4-byte layout: stripes, the last quarter black) and widened: its CMYK→RGB is Pillow's on
/// inverted samples, `K·C/255` rounded (`blinn_8x8`), as `cmyk_to_rgba` is.
fn zune_pixels(
    bytes: &[u8],
    allow_truncated: bool,
    model: Model,
) -> Result<Vec<u8>, zune_jpeg::errors::DecodeErrors> {
    use zune_core::colorspace::ColorSpace;
    let out = match model {
        Model::Grey => ColorSpace::Luma,
        Model::Colour => ColorSpace::RGBA,
        Model::Cmyk => ColorSpace::RGB,
    };
    let pixels = zune_decoder(bytes, allow_truncated, out).decode()?;
    if model != Model::Cmyk {
        return Ok(pixels);
    }
    let mut pixels = pixels;
    let n = pixels.len() / 3;
    pixels.try_reserve_exact(n).map_err(|_| {
        zune_jpeg::errors::DecodeErrors::Format("out of memory for the decoded image".into())
    })?;
    pixels.resize(n * 4, 255);
    // back to front, so that no pixel is overwritten before it is moved
    for i in (0..n).rev() {
        let rgb = [pixels[3 * i], pixels[3 * i + 1], pixels[3 * i + 2]];
        pixels[4 * i..4 * i + 3].copy_from_slice(&rgb);
        pixels[4 * i + 3] = 255;
    }
    Ok(pixels)
}

/// CMYK samples, as libjpeg decodes a CMYK or YCCK file, to RGBA in place, as Pillow does
/// (`Image.open(f).convert('RGB')`, Pillow 13): every 4-component JPEG is read as Adobe's
/// inverted CMYK (rawmode "CMYK;I": Photoshop's convention, with or without its APP14
/// marker), then `cmyk2rgb`: `R = (255 - K) - (255 - K)·C/255`, rounded as its `MULDIV255`. In
/// the stored (inverted) samples s: `R = sK - MULDIV255(255 - sC, sK)`; so for G and B.
#[cfg_attr(not(feature = "turbojpeg"), allow(dead_code))]
fn cmyk_to_rgba(pixels: &mut [u8]) {
    for p in pixels.chunks_exact_mut(4) {
        let k = u32::from(p[3]);
        for c in &mut p[..3] {
            let t = (255 - u32::from(*c)) * k + 128;
            *c = k.saturating_sub(((t >> 8) + t) >> 8) as u8;
        }
        p[3] = 255;
    }
}

/// The fewest bytes the entropy-coded data of a complete JPEG with this file's frame header
/// can take, or `None` where no useful bound holds (arithmetic coding, lossless and
/// hierarchical frames, an unreadable header: the decoders judge those). Every 8x8 block of every component of a
/// Huffman-coded sequential frame has a DC code and at least one AC code (an end-of-block or a
/// coefficient), each at least 1 bit. A progressive frame can end its AC scans in runs of
/// thousands of blocks (EOBRUN), but a DC scan codes every block of its component, each at
/// least 1 bit: at least one component's DC scan is counted (the smallest).
fn min_scan_bytes(bytes: &[u8]) -> Option<u64> {
    let frame = jpeg_frame_header(&mut std::io::Cursor::new(bytes))?;
    if !frame.complete {
        return None;
    }
    let (kind, frame) = (frame.marker, frame.header.as_slice());
    // P, Y, X, Nf, then Nf x (C, H/V, Tq)
    let (y, x, nf) = (
        u64::from(u16::from_be_bytes([*frame.get(1)?, *frame.get(2)?])),
        u64::from(u16::from_be_bytes([*frame.get(3)?, *frame.get(4)?])),
        usize::from(*frame.get(5)?),
    );
    let comps = frame.get(6..6 + 3 * nf)?;
    let factors: Vec<(u64, u64)> = comps
        .chunks_exact(3)
        .map(|c| (u64::from(c[1] >> 4), u64::from(c[1] & 15)))
        .collect();
    let hmax = factors.iter().map(|f| f.0).max()?;
    let vmax = factors.iter().map(|f| f.1).max()?;
    if y == 0 || x == 0 || hmax == 0 || vmax == 0 || factors.iter().any(|f| f.0 * f.1 == 0) {
        return None;
    }
    // a component's samples: ceil(X·H/Hmax) x ceil(Y·V/Vmax) (T.81 A.1.1); its blocks cover them
    let blocks: Vec<u64> = factors
        .iter()
        .map(|&(hf, vf)| (x * hf).div_ceil(hmax).div_ceil(8) * (y * vf).div_ceil(vmax).div_ceil(8))
        .collect();
    let bits = match kind {
        0xC0 | 0xC1 => 2 * blocks.iter().sum::<u64>(),
        0xC2 => *blocks.iter().min()?,
        _ => return None,
    };
    Some(bits / 8)
}

/// A JPEG's frame header (its SOFn marker segment), as `jpeg_frame_header` finds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct JpegFrame {
    /// The SOFn marker's code: 0xC0 baseline, 0xC1 extended, 0xC2 progressive, ...
    pub marker: u8,
    /// The segment after its length field (P, Y, X, Nf, then Nf x (C, H/V, Tq)) as far as the
    /// input holds it: at least P, Y, X and Nf (6 bytes), at most the length it declares.
    pub header: Vec<u8>,
    /// Whether the input holds the whole segment its length field declares.
    pub complete: bool,
}

impl JpegFrame {
    /// The frame's width (X) and height (Y), as the header says (0 is possible: damaged).
    pub fn size(&self) -> (u32, u32) {
        let h = u16::from_be_bytes([self.header[1], self.header[2]]);
        let w = u16::from_be_bytes([self.header[3], self.header[4]]);
        (u32::from(w), u32::from(h))
    }

    /// The number of components (Nf): 1 for grey, 3 for YCbCr or RGB, 4 for CMYK or YCCK.
    pub fn components(&self) -> u8 {
        self.header[5]
    }
}

/// Walks the marker segments of the JPEG that `r` reads from its start (a file, or a byte slice
/// in a `Cursor`) up to its first scan: each segment whose marker `wanted` selects is read and
/// given to `visit` (its marker, its body, and whether the body is whole), which stops the walk
/// with `Break` or goes on with `Continue`; the others are skipped by seeking, not read, so
/// that a file's header is found however long its metadata. `None` where the walk ends
/// without a `Break`: at a scan or the end of the image, or where the data is not where JPEG
/// puts it (no SOI, a byte where a marker should be, a length under 2, the input ending).
fn walk_jpeg_segments<R: std::io::Read + std::io::Seek, T>(
    r: &mut R,
    wanted: impl Fn(u8) -> bool,
    mut visit: impl FnMut(u8, Vec<u8>, bool) -> std::ops::ControlFlow<Option<T>>,
) -> Option<T> {
    use std::io::Read;
    fn byte(r: &mut impl Read) -> Option<u8> {
        let mut b = [0u8; 1];
        r.read_exact(&mut b).ok()?;
        Some(b[0])
    }
    if [byte(r)?, byte(r)?] != [0xFF, 0xD8] {
        return None;
    }
    loop {
        // a marker: 0xFF (any number of fill bytes), then its code
        if byte(r)? != 0xFF {
            return None;
        }
        let mut code = 0xFF;
        while code == 0xFF {
            code = byte(r)?;
        }
        if matches!(code, 0x01 | 0xD0..=0xD7) {
            continue;
        }
        if code == 0xD9 || code == 0xDA {
            return None;
        }
        let len = u16::from_be_bytes([byte(r)?, byte(r)?]);
        if len < 2 {
            return None;
        }
        let len = u64::from(len - 2);
        if wanted(code) {
            let mut body = Vec::new();
            r.by_ref().take(len).read_to_end(&mut body).ok()?;
            let whole = body.len() as u64 == len;
            if let std::ops::ControlFlow::Break(found) = visit(code, body, whole) {
                return found;
            }
        } else {
            r.seek_relative(len as i64).ok()?;
        }
    }
}

/// The frame header of the JPEG that `r` reads from its start (`walk_jpeg_segments`). `None`
/// if it is not where JPEG puts it: no SOI, a byte where a marker should be, a scan or the end
/// of the image before any frame, a length under 2, or the input ending before the frame
/// header's first 6 bytes.
pub(crate) fn jpeg_frame_header<R: std::io::Read + std::io::Seek>(r: &mut R) -> Option<JpegFrame> {
    use std::ops::ControlFlow::Break;
    walk_jpeg_segments(
        r,
        |code| matches!(code, 0xC0..=0xCF) && !matches!(code, 0xC4 | 0xC8 | 0xCC),
        |marker, header, complete| {
            Break((header.len() >= 6).then_some(JpegFrame {
                marker,
                header,
                complete,
            }))
        },
    )
}

/// The EXIF orientation of the JPEG that `r` reads from its start, as the decoder finds it (the
/// last APP1 `Exif` segment before the first scan, as zune-jpeg keeps it), reading only the
/// APP1 segments (`walk_jpeg_segments`); `NoTransforms` where there is none or it cannot be
/// read (the decode reports a damaged file).
pub(crate) fn jpeg_orientation<R: std::io::Read + std::io::Seek>(
    r: &mut R,
) -> image::metadata::Orientation {
    use image::metadata::Orientation;
    let mut found = Orientation::NoTransforms;
    walk_jpeg_segments::<_, ()>(
        r,
        |code| code == 0xE1,
        |_, segment, _| {
            if let Some(tiff) = segment.strip_prefix(b"Exif\0\0") {
                found = Orientation::from_exif_chunk(tiff).unwrap_or(Orientation::NoTransforms);
            }
            std::ops::ControlFlow::Continue(())
        },
    );
    found
}

/// What libjpeg-turbo made of a file.
#[cfg_attr(not(feature = "turbojpeg"), allow(dead_code))]
enum Turbo {
    /// Every pixel decoded.
    Done(Vec<u8>),
    /// Decoded with a warning (a truncated file: "Premature end of JPEG file"; corrupt data):
    /// the pixels it recovered, and the warning.
    Damaged(Vec<u8>, String),
    /// Not decoded (a header it rejects; one it reads differently from zune-jpeg's; the
    /// feature off): zune-jpeg decodes, or says what is wrong.
    Unsupported,
}

/// The pixels by libjpeg-turbo (RGBA, or grey; CMYK and YCCK files decoded to CMYK, which
/// libjpeg converts YCCK to, then to RGBA in place by `cmyk_to_rgba`). libjpeg-turbo decoded a
/// 4K photo in 26 ms against zune-jpeg's 31 (one core, docs/perf-notes.md). The pixel buffer
/// is allocated with `try_reserve`: a failed allocation is an error, not an abort.
#[cfg(feature = "turbojpeg")]
fn turbo_decode(
    bytes: &[u8],
    model: Model,
    w: usize,
    h: usize,
    denom: usize,
) -> Result<Turbo, String> {
    let (format, channels) = match model {
        Model::Grey => (turbojpeg::PixelFormat::GRAY, 1),
        Model::Colour => (turbojpeg::PixelFormat::RGBA, 4),
        Model::Cmyk => (turbojpeg::PixelFormat::CMYK, 4),
    };
    let Ok(mut d) = turbojpeg::Decompressor::new() else {
        return Ok(Turbo::Unsupported);
    };
    let Ok(header) = d.read_header(bytes) else {
        return Ok(Turbo::Unsupported);
    };
    let cmyk = matches!(
        header.colorspace,
        turbojpeg::Colorspace::CMYK | turbojpeg::Colorspace::YCCK
    );
    if (header.width, header.height) != (w, h) || cmyk != (model == Model::Cmyk) {
        return Ok(Turbo::Unsupported);
    }
    let (w, h) = if denom > 1 {
        let factor = turbojpeg::ScalingFactor::new(1, denom);
        if d.set_scaling_factor(factor).is_err() {
            return Ok(Turbo::Unsupported);
        }
        let scaled = header.scaled(factor);
        (scaled.width, scaled.height)
    } else {
        (w, h)
    };
    let n = w
        .checked_mul(h)
        .and_then(|p| p.checked_mul(channels))
        .ok_or("image too large")?;
    let mut pixels =
        crate::limits::try_zeroed(n, "the decoded image").map_err(|e| e.to_string())?;
    let image = turbojpeg::Image {
        pixels: pixels.as_mut_slice(),
        width: w,
        pitch: w * channels,
        height: h,
        format,
    };
    let r = d.decompress(bytes, image);
    if model == Model::Cmyk {
        cmyk_to_rgba(&mut pixels);
    }
    match r {
        Ok(()) => Ok(Turbo::Done(pixels)),
        // bytes between the last scan and a marker: every pixel decoded (common in camera files)
        Err(e) if e.to_string().contains("extraneous bytes before marker") => {
            Ok(Turbo::Done(pixels))
        }
        // after a header it accepted, in a colour space it converts: a warning about the data
        // (libjpeg stops on fatal errors before writing rows; those rows stay zero)
        Err(e) => Ok(Turbo::Damaged(
            pixels,
            e.to_string()
                .trim_start_matches("TurboJPEG error: ")
                .trim()
                .to_string(),
        )),
    }
}

#[cfg(not(feature = "turbojpeg"))]
fn turbo_decode(
    _bytes: &[u8],
    _model: Model,
    _w: usize,
    _h: usize,
    _denom: usize,
) -> Result<Turbo, String> {
    Ok(Turbo::Unsupported)
}

/// Whether every pixel of RGBA8 bytes is grey (R = G = B) and opaque. Checked a block at a
/// time without branching inside the block (so it vectorises); a colour image stops at once.
pub fn is_grey_opaque(rgba: &[u8]) -> bool {
    const BLOCK: usize = 4096;
    rgba.chunks(BLOCK).all(|block| {
        block.chunks_exact(4).fold(true, |all, p| {
            all & (p[0] == p[1]) & (p[1] == p[2]) & (p[3] == 255)
        })
    })
}

/// JPEG file bytes of an 8-bit image: grey images (Gray8, or RGBA8 that `is_grey_opaque`) as one
/// channel, colour ones with alpha dropped; the ICC profile and EXIF of `options` embedded.
pub(crate) fn encode_jpeg(img: &Image, options: &SaveOptions) -> Result<Vec<u8>, String> {
    if img.width() > 65535 || img.height() > 65535 {
        return Err(format!(
            "{}x{} is larger than JPEG allows (65535)",
            img.width(),
            img.height()
        ));
    }
    let grey = img.format() == PixelFormat::Gray8 || is_grey_opaque(img.as_u8());
    let subsampling = options
        .jpeg_subsampling
        .unwrap_or(Subsampling::for_quality(options.jpeg_quality));
    let jpeg = encode_pixels(img, grey, subsampling, options.jpeg_quality)?;
    Ok(with_metadata(
        jpeg,
        options.icc_profile.as_deref(),
        options.exif.as_deref(),
    ))
}

#[cfg(feature = "turbojpeg")]
fn encode_pixels(
    img: &Image,
    grey: bool,
    subsampling: Subsampling,
    quality: u8,
) -> Result<Vec<u8>, String> {
    let e = |e: turbojpeg::Error| format!("JPEG encoder: {e}");
    let mut c = turbojpeg::Compressor::new().map_err(e)?;
    c.set_quality(quality as i32).map_err(e)?;
    // libjpeg-turbo converts RGB to Y with weights summing to exactly 1 in fixed point, so
    // R = G = B = v encodes v itself
    let layout = if grey {
        crate::io::jpeg_encode::Layout::Grey
    } else {
        crate::io::jpeg_encode::Layout::Colour(subsampling)
    };
    c.set_subsamp(layout.turbo()).map_err(e)?;
    let (width, height) = (img.width() as usize, img.height() as usize);
    let (format, pitch) = match img.format() {
        PixelFormat::Gray8 => (turbojpeg::PixelFormat::GRAY, width),
        _ => (turbojpeg::PixelFormat::RGBA, width * 4),
    };
    c.compress_to_vec(turbojpeg::Image {
        pixels: img.as_u8(),
        width,
        pitch,
        height,
        format,
    })
    .map_err(e)
}

#[cfg(not(feature = "turbojpeg"))]
fn encode_pixels(
    img: &Image,
    grey: bool,
    subsampling: Subsampling,
    quality: u8,
) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut encoder = jpeg_encoder::Encoder::new(&mut out, quality);
    encoder.set_sampling_factor(match subsampling {
        Subsampling::S444 => jpeg_encoder::SamplingFactor::F_1_1,
        Subsampling::S422 => jpeg_encoder::SamplingFactor::F_2_1,
        Subsampling::S420 => jpeg_encoder::SamplingFactor::F_2_2,
    });
    let (w, h) = (img.width() as u16, img.height() as u16);
    let r = match (img.format(), grey) {
        (PixelFormat::Gray8, _) => encoder.encode(img.as_u8(), w, h, jpeg_encoder::ColorType::Luma),
        (_, true) => {
            let luma: Vec<u8> = img.as_u8().chunks_exact(4).map(|p| p[0]).collect();
            encoder.encode(&luma, w, h, jpeg_encoder::ColorType::Luma)
        }
        _ => encoder.encode(img.as_u8(), w, h, jpeg_encoder::ColorType::Rgba),
    };
    r.map_err(|e| format!("JPEG encoder: {e}"))?;
    Ok(out)
}

/// `jpeg` with APP1 (EXIF) and APP2 (ICC profile, in chunks of at most 65519 bytes as the ICC
/// specification's JPEG embedding says) segments inserted after SOI and any JFIF APP0.
pub(crate) fn with_metadata(jpeg: Vec<u8>, icc: Option<&[u8]>, exif: Option<&[u8]>) -> Vec<u8> {
    if (icc.is_none() && exif.is_none()) || jpeg.len() < 4 {
        return jpeg;
    }
    let mut at = 2;
    // keep a JFIF APP0 first, as readers expect
    if jpeg[2..4] == [0xFF, 0xE0] && jpeg.len() >= 6 {
        at = 4 + u16::from_be_bytes([jpeg[4], jpeg[5]]) as usize;
    }
    let at = at.min(jpeg.len());
    let mut segments = Vec::new();
    let mut push = |marker: u8, parts: &[&[u8]]| {
        let len: usize = parts.iter().map(|p| p.len()).sum::<usize>() + 2;
        if len <= 65535 {
            segments.extend_from_slice(&[0xFF, marker]);
            segments.extend_from_slice(&(len as u16).to_be_bytes());
            for p in parts {
                segments.extend_from_slice(p);
            }
        }
    };
    if let Some(exif) = exif {
        push(0xE1, &[b"Exif\0\0", exif]);
    }
    if let Some(icc) = icc {
        const CHUNK: usize = 65519 - 14;
        let chunks: Vec<&[u8]> = icc.chunks(CHUNK).collect();
        if chunks.len() <= 255 {
            for (k, chunk) in chunks.iter().enumerate() {
                push(
                    0xE2,
                    &[b"ICC_PROFILE\0", &[k as u8 + 1, chunks.len() as u8], chunk],
                );
            }
        }
    }
    let mut out = Vec::with_capacity(jpeg.len() + segments.len());
    out.extend_from_slice(&jpeg[..at]);
    out.extend_from_slice(&segments);
    out.extend_from_slice(&jpeg[at..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noise(w: u32, h: u32, grey: bool) -> Image {
        let mut s = 12345u32;
        let mut next = || {
            s = s.wrapping_mul(1664525).wrapping_add(1013904223);
            (s >> 24) as u8
        };
        let data = (0..w * h)
            .flat_map(|_| {
                let v = next();
                if grey {
                    [v, v, v, 255]
                } else {
                    [v, next(), next(), 255]
                }
            })
            .collect();
        Image::from_u8(w, h, PixelFormat::Rgba8, data).expect("sized")
    }

    #[test]
    fn grey_detection_needs_every_pixel_grey_and_opaque() {
        let mut img = noise(67, 43, true);
        assert!(is_grey_opaque(img.as_u8()));
        let last = img.as_u8().len() - 2;
        img.as_u8_mut()[last] ^= 1;
        assert!(!is_grey_opaque(img.as_u8()));
        let mut img = noise(67, 43, true);
        img.as_u8_mut()[3] = 254;
        assert!(!is_grey_opaque(img.as_u8()));
    }

    #[test]
    fn grey_rgba_is_written_as_one_channel_and_decodes_to_its_values() {
        // a smooth grey ramp: lossless enough at quality 100 to compare closely
        let (w, h) = (64u32, 16u32);
        let data = (0..w * h).flat_map(|i| {
            let v = ((i % w) * 4) as u8;
            [v, v, v, 255]
        });
        let img = Image::from_u8(w, h, PixelFormat::Rgba8, data.collect()).expect("sized");
        let opts = SaveOptions {
            jpeg_quality: 100,
            ..SaveOptions::default()
        };
        let jpeg = encode_jpeg(&img, &opts).expect("encodes");
        let back = decode_jpeg(&jpeg, &Limits::default(), false)
            .expect("decodes")
            .image;
        assert_eq!(
            back.format(),
            PixelFormat::Gray8,
            "a grey picture is stored as one channel"
        );
        for (k, (&a, b)) in back
            .as_u8()
            .iter()
            .zip(img.as_u8().chunks_exact(4))
            .enumerate()
        {
            assert!(a.abs_diff(b[0]) <= 2, "pixel {k}: {a} vs {}", b[0]);
        }
    }

    #[test]
    fn colour_roundtrip_and_subsampling_choice() {
        let img = noise(67, 43, false);
        for s in [Subsampling::S444, Subsampling::S422, Subsampling::S420] {
            let opts = SaveOptions {
                jpeg_quality: 95,
                jpeg_subsampling: Some(s),
                ..SaveOptions::default()
            };
            let jpeg = encode_jpeg(&img, &opts).expect("encodes");
            let back = decode_jpeg(&jpeg, &Limits::default(), false)
                .expect("decodes")
                .image;
            assert_eq!(
                (back.width(), back.height(), back.format()),
                (67, 43, PixelFormat::Rgba8)
            );
            let bad: Vec<(usize, u8)> = back
                .as_u8()
                .chunks_exact(4)
                .enumerate()
                .filter(|(_, p)| p[3] != 255)
                .map(|(k, p)| (k, p[3]))
                .take(10)
                .collect();
            assert!(bad.is_empty(), "{s:?}: alpha not opaque at {bad:?}");
            // the pixels of the `image` crate's decoder (zune-jpeg), up to the rounding of
            // libjpeg-turbo's integer IDCT and upsampling (both are valid JPEG decoders)
            let reference = image::load_from_memory(&jpeg).expect("decodes").to_rgb8();
            let diffs: Vec<u8> = back
                .as_u8()
                .chunks_exact(4)
                .zip(reference.as_raw().chunks_exact(3))
                .flat_map(|(a, b)| (0..3).map(move |c| a[c].abs_diff(b[c])))
                .collect();
            let max = diffs.iter().copied().max().unwrap_or(0);
            let mean = diffs.iter().map(|&d| d as f64).sum::<f64>() / diffs.len() as f64;
            assert!(
                max <= 4 && mean < 0.5,
                "{s:?}: differs from the image crate's decode (max {max}, mean {mean:.3})"
            );
        }
        assert_eq!(Subsampling::parse("4:2:0"), Some(Subsampling::S420));
        assert_eq!(Subsampling::parse("411"), None);
    }

    /// Shrink-on-load (issue 30): the EXIF orientation is read from the header as the decode
    /// reads it, and the limits are checked at the size decoded, a progressive file's
    /// full-size coefficients counted besides.
    #[test]
    fn orientation_and_limits_of_a_scaled_decode() {
        use image::metadata::Orientation;
        let img = noise(256, 128, false);
        let exif6 = vec![
            0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0,
            0, 0,
        ];
        let plain = encode_jpeg(&img, &SaveOptions::default()).expect("encoded");
        let turned = encode_jpeg(
            &img,
            &SaveOptions {
                exif: Some(exif6),
                ..SaveOptions::default()
            },
        )
        .expect("encoded");
        let o = |b: &[u8]| jpeg_orientation(&mut std::io::Cursor::new(b));
        assert_eq!(o(&plain), Orientation::NoTransforms);
        assert_eq!(o(&turned), Orientation::Rotate90);
        assert_eq!(o(b"\xFF\xD8\xFF\xE1\x00"), Orientation::NoTransforms);
        // whole: 256x128x8 = 256 KiB; at 1/8 (32x16), 4 KiB
        let limits = |kib: u64| Limits {
            max_memory: kib << 10,
            ..Limits::default()
        };
        assert!(decode_jpeg_at_least(&plain, &limits(64), false, None).is_err());
        #[cfg(feature = "turbojpeg")]
        {
            let d = decode_jpeg_at_least(&turned, &limits(64), false, Some((16, 32)))
                .expect("decoded at 1/8");
            assert_eq!((d.image.width(), d.image.height()), (16, 32));
            let mut c = turbojpeg::Compressor::new().expect("compressor");
            c.set_subsamp(turbojpeg::Subsamp::None).expect("subsamp");
            c.set_progressive(true).expect("progressive");
            let prog = c
                .compress_to_vec(turbojpeg::Image {
                    pixels: img.as_u8(),
                    width: 256,
                    pitch: 256 * 4,
                    height: 128,
                    format: turbojpeg::PixelFormat::RGBA,
                })
                .expect("compressed");
            // 3 components x 256 x 128 x 2 bytes of coefficients: 192 KiB
            let refused = decode_jpeg_at_least(&prog, &limits(64), false, Some((32, 16)));
            assert!(refused.is_err_and(|e| e.contains("progressive")));
            let d = decode_jpeg_at_least(&prog, &limits(220), false, Some((32, 16)))
                .expect("coefficients and pixels fit");
            assert_eq!((d.image.width(), d.image.height()), (32, 16));
            assert!(decode_jpeg_at_least(&prog, &limits(220), false, None).is_err());
        }
    }

    #[test]
    fn metadata_segments_are_readable_back() {
        let img = noise(8, 8, false);
        let icc: Vec<u8> = (0..70_000u32).map(|i| (i % 251) as u8).collect(); // two APP2 chunks
        let exif = b"MM\0\x2a\0\0\0\x08\0\0".to_vec();
        let opts = SaveOptions {
            icc_profile: Some(icc.clone()),
            exif: Some(exif.clone()),
            ..SaveOptions::default()
        };
        let jpeg = encode_jpeg(&img, &opts).expect("encodes");
        let back = decode_jpeg(&jpeg, &Limits::default(), false).expect("decodes");
        assert_eq!(back.icc_profile.as_deref(), Some(icc.as_slice()));
        assert_eq!(back.exif.as_deref(), Some(exif.as_slice()));
    }

    /// Issue 29, item 2: zune-jpeg's path (builds without `turbojpeg`, and headers
    /// libjpeg-turbo rejects) decodes the CMYK, Adobe-inverted CMYK and YCCK fixtures within 2
    /// levels of Pillow, as libjpeg-turbo's path does (tests/jpeg.rs); it wrote stripes.
    #[test]
    fn cmyk_jpegs_decode_as_pillow_does_by_zune_jpeg_too() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/jpeg");
        for name in ["cmyk_plain", "cmyk_adobe", "ycck"] {
            let jpeg = std::fs::read(dir.join(format!("{name}.jpg"))).expect("fixture");
            let reference = image::open(dir.join(format!("{name}.ref.png")))
                .expect("reference")
                .to_rgb8();
            let pixels = zune_pixels(&jpeg, false, Model::Cmyk).expect("decodes");
            assert_eq!(pixels.len(), reference.len() / 3 * 4, "{name}");
            let e = pixels
                .chunks_exact(4)
                .zip(reference.pixels())
                .flat_map(|(a, b)| (0..3).map(move |c| a[c].abs_diff(b[c])))
                .max();
            assert!(e <= Some(2), "{name}: {e:?} levels from Pillow's decoding");
            assert!(pixels.chunks_exact(4).all(|p| p[3] == 255), "{name}");
        }
    }

    /// `cmyk_to_rgba` is Pillow's `cmyk2rgb` on inverted samples, exactly (checked against
    /// Pillow 13 for every C and K: `Image.fromarray(a, 'CMYK').convert('RGB')`; a few values).
    #[test]
    fn cmyk_conversion_is_pillows() {
        // stored (inverted) C, K -> R: Pillow's R for C' = 255 - C, K' = 255 - K
        for (c, k, r) in [
            (255, 255, 255),
            (0, 255, 0),
            (255, 0, 0),
            (128, 128, 64),
            (200, 100, 78),
        ] {
            let mut p = [c, c, c, k];
            cmyk_to_rgba(&mut p);
            assert_eq!(p, [r, r, r, 255], "C {c} K {k}");
        }
    }

    /// A JPEG's start: SOI, APP0 (JFIF), APP1, DQT and DHT segments, fill bytes and a restart
    /// marker, then a frame header of `marker` for a 300x200 image of 3 components.
    fn jpeg_start(marker: u8) -> Vec<u8> {
        let mut b = vec![0xFF, 0xD8];
        b.extend_from_slice(&[0xFF, 0xE0, 0x00, 0x10]);
        b.extend_from_slice(b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0");
        b.extend_from_slice(&[0xFF, 0xE1, 0x00, 0x08]);
        b.extend_from_slice(b"Exif\0\0");
        b.extend_from_slice(&[0xFF, 0xDB, 0x00, 0x43]);
        b.extend_from_slice(&[1; 65]);
        b.extend_from_slice(&[0xFF, 0xC4, 0x00, 0x03, 0x00]);
        b.extend_from_slice(&[0xFF, 0xD0, 0xFF, 0xFF]);
        b.extend_from_slice(&[marker, 0x00, 0x11, 8, 0x00, 0xC8, 0x01, 0x2C, 3]);
        b.extend_from_slice(&[1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
        b
    }

    fn frame_of(bytes: &[u8]) -> Option<JpegFrame> {
        jpeg_frame_header(&mut std::io::Cursor::new(bytes))
    }

    #[test]
    fn the_frame_header_is_found_after_other_segments() {
        for marker in [0xC0, 0xC2] {
            let mut bytes = jpeg_start(marker);
            bytes.extend_from_slice(&[0xFF, 0xDA, 0x00, 0x0C]);
            let frame = frame_of(&bytes).expect("a frame header");
            assert_eq!(frame.marker, marker);
            assert_eq!(frame.size(), (300, 200));
            assert_eq!(frame.components(), 3);
            assert_eq!(frame.header.len(), 15);
            assert!(frame.complete);
        }
        // files this module writes, colour and grey
        for (grey, components) in [(false, 3), (true, 1)] {
            let img = noise(67, 43, grey);
            let jpeg = encode_jpeg(&img, &SaveOptions::default()).expect("encoded");
            let frame = frame_of(&jpeg).expect("a frame header");
            assert_eq!(frame.size(), (67, 43));
            assert_eq!(frame.components(), components);
            assert!(frame.complete);
            assert!(min_scan_bytes(&jpeg).is_some());
        }
    }

    #[test]
    fn a_truncated_or_garbled_frame_header_is_none() {
        let bytes = jpeg_start(0xC0);
        // up to P, Y, X and Nf of the frame header: none
        let sof = bytes.len() - 15;
        for end in 0..sof + 6 {
            assert_eq!(frame_of(&bytes[..end]), None, "cut at {end}");
        }
        // within its components: found, not complete (no data bound from it)
        let frame = frame_of(&bytes[..sof + 10]).expect("P, Y, X, Nf are there");
        assert_eq!(frame.size(), (300, 200));
        assert!(!frame.complete);
        assert_eq!(min_scan_bytes(&bytes[..sof + 10]), None);
        // not a JPEG; a byte where a marker should be; a scan or the end before a frame; a
        // length under 2
        let mut not_marker = bytes.clone();
        not_marker[2] = 0x00;
        let mut scan_first = vec![0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02];
        scan_first.extend_from_slice(&bytes[2..]);
        let mut short = vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01];
        short.extend_from_slice(&bytes[2..]);
        for garbage in [
            &b"GIF89a garbage, not a JPEG at all"[..],
            b"\xFF\xD8\xFF\xE0garbage",
            b"\xFF\xD8\xFF\xD9",
            &not_marker,
            &scan_first,
            &short,
        ] {
            assert_eq!(frame_of(garbage), None, "{garbage:?}");
        }
    }

    #[test]
    fn corrupt_bytes_are_an_error_not_a_panic() {
        assert!(decode_jpeg(b"\xFF\xD8\xFF\xE0garbage", &Limits::default(), false).is_err());
        assert!(decode_jpeg(&[], &Limits::default(), false).is_err());
    }
}
