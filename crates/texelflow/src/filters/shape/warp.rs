//! The warp shape: output pixel (x, y) reads the input at M^-1 (x, y) for a 3x3 matrix M
//! (input -> output; affine when its last row is (0, 0, 1), else a perspective), bilinearly in
//! f32 at exact coordinates, with taps outside the input taking a background colour: OpenCV's
//! `cv::warpAffine` and `cv::warpPerspective` with `INTER_LINEAR` and `BORDER_CONSTANT`. Pixel
//! coordinates are OpenCV's (pixel centres at integers). RGBA8.
//!
//! `warp_filter!` declares one: the struct (with the part of a tiled run it makes), its
//! registry entry and the `Filter` impl; the filter gives its parameters, the output size with
//! M for an input size, and the background. The shape inverts M, records the kernel
//! (transform.wgsl), runs the CPU twin and maps a tile's corners back for runs in tiles.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::filters::registry::{expect_image, input_image, Filter, FilterDef, Rect, UniformLayout};
use crate::image::{Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::GpuSlot;
use crate::runtime::{groups_2d, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

/// The warp kernel (transform.wgsl; its comment still names transform.rs, where the twin was:
/// the kernel source is kept byte for byte).
pub const WGSL: &str = include_str!("transform.wgsl");
/// Workgroup of 16 x 16 output pixels; mirrors `@workgroup_size` in transform.wgsl.
const TRANSFORM_WG: u32 = 16;

/// What an instance made for a tiled run (`Filter::windowed`) makes: output part `.2` of the
/// warp of a `.0` input, from input part `.1` (the image this instance gets).
pub type Window = ((u32, u32), Rect, Rect);

/// A warp; implemented by `warp_filter!`.
pub trait WarpOp: Clone + std::fmt::Debug + Send + Sync + 'static {
    /// The filter's registry entry.
    const DEF: &'static FilterDef;
    /// The output size and the forward 3x3 matrix (input -> output, row-major) for a `w` x `h`
    /// input.
    fn matrix(&self, w: u32, h: u32) -> Result<((u32, u32), [f64; 9])>;
    /// RGBA in [0, 1] where the input does not reach.
    fn background(&self) -> [f32; 4];
    /// The part of a tiled run this instance makes; `None` for the whole warp.
    fn window(&self) -> Option<Window>;
    /// This warp making `window` only.
    fn with_window(&self, window: Window) -> Self;
}

fn invert3(m: &[f64; 9]) -> Option<[f64; 9]> {
    let det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6])
        + m[2] * (m[3] * m[7] - m[4] * m[6]);
    let scale = m.iter().fold(0f64, |s, v| s.max(v.abs())).max(1e-300);
    if !det.is_finite() || det.abs() <= 1e-12 * scale * scale * scale {
        return None;
    }
    let d = 1.0 / det;
    Some([
        (m[4] * m[8] - m[5] * m[7]) * d,
        (m[2] * m[7] - m[1] * m[8]) * d,
        (m[1] * m[5] - m[2] * m[4]) * d,
        (m[5] * m[6] - m[3] * m[8]) * d,
        (m[0] * m[8] - m[2] * m[6]) * d,
        (m[2] * m[3] - m[0] * m[5]) * d,
        (m[3] * m[7] - m[4] * m[6]) * d,
        (m[1] * m[6] - m[0] * m[7]) * d,
        (m[0] * m[4] - m[1] * m[3]) * d,
    ])
}

uniform_struct! {
    /// Uniform of transform.wgsl.
    pub struct TransformParams {
        pub in_width: u32,
        pub in_height: u32,
        pub out_width: u32,
        pub out_height: u32,
        /// The inverse matrix's rows (output -> input); w unused.
        pub row0: [f32; 4],
        pub row1: [f32; 4],
        /// (0, 0, 1) for an affine warp.
        pub row2: [f32; 4],
        /// 0..255
        pub background: [f32; 4],
        /// A part of a larger warp (images in tiles): in_width/in_height are the whole
        /// input's, out_width/out_height the part's; the source holds input columns in_x0..
        /// and rows in_y0.. in rows of `stride` pixels, the part starts at output (out_x0,
        /// out_y0). A whole warp: stride = in_width, origins 0.
        pub stride: u32,
        pub in_x0: u32,
        pub in_y0: u32,
        pub out_x0: u32,
        pub out_y0: u32,
    }
}

/// The uniform layout, for a warp's `FilterDef`.
pub const UNIFORMS: &[UniformLayout] = &[TransformParams::layout(WGSL)];

/// The size `op` makes of a `w` x `h` input and its uniform (a part's, windowed); an error for
/// a singular matrix.
pub fn params<T: WarpOp>(op: &T, w: u32, h: u32) -> Result<((u32, u32), TransformParams)> {
    let Some((full, have, out)) = op.window() else {
        return whole_params(op, w, h);
    };
    if (w, h) != (have.w, have.h) {
        return Err(Error::invalid(format!(
            "`{}`'s part of {}x{} input pixels was given {w}x{h}",
            T::DEF.name,
            have.w,
            have.h
        )));
    }
    let (_, p) = whole_params(op, full.0, full.1)?;
    Ok((
        (out.w, out.h),
        TransformParams {
            out_width: out.w,
            out_height: out.h,
            stride: have.w,
            in_x0: have.x,
            in_y0: have.y,
            out_x0: out.x,
            out_y0: out.y,
            ..p
        },
    ))
}

fn whole_params<T: WarpOp>(op: &T, w: u32, h: u32) -> Result<((u32, u32), TransformParams)> {
    let ((ow, oh), m) = op.matrix(w, h)?;
    let inv = invert3(&m).ok_or_else(|| Error::BadParam {
        filter: T::DEF.name.into(),
        param: "matrix".into(),
        message: format!("the matrix {:?} is singular (it has no inverse)", &m[..6]),
    })?;
    let row = |r: usize| {
        [
            inv[3 * r] as f32,
            inv[3 * r + 1] as f32,
            inv[3 * r + 2] as f32,
            0.0,
        ]
    };
    let mut row2 = row(2);
    if m[6] == 0.0 && m[7] == 0.0 {
        // affine: the inverse's last row is exactly (0, 0, 1)
        row2 = [0.0, 0.0, 1.0, 0.0];
    }
    Ok((
        (ow, oh),
        TransformParams {
            in_width: w,
            in_height: h,
            out_width: ow,
            out_height: oh,
            row0: row(0),
            row1: row(1),
            row2,
            background: op.background().map(|c| c * 255.0),
            stride: w,
            in_x0: 0,
            in_y0: 0,
            out_x0: 0,
            out_y0: 0,
            ..Default::default()
        },
    ))
}

/// CPU twin of transform.wgsl for output pixel (x, y) of the part.
fn warp_pixel(src: &[u8], p: &TransformParams, x: u32, y: u32) -> [u8; 4] {
    let pt = [(x + p.out_x0) as f32, (y + p.out_y0) as f32, 1.0];
    let dot = |r: &[f32; 4]| r[0] * pt[0] + r[1] * pt[1] + r[2] * pt[2];
    let tap = |x: i32, y: i32| -> [f32; 4] {
        if x < 0 || y < 0 || x >= p.in_width as i32 || y >= p.in_height as i32 {
            return p.background;
        }
        let i = ((y as usize - p.in_y0 as usize) * p.stride as usize
            + (x as usize - p.in_x0 as usize))
            * 4;
        [
            src[i] as f32,
            src[i + 1] as f32,
            src[i + 2] as f32,
            src[i + 3] as f32,
        ]
    };
    let mut v = p.background;
    let z = dot(&p.row2);
    if z != 0.0 {
        let sx = dot(&p.row0) / z;
        let sy = dot(&p.row1) / z;
        if sx.abs() < 16777216.0 && sy.abs() < 16777216.0 {
            let (fx, fy) = (sx.floor(), sy.floor());
            let (tx, ty) = (sx - fx, sy - fy);
            let (x, y) = (fx as i32, fy as i32);
            let (a, b, c, d) = (tap(x, y), tap(x + 1, y), tap(x, y + 1), tap(x + 1, y + 1));
            for k in 0..4 {
                let top = a[k] * (1.0 - tx) + b[k] * tx;
                let bottom = c[k] * (1.0 - tx) + d[k] * tx;
                v[k] = top * (1.0 - ty) + bottom * ty;
            }
        }
    }
    v.map(|c| (c + 0.5).floor().clamp(0.0, 255.0) as u8)
}

/// `Filter::window_input`: the input part output part `out` reads, from its corners mapped back.
pub fn window_input<T: WarpOp>(op: &T, input: crate::ImageDesc, out: Rect) -> Option<Rect> {
    if op.window().is_some() || out.w == 0 || out.h == 0 {
        return None;
    }
    let (w, h) = (input.width, input.height);
    let ((ow, oh), p) = whole_params(op, w, h).ok()?;
    if out.right() > ow || out.bottom() > oh {
        return None;
    }
    // the part's corners through the inverse (the kernel's f32 rows): where the divisor keeps
    // its sign over the part, the taps lie in the corners' bounding box (2 pixels spare for
    // the bilinear taps and f32 rounding); otherwise the part may reach anywhere
    let (mut x0, mut y0, mut x1, mut y1) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    let mut sign = 0.0;
    for (x, y) in [
        (out.x, out.y),
        (out.right() - 1, out.y),
        (out.x, out.bottom() - 1),
        (out.right() - 1, out.bottom() - 1),
    ] {
        let dot = |r: &[f32; 4]| r[0] as f64 * x as f64 + r[1] as f64 * y as f64 + r[2] as f64;
        let z = dot(&p.row2);
        if z == 0.0 || (sign != 0.0 && z.signum() != sign) {
            return Some(Rect::whole(w, h));
        }
        sign = z.signum();
        let (sx, sy) = (dot(&p.row0) / z, dot(&p.row1) / z);
        (x0, y0, x1, y1) = (x0.min(sx), y0.min(sy), x1.max(sx), y1.max(sy));
    }
    let clamp = |v: f64| v.clamp(-(1i64 << 40) as f64, (1i64 << 40) as f64) as i64;
    let need = Rect::span(
        clamp(x0.floor()) - 2,
        clamp(y0.floor()) - 2,
        clamp(x1.ceil()) + 3,
        clamp(y1.ceil()) + 3,
        (w, h),
    );
    if need.w == 0 || need.h == 0 {
        // the part lies outside the input (background only): one pixel for the graph
        return Some(Rect::new(
            clamp(x0).clamp(0, w as i64 - 1) as u32,
            clamp(y0).clamp(0, h as i64 - 1) as u32,
            1,
            1,
        ));
    }
    Some(need)
}

/// `Filter::windowed`: the same warp making output part `out` only, from input part `have`.
pub fn windowed<T: WarpOp + Filter>(
    op: &T,
    input: crate::ImageDesc,
    have: Rect,
    out: Rect,
) -> Result<Vec<Box<dyn Filter>>> {
    crate::filters::registry::window_need(op, input, have, out)?;
    Ok(vec![Box::new(op.with_window((
        (input.width, input.height),
        have,
        out,
    )))])
}

/// `Filter::output_descs`: one RGBA8 image of the warp's (or the part's) size.
pub fn output_descs<T: WarpOp>(op: &T, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
    let d = expect_image(T::DEF, inputs, 0, &[PixelFormat::Rgba8])?;
    let ((w, h), _) = params(op, d.width, d.height)?;
    Ok(vec![ValueDesc::Image(crate::ImageDesc::new(
        w,
        h,
        PixelFormat::Rgba8,
    ))])
}

/// The CPU twin, rows in parallel.
pub fn run_cpu<T: WarpOp>(op: &T, inputs: &[&Value]) -> Result<Vec<Value>> {
    let img = input_image(T::DEF, inputs, 0)?;
    let ((ow, oh), p) = params(op, img.width(), img.height())?;
    let src = img.as_u8();
    let mut out = vec![0u8; ow as usize * oh as usize * 4];
    out.par_chunks_mut(ow as usize * 4)
        .enumerate()
        .for_each(|(y, row)| {
            for (x, o) in row.chunks_exact_mut(4).enumerate() {
                o.copy_from_slice(&warp_pixel(src, &p, x as u32, y as u32));
            }
        });
    Ok(vec![Value::Image(Image::from_u8(
        ow,
        oh,
        PixelFormat::Rgba8,
        out,
    )?)])
}

/// Records transform.wgsl from `inputs[0]` into `outputs[0]`.
pub fn record<T: WarpOp>(
    op: &T,
    rec: &mut NodeRecorder<'_>,
    inputs: &[GpuSlot],
    outputs: &[GpuSlot],
) -> Result<()> {
    let (input, output, d) = crate::filters::shape::permute::slots(T::DEF, inputs, outputs)?;
    let ((ow, oh), p) = params(op, d.width, d.height)?;
    let kernel = Kernel::new(
        "geometry.transform",
        &[TransformParams::WGSL, WGSL],
        "transform",
    );
    rec.dispatch(
        &kernel,
        &[&input.buffer, &output.buffer],
        bytemuck::bytes_of(&p),
        groups_2d(ow, oh, TRANSFORM_WG, TRANSFORM_WG),
    )
}

/// Declares a warp in one place: the struct's fields (the shape adds the part of a tiled run
/// it makes, `window`, which the file's constructors set to `None`), `params: [ParamDef, ...]`,
/// `build: |a| <the struct from the arguments>` (checked on a 4x4 input, so a singular matrix
/// is a one-line error when built), `matrix: |f, w, h| Result<((out_w, out_h), M)>` and
/// `background: |f| [f32; 4]`. See `geometry/transform.rs`.
#[macro_export]
macro_rules! warp_filter {
    (
        $(#[$meta:meta])*
        pub struct $Name:ident { $( $(#[$fmeta:meta])* $fvis:vis $field:ident : $fty:ty ),* $(,)? }
        name: $name:literal,
        gpuimage: $gpuimage:literal,
        summary: $summary:literal,
        doc: $doc:expr,
        params: [$($param:expr),* $(,)?],
        build: |$ba:pat_param| $build:expr,
        matrix: |$mf:pat_param, $mw:ident, $mh:ident| $matrix:expr,
        background: |$bf:pat_param| $background:expr $(,)?
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug)]
        pub struct $Name {
            $( $(#[$fmeta])* $fvis $field : $fty, )*
            /// Set on the instances a tiled run makes (`Filter::windowed`).
            window: Option<$crate::filters::shape::warp::Window>,
        }

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
                // a singular matrix or degenerate points: a one-line error when built
                $crate::filters::shape::warp::params(&f, 4, 4)?;
                Ok(Box::new(f))
            },
            uniforms: $crate::filters::shape::warp::UNIFORMS,
            test_inputs: None,
            schedules: &[],
        };

        impl $crate::filters::shape::warp::WarpOp for $Name {
            const DEF: &'static $crate::filters::registry::FilterDef = &DEF;
            fn matrix(&self, $mw: u32, $mh: u32) -> $crate::Result<((u32, u32), [f64; 9])> {
                let $mf = self;
                $matrix
            }
            fn background(&self) -> [f32; 4] {
                let $bf = self;
                $background
            }
            fn window(&self) -> Option<$crate::filters::shape::warp::Window> {
                self.window
            }
            fn with_window(&self, window: $crate::filters::shape::warp::Window) -> Self {
                Self {
                    window: Some(window),
                    ..self.clone()
                }
            }
        }

        impl $crate::filters::registry::Filter for $Name {
            fn def(&self) -> &'static $crate::filters::registry::FilterDef {
                &DEF
            }
            fn footprint(&self, _: &[$crate::value::ValueDesc]) -> $crate::filters::registry::Footprint {
                // tiled through `window_input` instead
                $crate::filters::registry::Footprint::WholeImage
            }
            fn window_input(
                &self,
                input: $crate::ImageDesc,
                out: $crate::filters::registry::Rect,
            ) -> Option<$crate::filters::registry::Rect> {
                $crate::filters::shape::warp::window_input(self, input, out)
            }
            fn windowed(
                &self,
                input: $crate::ImageDesc,
                have: $crate::filters::registry::Rect,
                out: $crate::filters::registry::Rect,
            ) -> $crate::Result<Vec<Box<dyn $crate::filters::registry::Filter>>> {
                $crate::filters::shape::warp::windowed(self, input, have, out)
            }
            fn output_descs(
                &self,
                inputs: &[$crate::value::ValueDesc],
            ) -> $crate::Result<Vec<$crate::value::ValueDesc>> {
                $crate::filters::shape::warp::output_descs(self, inputs)
            }
            fn run_cpu(
                &self,
                inputs: &[&$crate::value::Value],
                _: &[$crate::value::ValueDesc],
            ) -> $crate::Result<Vec<$crate::value::Value>> {
                $crate::filters::shape::warp::run_cpu(self, inputs)
            }
            fn record_gpu(
                &self,
                rec: &mut $crate::runtime::NodeRecorder<'_>,
                inputs: &[$crate::runtime::GpuSlot],
                outputs: &[$crate::runtime::GpuSlot],
            ) -> $crate::Result<()> {
                $crate::filters::shape::warp::record(self, rec, inputs, outputs)
            }
            fn box_clone(&self) -> Box<dyn $crate::filters::registry::Filter> {
                Box::new(self.clone())
            }
        }
    };
}
