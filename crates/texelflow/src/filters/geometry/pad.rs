//! Pads an image with a border of given widths. Matches OpenCV's `copyMakeBorder(src, top,
//! bottom, left, right, borderType, value)`: `mode=replicate` (`aaa|abcd|ddd`, BORDER_REPLICATE),
//! `reflect` (`cba|abcd|dcb`, BORDER_REFLECT), `reflect101` (`dcb|abcd|cba`, BORDER_REFLECT_101,
//! OpenCV's default), `constant` (the colour `color`, BORDER_CONSTANT) and `wrap`
//! (`bcd|abcd|abc`, BORDER_WRAP). No GPUImage equivalent.
//!
//! Borders wider than the image reflect (or wrap) again and again, as OpenCV's
//! `borderInterpolate` does; reflect101 of a one-pixel side repeats that pixel. Besides being a
//! filter of its own, it is what `border=reflect` of the neighbourhood filters lowers to:
//! pad by the filter's radius (reflect101), the filter with replicated borders, crop back
//! (`crate::filters::shape::border`).

use crate::error::{Error, Result};
use crate::filters::registry::{Footprint, Rect};
use crate::graph::params::{check_int, float_array, ParamDef};
use crate::image::{Image, PixelFormat, MAX_SIDE};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};

const WGSL: &str = include_str!("pad.wgsl");
/// Invocations per workgroup, one output word each; mirrors `@workgroup_size` in pad.wgsl.
const PAD_WG: u32 = 256;
/// Largest border on one side, in pixels.
pub const MAX_BORDER: u32 = 4096;
/// The formats `pad` (and `crop`) take: what the filters with a `border` parameter take.
pub use crate::filters::shape::permute::FORMATS;

/// How the border is filled; the order is the `mode` parameter's (and the WGSL's `mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PadMode {
    /// `aaa|abcd|ddd` (BORDER_REPLICATE).
    Replicate,
    /// `cba|abcd|dcb` (BORDER_REFLECT).
    Reflect,
    /// `dcb|abcd|cba` (BORDER_REFLECT_101, OpenCV's BORDER_DEFAULT).
    Reflect101,
    /// The constant colour (BORDER_CONSTANT).
    Constant,
    /// `bcd|abcd|abc` (BORDER_WRAP).
    Wrap,
}

const MODES: &[&str] = &["replicate", "reflect", "reflect101", "constant", "wrap"];

impl PadMode {
    /// The source coordinate of `p` on a side of `n` pixels; `None` for the constant colour.
    /// OpenCV's `borderInterpolate` in closed form (repeated reflections are a reflection
    /// modulo the period).
    pub fn source(self, p: i64, n: i64) -> Option<i64> {
        if (0..n).contains(&p) {
            return Some(p);
        }
        Some(match self {
            PadMode::Replicate => p.clamp(0, n - 1),
            PadMode::Reflect => {
                let m = p.rem_euclid(2 * n);
                if m >= n {
                    2 * n - 1 - m
                } else {
                    m
                }
            }
            PadMode::Reflect101 if n == 1 => 0,
            PadMode::Reflect101 => {
                let per = 2 * n - 2;
                let m = p.rem_euclid(per);
                if m >= n {
                    per - m
                } else {
                    m
                }
            }
            PadMode::Constant => return None,
            PadMode::Wrap => p.rem_euclid(n),
        })
    }
    fn index(self) -> u32 {
        self as u32
    }
    fn from_name(name: &str) -> Result<Self> {
        Ok(match name {
            "replicate" => PadMode::Replicate,
            "reflect" => PadMode::Reflect,
            "reflect101" => PadMode::Reflect101,
            "constant" => PadMode::Constant,
            "wrap" => PadMode::Wrap,
            other => {
                return Err(Error::invalid(format!(
                    "`pad`: unknown mode `{other}` (one of {})",
                    MODES.join(", ")
                )))
            }
        })
    }
}

crate::permute_filter! {
    /// A border of `top`, `bottom`, `left` and `right` pixels filled by `mode`.
    pub struct Pad {
        /// Border above, pixels.
        pub top: u32,
        /// Border below, pixels.
        pub bottom: u32,
        /// Border on the left, pixels.
        pub left: u32,
        /// Border on the right, pixels.
        pub right: u32,
        /// How the border is filled.
        pub mode: PadMode,
        /// RGBA on [0, 1] for `mode=constant` (Gray8 images take the first component, as OpenCV
        /// takes `value[0]` for one channel).
        pub color: [f32; 4],
        /// Set on the instances a tiled run makes (`Filter::windowed`): output part `.2` of the pad
        /// of a `.0` input, from input part `.1` (the image this instance gets).
        window: Option<((u32, u32), Rect, Rect)>,
    }
    name: "pad",
    gpuimage: "",
    summary: "Adds a border (top, bottom, left, right pixels): replicate, reflect, reflect101, constant colour or wrap.",
    doc: "OpenCV's copyMakeBorder: mode=replicate aaa|abcd|ddd, reflect cba|abcd|dcb, reflect101 dcb|abcd|cba (OpenCV's \
default border), constant (the colour `color`, RGBA on [0, 1]; a gray8 image takes its first component, as OpenCV \
takes value[0]), wrap bcd|abcd|abc. Borders wider than the image reflect or wrap repeatedly, as OpenCV's \
borderInterpolate does (reflect101 of a one-pixel side repeats it). Takes rgba8, gray8 and rgba16; exact.",
    params: [
        ParamDef::int("top", 0, 0, MAX_BORDER as i64, "border above, in pixels"),
        ParamDef::int("bottom", 0, 0, MAX_BORDER as i64, "border below, in pixels"),
        ParamDef::int("left", 0, 0, MAX_BORDER as i64, "border on the left, in pixels"),
        ParamDef::int("right", 0, 0, MAX_BORDER as i64, "border on the right, in pixels"),
        ParamDef::choice("mode", "constant", MODES, "how the border is filled (OpenCV's borderType)"),
        ParamDef::floats("color", &[0.0, 0.0, 0.0, 1.0], 0.0, 1.0, "RGBA of mode=constant"),
    ],
    build: |a| {
        let c = a.floats("color")?;
        let color = [c.first().copied().unwrap_or(0.0), c.get(1).copied().unwrap_or(0.0), c.get(2).copied().unwrap_or(0.0), c.get(3).copied().unwrap_or(1.0)];
        Pad::new(a.u32("top")?, a.u32("bottom")?, a.u32("left")?, a.u32("right")?, PadMode::from_name(a.choice("mode")?)?, color)?
    },
    uniforms: &[PadParams::layout(WGSL)],
    formats: FORMATS,
    size: |f, d| f.geometry(d.width, d.height).map(|(_, _, out)| (out.w, out.h)),
    footprint: |f, _| {
        if f.window.is_some() {
            return Footprint::WholeImage;
        }
        // reflections and wraps reach any pixel of a small image
        match f.mode {
            PadMode::Replicate | PadMode::Constant => Footprint::Resample {
                scale: [1.0, 1.0],
                offset: [-(f.left as f64), -(f.top as f64)],
                margin: 0,
            },
            _ => Footprint::WholeImage,
        }
    },
    window_input: |f, input, out| {
        let (ow, oh) = f.out_size(input.width, input.height).ok()?;
        if f.window.is_some()
            || out.w == 0
            || out.h == 0
            || out.right() > ow
            || out.bottom() > oh
        {
            return None;
        }
        // a part wholly in a constant border reads nothing: one pixel for the graph
        let x = f
            .sources(out.x, out.right(), f.left, input.width)
            .unwrap_or((0, 1));
        let y = f
            .sources(out.y, out.bottom(), f.top, input.height)
            .unwrap_or((0, 1));
        Some(Rect::span(x.0, y.0, x.1, y.1, (input.width, input.height)))
    },
    windowed: |f, input, have, out| {
        crate::filters::registry::window_need(f, input, have, out)?;
        Ok(vec![Box::new(Pad {
            window: Some(((input.width, input.height), have, out)),
            ..f.clone()
        })])
    },
    cpu: |f, img| f.cpu(img),
    gpu: |f, rec, input, output, d| f.record(rec, input, output, d),
}

impl Pad {
    /// Fails when a border is outside [0, `MAX_BORDER`] or a colour component outside [0, 1].
    pub fn new(
        top: u32,
        bottom: u32,
        left: u32,
        right: u32,
        mode: PadMode,
        color: [f32; 4],
    ) -> Result<Self> {
        for (name, v) in [
            ("top", top),
            ("bottom", bottom),
            ("left", left),
            ("right", right),
        ] {
            check_int(&DEF, name, v)?;
        }
        let color = float_array(&DEF, "color", &color)?;
        Ok(Self {
            top,
            bottom,
            left,
            right,
            mode,
            color,
            window: None,
        })
    }
    /// The same border of `r` pixels on every side.
    pub fn uniform(r: u32, mode: PadMode) -> Result<Self> {
        Self::new(r, r, r, r, mode, [0.0, 0.0, 0.0, 1.0])
    }
    /// What this instance makes of a `w` x `h` input: the whole input's size, the input part it
    /// has and the output part it makes (the wholes where not windowed).
    fn geometry(&self, w: u32, h: u32) -> Result<((u32, u32), Rect, Rect)> {
        match self.window {
            Some((full, have, out)) if (w, h) == (have.w, have.h) => Ok((full, have, out)),
            Some((_, have, _)) => Err(Error::invalid(format!(
                "`pad`'s part of {}x{} input pixels was given {w}x{h}",
                have.w, have.h
            ))),
            None => {
                let (ow, oh) = self.out_size(w, h)?;
                Ok(((w, h), Rect::whole(w, h), Rect::whole(ow, oh)))
            }
        }
    }
    /// The input pixels output columns (or rows) `d0..d1` read on a side of `n` input pixels
    /// with a border of `before`: the range between the least and the greatest source, or
    /// `None` where all are the constant colour.
    fn sources(&self, d0: u32, d1: u32, before: u32, n: u32) -> Option<(i64, i64)> {
        let (a, b) = (d0 as i64 - before as i64, d1 as i64 - before as i64);
        if a >= 0 && b <= n as i64 {
            return Some((a, b));
        }
        let mut span: Option<(i64, i64)> = None;
        for p in a..b {
            if let Some(s) = self.mode.source(p, n as i64) {
                span = Some(span.map_or((s, s + 1), |(lo, hi)| (lo.min(s), hi.max(s + 1))));
            }
        }
        span
    }
    fn out_size(&self, w: u32, h: u32) -> Result<(u32, u32)> {
        let (ow, oh) = (
            w as u64 + self.left as u64 + self.right as u64,
            h as u64 + self.top as u64 + self.bottom as u64,
        );
        if ow > MAX_SIDE as u64 || oh > MAX_SIDE as u64 {
            return Err(Error::invalid(format!(
                "`pad`: the padded image would be {ow}x{oh}, above the largest side {MAX_SIDE}"
            )));
        }
        Ok((ow as u32, oh as u32))
    }
}

impl Default for Pad {
    fn default() -> Self {
        Self {
            top: 0,
            bottom: 0,
            left: 0,
            right: 0,
            mode: PadMode::Constant,
            color: [0.0, 0.0, 0.0, 1.0],
            window: None,
        }
    }
}

uniform_struct! {
    /// Uniform of pad.wgsl.
    pub struct PadParams {
        pub out_width: u32,
        pub out_height: u32,
        pub in_width: u32,
        pub in_height: u32,
        pub left: u32,
        pub top: u32,
        /// 0 replicate, 1 reflect, 2 reflect101, 3 constant, 4 wrap.
        pub mode: u32,
        /// Output words per row.
        pub out_words: u32,
        /// Input words per row (gray8).
        pub in_words: u32,
        /// Output words in all.
        pub count: u32,
        /// The constant colour: rgba8 one word, rgba16 two words, gray8 its byte.
        pub value0: u32,
        pub value1: u32,
        /// A part of a larger pad (images in tiles): in_width/in_height are the whole
        /// input's, out_width/out_height the part's; the source holds input columns in_x0..
        /// and rows in_y0.. in rows of `stride` pixels (`in_words` words for gray8), the part
        /// starts at output (out_x0, out_y0). A whole pad: stride = in_width, origins 0.
        pub stride: u32,
        pub in_x0: u32,
        pub in_y0: u32,
        pub out_x0: u32,
        pub out_y0: u32,
    }
}

impl Pad {
    /// CPU twin: each output pixel of the part from its source, or the constant colour.
    fn cpu(&self, img: &Image) -> Result<Image> {
        let ((w, h), have, part) = self.geometry(img.width(), img.height())?;
        let (w, h) = (w as i64, h as i64);
        let (ow, oh) = (part.w, part.h);
        // the input pixel output pixel (x, y) of the part shows (in the part held), or the constant
        let src_at = |x: i64, y: i64| -> Option<usize> {
            let sy = self.mode.source(y + part.y as i64 - self.top as i64, h)? - have.y as i64;
            let sx = self.mode.source(x + part.x as i64 - self.left as i64, w)? - have.x as i64;
            Some((sy * have.w as i64 + sx) as usize)
        };
        let out = match img.format() {
            PixelFormat::Rgba16 => {
                let src = img.as_u16();
                let value = self.color.map(|c| (c * 65535.0 + 0.5) as u16);
                let mut out = Vec::with_capacity(ow as usize * oh as usize * 4);
                for y in 0..oh as i64 {
                    for x in 0..ow as i64 {
                        out.extend_from_slice(
                            src_at(x, y).map_or(&value[..], |i| &src[i * 4..i * 4 + 4]),
                        );
                    }
                }
                return Image::from_u16(ow, oh, out);
            }
            f => {
                let n = f.channels();
                let src = img.as_u8();
                let value = self.color.map(crate::image::unorm8);
                let mut out = Vec::with_capacity(ow as usize * oh as usize * n);
                for y in 0..oh as i64 {
                    for x in 0..ow as i64 {
                        out.extend_from_slice(
                            src_at(x, y).map_or(&value[..n], |i| &src[i * n..i * n + n]),
                        );
                    }
                }
                out
            }
        };
        Image::from_u8(ow, oh, img.format(), out)
    }

    /// Records pad.wgsl from `input` (of description `d`) into `output`.
    fn record(
        &self,
        rec: &mut NodeRecorder<'_>,
        input: &GpuSlot,
        output: &GpuSlot,
        d: crate::ImageDesc,
    ) -> Result<()> {
        let ((w, h), have, part) = self.geometry(d.width, d.height)?;
        let (ow, oh) = (part.w, part.h);
        let c8 = self.color.map(crate::image::unorm8);
        let c16 = self.color.map(|c| (c * 65535.0 + 0.5) as u32);
        let (out_words, value0, value1, entry) = match d.format {
            PixelFormat::Gray8 => (ow.div_ceil(4), c8[0] as u32, 0, "pad_gray"),
            PixelFormat::Rgba16 => (
                2 * ow,
                c16[0] | c16[1] << 16,
                c16[2] | c16[3] << 16,
                "pad_words",
            ),
            _ => (ow, u32::from_le_bytes(c8), 0, "pad_words"),
        };
        let count = out_words as u64 * oh as u64;
        let u = PadParams {
            out_width: ow,
            out_height: oh,
            in_width: w,
            in_height: h,
            left: self.left,
            top: self.top,
            mode: self.mode.index(),
            out_words,
            in_words: d.width.div_ceil(4),
            count: count as u32,
            value0,
            value1,
            stride: have.w,
            in_x0: have.x,
            in_y0: have.y,
            out_x0: part.x,
            out_y0: part.y,
            ..Default::default()
        };
        let kernel = Kernel::new("geometry.pad", &[PadParams::WGSL, WGSL], entry);
        rec.dispatch(
            &kernel,
            &[&input.buffer, &output.buffer],
            bytemuck::bytes_of(&u),
            groups_1d(count, PAD_WG),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn modes_follow_opencv_border_interpolate() {
        // abcdefgh: OpenCV's documented examples, 3 pixels out on each side
        let side =
            |m: PadMode| -> Vec<i64> { (-3..11).map(|p| m.source(p, 8).unwrap_or(-1)).collect() };
        assert_eq!(
            side(PadMode::Replicate),
            [0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 7, 7, 7]
        );
        assert_eq!(
            side(PadMode::Reflect),
            [2, 1, 0, 0, 1, 2, 3, 4, 5, 6, 7, 7, 6, 5]
        );
        assert_eq!(
            side(PadMode::Reflect101),
            [3, 2, 1, 0, 1, 2, 3, 4, 5, 6, 7, 6, 5, 4]
        );
        assert_eq!(
            side(PadMode::Wrap),
            [5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2]
        );
        assert_eq!(
            side(PadMode::Constant),
            [-1, -1, -1, 0, 1, 2, 3, 4, 5, 6, 7, -1, -1, -1]
        );
        // wider than the image: reflected again and again (abc: cba|abc|cba|abc...)
        let far: Vec<i64> = (-7..10)
            .map(|p| PadMode::Reflect101.source(p, 3).unwrap())
            .collect();
        assert_eq!(far, [1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1]);
        let far: Vec<i64> = (-7..10)
            .map(|p| PadMode::Reflect.source(p, 3).unwrap())
            .collect();
        assert_eq!(far, [0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2]);
        assert_eq!(PadMode::Reflect101.source(-5, 1), Some(0));
        assert_eq!(PadMode::Reflect.source(-5, 1), Some(0));
    }
}
