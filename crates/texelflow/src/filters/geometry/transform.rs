//! Affine and perspective warps. Matches OpenCV's `cv::warpAffine` (M maps input to output, as
//! with `WARP_INVERSE_MAP` off: the output pixel (x, y) reads the input at M^-1 (x, y)),
//! `cv::getRotationMatrix2D` + `warpAffine` for `rotate`, and `cv::getPerspectiveTransform` +
//! `cv::warpPerspective` for `src`/`dst`, all with `INTER_LINEAR` and `BORDER_CONSTANT`
//! (`background`). GPUImage's `GPUImageTransformFilter` (a CATransform3D on the quad) is the
//! GPUImage counterpart.
//!
//! Pixel coordinates are OpenCV's: pixel centres at integers, no half-pixel shift. Bilinear
//! in f32 with exact coordinates; OpenCV quantises the source position to 1/32 pixel and the
//! weights to 15 bits, so results differ from it where the image changes fast (a step of
//! 255 across one pixel moves by up to 255/64 = 4 levels at a 1/64 pixel offset).

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_image, input_image, slot_image, Family, Filter, FilterDef, Rect, EXACT_ENOUGH, IMAGE,
};
use crate::graph::params::{check_int, float_array, ParamDef};
use crate::image::{Image, PixelFormat, MAX_SIDE};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

const WGSL: &str = include_str!("transform.wgsl");
/// Workgroup of 16 x 16 output pixels; mirrors `@workgroup_size` in transform.wgsl.
const TRANSFORM_WG: u32 = 16;
const MODES: &[&str] = &["auto", "matrix", "rotate", "points"];

/// Which transform a `Transform` applies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Warp {
    /// OpenCV's 2x3 M (input -> output), row-major.
    Affine([f64; 6]),
    /// Degrees counter-clockwise (OpenCV's sign) about the input's centre ((w - 1) / 2, (h - 1) / 2),
    /// which lands on the output's centre; `expand`: the output is the rotated image's bounding box.
    Rotate {
        /// Degrees counter-clockwise.
        degrees: f64,
        /// The output is the rotated image's bounding box.
        expand: bool,
    },
    /// Four source points onto four destination points (pixels), x0, y0, ... x3, y3 each.
    Perspective {
        /// The four source points.
        src: [f64; 8],
        /// Where they land.
        dst: [f64; 8],
    },
}

/// A warp onto a `width` x `height` output (0: the input's side, or the bounding box with
/// `Rotate { expand: true }`), `background` (RGBA on [0, 1]) where the input does not reach.
#[derive(Clone, Debug)]
pub struct Transform {
    /// The transform.
    pub warp: Warp,
    /// Output width; 0: the input's (or the bounding box).
    pub width: u32,
    /// Output height; 0: the input's (or the bounding box).
    pub height: u32,
    /// RGBA in [0, 1] where the input does not reach.
    pub background: [f32; 4],
    /// Set on the instances a tiled run makes (`Filter::windowed`): output part `.2` of the warp
    /// of a `.0` input, from input part `.1` (the image this instance gets).
    window: Option<((u32, u32), Rect, Rect)>,
}

impl Default for Transform {
    fn default() -> Self {
        Self {
            warp: Warp::Affine([1.0, 0.0, 0.0, 0.0, 1.0, 0.0]),
            width: 0,
            height: 0,
            background: [0.0; 4],
            window: None,
        }
    }
}

fn bad(param: &str, message: String) -> Error {
    Error::BadParam {
        filter: "transform".into(),
        param: param.into(),
        message,
    }
}

/// The 3x3 matrix mapping `src` points to `dst` points (cv::getPerspectiveTransform: the 8x8
/// system with h22 = 1, solved by Gaussian elimination with partial pivoting in f64).
pub fn perspective_matrix(src: &[f64; 8], dst: &[f64; 8]) -> Result<[f64; 9]> {
    let mut a = [[0f64; 9]; 8];
    for i in 0..4 {
        let (x, y, u, v) = (src[2 * i], src[2 * i + 1], dst[2 * i], dst[2 * i + 1]);
        a[i] = [x, y, 1.0, 0.0, 0.0, 0.0, -x * u, -y * u, u];
        a[i + 4] = [0.0, 0.0, 0.0, x, y, 1.0, -x * v, -y * v, v];
    }
    for c in 0..8 {
        let p = (c..8)
            .max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))
            .unwrap_or(c);
        if a[p][c].abs() < 1e-10 {
            return Err(bad("src", "the four point pairs give a singular perspective (three points on a line, or repeated points)".into()));
        }
        a.swap(c, p);
        for r in 0..8 {
            if r != c {
                let f = a[r][c] / a[c][c];
                let pivot = a[c];
                for (x, p) in a[r][c..].iter_mut().zip(&pivot[c..]) {
                    *x -= f * p;
                }
            }
        }
    }
    let h: Vec<f64> = (0..8).map(|i| a[i][8] / a[i][i]).collect();
    Ok([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], 1.0])
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

impl Transform {
    /// The output size and the forward 3x3 matrix (input -> output) for a `w` x `h` input.
    pub fn forward(&self, w: u32, h: u32) -> Result<((u32, u32), [f64; 9])> {
        let side = |given: u32, input: u32| if given > 0 { given } else { input };
        let (mut ow, mut oh) = (side(self.width, w), side(self.height, h));
        let m = match self.warp {
            Warp::Affine(a) => [a[0], a[1], a[2], a[3], a[4], a[5], 0.0, 0.0, 1.0],
            Warp::Rotate { degrees, expand } => {
                let (s, c) = degrees.to_radians().sin_cos();
                if expand {
                    let bw = (w as f64 * c.abs() + h as f64 * s.abs()).round().max(1.0);
                    let bh = (w as f64 * s.abs() + h as f64 * c.abs()).round().max(1.0);
                    if self.width == 0 {
                        ow = bw.min(u32::MAX as f64) as u32;
                    }
                    if self.height == 0 {
                        oh = bh.min(u32::MAX as f64) as u32;
                    }
                }
                // cv::getRotationMatrix2D about the input centre, then the centre moved onto the output's
                let (cx, cy) = ((w as f64 - 1.0) / 2.0, (h as f64 - 1.0) / 2.0);
                let (ox, oy) = ((ow as f64 - 1.0) / 2.0, (oh as f64 - 1.0) / 2.0);
                [
                    c,
                    s,
                    ox - c * cx - s * cy,
                    -s,
                    c,
                    oy + s * cx - c * cy,
                    0.0,
                    0.0,
                    1.0,
                ]
            }
            Warp::Perspective { src, dst } => perspective_matrix(&src, &dst)?,
        };
        if ow > MAX_SIDE || oh > MAX_SIDE {
            return Err(Error::Graph(format!("`transform` of {w}x{h} would give {ow}x{oh}, larger than the supported {MAX_SIDE}x{MAX_SIDE}")));
        }
        Ok(((ow, oh), m))
    }

    /// The size this instance makes of a `w` x `h` input and its uniform (a part's, windowed).
    fn params(&self, w: u32, h: u32) -> Result<((u32, u32), TransformParams)> {
        let Some((full, have, out)) = self.window else {
            return self.whole_params(w, h);
        };
        if (w, h) != (have.w, have.h) {
            return Err(Error::Graph(format!(
                "`transform`'s part of {}x{} input pixels was given {w}x{h}",
                have.w, have.h
            )));
        }
        let (_, p) = self.whole_params(full.0, full.1)?;
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

    fn whole_params(&self, w: u32, h: u32) -> Result<((u32, u32), TransformParams)> {
        let ((ow, oh), m) = self.forward(w, h)?;
        let inv = invert3(&m).ok_or_else(|| {
            bad(
                "matrix",
                format!("the matrix {:?} is singular (it has no inverse)", &m[..6]),
            )
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
                background: self.background.map(|c| c * 255.0),
                stride: w,
                in_x0: 0,
                in_y0: 0,
                out_x0: 0,
                out_y0: 0,
                ..Default::default()
            },
        ))
    }
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

const SIDE: i64 = MAX_SIDE as i64;

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "transform",
    family: Family::Geometry,
    summary: "Affine (OpenCV warpAffine matrix, or rotate by degrees) or perspective (4 point pairs) warp; bilinear, background colour.",
    doc: "mode=auto (default) takes src/dst when given (not all zero), else rotate when not 0, else matrix. matrix: OpenCV's \
2x3 M = [a, b, c, d, e, f] mapping input to output pixel coordinates (x' = a x + b y + c, y' = d x + e y + f), so the output \
pixel (x, y) reads the input at M^-1 (x, y), as cv::warpAffine without WARP_INVERSE_MAP. rotate: degrees counter-clockwise \
(cv::getRotationMatrix2D's sign) about the input centre ((w-1)/2, (h-1)/2), placed on the output centre; expand=true makes the \
output the rotated bounding box. src/dst: four points each (x0, y0, ..., x3, y3, pixels): cv::getPerspectiveTransform + \
warpPerspective. Output width x height (0: the input's, or the bounding box with expand). Bilinear in f32 at exact \
coordinates (OpenCV quantises to 1/32 pixel); taps outside the input take `background` (RGBA on [0, 1]; OpenCV's \
BORDER_CONSTANT 0 is the default). A singular matrix or degenerate point set is an error.",
    gpuimage: "GPUImageTransformFilter",
    params: &[
        ParamDef::choice("mode", "auto", MODES, "auto (src/dst if given, else rotate if not 0, else matrix), matrix, rotate or points"),
        ParamDef::floats("matrix", &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0], -65536.0, 65536.0, "OpenCV's 2x3 M (input -> output), row-major: a, b, c, d, e, f"),
        ParamDef::float("rotate", 0.0, -360.0, 360.0, "degrees counter-clockwise about the centre (OpenCV's sign)"),
        ParamDef::boolean("expand", false, "rotate: the output is the rotated image's bounding box"),
        ParamDef::floats("src", &[0.0; 8], -65536.0, 65536.0, "perspective: 4 source points x0, y0, ..., x3, y3 (pixels)"),
        ParamDef::floats("dst", &[0.0; 8], -65536.0, 65536.0, "perspective: where the 4 source points land (pixels)"),
        ParamDef::int("width", 0, 0, SIDE, "output width in pixels; 0 = the input's (or the bounding box with expand)"),
        ParamDef::int("height", 0, 0, SIDE, "output height in pixels; 0 = the input's (or the bounding box with expand)"),
        ParamDef::floats("background", &[0.0, 0.0, 0.0, 0.0], 0.0, 1.0, "RGBA where the input does not reach"),
    ],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| {
        let m = float_array::<6>(&DEF, "matrix", &a.floats("matrix")?)?;
        let src = float_array::<8>(&DEF, "src", &a.floats("src")?)?;
        let dst = float_array::<8>(&DEF, "dst", &a.floats("dst")?)?;
        let degrees = a.f32("rotate")?;
        let points = src.iter().chain(&dst).any(|&v| v != 0.0);
        let mode = match a.choice("mode")? {
            "auto" if points => "points",
            "auto" if degrees != 0.0 => "rotate",
            "auto" => "matrix",
            other => other,
        };
        let warp = match mode {
            "points" => Warp::Perspective { src: src.map(f64::from), dst: dst.map(f64::from) },
            "rotate" => Warp::Rotate { degrees: degrees as f64, expand: a.bool("expand")? },
            _ => Warp::Affine(m.map(f64::from)),
        };
        let t = Transform { warp, width: check_int(&DEF, "width", a.u32("width")?)?, height: check_int(&DEF, "height", a.u32("height")?)?, background: float_array(&DEF, "background", &a.floats("background")?)?, window: None };
        // a singular matrix or degenerate points: a one-line error when built
        t.params(4, 4)?;
        Ok(Box::new(t))
    },
    uniforms: &[TransformParams::layout(WGSL)],
    test_inputs: None,
    schedules: &[],
};

impl Filter for Transform {
    fn footprint(&self, _: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::WholeImage
    }
    fn window_input(&self, input: crate::ImageDesc, out: Rect) -> Option<Rect> {
        if self.window.is_some() || out.w == 0 || out.h == 0 {
            return None;
        }
        let (w, h) = (input.width, input.height);
        let ((ow, oh), p) = self.whole_params(w, h).ok()?;
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
    fn windowed(
        &self,
        input: crate::ImageDesc,
        have: Rect,
        out: Rect,
    ) -> Result<Vec<Box<dyn Filter>>> {
        crate::filters::registry::window_need(self, input, have, out)?;
        Ok(vec![Box::new(Transform {
            window: Some(((input.width, input.height), have, out)),
            ..self.clone()
        })])
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8])?;
        let ((w, h), _) = self.params(d.width, d.height)?;
        Ok(vec![ValueDesc::Image(crate::ImageDesc::new(
            w,
            h,
            PixelFormat::Rgba8,
        ))])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        let ((ow, oh), p) = self.params(img.width(), img.height())?;
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
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let d = slot_image(&DEF, inputs, 0)?;
        let ((ow, oh), p) = self.params(d.width, d.height)?;
        let kernel = Kernel::new(
            "geometry.transform",
            &[TransformParams::WGSL, WGSL],
            "transform",
        );
        rec.dispatch(
            &kernel,
            &[&inputs[0].buffer, &outputs[0].buffer],
            bytemuck::bytes_of(&p),
            groups_2d(ow, oh, TRANSFORM_WG, TRANSFORM_WG),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
