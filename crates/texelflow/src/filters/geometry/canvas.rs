//! Places an RGBA8 image on a transparent canvas of a given size at a pixel offset: padding
//! where the canvas is larger, cropping where the image runs past it. The graph step behind
//! the blends' `fit=fit` and `fit=center` (see `graph::fit`). No GPUImage equivalent.

use crate::error::{Error, Result};
use crate::filters::registry::{Footprint, Rect};
use crate::graph::params::ParamDef;
use crate::image::{Image, PixelFormat, MAX_SIDE};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};

const WGSL: &str = include_str!("canvas.wgsl");
/// Invocations per workgroup, 4 output pixels each; mirrors `@workgroup_size` in canvas.wgsl.
const CANVAS_WG: u32 = 256;

crate::permute_filter! {
    /// A `width` x `height` canvas (0: the input's side) with the input's top-left pixel at (x, y).
    #[derive(Default)]
    pub struct Canvas {
        /// Canvas width; 0: the input's.
        pub width: u32,
        /// Canvas height; 0: the input's.
        pub height: u32,
        /// Canvas column of the image's left edge.
        pub x: i32,
        /// Canvas row of the image's top edge.
        pub y: i32,
    }
    name: "canvas",
    gpuimage: "",
    summary: "Places the image on a transparent canvas of a given size at a pixel offset (pads or crops).",
    doc: "Output width x height (0: the input's), transparent black (0, 0, 0, 0) where the image does not cover it; \
the image's top-left pixel lands at (x, y), which may be negative (the image is then cropped on that side). \
Used by the blends' fit=fit and fit=center.",
    params: [
        ParamDef::int("width", 0, 0, SIDE, "canvas width in pixels; 0 = the input's width"),
        ParamDef::int("height", 0, 0, SIDE, "canvas height in pixels; 0 = the input's height"),
        ParamDef::int("x", 0, -SIDE, SIDE, "column of the canvas where the image's left edge lands"),
        ParamDef::int("y", 0, -SIDE, SIDE, "row of the canvas where the image's top edge lands"),
    ],
    build: |a| Canvas::new(a.u32("width")?, a.u32("height")?, a.i32("x")?, a.i32("y")?)?,
    uniforms: &[CanvasParams::layout(WGSL)],
    formats: &[PixelFormat::Rgba8],
    size: |f, d| Ok::<_, Error>(f.size(d.width, d.height)),
    footprint: |f, _| Footprint::Resample {
        scale: [1.0, 1.0],
        offset: [-f.x as f64, -f.y as f64],
        margin: 0,
    },
    window_input: |f, input, out| {
        let (w, h) = f.size(input.width, input.height);
        if out.w == 0
            || out.h == 0
            || out.right() > w
            || out.bottom() > h
            || input.width == 0
            || input.height == 0
        {
            return None;
        }
        // the part's sources, or where it lies wholly off the image one pixel on that side
        // (which it then never reads: its pixels stay transparent)
        let axis = |d0: u32, d1: u32, at: i32, n: u32| -> (i64, i64) {
            let (a, b) = (d0 as i64 - at as i64, d1 as i64 - at as i64);
            let (lo, hi) = (a.clamp(0, n as i64), b.clamp(0, n as i64));
            match (lo < hi, b <= 0) {
                (true, _) => (lo, hi),
                (false, true) => (0, 1),
                (false, false) => (n as i64 - 1, n as i64),
            }
        };
        let (x0, x1) = axis(out.x, out.right(), f.x, input.width);
        let (y0, y1) = axis(out.y, out.bottom(), f.y, input.height);
        Some(Rect::span(x0, y0, x1, y1, (input.width, input.height)))
    },
    windowed: |f, input, have, out| {
        crate::filters::registry::window_need(f, input, have, out)?;
        // the part is a canvas of its own size, on which the input part lands where the whole
        // image's pixels land relative to the part (`have` within the input holds every pixel
        // the part shows, so what falls outside it falls outside the image)
        let x = f.x as i64 - out.x as i64 + have.x as i64;
        let y = f.y as i64 - out.y as i64 + have.y as i64;
        let (x, y) = (
            i32::try_from(x).map_err(|_| Error::invalid("`canvas` offset out of range"))?,
            i32::try_from(y).map_err(|_| Error::invalid("`canvas` offset out of range"))?,
        );
        Ok(vec![Box::new(Canvas::new(out.w, out.h, x, y)?)])
    },
    cpu: |f, img| f.cpu(img),
    gpu: |f, rec, input, output, d| f.record(rec, input, output, d),
}

impl Canvas {
    /// Fails when a side is larger than the supported image size.
    pub fn new(width: u32, height: u32, x: i32, y: i32) -> Result<Self> {
        if width > MAX_SIDE || height > MAX_SIDE {
            return Err(Error::BadParam {
                filter: "canvas".into(),
                param: "width".into(),
                message: format!(
                    "{width}x{height} is larger than the supported {MAX_SIDE}x{MAX_SIDE}"
                ),
            });
        }
        Ok(Self {
            width,
            height,
            x,
            y,
        })
    }
    /// The canvas size for a `w` x `h` input.
    pub fn size(&self, w: u32, h: u32) -> (u32, u32) {
        (
            if self.width == 0 { w } else { self.width },
            if self.height == 0 { h } else { self.height },
        )
    }
}

uniform_struct! {
    /// Uniform of canvas.wgsl.
    pub struct CanvasParams {
        pub out_width: u32,
        pub out_height: u32,
        /// Where the image's left column lands on the canvas (negative: cropped).
        pub x: i32,
        pub y: i32,
        pub in_width: u32,
        pub in_height: u32,
        /// out_width * out_height
        pub count: u32,
    }
}

const SIDE: i64 = MAX_SIDE as i64;

impl Canvas {
    /// CPU twin: the overlap copied row by row; the rest stays transparent.
    fn cpu(&self, img: &Image) -> Result<Image> {
        let (iw, ih) = (img.width() as i64, img.height() as i64);
        let (w, h) = self.size(img.width(), img.height());
        let src = img.as_u8();
        let mut out = vec![0u8; w as usize * h as usize * 4];
        let x0 = (self.x as i64).max(0);
        let x1 = (self.x as i64 + iw).min(w as i64);
        for y in 0..h as i64 {
            let sy = y - self.y as i64;
            if sy < 0 || sy >= ih || x0 >= x1 {
                continue;
            }
            let s = ((sy * iw + x0 - self.x as i64) * 4) as usize;
            let d = ((y * w as i64 + x0) * 4) as usize;
            let n = ((x1 - x0) * 4) as usize;
            out[d..d + n].copy_from_slice(&src[s..s + n]);
        }
        Image::from_u8(w, h, PixelFormat::Rgba8, out)
    }

    /// Records canvas.wgsl from `input` (of description `d`) into `output`.
    fn record(
        &self,
        rec: &mut NodeRecorder<'_>,
        input: &GpuSlot,
        output: &GpuSlot,
        d: crate::ImageDesc,
    ) -> Result<()> {
        let (w, h) = self.size(d.width, d.height);
        let u = CanvasParams {
            out_width: w,
            out_height: h,
            x: self.x,
            y: self.y,
            in_width: d.width,
            in_height: d.height,
            count: w * h,
            ..Default::default()
        };
        let kernel = Kernel::new("geometry.canvas", &[CanvasParams::WGSL, WGSL], "canvas");
        rec.dispatch(
            &kernel,
            &[&input.buffer, &output.buffer],
            bytemuck::bytes_of(&u),
            groups_1d((w as u64 * h as u64).div_ceil(4), CANVAS_WG),
        )
    }
}
