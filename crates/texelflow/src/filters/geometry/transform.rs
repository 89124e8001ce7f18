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

use crate::error::{Error, Result};
use crate::graph::params::{check_int, float_array, ParamDef};
use crate::image::MAX_SIDE;
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

crate::warp_filter! {
    /// A warp onto a `width` x `height` output (0: the input's side, or the bounding box with
    /// `Rotate { expand: true }`), `background` (RGBA on [0, 1]) where the input does not reach.
    pub struct Transform {
        /// The transform.
        pub warp: Warp,
        /// Output width; 0: the input's (or the bounding box).
        pub width: u32,
        /// Output height; 0: the input's (or the bounding box).
        pub height: u32,
        /// RGBA in [0, 1] where the input does not reach.
        pub background: [f32; 4],
    }
    name: "transform",
    gpuimage: "GPUImageTransformFilter",
    summary: "Affine (OpenCV warpAffine matrix, or rotate by degrees) or perspective (4 point pairs) warp; bilinear, background colour.",
    doc: "mode=auto (default) takes src/dst when given (not all zero), else rotate when not 0, else matrix. matrix: OpenCV's \
2x3 M = [a, b, c, d, e, f] mapping input to output pixel coordinates (x' = a x + b y + c, y' = d x + e y + f), so the output \
pixel (x, y) reads the input at M^-1 (x, y), as cv::warpAffine without WARP_INVERSE_MAP. rotate: degrees counter-clockwise \
(cv::getRotationMatrix2D's sign) about the input centre ((w-1)/2, (h-1)/2), placed on the output centre; expand=true makes the \
output the rotated bounding box. src/dst: four points each (x0, y0, ..., x3, y3, pixels): cv::getPerspectiveTransform + \
warpPerspective. Output width x height (0: the input's, or the bounding box with expand). Bilinear in f32 at exact \
coordinates (OpenCV quantises to 1/32 pixel); taps outside the input take `background` (RGBA on [0, 1]; OpenCV's \
BORDER_CONSTANT 0 is the default). A singular matrix or degenerate point set is an error.",
    params: [
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
        Transform { warp, width: check_int(&DEF, "width", a.u32("width")?)?, height: check_int(&DEF, "height", a.u32("height")?)?, background: float_array(&DEF, "background", &a.floats("background")?)?, window: None }
    },
    matrix: |f, w, h| f.forward(w, h),
    background: |f| f.background,
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
            return Err(Error::invalid(format!("`transform` of {w}x{h} would give {ow}x{oh}, larger than the supported {MAX_SIDE}x{MAX_SIDE}")));
        }
        Ok(((ow, oh), m))
    }
}

const SIDE: i64 = MAX_SIDE as i64;
