//! The permutation shape: filters whose output pixel is one input pixel, bit for bit, at an
//! integer index map (or a fill colour where the map leaves the input), with no resampling and
//! the output size derived from the input's size and the parameters. OpenCV's `cv::flip`,
//! `cv::transpose`, `cv::rotate` and `copyMakeBorder`, GPUImage's crop and rotation modes.
//!
//! `permute_filter!` declares one: the struct, its registry entry (family geometry, one image
//! in and out, exact) and the `Filter` impl; the filter file gives its parameters, the output
//! size, the CPU twin, the GPU recording and, for runs in tiles, `window_input`/`windowed`.
//! The orientations (flips, transpose, quarter turns) share one kernel (orient.wgsl) and code
//! here, so their declarations only say which orientation (`orientation:`).

use crate::error::{Error, Result};
use crate::filters::registry::{slot_image, Filter, FilterDef, Rect, UniformLayout};
use crate::image::{Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};

/// The formats the permutations take (what the filters with a `border` parameter take).
pub const FORMATS: &[PixelFormat] = &[PixelFormat::Rgba8, PixelFormat::Gray8, PixelFormat::Rgba16];

/// The single input and output slots and the input's description (`record_gpu` of a declared
/// permutation): the input checked first, as `slot_image` does.
pub fn slots<'s>(
    def: &FilterDef,
    inputs: &'s [GpuSlot],
    outputs: &'s [GpuSlot],
) -> Result<(&'s GpuSlot, &'s GpuSlot, crate::ImageDesc)> {
    let d = slot_image(def, inputs, 0)?;
    match (inputs.first(), outputs.first()) {
        (Some(i), Some(o)) => Ok((i, o, d)),
        _ => Err(Error::wrong_input(
            def.name,
            "needs one input and one output",
        )),
    }
}

/// The orientation kernel (orient.wgsl; its comment still names orient.rs, where this code was:
/// the kernel source is kept byte for byte).
pub const ORIENT_WGSL: &str = include_str!("orient.wgsl");
/// Invocations per workgroup (one output word each); mirrors `@workgroup_size` in orient.wgsl.
const ORIENT_WG: u32 = 256;

/// An orientation; the discriminant is orient.wgsl's `mode`.
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

    /// CPU twin: the orientation over any format, pixel by pixel.
    pub fn cpu(self, img: &Image) -> Result<Image> {
        let (w, h) = (img.width(), img.height());
        let (ow, oh) = self.out_size(w, h);
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
        if img.format() == PixelFormat::Rgba16 {
            Image::from_u16(ow, oh, gather(img.as_u16(), 4, self, (w, h), (ow, oh)))
        } else {
            Image::from_u8(
                ow,
                oh,
                img.format(),
                gather(img.as_u8(), img.format().channels(), self, (w, h), (ow, oh)),
            )
        }
    }

    /// Records the orientation kernel from `input` (of description `d`) into `output`.
    pub fn record(
        self,
        rec: &mut NodeRecorder<'_>,
        input: &GpuSlot,
        output: &GpuSlot,
        d: crate::ImageDesc,
    ) -> Result<()> {
        let (ow, oh) = self.out_size(d.width, d.height);
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
            mode: self as u32,
            in_words,
            out_words,
            count: count as u32,
            ..Default::default()
        };
        let kernel = Kernel::new("geometry.orient", &[OrientParams::WGSL, ORIENT_WGSL], entry);
        rec.dispatch(
            &kernel,
            &[&input.buffer, &output.buffer],
            bytemuck::bytes_of(&u),
            groups_1d(count, ORIENT_WG),
        )
    }

    /// The input part output part `out` shows (`Filter::window_input`).
    pub fn window_input(self, input: crate::ImageDesc, out: Rect) -> Option<Rect> {
        if out.w == 0 || out.h == 0 || input.width == 0 || input.height == 0 {
            return None;
        }
        let (ax, ay) = self.source(out.x, out.y, input.width, input.height);
        let (bx, by) = self.source(out.right() - 1, out.bottom() - 1, input.width, input.height);
        Some(Rect::new(
            ax.min(bx),
            ay.min(by),
            ax.abs_diff(bx) + 1,
            ay.abs_diff(by) + 1,
        ))
    }

    /// `Filter::windowed` of `filter`, whose orientation this is: the input part cut out of
    /// `have` (where it is more), then the filter itself.
    pub fn windowed(
        self,
        filter: Box<dyn Filter>,
        input: crate::ImageDesc,
        have: Rect,
        out: Rect,
    ) -> Result<Vec<Box<dyn Filter>>> {
        let need = self
            .window_input(input, out)
            .ok_or_else(|| Error::invalid(format!("`{}` of an empty part", filter.def().name)))?;
        if need == have {
            return Ok(vec![filter]);
        }
        let cut =
            crate::filters::geometry::Crop::px(need.x - have.x, need.y - have.y, need.w, need.h)?;
        Ok(vec![Box::new(cut), filter])
    }
}

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

/// The orientations' uniform layout, for their `FilterDef`.
pub const ORIENT_UNIFORMS: &[UniformLayout] = &[OrientParams::layout(ORIENT_WGSL)];

/// Declares a permutation filter in one place. The orientations:
///
/// ```ignore
/// crate::permute_filter! {
///     /// Rotates a quarter turn clockwise; exact.
///     pub struct Rotate90;
///     name: "rotate90", gpuimage: "...", summary: "...", doc: "...",
///     orientation: Orientation::Rotate90,
/// }
/// ```
///
/// or, with fields and parameters, `pub struct Flip { ... }`, `params: [ParamDef, ...]`,
/// `build: |a| <the struct from the arguments>` and `orientation: |f| <f's orientation>` (see
/// `geometry/flip.rs`). Any other index map gives its hooks after `build:`: `uniforms:`,
/// `formats:`, `size: |f, d| Result<(w, h)>`, `footprint: |f, inputs|`,
/// `window_input: |f, input, out|`, `windowed: |f, input, have, out|`,
/// `cpu: |f, img| Result<Image>` and `gpu: |f, rec, input, output, d| Result<()>` (see
/// `geometry/crop.rs`).
#[macro_export]
macro_rules! permute_filter {
    // the registry entry and the `Filter` impl, from the hooks
    (
        @filter $Name:ident;
        name: $name:literal,
        gpuimage: $gpuimage:literal,
        summary: $summary:literal,
        doc: $doc:expr,
        params: [$($param:expr),* $(,)?],
        build: |$ba:pat_param| $build:expr,
        uniforms: $uniforms:expr,
        formats: $formats:expr,
        size: |$sf:pat_param, $sd:ident| $size:expr,
        footprint: |$ff:pat_param, $fi:pat_param| $footprint:expr,
        window_input: |$wf:pat_param, $wi:ident, $wo:ident| $window_input:expr,
        windowed: |$df:pat_param, $di:ident, $dh:ident, $do:ident| $windowed:expr,
        cpu: |$cf:pat_param, $ci:ident| $cpu:expr,
        gpu: |$gf:pat_param, $grec:ident, $gin:ident, $gout:ident, $gd:ident| $gpu:expr $(,)?
    ) => {
        /// The filter's registry entry.
        pub static DEF: $crate::filters::registry::FilterDef = $crate::filters::registry::FilterDef {
            name: $name,
            family: $crate::filters::registry::Family::Geometry,
            summary: $summary,
            doc: $doc,
            gpuimage: $gpuimage,
            params: &[$($param),*],
            inputs: $crate::filters::registry::IMAGE,
            outputs: $crate::filters::registry::IMAGE,
            tolerance: $crate::filters::registry::EXACT_ENOUGH,
            build: |$ba| {
                let f: $Name = $build;
                Ok(Box::new(f))
            },
            uniforms: $uniforms,
            test_inputs: None,
            schedules: &[],
        };

        impl $crate::filters::registry::Filter for $Name {
            fn def(&self) -> &'static $crate::filters::registry::FilterDef {
                &DEF
            }
            fn footprint(
                &self,
                $fi: &[$crate::value::ValueDesc],
            ) -> $crate::filters::registry::Footprint {
                let $ff = self;
                $footprint
            }
            fn window_input(
                &self,
                $wi: $crate::ImageDesc,
                $wo: $crate::filters::registry::Rect,
            ) -> Option<$crate::filters::registry::Rect> {
                let $wf = self;
                $window_input
            }
            fn windowed(
                &self,
                $di: $crate::ImageDesc,
                $dh: $crate::filters::registry::Rect,
                $do: $crate::filters::registry::Rect,
            ) -> $crate::Result<Vec<Box<dyn $crate::filters::registry::Filter>>> {
                let $df = self;
                $windowed
            }
            fn output_descs(
                &self,
                inputs: &[$crate::value::ValueDesc],
            ) -> $crate::Result<Vec<$crate::value::ValueDesc>> {
                let $sd = $crate::filters::registry::expect_image(&DEF, inputs, 0, $formats)?;
                let $sf = self;
                let (w, h): (u32, u32) = $size?;
                Ok(vec![$crate::value::ValueDesc::Image($crate::ImageDesc::new(w, h, $sd.format))])
            }
            fn run_cpu(
                &self,
                inputs: &[&$crate::value::Value],
                _: &[$crate::value::ValueDesc],
            ) -> $crate::Result<Vec<$crate::value::Value>> {
                let $ci = $crate::filters::registry::input_image(&DEF, inputs, 0)?;
                let $cf = self;
                let image: $crate::Image = $cpu?;
                Ok(vec![$crate::value::Value::Image(image)])
            }
            fn record_gpu(
                &self,
                $grec: &mut $crate::runtime::NodeRecorder<'_>,
                inputs: &[$crate::runtime::GpuSlot],
                outputs: &[$crate::runtime::GpuSlot],
            ) -> $crate::Result<()> {
                let ($gin, $gout, $gd) = $crate::filters::shape::permute::slots(&DEF, inputs, outputs)?;
                let $gf = self;
                $gpu
            }
            fn box_clone(&self) -> Box<dyn $crate::filters::registry::Filter> {
                Box::new(self.clone())
            }
        }
    };
    // an orientation's hooks: the shared kernel and twin, run in tiles through the orientation
    (
        @orient $Name:ident;
        name: $name:literal,
        gpuimage: $gpuimage:literal,
        summary: $summary:literal,
        doc: $doc:expr,
        params: [$($param:expr),* $(,)?],
        build: |$ba:pat_param| $build:expr,
        orientation: |$of:ident| $o:expr $(,)?
    ) => {
        impl $Name {
            /// The orientation this instance applies.
            fn orientation(&self) -> $crate::filters::shape::permute::Orientation {
                #[allow(unused_variables)]
                let $of = self;
                $o
            }
        }

        $crate::permute_filter! {
            @filter $Name;
            name: $name,
            gpuimage: $gpuimage,
            summary: $summary,
            doc: $doc,
            params: [$($param),*],
            build: |$ba| $build,
            uniforms: $crate::filters::shape::permute::ORIENT_UNIFORMS,
            formats: $crate::filters::shape::permute::FORMATS,
            size: |f, d| $crate::Result::<_>::Ok(f.orientation().out_size(d.width, d.height)),
            // any pixel of the input may land anywhere: tiled through `window_input` instead
            footprint: |_, _| $crate::filters::registry::Footprint::WholeImage,
            window_input: |f, input, out| f.orientation().window_input(input, out),
            windowed: |f, input, have, out| f.orientation().windowed(Box::new(f.clone()), input, have, out),
            cpu: |f, img| f.orientation().cpu(img),
            gpu: |f, rec, input, output, d| f.orientation().record(rec, input, output, d),
        }
    };
    // an orientation without parameters
    (
        $(#[$meta:meta])*
        pub struct $Name:ident;
        name: $name:literal,
        gpuimage: $gpuimage:literal,
        summary: $summary:literal,
        doc: $doc:expr,
        orientation: $o:expr $(,)?
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default)]
        pub struct $Name;

        $crate::permute_filter! {
            @orient $Name;
            name: $name,
            gpuimage: $gpuimage,
            summary: $summary,
            doc: $doc,
            params: [],
            build: |_| $Name,
            orientation: |_f| $o,
        }
    };
    // a struct of fields: an orientation chosen by its parameters, or the hooks of another map
    (
        $(#[$meta:meta])*
        pub struct $Name:ident { $( $(#[$fmeta:meta])* $fvis:vis $field:ident : $fty:ty ),* $(,)? }
        $($rest:tt)*
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug)]
        pub struct $Name {
            $( $(#[$fmeta])* $fvis $field : $fty, )*
        }

        $crate::permute_filter! { @declared $Name; $($rest)* }
    };
    (
        @declared $Name:ident;
        name: $name:literal,
        gpuimage: $gpuimage:literal,
        summary: $summary:literal,
        doc: $doc:expr,
        params: [$($param:expr),* $(,)?],
        build: |$ba:pat_param| $build:expr,
        orientation: |$of:ident| $o:expr $(,)?
    ) => {
        $crate::permute_filter! {
            @orient $Name;
            name: $name,
            gpuimage: $gpuimage,
            summary: $summary,
            doc: $doc,
            params: [$($param),*],
            build: |$ba| $build,
            orientation: |$of| $o,
        }
    };
    (@declared $Name:ident; $($rest:tt)*) => {
        $crate::permute_filter! { @filter $Name; $($rest)* }
    };
}
