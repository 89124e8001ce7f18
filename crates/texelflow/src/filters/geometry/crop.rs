//! Crops an image (RGBA8, Gray8 or RGBA16) to a rectangle. Matches GPUImage's `GPUImageCropFilter`, whose
//! `cropRegion` is normalised (fractions of the input size, origin top-left): the default
//! `units=norm` uses the same convention; `units=px` takes pixels.
//!
//! The region is rounded to whole pixels (origin and size each rounded half away from zero)
//! and clipped to the image: the size shrinks to what remains, and a region with nothing
//! inside the image (an origin past the last row/column) is an error. A width or height left
//! out runs to the image's edge (in pixels as in fractions: the defaults keep the whole image). `anchor=center` takes (x, y) as the region's centre (the aoce port's
//! crop: centre UV and size), and a width and height both 0 is a point sample: the 1x1 image of
//! the pixel that contains (x, y) (seed 000's colour pick). One zero side alone is an error.

use crate::error::{Error, Result};
use crate::filters::registry::{Footprint, Rect};
use crate::filters::shape::permute::FORMATS;
use crate::graph::params::{check_float, ParamDef};
use crate::image::{Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};

const WGSL: &str = include_str!("crop.wgsl");
const WORDS_WGSL: &str = include_str!("crop_words.wgsl");
/// Invocations per workgroup, 4 output pixels each. Schedule choice, not algorithm; mirrors
/// `@workgroup_size` in crop.wgsl.
const CROP_WG: u32 = 256;

/// Units of a crop region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CropUnits {
    /// Fractions of the input width and height (GPUImage's `cropRegion`).
    Norm,
    /// Pixels.
    Px,
}

/// Where (x, y) sits in the region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CropAnchor {
    /// The region's top-left corner (GPUImage's `cropRegion` origin).
    TopLeft,
    /// The region's centre.
    Center,
}

crate::permute_filter! {
    /// Crops to (x, y, width, height) in `units`; the default is the whole image.
    pub struct Crop {
        /// Left edge (or centre, by `anchor`).
        pub x: f32,
        /// Top edge (or centre, by `anchor`).
        pub y: f32,
        /// Region width.
        pub width: f32,
        /// Region height.
        pub height: f32,
        /// Fractions of the input size, or pixels.
        pub units: CropUnits,
        /// Whether (x, y) is the region's top-left corner or centre.
        pub anchor: CropAnchor,
    }
    name: "crop",
    gpuimage: "GPUImageCropFilter",
    summary: "Crops to a rectangle (x, y, width, height) in fractions of the size (default) or pixels; a centred form; a 1x1 point sample.",
    doc: "units=norm (default): x, y, width, height are fractions of the input size, as GPUImage's cropRegion; \
units=px: pixels. Origin top-left. The defaults keep the whole image: a width or height left out runs to the \
image's edge, in either unit. The region is rounded to whole pixels (origin and size separately) and clipped to \
the image: the size shrinks to what lies inside, and a region with nothing inside (an origin past the last \
column/row) is an error. anchor=center: (x, y) is the region's centre (a region running past an edge keeps what \
lies inside). width=0 and height=0: a point sample, the 1x1 image of the pixel containing (x, y). One zero side \
alone is an error.",
    params: [
        ParamDef::float("x", 0.0, 0.0, MAX, "left edge (fraction of the width, or pixels)"),
        ParamDef::float("y", 0.0, 0.0, MAX, "top edge (fraction of the height, or pixels)"),
        ParamDef::float("width", 1.0, 0.0, MAX, "width (fraction of the width, or pixels); left out: to the right edge"),
        ParamDef::float("height", 1.0, 0.0, MAX, "height (fraction of the height, or pixels); left out: to the bottom edge"),
        ParamDef::choice("units", "norm", &["norm", "px"], "norm: fractions of the input size; px: pixels"),
        ParamDef::choice("anchor", "topleft", &["topleft", "center"], "topleft: (x, y) is the region's top-left corner; center: its centre"),
    ],
    build: |a| {
        let units = match a.choice("units")? {
            "px" => CropUnits::Px,
            _ => CropUnits::Norm,
        };
        let c = Crop::new(a.f32("x")?, a.f32("y")?, a.f32("width")?, a.f32("height")?, units)?;
        // a side left out runs to the edge (the default 1 in fractions means that already;
        // in pixels it would mean one pixel)
        let c = if units == CropUnits::Px { c.to_edges(!a.given("width"), !a.given("height")) } else { c };
        Crop { anchor: if a.choice("anchor")? == "center" { CropAnchor::Center } else { CropAnchor::TopLeft }, ..c }
    },
    uniforms: &[CropParams::layout(WGSL), CropParams::layout(WORDS_WGSL)],
    formats: FORMATS,
    size: |f, d| f.region(d.width, d.height).map(|(_, _, w, h)| (w, h)),
    footprint: |f, inputs| match inputs
        .first()
        .and_then(|d| d.image())
        .map(|d| f.region(d.width, d.height))
    {
        Some(Ok((x0, y0, _, _))) => Footprint::Resample {
            scale: [1.0, 1.0],
            offset: [x0 as f64, y0 as f64],
            margin: 0,
        },
        _ => Footprint::WholeImage,
    },
    window_input: |f, input, out| {
        let (x0, y0, _, _) = f.region(input.width, input.height).ok()?;
        Some(Rect::new(out.x + x0, out.y + y0, out.w, out.h))
    },
    windowed: |f, input, have, out| {
        let need = f
            .window_input(input, out)
            .ok_or_else(|| Error::invalid("`crop` has no region in this image"))?;
        Ok(vec![Box::new(Crop::px(
            need.x - have.x,
            need.y - have.y,
            need.w,
            need.h,
        )?)])
    },
    cpu: |f, img| f.cpu(img),
    gpu: |f, rec, input, output, d| f.record(rec, input, output, d),
}

impl Crop {
    /// Fails when a value is outside its declared range.
    pub fn new(x: f32, y: f32, width: f32, height: f32, units: CropUnits) -> Result<Self> {
        Ok(Self {
            x: check_float(&DEF, "x", x)?,
            y: check_float(&DEF, "y", y)?,
            width: check_float(&DEF, "width", width)?,
            height: check_float(&DEF, "height", height)?,
            units,
            anchor: CropAnchor::TopLeft,
        })
    }
    /// A region of `width` x `height` centred on (cx, cy), in `units`.
    pub fn centered(cx: f32, cy: f32, width: f32, height: f32, units: CropUnits) -> Result<Self> {
        Ok(Self {
            anchor: CropAnchor::Center,
            ..Self::new(cx, cy, width, height, units)?
        })
    }
    /// The 1x1 image of the pixel containing (x, y) in `units` (a colour pick).
    pub fn point(x: f32, y: f32, units: CropUnits) -> Result<Self> {
        Self::new(x, y, 0.0, 0.0, units)
    }
    /// A region in pixels.
    pub fn px(x: u32, y: u32, width: u32, height: u32) -> Result<Self> {
        Self::new(
            x as f32,
            y as f32,
            width as f32,
            height as f32,
            CropUnits::Px,
        )
    }
    /// A region in fractions of the input size.
    pub fn norm(x: f32, y: f32, width: f32, height: f32) -> Result<Self> {
        Self::new(x, y, width, height, CropUnits::Norm)
    }

    /// The crop of `self` with the width and height running to the image's edges (what a spec
    /// that leaves them out asks for).
    pub fn to_edges(self, width: bool, height: bool) -> Self {
        Self {
            width: if width { f32::INFINITY } else { self.width },
            height: if height { f32::INFINITY } else { self.height },
            ..self
        }
    }

    /// The pixel rectangle (x0, y0, width, height) this crop takes from a `w` x `h` image; an
    /// error when it has nothing inside the image. A width or height of `f32::INFINITY` runs to
    /// the edge (`to_edges`).
    pub fn region(&self, w: u32, h: u32) -> Result<(u32, u32, u32, u32)> {
        let (sx, sy) = match self.units {
            CropUnits::Norm => (w as f64, h as f64),
            CropUnits::Px => (1.0, 1.0),
        };
        let outside = |param: &str, what: String| Error::BadParam {
            filter: "crop".into(),
            param: param.into(),
            message: format!("the {what} is outside the {w}x{h} image"),
        };
        if self.width == 0.0 && self.height == 0.0 {
            // a point sample: the pixel containing (x, y), whatever the anchor (a point on the
            // right or bottom edge itself belongs to the last pixel)
            let at = |v: f32, scale: f64, side: u32| {
                let p = v as f64 * scale;
                if p > side as f64 {
                    None
                } else {
                    Some(p.floor().clamp(0.0, (side - 1) as f64) as u32)
                }
            };
            let (Some(x), Some(y)) = (at(self.x, sx, w), at(self.y, sy, h)) else {
                return Err(outside(
                    if at(self.x, sx, w).is_none() {
                        "x"
                    } else {
                        "y"
                    },
                    format!("point ({}, {})", self.x, self.y),
                ));
            };
            return Ok((x, y, 1, 1));
        }
        if !(self.width > 0.0 && self.height > 0.0) {
            return Err(Error::invalid(format!("`crop` region {}x{} is empty (width and height must be positive, or both 0 for a 1x1 point sample)", self.width, self.height)));
        }
        let centre = self.anchor == CropAnchor::Center;
        let axis = |origin: f32, size: f32, scale: f64, side: u32| -> Option<(u32, u32)> {
            let size_px = if size.is_infinite() {
                side as f64
            } else {
                (size as f64 * scale).round().max(1.0)
            };
            // a centred region starts half its (rounded) size before the centre, possibly before the image
            let start = if centre {
                (origin as f64 * scale - size_px / 2.0).round()
            } else {
                (origin as f64 * scale).round()
            };
            let end = (start + size_px).min(side as f64);
            let o = start.max(0.0);
            (o < side as f64 && end > o).then_some((o as u32, (end - o) as u32))
        };
        let region = |x: f32, y: f32| {
            if centre {
                format!("region centred on ({x}, {y})")
            } else {
                format!("region's origin ({x}, {y})")
            }
        };
        let (Some((x0, cw)), Some((y0, ch))) = (
            axis(self.x, self.width, sx, w),
            axis(self.y, self.height, sy, h),
        ) else {
            return Err(outside(
                if axis(self.x, self.width, sx, w).is_none() {
                    "x"
                } else {
                    "y"
                },
                region(self.x, self.y),
            ));
        };
        Ok((x0, y0, cw, ch))
    }
}

impl Default for Crop {
    fn default() -> Self {
        Self {
            x: 0.0,
            y: 0.0,
            width: 1.0,
            height: 1.0,
            units: CropUnits::Norm,
            anchor: CropAnchor::TopLeft,
        }
    }
}

uniform_struct! {
    /// Uniform of crop.wgsl and crop_words.wgsl.
    pub struct CropParams {
        pub out_width: u32,
        pub out_height: u32,
        pub x0: u32,
        pub y0: u32,
        pub in_width: u32,
        /// out_width * out_height (crop.wgsl); output words in all (crop_words.wgsl).
        pub count: u32,
        /// Words per row of the input and the output (Gray8 and RGBA16 kernels).
        pub in_words: u32,
        pub out_words: u32,
    }
}

const MAX: f64 = crate::image::MAX_SIDE as f64;

impl Crop {
    /// CPU twin: the region's rows copied.
    fn cpu(&self, img: &Image) -> Result<Image> {
        let (x0, y0, w, h) = self.region(img.width(), img.height())?;
        fn rows<T: Copy>(
            src: &[T],
            n: usize,
            in_w: u32,
            (x0, y0, w, h): (u32, u32, u32, u32),
        ) -> Vec<T> {
            let row = in_w as usize * n;
            let mut out = Vec::with_capacity(w as usize * h as usize * n);
            for y in y0..y0 + h {
                let start = y as usize * row + x0 as usize * n;
                out.extend_from_slice(&src[start..start + w as usize * n]);
            }
            out
        }
        let r = (x0, y0, w, h);
        if img.format() == PixelFormat::Rgba16 {
            return Image::from_u16(w, h, rows(img.as_u16(), 4, img.width(), r));
        }
        let out = rows(img.as_u8(), img.format().channels(), img.width(), r);
        Image::from_u8(w, h, img.format(), out)
    }

    /// Records crop.wgsl (RGBA8, 4 pixels an invocation) or crop_words.wgsl (Gray8 and RGBA16,
    /// one output word an invocation) from `input` (of description `d`) into `output`.
    fn record(
        &self,
        rec: &mut NodeRecorder<'_>,
        input: &GpuSlot,
        output: &GpuSlot,
        d: crate::ImageDesc,
    ) -> Result<()> {
        let (x0, y0, w, h) = self.region(d.width, d.height)?;
        let (in_words, out_words, entry) = match d.format {
            PixelFormat::Gray8 => (d.width.div_ceil(4), w.div_ceil(4), "crop_gray"),
            PixelFormat::Rgba16 => (2 * d.width, 2 * w, "crop_words"),
            _ => (d.width, w, "crop"),
        };
        if entry != "crop" {
            // one invocation per output word
            let count = out_words as u64 * h as u64;
            let u = CropParams {
                out_width: w,
                out_height: h,
                x0,
                y0,
                in_width: d.width,
                count: count as u32,
                in_words,
                out_words,
                ..Default::default()
            };
            let kernel = Kernel::new(
                "geometry.crop_words",
                &[CropParams::WGSL, WORDS_WGSL],
                entry,
            );
            return rec.dispatch(
                &kernel,
                &[&input.buffer, &output.buffer],
                bytemuck::bytes_of(&u),
                groups_1d(count, CROP_WG),
            );
        }
        let u = CropParams {
            out_width: w,
            out_height: h,
            x0,
            y0,
            in_width: d.width,
            count: w * h,
            in_words,
            out_words,
            ..Default::default()
        };
        let kernel = Kernel::new("geometry.crop", &[CropParams::WGSL, WGSL], "crop");
        rec.dispatch(
            &kernel,
            &[&input.buffer, &output.buffer],
            bytemuck::bytes_of(&u),
            groups_1d((w as u64 * h as u64).div_ceil(4), CROP_WG),
        )
    }
}
