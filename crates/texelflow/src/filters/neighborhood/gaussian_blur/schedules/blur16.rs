//! The 16-bit (RGBA16) schedules of `gaussian_blur` and `box_blur`, chosen whenever the input
//! is RGBA16: two plain separable passes through a temporary of 16 bytes per pixel
//! (`blur16.wgsl`), and their CPU twins. The 8-bit schedules stay as they are.

use bytemuck::Zeroable;
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::filters::registry::UniformLayout;
use crate::image::{Image, ImageDesc, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};

const WGSL: &str = include_str!("blur16.wgsl");
/// vec4s of Gaussian weights in the uniform: room for the largest kernel (193 taps).
const WEIGHT_VECS: usize = 50;

uniform_struct! {
    /// Uniform of `blur16.wgsl`.
    pub struct Blur16Params {
        pub width: u32,
        pub height: u32,
        pub radius: u32,
        /// Gaussian: weights[k] for k in 0..=2*radius at `w[k / 4][k % 4]`, summing to 1.
        pub w: [[f32; 4]; WEIGHT_VECS],
    }
}

/// For the uniform layout test (registered by `gaussian_blur`).
pub const UNIFORM: UniformLayout = Blur16Params::layout(WGSL);

/// The two passes `{kind}16_h` and `{kind}16_v` (`kind`: "gauss" or "box") over an RGBA16 image.
fn record(
    rec: &mut NodeRecorder<'_>,
    input: &GpuSlot,
    output: &GpuSlot,
    d: ImageDesc,
    params: &Blur16Params,
    rows: &'static str,
    columns: &'static str,
) -> Result<()> {
    let tmp_bytes = PixelFormat::Rgba32F.gpu_bytes(d.width, d.height);
    let limit = rec.gpu().max_binding();
    if tmp_bytes > limit {
        return Err(Error::TooLarge {
            width: d.width,
            height: d.height,
            bytes: tmp_bytes,
            limit,
        });
    }
    let tmp = rec.temp(tmp_bytes);
    let uniform = bytemuck::bytes_of(params);
    let groups = groups_2d(d.width, d.height, 64, 4);
    rec.dispatch(
        &Kernel::new("blur16", &[Blur16Params::WGSL, WGSL], rows),
        &[&input.buffer, &tmp],
        uniform,
        groups,
    )?;
    rec.dispatch(
        &Kernel::new("blur16", &[Blur16Params::WGSL, WGSL], columns),
        &[&tmp, &output.buffer],
        uniform,
        groups,
    )
}

/// Gaussian blur of an RGBA16 image with the `2 * radius + 1` weights `w`.
pub fn record_gaussian(
    rec: &mut NodeRecorder<'_>,
    input: &GpuSlot,
    output: &GpuSlot,
    d: ImageDesc,
    w: &[f32],
) -> Result<()> {
    if w.len() > WEIGHT_VECS * 4 || w.len().is_multiple_of(2) {
        return Err(Error::schedule_unsupported(
            "gaussian_blur",
            format!("{} weights do not make a 16-bit kernel", w.len()),
        ));
    }
    let mut p = Blur16Params::zeroed();
    (p.width, p.height, p.radius) = (d.width, d.height, (w.len() / 2) as u32);
    for (k, wk) in w.iter().enumerate() {
        p.w[k / 4][k % 4] = *wk;
    }
    record(rec, input, output, d, &p, "gauss16_h", "gauss16_v")
}

/// Box blur of radius `r` of an RGBA16 image.
pub fn record_box(
    rec: &mut NodeRecorder<'_>,
    input: &GpuSlot,
    output: &GpuSlot,
    d: ImageDesc,
    r: u32,
) -> Result<()> {
    // the column sums stay below 2^31 up to radius 64 (129^2 * 65535)
    if r > 64 {
        return Err(Error::schedule_unsupported(
            "box_blur",
            format!("radius {r} is above the 16-bit kernel's 64"),
        ));
    }
    let mut p = Blur16Params::zeroed();
    (p.width, p.height, p.radius) = (d.width, d.height, r);
    record(rec, input, output, d, &p, "box16_h", "box16_v")
}

/// CPU twin of the 16-bit Gaussian: rows then columns in f32, taps in order, replicated
/// edges, rounded half up.
pub fn gaussian_cpu16(img: &Image, w: &[f32]) -> Result<Image> {
    let (width, height) = (img.width() as usize, img.height() as usize);
    let src = img.as_u16();
    if src.len() != width * height * 4 {
        return Err(Error::schedule_unsupported(
            "gaussian_blur",
            "the 16-bit twin needs an rgba16 image",
        ));
    }
    let out = super::separable_cpu(src, width, height, 4, w, 65535.0, |v| v as u16);
    Image::from_u16(img.width(), img.height(), out)
}

/// CPU twin of the 16-bit box blur: exact integer window sums, the mean rounded half up.
pub fn box_cpu16(img: &Image, r: u32) -> Result<Image> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let src = img.as_u16();
    if src.len() != w * h * 4 {
        return Err(Error::schedule_unsupported(
            "box_blur",
            "the 16-bit twin needs an rgba16 image",
        ));
    }
    let ri = r as i64;
    let cx = |x: i64| x.clamp(0, w as i64 - 1) as usize;
    let cy = |y: i64| y.clamp(0, h as i64 - 1) as usize;
    let mut rows = vec![0u64; w * h * 4];
    rows.par_chunks_mut(w * 4).enumerate().for_each(|(y, row)| {
        let s = &src[y * w * 4..(y + 1) * w * 4];
        for x in 0..w {
            for k in -ri..=ri {
                for c in 0..4 {
                    row[x * 4 + c] += s[cx(x as i64 + k) * 4 + c] as u64;
                }
            }
        }
    });
    let n = ((2 * r + 1) * (2 * r + 1)) as u64;
    let mut out = vec![0u16; w * h * 4];
    out.par_chunks_mut(w * 4).enumerate().for_each(|(y, orow)| {
        for x in 0..w {
            for c in 0..4 {
                let sum: u64 = (-ri..=ri)
                    .map(|k| rows[(cy(y as i64 + k) * w + x) * 4 + c])
                    .sum();
                orow[x * 4 + c] = ((2 * sum + n) / (2 * n)).min(65535) as u16;
            }
        }
    });
    Image::from_u16(img.width(), img.height(), out)
}
