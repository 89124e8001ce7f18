//! Exact pixel permutations shared by `flip`, `transpose`, `rotate90`, `rotate180` and
//! `rotate270` (OpenCV's `cv::flip`, `cv::transpose` and `cv::rotate`; GPUImage's
//! `GPUImageRotationMode` as a filter): each output pixel is one input pixel, bit for bit, in
//! RGBA8, RGBA16 and Gray8. Not a filter itself (no declaration), only their common code.

use crate::error::Result;
use crate::filters::registry::{expect_image, input_image, slot_image, FilterDef, UniformLayout};
use crate::image::{Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

/// The permutation kernel (orient.wgsl).
pub const WGSL: &str = include_str!("orient.wgsl");
/// Invocations per workgroup (one output word each); mirrors `@workgroup_size` in orient.wgsl.
const ORIENT_WG: u32 = 256;

/// The permutation; the discriminant is the WGSL's `mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Orientation {
    /// Mirrors left-right (cv::flip code 1).
    FlipHorizontal = 0,
    /// Mirrors top-bottom (cv::flip code 0).
    FlipVertical = 1,
    /// Both flips: the same as a half turn.
    FlipBoth = 2,
    /// Swaps rows and columns (cv::transpose).
    Transpose = 3,
    /// A quarter turn clockwise (cv::ROTATE_90_CLOCKWISE).
    Rotate90 = 4,
    /// Three quarter turns clockwise (cv::ROTATE_90_COUNTERCLOCKWISE).
    Rotate270 = 5,
}

impl Orientation {
    /// Whether width and height swap.
    pub fn swaps(self) -> bool {
        matches!(
            self,
            Orientation::Transpose | Orientation::Rotate90 | Orientation::Rotate270
        )
    }
    /// The output size of a `w` x `h` input.
    pub fn out_size(self, w: u32, h: u32) -> (u32, u32) {
        if self.swaps() {
            (h, w)
        } else {
            (w, h)
        }
    }
    /// CPU twin of `source_of` in orient.wgsl: the input pixel shown at output (x, y).
    pub fn source(self, x: u32, y: u32, w: u32, h: u32) -> (u32, u32) {
        let (mw, mh) = (w - 1, h - 1);
        match self {
            Orientation::FlipHorizontal => (mw - x, y),
            Orientation::FlipVertical => (x, mh - y),
            Orientation::FlipBoth => (mw - x, mh - y),
            Orientation::Transpose => (y, x),
            Orientation::Rotate90 => (y, mh - x),
            Orientation::Rotate270 => (mw - y, x),
        }
    }
}

/// The formats the permutations take.
pub const FORMATS: &[PixelFormat] = &[PixelFormat::Rgba8, PixelFormat::Gray8, PixelFormat::Rgba16];

uniform_struct! {
    /// Uniform of orient.wgsl.
    pub struct OrientParams {
        pub out_width: u32,
        pub out_height: u32,
        pub in_width: u32,
        pub in_height: u32,
        /// Orientation as u32: 0 flip h, 1 flip v, 2 both (= rotate 180), 3 transpose, 4
        /// rotate 90 cw, 5 rotate 270 cw.
        pub mode: u32,
        /// Words per row: input, output.
        pub in_words: u32,
        pub out_words: u32,
        /// Output words.
        pub count: u32,
    }
}

/// The uniform layout, for each permutation's `FilterDef`.
pub const UNIFORMS: &[UniformLayout] = &[OrientParams::layout(WGSL)];

/// A permutation's output: the input's format, the sides swapped where `o` swaps them.
pub fn output_descs(
    def: &FilterDef,
    o: Orientation,
    inputs: &[ValueDesc],
) -> Result<Vec<ValueDesc>> {
    let d = expect_image(def, inputs, 0, FORMATS)?;
    let (w, h) = o.out_size(d.width, d.height);
    Ok(vec![ValueDesc::Image(crate::ImageDesc::new(
        w, h, d.format,
    ))])
}

/// CPU twin: the permutation over any format, pixel by pixel.
pub fn run_cpu(def: &FilterDef, o: Orientation, inputs: &[&Value]) -> Result<Vec<Value>> {
    let img = input_image(def, inputs, 0)?;
    let (w, h) = (img.width(), img.height());
    let (ow, oh) = o.out_size(w, h);
    fn gather<T: Copy>(
        src: &[T],
        n: usize,
        o: Orientation,
        (w, h): (u32, u32),
        (ow, oh): (u32, u32),
    ) -> Vec<T> {
        let mut out = Vec::with_capacity(ow as usize * oh as usize * n);
        for y in 0..oh {
            for x in 0..ow {
                let (sx, sy) = o.source(x, y, w, h);
                let i = (sy as usize * w as usize + sx as usize) * n;
                out.extend_from_slice(&src[i..i + n]);
            }
        }
        out
    }
    let image = if img.format() == PixelFormat::Rgba16 {
        Image::from_u16(ow, oh, gather(img.as_u16(), 4, o, (w, h), (ow, oh)))?
    } else {
        Image::from_u8(
            ow,
            oh,
            img.format(),
            gather(img.as_u8(), img.format().channels(), o, (w, h), (ow, oh)),
        )?
    };
    Ok(vec![Value::Image(image)])
}

/// Records the permutation kernel from `inputs[0]` into `outputs[0]`.
pub fn record_gpu(
    def: &FilterDef,
    o: Orientation,
    rec: &mut NodeRecorder<'_>,
    inputs: &[GpuSlot],
    outputs: &[GpuSlot],
) -> Result<()> {
    let d = slot_image(def, inputs, 0)?;
    let (ow, oh) = o.out_size(d.width, d.height);
    let (in_words, out_words, entry) = match d.format {
        PixelFormat::Gray8 => (d.width.div_ceil(4), ow.div_ceil(4), "orient_gray"),
        PixelFormat::Rgba16 => (2 * d.width, 2 * ow, "orient_words"),
        _ => (d.width, ow, "orient"),
    };
    let count = out_words as u64 * oh as u64;
    let u = OrientParams {
        out_width: ow,
        out_height: oh,
        in_width: d.width,
        in_height: d.height,
        mode: o as u32,
        in_words,
        out_words,
        count: count as u32,
        ..Default::default()
    };
    let kernel = Kernel::new("geometry.orient", &[OrientParams::WGSL, WGSL], entry);
    rec.dispatch(
        &kernel,
        &[&inputs[0].buffer, &outputs[0].buffer],
        bytemuck::bytes_of(&u),
        groups_1d(count, ORIENT_WG),
    )
}

/// The input part output part `out` of `o` shows (`Filter::window_input`).
pub fn window_input(
    o: Orientation,
    input: crate::ImageDesc,
    out: crate::filters::registry::Rect,
) -> Option<crate::filters::registry::Rect> {
    if out.w == 0 || out.h == 0 || input.width == 0 || input.height == 0 {
        return None;
    }
    let (ax, ay) = o.source(out.x, out.y, input.width, input.height);
    let (bx, by) = o.source(out.right() - 1, out.bottom() - 1, input.width, input.height);
    Some(crate::filters::registry::Rect::new(
        ax.min(bx),
        ay.min(by),
        ax.abs_diff(bx) + 1,
        ay.abs_diff(by) + 1,
    ))
}

/// `Filter::windowed` of a permutation: the input part cut out of `have` (where it is more),
/// then the permutation itself.
pub fn windowed(
    o: Orientation,
    filter: Box<dyn crate::filters::registry::Filter>,
    input: crate::ImageDesc,
    have: crate::filters::registry::Rect,
    out: crate::filters::registry::Rect,
) -> Result<Vec<Box<dyn crate::filters::registry::Filter>>> {
    let need = window_input(o, input, out)
        .ok_or_else(|| crate::Error::Graph(format!("`{}` of an empty part", filter.def().name)))?;
    if need == have {
        return Ok(vec![filter]);
    }
    let cut = super::crop::Crop::px(need.x - have.x, need.y - have.y, need.w, need.h)?;
    Ok(vec![Box::new(cut), filter])
}

/// The `Filter` impl of a permutation filter whose orientation is `$o(self)`.
#[macro_export]
#[doc(hidden)]
macro_rules! __pf_orient_filter_impl {
    ($Name:ident, |$s:ident| $o:expr) => {
        impl $crate::filters::registry::Filter for $Name {
            fn def(&self) -> &'static $crate::filters::registry::FilterDef {
                &DEF
            }
            fn footprint(
                &self,
                _: &[$crate::value::ValueDesc],
            ) -> $crate::filters::registry::Footprint {
                $crate::filters::registry::Footprint::WholeImage
            }
            fn window_input(
                &self,
                input: $crate::ImageDesc,
                out: $crate::filters::registry::Rect,
            ) -> Option<$crate::filters::registry::Rect> {
                let $s = self;
                $crate::filters::geometry::orient::window_input($o, input, out)
            }
            fn windowed(
                &self,
                input: $crate::ImageDesc,
                have: $crate::filters::registry::Rect,
                out: $crate::filters::registry::Rect,
            ) -> $crate::error::Result<Vec<Box<dyn $crate::filters::registry::Filter>>> {
                let $s = self;
                $crate::filters::geometry::orient::windowed(
                    $o,
                    Box::new(self.clone()),
                    input,
                    have,
                    out,
                )
            }
            fn output_descs(
                &self,
                inputs: &[$crate::value::ValueDesc],
            ) -> $crate::error::Result<Vec<$crate::value::ValueDesc>> {
                let $s = self;
                $crate::filters::geometry::orient::output_descs(&DEF, $o, inputs)
            }
            fn run_cpu(
                &self,
                inputs: &[&$crate::value::Value],
                _: &[$crate::value::ValueDesc],
            ) -> $crate::error::Result<Vec<$crate::value::Value>> {
                let $s = self;
                $crate::filters::geometry::orient::run_cpu(&DEF, $o, inputs)
            }
            fn record_gpu(
                &self,
                rec: &mut $crate::runtime::NodeRecorder<'_>,
                inputs: &[$crate::runtime::GpuSlot],
                outputs: &[$crate::runtime::GpuSlot],
            ) -> $crate::error::Result<()> {
                let $s = self;
                $crate::filters::geometry::orient::record_gpu(&DEF, $o, rec, inputs, outputs)
            }
            fn box_clone(&self) -> Box<dyn $crate::filters::registry::Filter> {
                Box::new(self.clone())
            }
        }
    };
}
