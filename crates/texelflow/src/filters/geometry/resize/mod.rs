//! Resize of an RGBA8 image: GPUImage's `forceProcessingAtSize` (which lets the GPU's bilinear
//! texture filtering resample), as an explicit filter, and OpenCV's `cv::resize` with
//! `INTER_NEAREST`, `INTER_LINEAR`, `INTER_CUBIC` and `INTER_AREA`, plus lanczos3.
//!
//! `method=bilinear` (the default): pixel-centre alignment exactly as OpenCV's `INTER_LINEAR`: the
//! source coordinate of output pixel `d` is `(d + 0.5) * in / out - 0.5`, clamped to
//! `[0, in - 1]`; no antialiasing (large reductions alias, as in GPUImage and OpenCV). All four
//! channels, alpha included, are interpolated independently (no premultiplication) in f32 and
//! rounded; OpenCV uses 11-bit fixed-point weights instead, so results can differ from it by one step.
//!
//! The other methods and `align_corners=true` run `resize_general.wgsl`: `nearest` is OpenCV's
//! `INTER_NEAREST` (source `floor(d * in / out)`, not centred; `INTER_NEAREST_EXACT` is not
//! offered), `bicubic` is `INTER_CUBIC` (Keys, a = -0.75, 4x4 taps, replicate edges, no
//! clamping of the coordinate), `lanczos3` is a 6x6 Lanczos (a = 3) with weights normalised to
//! sum 1 (OpenCV has only the 8x8 `INTER_LANCZOS4`; Pillow's LANCZOS is lanczos3 but widens its
//! support when shrinking, which this does not), `area` is `INTER_AREA`: exact box-overlap
//! weights (`computeResizeAreaTab`) when neither side grows, and, as OpenCV does, its
//! "area-bilinear" (source `floor(d * in / out)`, weight from the overlap of the output cell)
//! when a side grows. `align_corners=true` maps the corner pixels' centres onto each other
//! (source `d * (in - 1) / (out - 1)`, PyTorch's `align_corners=True`, seed 004's enlarging
//! schedule); it does not apply to `area`. Weights are f32 (OpenCV: 11-bit fixed point for
//! linear and cubic, f32 for area and lanczos); results are rounded half up and clamped.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_image, input_image, slot_image, Family, Filter, FilterDef, Rect, EXACT_ENOUGH, IMAGE,
};
use crate::graph::params::{check_float, check_int, ParamDef};
use crate::image::{Image, PixelFormat, MAX_SIDE};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Value, ValueDesc};

pub mod schedules;

use schedules::{GENERAL_ROWS_MODULE, GENERAL_WGSL, HALF_WGSL, TEXTURE_WGSL, TILE_WGSL, WGSL};

/// The interpolation; the discriminant is resize_general.wgsl's `method` (area enlarging is 5 there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResizeMethod {
    /// OpenCV's INTER_NEAREST.
    Nearest = 0,
    /// OpenCV's INTER_LINEAR.
    Bilinear = 1,
    /// OpenCV's INTER_CUBIC (a = -0.75).
    Bicubic = 2,
    /// 6x6 Lanczos taps normalised to sum 1.
    Lanczos3 = 3,
    /// OpenCV's INTER_AREA.
    Area = 4,
}

const METHODS: &[&str] = &["bilinear", "nearest", "bicubic", "lanczos3", "area"];

impl ResizeMethod {
    fn from_name(name: &str) -> Result<Self> {
        Ok(match name {
            "nearest" => ResizeMethod::Nearest,
            "bilinear" => ResizeMethod::Bilinear,
            "bicubic" => ResizeMethod::Bicubic,
            "lanczos3" => ResizeMethod::Lanczos3,
            "area" => ResizeMethod::Area,
            other => {
                return Err(Error::BadParam {
                    filter: "resize".into(),
                    param: "method".into(),
                    message: format!("`{other}` is not one of {}", METHODS.join(", ")),
                })
            }
        })
    }
}

/// Resizes to `width` x `height`; a zero side comes from `scale` instead.
#[derive(Clone, Debug)]
pub struct Resize {
    /// Size factor for a side given as 0.
    pub scale: f32,
    /// Output width; 0: from `scale`.
    pub width: u32,
    /// Output height; 0: from `scale`.
    pub height: u32,
    /// The interpolation.
    pub method: ResizeMethod,
    /// Corner pixels' centres aligned (source `d * (in - 1) / (out - 1)`) instead of OpenCV's half-pixel centres.
    pub align_corners: bool,
    /// Set on the instances a tiled run makes (`Filter::windowed`): this resize makes only a
    /// part of the whole one.
    window: Option<Geometry>,
}

/// What a resize instance computes: output part `out` of the `full_out` resize of a `full_in`
/// image, from input part `have` (the input image it gets); the whole of both where it is not
/// windowed.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Geometry {
    full_in: (u32, u32),
    full_out: (u32, u32),
    have: Rect,
    out: Rect,
}

impl Resize {
    /// Fails when a value is outside its declared range.
    pub fn new(scale: f32, width: u32, height: u32) -> Result<Self> {
        Ok(Self {
            scale: check_float(&DEF, "scale", scale)?,
            width: check_int(&DEF, "width", width)?,
            height: check_int(&DEF, "height", height)?,
            method: ResizeMethod::Bilinear,
            align_corners: false,
            window: None,
        })
    }
    /// The same size with another interpolation; `align_corners` does not apply to `area`.
    pub fn with_method(mut self, method: ResizeMethod, align_corners: bool) -> Result<Self> {
        if align_corners && method == ResizeMethod::Area {
            return Err(Error::BadParam { filter: "resize".into(), param: "align_corners".into(), message: "align_corners=true does not apply to method=area (box weights over whole cells)".into() });
        }
        self.method = method;
        self.align_corners = align_corners;
        Ok(self)
    }
    /// Whether the general kernel (resize_general.wgsl) runs instead of the bilinear ones.
    fn general(&self) -> bool {
        self.method != ResizeMethod::Bilinear || self.align_corners
    }
    /// Both sides multiplied by `scale`.
    pub fn by(scale: f32) -> Result<Self> {
        Self::new(scale, 0, 0)
    }
    /// An exact output size.
    pub fn to(width: u32, height: u32) -> Result<Self> {
        Self::new(1.0, width, height)
    }
    /// Output size for a `w` x `h` input.
    pub fn out_size(&self, w: u32, h: u32) -> Result<(u32, u32)> {
        if let Some(win) = self.window {
            if (w, h) != (win.have.w, win.have.h) {
                return Err(Error::invalid(format!(
                    "`resize`'s part of {}x{} input pixels was given {w}x{h}",
                    win.have.w, win.have.h
                )));
            }
            return Ok((win.out.w, win.out.h));
        }
        self.whole_out_size(w, h)
    }
    /// What this instance computes for a `w` x `h` input.
    fn geometry(&self, w: u32, h: u32) -> Result<Geometry> {
        let (ow, oh) = self.out_size(w, h)?;
        Ok(match self.window {
            Some(win) => win,
            None => Geometry {
                full_in: (w, h),
                full_out: (ow, oh),
                have: Rect::whole(w, h),
                out: Rect::whole(ow, oh),
            },
        })
    }
    /// Output size of the whole resize of a `w` x `h` input.
    fn whole_out_size(&self, w: u32, h: u32) -> Result<(u32, u32)> {
        let side = |given: u32, input: u32| {
            if given > 0 {
                given
            } else {
                (input as f64 * self.scale as f64).round().max(1.0) as u32
            }
        };
        let (ow, oh) = (side(self.width, w), side(self.height, h));
        if ow > MAX_SIDE || oh > MAX_SIDE {
            return Err(Error::invalid(format!("`resize` of {w}x{h} would give {ow}x{oh}, larger than the supported {MAX_SIDE}x{MAX_SIDE}")));
        }
        Ok((ow, oh))
    }
}

impl Default for Resize {
    fn default() -> Self {
        Self {
            scale: 1.0,
            width: 0,
            height: 0,
            method: ResizeMethod::Bilinear,
            align_corners: false,
            window: None,
        }
    }
}

uniform_struct! {
    /// Uniform of the bilinear kernels (resize.wgsl, resize_tile.wgsl, resize_texture.wgsl).
    pub struct ResizeParams {
        pub in_width: u32,
        pub in_height: u32,
        pub out_width: u32,
        pub out_height: u32,
        /// in_width / out_width, computed once in f32 on the CPU.
        pub ratio_x: f32,
        pub ratio_y: f32,
        /// A part of a larger resize (`ResizeWindow`, images in tiles): in_width/in_height
        /// and the ratios are the whole image's, out_width/out_height the part's; the source
        /// holds input columns in_x0.. and rows in_y0.. in rows of `stride` pixels, the part
        /// starts at output (out_x0, out_y0). A whole resize: stride = in_width, origins 0
        /// (resize_texture.wgsl takes whole resizes only).
        pub stride: u32,
        pub in_x0: u32,
        pub in_y0: u32,
        pub out_x0: u32,
        pub out_y0: u32,
    }
}

impl ResizeParams {
    fn new(g: &Geometry) -> Self {
        let ((w, h), (ow, oh)) = (g.full_in, g.full_out);
        Self {
            in_width: w,
            in_height: h,
            out_width: g.out.w,
            out_height: g.out.h,
            ratio_x: w as f32 / ow as f32,
            ratio_y: h as f32 / oh as f32,
            stride: g.have.w,
            in_x0: g.have.x,
            in_y0: g.have.y,
            out_x0: g.out.x,
            out_y0: g.out.y,
            ..Default::default()
        }
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "resize",
    family: Family::Geometry,
    summary: "Resize by a scale or to an exact size: bilinear (default), nearest, bicubic, lanczos3, area (OpenCV's cv::resize).",
    doc: "Output width = `width`, or round(input width * scale) when width is 0 (likewise height), so \
resize(scale=0.5) halves both sides and resize(width=640, height=480) ignores scale. Source coordinate \
(d + 0.5) * in / out - 0.5 clamped to [0, in - 1] (OpenCV INTER_LINEAR alignment), bilinear in f32 on all four \
channels (alpha too, not premultiplied), no antialiasing when shrinking. method=nearest: OpenCV INTER_NEAREST \
(source floor(d * in / out)); bicubic: INTER_CUBIC (a = -0.75, 4x4 taps); lanczos3: 6x6 Lanczos taps normalised to sum 1 \
(OpenCV's INTER_LANCZOS4 is 8x8); area: INTER_AREA (exact box weights when no side grows, OpenCV's area-bilinear when \
one does). align_corners=true: source d * (in - 1) / (out - 1) (corner centres aligned; not for area). Replicate edges, \
f32 weights, rounded half up and clamped.",
    gpuimage: "forceProcessingAtSize",
    params: &[
        ParamDef::float("scale", 1.0, 0.01, 16.0, "factor for each side whose explicit size is 0"),
        ParamDef::int("width", 0, 0, MAX_SIDE as i64, "output width in pixels; 0 = input width * scale"),
        ParamDef::int("height", 0, 0, MAX_SIDE as i64, "output height in pixels; 0 = input height * scale"),
        ParamDef::choice("method", "bilinear", METHODS, "interpolation: bilinear, nearest, bicubic, lanczos3 or area (OpenCV INTER_*)"),
        ParamDef::boolean("align_corners", false, "align the corner pixels' centres (d * (in - 1) / (out - 1)) instead of half-pixel centres"),
    ],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(Resize::new(a.f32("scale")?, a.u32("width")?, a.u32("height")?)?.with_method(ResizeMethod::from_name(a.choice("method")?)?, a.bool("align_corners")?)?)),
    uniforms: &[ResizeParams::layout(WGSL), ResizeParams::layout(TILE_WGSL), ResizeParams::layout(TEXTURE_WGSL), ResizeGeneralParams::layout(GENERAL_WGSL), ResizeGeneralParams::layout(GENERAL_ROWS_MODULE), ResizeParams::layout(HALF_WGSL)],
    test_inputs: None,
    schedules: &["quads", "rows", "rows_any", "rows16_mu", "tile", "texture", "general_direct", "general_tile", "general_rows", "general_rows2", "half"],
};

/// CPU twin of `resize.wgsl` for output pixel (x, y) of the part (`ResizeParams`' window).
fn resize_pixel(src: &[u8], p: &ResizeParams, x: u32, y: u32) -> [u8; 4] {
    let (x, y) = (x + p.out_x0, y + p.out_y0);
    let fx = ((x as f32 + 0.5) * p.ratio_x - 0.5).clamp(0.0, (p.in_width - 1) as f32);
    let fy = ((y as f32 + 0.5) * p.ratio_y - 0.5).clamp(0.0, (p.in_height - 1) as f32);
    let (x0, y0) = (fx as u32, fy as u32);
    let x1 = (x0 + 1).min(p.in_width - 1);
    let y1 = (y0 + 1).min(p.in_height - 1);
    let (tx, ty) = (fx - x0 as f32, fy - y0 as f32);
    let at = |x: u32, y: u32, c: usize| {
        src[(((y - p.in_y0) as usize * p.stride as usize + (x - p.in_x0) as usize) * 4) + c] as f32
    };
    let mut out = [0u8; 4];
    for (c, o) in out.iter_mut().enumerate() {
        let (p00, p10, p01, p11) = (at(x0, y0, c), at(x1, y0, c), at(x0, y1, c), at(x1, y1, c));
        let top = p00 + (p10 - p00) * tx;
        let bottom = p01 + (p11 - p01) * tx;
        let v = top + (bottom - top) * ty;
        // Truncation of v + 0.5 (v >= -0.5 as a convex combination), as the kernel's u32().
        *o = (v + 0.5) as u8;
    }
    out
}

uniform_struct! {
    /// Uniform of the general kernel (resize_general.wgsl).
    pub struct ResizeGeneralParams {
        pub in_width: u32,
        pub in_height: u32,
        pub out_width: u32,
        pub out_height: u32,
        /// 0 nearest, 1 bilinear, 2 bicubic, 3 lanczos3, 4 area (shrinking), 5 area-bilinear
        /// (enlarging).
        pub method: u32,
        /// 1: align_corners (source = d * (in - 1) / (out - 1)).
        pub align: u32,
        /// in / out, computed in f64 on the CPU, rounded to f32.
        pub scale_x: f32,
        pub scale_y: f32,
        /// (in - 1) / (out - 1), 0 when out is 1.
        pub corner_x: f32,
        pub corner_y: f32,
        /// out / in
        pub inv_x: f32,
        pub inv_y: f32,
        /// A part of a larger resize (`ResizeWindow`, images in tiles): the fields above are
        /// the whole image's; the part is part_width x part_height outputs from (out_x0,
        /// out_y0), and the source holds input columns in_x0.. and rows in_y0.. in rows of
        /// `stride` pixels. A whole resize: the part is the whole output, stride = in_width,
        /// origins 0.
        pub part_width: u32,
        pub part_height: u32,
        pub stride: u32,
        pub in_x0: u32,
        pub in_y0: u32,
        pub out_x0: u32,
        pub out_y0: u32,
    }
}

impl ResizeGeneralParams {
    fn new(r: &Resize, geo: &Geometry) -> Self {
        let ((w, h), (ow, oh)) = (geo.full_in, geo.full_out);
        // OpenCV runs INTER_AREA's box weights only when no side grows, else its area-bilinear on both axes
        let method = match r.method {
            ResizeMethod::Area if ow > w || oh > h => 5,
            m => m as u32,
        };
        let corner = |i: u32, o: u32| if o > 1 { (i - 1) as f64 / (o - 1) as f64 } else { 0.0 } as f32;
        Self {
            in_width: w,
            in_height: h,
            out_width: ow,
            out_height: oh,
            method,
            align: r.align_corners as u32,
            scale_x: (w as f64 / ow as f64) as f32,
            scale_y: (h as f64 / oh as f64) as f32,
            corner_x: corner(w, ow),
            corner_y: corner(h, oh),
            inv_x: (ow as f64 / w as f64) as f32,
            inv_y: (oh as f64 / h as f64) as f32,
            part_width: geo.out.w,
            part_height: geo.out.h,
            stride: geo.have.w,
            in_x0: geo.have.x,
            in_y0: geo.have.y,
            out_x0: geo.out.x,
            out_y0: geo.out.y,
            ..Default::default()
        }
    }
}

/// CPU twin of `axis_taps` in resize_general.wgsl: first tap, count and weights.
fn axis_taps(
    p: &ResizeGeneralParams,
    d: u32,
    n: u32,
    out: u32,
    scale: f32,
    corner: f32,
    inv: f32,
) -> (i32, usize, [f32; 6]) {
    let mut w = [0f32; 6];
    let df = d as f32;
    match p.method {
        0 => {
            w[0] = 1.0;
            let first = if p.align == 1 {
                ((df * corner + 0.5) as u32).min(n - 1)
            } else {
                (d * n / out).min(n - 1)
            };
            (first as i32, 1, w)
        }
        5 => {
            let mut sx = (df * scale).floor() as i32;
            let mut fx = (df + 1.0) - (sx + 1) as f32 * inv;
            fx = if fx <= 0.0 { 0.0 } else { fx - fx.floor() };
            if sx < 0 {
                fx = 0.0;
                sx = 0;
            }
            if sx >= n as i32 - 1 {
                fx = 0.0;
                sx = n as i32 - 1;
            }
            w[0] = 1.0 - fx;
            w[1] = fx;
            (sx, 2, w)
        }
        m => {
            let mut pos = if p.align == 1 {
                df * corner
            } else {
                (df + 0.5) * scale - 0.5
            };
            if m == 1 {
                pos = pos.clamp(0.0, (n - 1) as f32);
                let f = pos.floor();
                let x = pos - f;
                w[0] = 1.0 - x;
                w[1] = x;
                return (f as i32, 2, w);
            }
            let f = pos.floor();
            let x = pos - f;
            if m == 2 {
                let a = -0.75f32;
                w[0] = ((a * (x + 1.0) - 5.0 * a) * (x + 1.0) + 8.0 * a) * (x + 1.0) - 4.0 * a;
                w[1] = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
                w[2] = ((a + 2.0) * (1.0 - x) - (a + 3.0)) * (1.0 - x) * (1.0 - x) + 1.0;
                w[3] = 1.0 - w[0] - w[1] - w[2];
                return (f as i32 - 1, 4, w);
            }
            const PI: f32 = std::f32::consts::PI;
            const LSIN: [f32; 6] = [
                -0.866_025_4,
                -0.866_025_4,
                0.0,
                0.866_025_4,
                0.866_025_4,
                0.0,
            ];
            const LCOS: [f32; 6] = [-0.5, 0.5, 1.0, 0.5, -0.5, -1.0];
            let s1 = (PI * x).sin();
            let s3 = (PI * x / 3.0).sin();
            let c3 = (PI * x / 3.0).cos();
            let mut sum = 0.0;
            for k in 0..6 {
                let u = (k as i32 - 2) as f32 - x;
                let mut wk = 1.0;
                if u != 0.0 {
                    let sa = if k % 2 == 0 { -s1 } else { s1 };
                    let sb = LSIN[k] * c3 - LCOS[k] * s3;
                    wk = 3.0 * sa * sb / (PI * PI * u * u);
                }
                w[k] = wk;
                sum += wk;
            }
            for wk in &mut w {
                *wk /= sum;
            }
            (f as i32 - 2, 6, w)
        }
    }
}

/// CPU twin of `area_taps` / `area_weight`: (first, count, f1, f2, cell, s1, s2).
struct AreaTaps {
    first: i32,
    count: i32,
    f1: f32,
    f2: f32,
    cell: f32,
    s1: i32,
    s2: i32,
}

fn area_taps(d: u32, n: u32, scale: f32) -> AreaTaps {
    let f1 = d as f32 * scale;
    let f2 = f1 + scale;
    let cell = scale.min(n as f32 - f1);
    let s2 = (f2.floor() as i32).min(n as i32 - 1);
    let s1 = (f1.ceil() as i32).min(s2);
    let first = if s1 as f32 - f1 > 1e-3 { s1 - 1 } else { s1 };
    let last = if f2 - s2 as f32 > 1e-3 { s2 } else { s2 - 1 };
    AreaTaps {
        first,
        count: last - first + 1,
        f1,
        f2,
        cell,
        s1,
        s2,
    }
}

fn area_weight(a: &AreaTaps, i: i32) -> f32 {
    if i < a.s1 {
        (a.s1 as f32 - a.f1) / a.cell
    } else if i < a.s2 {
        1.0 / a.cell
    } else {
        (a.f2 - a.s2 as f32).min(1.0).min(a.cell) / a.cell
    }
}

/// CPU twin of resize_general.wgsl for output pixel (x, y) of the part.
fn general_pixel(src: &[u8], p: &ResizeGeneralParams, x: u32, y: u32) -> [u8; 4] {
    let (x, y) = (x + p.out_x0, y + p.out_y0);
    let texel = |x: i32, y: i32| {
        let cx = x.clamp(0, p.in_width as i32 - 1) as usize - p.in_x0 as usize;
        let cy = y.clamp(0, p.in_height as i32 - 1) as usize - p.in_y0 as usize;
        let i = (cy * p.stride as usize + cx) * 4;
        [
            src[i] as f32,
            src[i + 1] as f32,
            src[i + 2] as f32,
            src[i + 3] as f32,
        ]
    };
    let mut acc = [0f32; 4];
    if p.method == 4 {
        let ax = area_taps(x, p.in_width, p.scale_x);
        let ay = area_taps(y, p.in_height, p.scale_y);
        for j in 0..ay.count {
            let sy = ay.first + j;
            let mut row = [0f32; 4];
            for i in 0..ax.count {
                let sx = ax.first + i;
                let (t, wx) = (texel(sx, sy), area_weight(&ax, sx));
                for c in 0..4 {
                    row[c] += t[c] * wx;
                }
            }
            let wy = area_weight(&ay, sy);
            for c in 0..4 {
                acc[c] += row[c] * wy;
            }
        }
    } else {
        let (fx, nx, wx) = axis_taps(
            p,
            x,
            p.in_width,
            p.out_width,
            p.scale_x,
            p.corner_x,
            p.inv_x,
        );
        let (fy, ny, wy) = axis_taps(
            p,
            y,
            p.in_height,
            p.out_height,
            p.scale_y,
            p.corner_y,
            p.inv_y,
        );
        for (j, &wyj) in wy.iter().enumerate().take(ny) {
            let mut row = [0f32; 4];
            for (i, &wxi) in wx.iter().enumerate().take(nx) {
                let t = texel(fx + i as i32, fy + j as i32);
                for c in 0..4 {
                    row[c] += t[c] * wxi;
                }
            }
            for c in 0..4 {
                acc[c] += row[c] * wyj;
            }
        }
    }
    acc.map(|v| (v + 0.5).floor().clamp(0.0, 255.0) as u8)
}

impl Filter for Resize {
    fn footprint(&self, inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        let Some(d) = inputs.first().and_then(|d| d.image()) else {
            return crate::filters::registry::Footprint::WholeImage;
        };
        if self.window.is_some() {
            return crate::filters::registry::Footprint::WholeImage;
        }
        if self.general() {
            // area reads whole cells (any width); the others read at most 3 pixels beyond the centre
            return match (self.method, self.out_size(d.width, d.height)) {
                (ResizeMethod::Area, _) | (_, Err(_)) => {
                    crate::filters::registry::Footprint::WholeImage
                }
                (_, Ok((w, h))) => crate::filters::registry::Footprint::Resample {
                    scale: [d.width as f64 / w as f64, d.height as f64 / h as f64],
                    offset: [0.0, 0.0],
                    margin: 3,
                },
            };
        }
        match self.out_size(d.width, d.height) {
            // bilinear, OpenCV's INTER_LINEAR alignment: two taps around (x + 0.5) * s - 0.5
            Ok((w, h)) => crate::filters::registry::Footprint::Resample {
                scale: [d.width as f64 / w as f64, d.height as f64 / h as f64],
                offset: [0.0, 0.0],
                margin: 1,
            },
            Err(_) => crate::filters::registry::Footprint::WholeImage,
        }
    }
    fn window_input(&self, input: crate::ImageDesc, out: Rect) -> Option<Rect> {
        if self.window.is_some() {
            return None;
        }
        let (w, h) = (input.width, input.height);
        let (ow, oh) = self.whole_out_size(w, h).ok()?;
        if out.right() > ow || out.bottom() > oh {
            return None;
        }
        // the source columns an output range reads: every method's taps lie within 4 pixels of
        // d * in / out or d * (in - 1) / (out - 1) (align_corners), area's cells within 2 of
        // d * in / out, for d across the range (f32 rounding is far inside the margin)
        let axis = |d0: u32, d1: u32, n: u32, o: u32| -> (i64, i64) {
            let s = n as f64 / o as f64;
            let c = if self.align_corners && o > 1 {
                (n - 1) as f64 / (o - 1) as f64
            } else {
                s
            };
            let lo = (d0 as f64 * s).min(d0 as f64 * c).floor() as i64 - 4;
            let hi = (d1 as f64 * s).max(d1 as f64 * c).ceil() as i64 + 5;
            (lo, hi)
        };
        let (x0, x1) = axis(out.x, out.right(), w, ow);
        let (y0, y1) = axis(out.y, out.bottom(), h, oh);
        Some(Rect::span(x0, y0, x1, y1, (w, h)))
    }
    fn windowed(
        &self,
        input: crate::ImageDesc,
        have: Rect,
        out: Rect,
    ) -> Result<Vec<Box<dyn Filter>>> {
        crate::filters::registry::window_need(self, input, have, out)?;
        let full_out = self.whole_out_size(input.width, input.height)?;
        Ok(vec![Box::new(Resize {
            window: Some(Geometry {
                full_in: (input.width, input.height),
                full_out,
                have,
                out,
            }),
            ..self.clone()
        })])
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8])?;
        let (w, h) = self.out_size(d.width, d.height)?;
        Ok(vec![ValueDesc::Image(crate::ImageDesc::new(
            w,
            h,
            PixelFormat::Rgba8,
        ))])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        let geo = self.geometry(img.width(), img.height())?;
        let (ow, oh) = (geo.out.w, geo.out.h);
        let src = img.as_u8();
        let mut out = vec![0u8; ow as usize * oh as usize * 4];
        if self.general() {
            let g = ResizeGeneralParams::new(self, &geo);
            out.par_chunks_mut(ow as usize * 4)
                .enumerate()
                .for_each(|(y, row)| {
                    for (x, o) in row.chunks_exact_mut(4).enumerate() {
                        o.copy_from_slice(&general_pixel(src, &g, x as u32, y as u32));
                    }
                });
            return Ok(vec![Value::Image(Image::from_u8(
                ow,
                oh,
                PixelFormat::Rgba8,
                out,
            )?)]);
        }
        let p = ResizeParams::new(&geo);
        out.par_chunks_mut(ow as usize * 4)
            .enumerate()
            .for_each(|(y, row)| {
                for (x, o) in row.chunks_exact_mut(4).enumerate() {
                    o.copy_from_slice(&resize_pixel(src, &p, x as u32, y as u32));
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
        schedules::record(self, rec, inputs, outputs)
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
