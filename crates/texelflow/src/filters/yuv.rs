//! YUV 4:2:0 (I420: ffmpeg's `yuv420p`) to RGBA8 and back, on the GPU, with CPU twins: video
//! frames cross the pipe at 1.5 bytes per pixel instead of 4 and are converted where the
//! pipeline runs (issue 18). BT.601 and BT.709 matrices, limited (16-235/240) and full (0-255)
//! range, as aoce's YUV2RGBA layer offers.
//!
//! An I420 frame travels as a Gray8 image of the frame's width (`pack_i420`): the frame's
//! bytes (Y plane, U plane, V plane; chroma planes ceil(w/2) x ceil(h/2)) fill its rows in
//! order and the last row is padded with zeros, so the frame's own height is a parameter.
//! Decoding takes each pixel's chroma from its 2x2 block (no interpolation); encoding writes
//! the block's mean colour's chroma. These two are library filters, not spec filters (their
//! input is a packed frame, not a picture): the video path puts them around a pipeline.
//!
//! Round trip: a colour constant over each 2x2 block comes back within 2 levels per channel
//! in limited range (quantising Y to 219 levels and chroma to 224 costs up to about 1.3 levels
//! per channel, each rounding up to 0.5 more), and within 2 in full range; chroma detail finer than
//! 2x2 is averaged away, as in any 4:2:0 video.

use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_image, input_image, slot_image, Family, Filter, FilterDef, Footprint, Tolerance,
    UniformLayout, IMAGE,
};
use crate::graph::params::Args;
use crate::image::{Image, ImageDesc, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

const WGSL: &str = include_str!("yuv.wgsl");
const WG: u32 = 256;

/// The YUV <-> RGB matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum YuvMatrix {
    /// SD video (Kr 0.299, Kb 0.114): ffmpeg's default for untagged video.
    Bt601,
    /// HD video (Kr 0.2126, Kb 0.0722).
    Bt709,
}

/// The range of the Y, U, V bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum YuvRange {
    /// "TV" range: Y 16-235, U and V 16-240 (most video).
    Limited,
    /// "PC" range: 0-255 (JPEG, `yuvj420p`).
    Full,
}

impl YuvMatrix {
    /// (Kr, Kb).
    fn k(self) -> (f32, f32) {
        match self {
            YuvMatrix::Bt601 => (0.299, 0.114),
            YuvMatrix::Bt709 => (0.2126, 0.0722),
        }
    }
    /// ffmpeg's name (`-colorspace`).
    pub fn ffmpeg_name(self) -> &'static str {
        match self {
            YuvMatrix::Bt601 => "smpte170m",
            YuvMatrix::Bt709 => "bt709",
        }
    }
}

impl YuvRange {
    /// (Y offset, Y scale, chroma scale).
    fn scales(self) -> (f32, f32, f32) {
        match self {
            YuvRange::Limited => (16.0, 219.0, 224.0),
            YuvRange::Full => (0.0, 255.0, 255.0),
        }
    }
    /// ffmpeg's name (`-color_range`).
    pub fn ffmpeg_name(self) -> &'static str {
        match self {
            YuvRange::Limited => "tv",
            YuvRange::Full => "pc",
        }
    }
}

/// Bytes of a `w` x `h` I420 frame.
pub fn i420_len(w: u32, h: u32) -> usize {
    let (w, h) = (w as usize, h as usize);
    w * h + 2 * w.div_ceil(2) * h.div_ceil(2)
}

/// Rows of the Gray8 image (of width `w`) that holds a `w` x `h` I420 frame.
pub fn i420_rows(w: u32, h: u32) -> u32 {
    i420_len(w, h).div_ceil(w.max(1) as usize) as u32
}

/// An I420 frame's bytes (as ffmpeg's `-f rawvideo -pix_fmt yuv420p` writes them) as the
/// Gray8 image the conversion filters take.
pub fn pack_i420(w: u32, h: u32, mut bytes: Vec<u8>) -> Result<Image> {
    if w == 0 || h == 0 || bytes.len() != i420_len(w, h) {
        return Err(Error::Image(format!(
            "an I420 frame of {w}x{h} has {} bytes, not {}",
            i420_len(w, h),
            bytes.len()
        )));
    }
    let rows = i420_rows(w, h);
    bytes.resize(w as usize * rows as usize, 0);
    Image::from_u8(w, rows, PixelFormat::Gray8, bytes)
}

/// The I420 frame's bytes inside a packed Gray8 image (`pack_i420`'s inverse).
pub fn unpack_i420(img: &Image, h: u32) -> Result<&[u8]> {
    let len = i420_len(img.width(), h);
    if img.format() != PixelFormat::Gray8 || img.height() != i420_rows(img.width(), h) {
        return Err(Error::Image(format!(
            "{} is not a packed I420 frame of height {h}",
            img.desc()
        )));
    }
    img.as_u8()
        .get(..len)
        .ok_or_else(|| Error::Image("packed I420 frame too short".into()))
}

uniform_struct! {
    /// The uniform block of yuv.wgsl.
    struct YuvParams {
        /// The frame's size.
        width: u32,
        height: u32,
        /// Of the Gray8 container.
        words_per_row: u32,
        /// Of the Gray8 container.
        rows: u32,
        /// rgba_to_yuv420: the RGBA image's size (its last column and row repeat beyond it).
        src_width: u32,
        src_height: u32,
        /// Luma weights of R and B (BT.601 0.299, 0.114; BT.709 0.2126, 0.0722).
        kr: f32,
        kb: f32,
        /// Limited range: 16, 219, 224; full range: 0, 255, 255.
        y_offset: f32,
        y_scale: f32,
        c_scale: f32,
    }
}

impl YuvParams {
    fn new(width: u32, height: u32, src: (u32, u32), matrix: YuvMatrix, range: YuvRange) -> Self {
        let (kr, kb) = matrix.k();
        let (y_offset, y_scale, c_scale) = range.scales();
        let words_per_row = width.div_ceil(4);
        Self {
            width,
            height,
            words_per_row,
            rows: i420_rows(width, height),
            src_width: src.0,
            src_height: src.1,
            kr,
            kb,
            y_offset,
            y_scale,
            c_scale,
            ..Default::default()
        }
    }
}

fn to_byte(v: f32) -> u8 {
    (v.clamp(0.0, 255.0) + 0.5).floor() as u8
}

/// The RGBA8 pixel `i` of an I420 frame (the kernel `yuv420_to_rgba`).
fn decode_pixel(p: &YuvParams, frame: &[u8], i: usize) -> [u8; 4] {
    let (w, h) = (p.width as usize, p.height as usize);
    let (x, y) = (i % w, i / w);
    let (cw, ch) = (w.div_ceil(2), h.div_ceil(2));
    let luma = w * h;
    let c = (y / 2) * cw + x / 2;
    let yf = (frame[i] as f32 - p.y_offset) / p.y_scale;
    let uf = (frame[luma + c] as f32 - 128.0) / p.c_scale;
    let vf = (frame[luma + cw * ch + c] as f32 - 128.0) / p.c_scale;
    let kg = 1.0 - p.kr - p.kb;
    let r = yf + 2.0 * (1.0 - p.kr) * vf;
    let g = yf - (2.0 * (1.0 - p.kb) * p.kb / kg) * uf - (2.0 * (1.0 - p.kr) * p.kr / kg) * vf;
    let b = yf + 2.0 * (1.0 - p.kb) * uf;
    [
        to_byte(r * 255.0),
        to_byte(g * 255.0),
        to_byte(b * 255.0),
        255,
    ]
}

/// Byte `o` of the I420 frame made from `rgba` (the kernel's `encode_byte`).
fn encode_byte(p: &YuvParams, rgba: &[u8], o: usize) -> u8 {
    let (w, h) = (p.width as usize, p.height as usize);
    let (sw, sh) = (p.src_width as usize, p.src_height as usize);
    let rgb_at = |x: usize, y: usize| {
        let k = (y.min(sh - 1) * sw + x.min(sw - 1)) * 4;
        [
            rgba[k] as f32 / 255.0,
            rgba[k + 1] as f32 / 255.0,
            rgba[k + 2] as f32 / 255.0,
        ]
    };
    let luma_of = |c: [f32; 3]| p.kr * c[0] + (1.0 - p.kr - p.kb) * c[1] + p.kb * c[2];
    let luma = w * h;
    let (cw, ch) = (w.div_ceil(2), h.div_ceil(2));
    if o < luma {
        return to_byte(p.y_offset + luma_of(rgb_at(o % w, o / w)) * p.y_scale);
    }
    if o >= luma + 2 * cw * ch {
        return 0;
    }
    let k = (o - luma) % (cw * ch);
    let (bx, by) = ((k % cw) * 2, (k / cw) * 2);
    let (mut sum, mut n) = ([0.0f32; 3], 0.0f32);
    for dy in 0..2 {
        for dx in 0..2 {
            if bx + dx < w && by + dy < h {
                let c = rgb_at(bx + dx, by + dy);
                for j in 0..3 {
                    sum[j] += c[j];
                }
                n += 1.0;
            }
        }
    }
    let c = [sum[0] / n, sum[1] / n, sum[2] / n];
    let yl = luma_of(c);
    if o < luma + cw * ch {
        to_byte(128.0 + (c[2] - yl) / (2.0 * (1.0 - p.kb)) * p.c_scale)
    } else {
        to_byte(128.0 + (c[0] - yl) / (2.0 * (1.0 - p.kr)) * p.c_scale)
    }
}

/// A packed I420 frame (`pack_i420`) to RGBA8.
#[derive(Clone, Debug)]
pub struct Yuv420ToRgba {
    /// The frame's height (the Gray8 container is taller).
    pub height: u32,
    /// BT.601 or BT.709.
    pub matrix: YuvMatrix,
    /// Limited or full range.
    pub range: YuvRange,
}

/// RGBA8 to a packed I420 frame of `width` x `height` (at least the input's size: the input's
/// last column and row are repeated into the rest, e.g. to make an odd size even for 4:2:0).
#[derive(Clone, Debug)]
pub struct RgbaToYuv420 {
    /// The frame's width.
    pub width: u32,
    /// The frame's height.
    pub height: u32,
    /// BT.601 or BT.709.
    pub matrix: YuvMatrix,
    /// Limited or full range.
    pub range: YuvRange,
}

fn no_build(_: &Args) -> Result<Box<dyn Filter>> {
    Err(Error::invalid(
        "YUV conversions are built in code (texelflow::filters::yuv), not from a spec",
    ))
}

/// `YuvParams` as yuv.wgsl mirrors it (both conversions).
const YUV_LAYOUT: UniformLayout = YuvParams::layout(WGSL);

/// The `yuv420_to_rgba` conversion's registry entry.
pub static YUV420_TO_RGBA: FilterDef = FilterDef {
    name: "yuv420_to_rgba",
    family: Family::Convert,
    summary: "A packed I420 (yuv420p) frame to RGBA8: BT.601/BT.709, limited/full range.",
    doc: "",
    gpuimage: "",
    params: &[],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: Tolerance {
        max_diff: 1,
        why: "",
    },
    build: no_build,
    uniforms: &[YUV_LAYOUT],
    test_inputs: None,
    schedules: &[],
};

/// The `rgba_to_yuv420` conversion's registry entry.
pub static RGBA_TO_YUV420: FilterDef = FilterDef {
    name: "rgba_to_yuv420",
    family: Family::Convert,
    summary: "RGBA8 to a packed I420 (yuv420p) frame: BT.601/BT.709, limited/full range.",
    doc: "",
    gpuimage: "",
    params: &[],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: Tolerance {
        max_diff: 1,
        why: "",
    },
    build: no_build,
    uniforms: &[YUV_LAYOUT],
    test_inputs: None,
    schedules: &[],
};

impl Filter for Yuv420ToRgba {
    fn def(&self) -> &'static FilterDef {
        &YUV420_TO_RGBA
    }
    fn footprint(&self, _: &[ValueDesc]) -> Footprint {
        Footprint::WholeImage
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(self.def(), inputs, 0, &[PixelFormat::Gray8])?;
        if self.height == 0 || d.height != i420_rows(d.width, self.height) {
            return Err(Error::invalid(format!(
                "yuv420_to_rgba: a {}x{} Gray8 image is not a packed I420 frame of height {}",
                d.width, d.height, self.height
            )));
        }
        Ok(vec![ValueDesc::Image(ImageDesc::new(
            d.width,
            self.height,
            PixelFormat::Rgba8,
        ))])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(self.def(), inputs, 0)?;
        let frame = unpack_i420(img, self.height)?;
        let p = YuvParams::new(img.width(), self.height, (0, 0), self.matrix, self.range);
        let n = img.width() as usize * self.height as usize;
        let out: Vec<u8> = (0..n).flat_map(|i| decode_pixel(&p, frame, i)).collect();
        Ok(vec![Value::Image(Image::from_u8(
            img.width(),
            self.height,
            PixelFormat::Rgba8,
            out,
        )?)])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let d = slot_image(self.def(), inputs, 0)?;
        let p = YuvParams::new(d.width, self.height, (0, 0), self.matrix, self.range);
        let n = d.width as u64 * self.height as u64;
        rec.dispatch(
            &Kernel::new("yuv", &[YuvParams::WGSL, WGSL], "yuv420_to_rgba"),
            &[&inputs[0].buffer, &outputs[0].buffer],
            bytemuck::bytes_of(&p),
            groups_1d(n, WG),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

impl Filter for RgbaToYuv420 {
    fn def(&self) -> &'static FilterDef {
        &RGBA_TO_YUV420
    }
    fn footprint(&self, _: &[ValueDesc]) -> Footprint {
        Footprint::WholeImage
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(self.def(), inputs, 0, &[PixelFormat::Rgba8])?;
        if self.width < d.width || self.height < d.height {
            return Err(Error::invalid(format!(
                "rgba_to_yuv420: the frame ({}x{}) is smaller than the image ({}x{})",
                self.width, self.height, d.width, d.height
            )));
        }
        Ok(vec![ValueDesc::Image(ImageDesc::new(
            self.width,
            i420_rows(self.width, self.height),
            PixelFormat::Gray8,
        ))])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(self.def(), inputs, 0)?;
        let p = YuvParams::new(
            self.width,
            self.height,
            (img.width(), img.height()),
            self.matrix,
            self.range,
        );
        let n = self.width as usize * p.rows as usize;
        let out: Vec<u8> = (0..n).map(|o| encode_byte(&p, img.as_u8(), o)).collect();
        Ok(vec![Value::Image(Image::from_u8(
            self.width,
            p.rows,
            PixelFormat::Gray8,
            out,
        )?)])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let d = slot_image(self.def(), inputs, 0)?;
        let p = YuvParams::new(
            self.width,
            self.height,
            (d.width, d.height),
            self.matrix,
            self.range,
        );
        let words = p.words_per_row as u64 * p.rows as u64;
        rec.dispatch(
            &Kernel::new("yuv", &[YuvParams::WGSL, WGSL], "rgba_to_yuv420"),
            &[&inputs[0].buffer, &outputs[0].buffer],
            bytemuck::bytes_of(&p),
            groups_1d(words, WG),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_sizes() {
        assert_eq!(i420_len(4, 2), 8 + 2 * 2);
        assert_eq!(i420_len(3, 3), 9 + 2 * 4);
        assert_eq!(i420_rows(4, 2), 3);
        assert_eq!(i420_rows(3, 3), 6); // 17 bytes in rows of 3
        assert!(pack_i420(3, 3, vec![0; 16]).is_err());
        let img = pack_i420(3, 3, (0..17).collect()).unwrap();
        assert_eq!((img.width(), img.height()), (3, 6));
        assert_eq!(
            unpack_i420(&img, 3).unwrap(),
            (0..17).collect::<Vec<u8>>().as_slice()
        );
    }

    #[test]
    fn reference_colours() {
        // limited-range BT.601 white, black and red (Y 81, U 90, V 240)
        let p = YuvParams::new(2, 2, (0, 0), YuvMatrix::Bt601, YuvRange::Limited);
        assert_eq!(
            decode_pixel(&p, &[235, 235, 235, 235, 128, 128], 0),
            [255, 255, 255, 255]
        );
        assert_eq!(
            decode_pixel(&p, &[16, 16, 16, 16, 128, 128], 0),
            [0, 0, 0, 255]
        );
        let red = decode_pixel(&p, &[81, 81, 81, 81, 90, 240], 0);
        assert!(red[0] >= 253 && red[1] <= 2 && red[2] <= 2, "{red:?}");
        let q = YuvParams::new(2, 2, (2, 2), YuvMatrix::Bt601, YuvRange::Limited);
        let rgba = [255, 0, 0, 255].repeat(4);
        let enc: Vec<u8> = (0..6).map(|o| encode_byte(&q, &rgba, o)).collect();
        assert_eq!(enc, vec![81, 81, 81, 81, 90, 240]);
    }
}
