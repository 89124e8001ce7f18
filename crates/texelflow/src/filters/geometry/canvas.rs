//! Places an RGBA8 image on a transparent canvas of a given size at a pixel offset: padding
//! where the canvas is larger, cropping where the image runs past it. The graph step behind
//! the blends' `fit=fit` and `fit=center` (see `graph::fit`). No GPUImage equivalent.

use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_image, input_image, slot_image, Family, Filter, FilterDef, Rect, EXACT_ENOUGH, IMAGE,
};
use crate::graph::params::ParamDef;
use crate::image::{Image, PixelFormat, MAX_SIDE};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

const WGSL: &str = include_str!("canvas.wgsl");
/// Invocations per workgroup, 4 output pixels each; mirrors `@workgroup_size` in canvas.wgsl.
const CANVAS_WG: u32 = 256;

/// A `width` x `height` canvas (0: the input's side) with the input's top-left pixel at (x, y).
#[derive(Clone, Debug, Default)]
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

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "canvas",
    family: Family::Geometry,
    summary: "Places the image on a transparent canvas of a given size at a pixel offset (pads or crops).",
    doc: "Output width x height (0: the input's), transparent black (0, 0, 0, 0) where the image does not cover it; \
the image's top-left pixel lands at (x, y), which may be negative (the image is then cropped on that side). \
Used by the blends' fit=fit and fit=center.",
    gpuimage: "",
    params: &[
        ParamDef::int("width", 0, 0, SIDE, "canvas width in pixels; 0 = the input's width"),
        ParamDef::int("height", 0, 0, SIDE, "canvas height in pixels; 0 = the input's height"),
        ParamDef::int("x", 0, -SIDE, SIDE, "column of the canvas where the image's left edge lands"),
        ParamDef::int("y", 0, -SIDE, SIDE, "row of the canvas where the image's top edge lands"),
    ],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(Canvas::new(a.u32("width")?, a.u32("height")?, a.i32("x")?, a.i32("y")?)?)),
    uniforms: &[CanvasParams::layout(WGSL)],
    test_inputs: None,
    schedules: &[],
};

impl Filter for Canvas {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::Resample {
            scale: [1.0, 1.0],
            offset: [-self.x as f64, -self.y as f64],
            margin: 0,
        }
    }
    fn window_input(&self, input: crate::ImageDesc, out: Rect) -> Option<Rect> {
        let (w, h) = self.size(input.width, input.height);
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
        let (x0, x1) = axis(out.x, out.right(), self.x, input.width);
        let (y0, y1) = axis(out.y, out.bottom(), self.y, input.height);
        Some(Rect::span(x0, y0, x1, y1, (input.width, input.height)))
    }
    fn windowed(
        &self,
        input: crate::ImageDesc,
        have: Rect,
        out: Rect,
    ) -> Result<Vec<Box<dyn Filter>>> {
        crate::filters::registry::window_need(self, input, have, out)?;
        // the part is a canvas of its own size, on which the input part lands where the whole
        // image's pixels land relative to the part (`have` within the input holds every pixel
        // the part shows, so what falls outside it falls outside the image)
        let x = self.x as i64 - out.x as i64 + have.x as i64;
        let y = self.y as i64 - out.y as i64 + have.y as i64;
        let (x, y) = (
            i32::try_from(x).map_err(|_| Error::Graph("`canvas` offset out of range".into()))?,
            i32::try_from(y).map_err(|_| Error::Graph("`canvas` offset out of range".into()))?,
        );
        Ok(vec![Box::new(Canvas::new(out.w, out.h, x, y)?)])
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8])?;
        let (w, h) = self.size(d.width, d.height);
        Ok(vec![ValueDesc::Image(crate::ImageDesc::new(
            w,
            h,
            PixelFormat::Rgba8,
        ))])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        let (iw, ih) = (img.width() as i64, img.height() as i64);
        let (w, h) = self.size(img.width(), img.height());
        let src = img.as_u8();
        let mut out = vec![0u8; w as usize * h as usize * 4];
        // copy the overlap row by row; the rest stays transparent
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
        Ok(vec![Value::Image(Image::from_u8(
            w,
            h,
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
        let d = slot_image(&DEF, inputs, 0)?;
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
            &[&inputs[0].buffer, &outputs[0].buffer],
            bytemuck::bytes_of(&u),
            groups_1d((w as u64 * h as u64).div_ceil(4), CANVAS_WG),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
