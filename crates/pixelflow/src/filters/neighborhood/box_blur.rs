//! Box blur: the mean over a `(2r+1) x (2r+1)` window. Matches GPUImage's
//! `GPUImageBoxBlurFilter` (a separable box, clamp-to-edge sampling).
//!
//! Exact integer arithmetic on both sides: the window sum of each channel is an integer and
//! the output is `round_half_up(sum / (2r+1)^2)`, so GPU and CPU agree bit for bit. The GPU
//! kernel's work per pixel does not depend on the radius (running column sums plus a prefix
//! sum per row: `box_blur.wgsl`, and `box_blur_subgroup.wgsl` on devices with subgroups).

use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::image::{Image, PixelFormat};
use crate::params::{check_int, ParamDef};
use crate::registry::{EXACT_ENOUGH, Family, Filter, FilterDef, IMAGE, UniformLayout, expect_image, input_image, one_to_one};
use crate::runtime::{GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

use super::specialize;

const WGSL: &str = include_str!("box_blur.wgsl");
/// `main_sg`, appended to `WGSL` on devices with subgroup operations.
const SUBGROUP_WGSL: &str = include_str!("box_blur_subgroup.wgsl");

/// Strip columns per workgroup (= invocations), fixed by the WGSL scan layout.
const NCOL: u32 = 256;
/// Workgroup memory per row of a round (`vb`, `pb`, `tb`, `gb` in the WGSL).
const BYTES_PER_ROUND_ROW: u64 = 256 * 8 + 256 * 16 + 64 * 16 + 8 * 16;

/// Mean over a `(2 * radius + 1)` square window.
#[derive(Clone, Debug)]
pub struct BoxBlur {
    pub radius: u32,
    schedule: Option<(u32, u32)>,
    subgroups: Option<bool>,
}

impl BoxBlur {
    /// Fails when `radius` is outside [0, 64].
    pub fn new(radius: u32) -> Result<Self> {
        Ok(Self { radius: check_int(&DEF, "radius", radius)?, schedule: None, subgroups: None })
    }
    /// Forces the GPU schedule (for tests and benchmarks): rows per round of barriers
    /// (1, 2 or 4) and output rows per workgroup (a multiple of it).
    #[doc(hidden)]
    pub fn with_schedule(mut self, rows_per_round: u32, strip_h: u32) -> Self {
        self.schedule = Some((rows_per_round, strip_h));
        self
    }
    /// Forces the subgroup-scan kernel on or off (for tests and benchmarks); on is an error
    /// on devices without subgroup operations.
    #[doc(hidden)]
    pub fn with_subgroups(mut self, on: bool) -> Self {
        self.subgroups = Some(on);
        self
    }
}

impl Default for BoxBlur {
    fn default() -> Self {
        Self { radius: 4, schedule: None, subgroups: None }
    }
}

/// Uniform; mirrors `BoxBlurParams` in `box_blur.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct BoxBlurParams {
    pub width: u32,
    pub height: u32,
    pub radius: u32,
    pub tile_w: u32,
    pub strip_h: u32,
    pub two_n: u32,
    pub inv_two_n: f32,
    pub _pad: u32,
}

pub static DEF: FilterDef = FilterDef {
    name: "box_blur",
    family: Family::Neighborhood,
    summary: "Mean over a (2r+1)x(2r+1) square (replicate-edge borders, exact integer rounding).",
    doc: "Exact: each channel's window sum is an integer and the output is round_half_up(sum / (2r+1)^2), identical on GPU and CPU. \
          Borders replicate the edge pixel. GPU cost per pixel is independent of the radius: one kernel walks down strips of 256 columns keeping \
          running column sums in registers, and takes each row's horizontal window sums as differences of a prefix sum over the strip \
          (a subgroup scan where the device has subgroup operations, a workgroup-memory scan otherwise).",
    gpuimage: "GPUImageBoxBlurFilter",
    params: &[ParamDef::int("radius", 4, 0, 64, "window radius in pixels (window side 2*radius+1)")],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(BoxBlur::new(a.u32("radius")?)?)),
    uniforms: &[UniformLayout { wgsl: WGSL, wgsl_struct: "BoxBlurParams", rust_size: std::mem::size_of::<BoxBlurParams>() }],
    test_inputs: None,
    schedules: &[],
};

/// Rows per round of barriers of the scan kernel that fit in `limit` bytes of workgroup
/// memory. Two measured best on H200 (more rows per round cost occupancy, see
/// `SM_WORKGROUP_MEMORY` in gaussian_blur.rs). Schedule choice.
fn rows_per_round(limit: u64) -> u32 {
    [2u32, 1].into_iter().find(|&ch| ch as u64 * BYTES_PER_ROUND_ROW <= limit).unwrap_or(1)
}

/// Output rows per workgroup of the scan kernel. Schedule choice (measured on H200).
fn strip_height(_r: u32, ch: u32) -> u32 {
    32u32.div_ceil(ch) * ch
}

/// Output rows per workgroup of the subgroup kernel (one row per round): short strips give
/// more workgroups; for large radii taller strips amortise the initial 2r+1 rows of each
/// column sum. Schedule choice (measured on H200: radius 1-15 best at 16, 64 at 64).
fn strip_height_subgroups(r: u32) -> u32 {
    match r {
        0..=16 => 16,
        17..=32 => 32,
        _ => 64,
    }
}

/// CPU twin: exact integer window sums (running sums along rows, then down columns).
pub fn box_cpu(img: &Image, r: u32) -> Result<Image> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let src = img.as_u8();
    let ri = r as i64;
    let cx = |x: i64| x.clamp(0, w as i64 - 1) as usize;
    let cy = |y: i64| y.clamp(0, h as i64 - 1) as usize;
    // horizontal window sums
    let mut hs = vec![0u32; w * h * 4];
    hs.par_chunks_mut(w * 4).enumerate().for_each(|(y, row)| {
        let s = &src[y * w * 4..(y + 1) * w * 4];
        let mut acc = [0u32; 4];
        for k in -ri..=ri {
            for c in 0..4 {
                acc[c] += s[cx(k) * 4 + c] as u32;
            }
        }
        for x in 0..w {
            row[x * 4..x * 4 + 4].copy_from_slice(&acc);
            let (enter, leave) = (cx(x as i64 + ri + 1), cx(x as i64 - ri));
            for c in 0..4 {
                acc[c] = acc[c] + s[enter * 4 + c] as u32 - s[leave * 4 + c] as u32;
            }
        }
    });
    // vertical window sums of those, and the rounded mean
    let n = (2 * r + 1) * (2 * r + 1);
    let mut out = vec![0u8; w * h * 4];
    let mut acc = vec![0u32; w * 4];
    for j in -ri..=ri {
        let row = &hs[cy(j) * w * 4..][..w * 4];
        acc.iter_mut().zip(row).for_each(|(a, v)| *a += v);
    }
    for (y, orow) in out.chunks_exact_mut(w * 4).enumerate() {
        for (o, &sum) in orow.iter_mut().zip(&acc) {
            *o = ((2 * sum + n) / (2 * n)).min(255) as u8;
        }
        let enter = &hs[cy(y as i64 + ri + 1) * w * 4..][..w * 4];
        let leave = &hs[cy(y as i64 - ri) * w * 4..][..w * 4];
        for ((a, e), l) in acc.iter_mut().zip(enter).zip(leave) {
            *a = *a + e - l;
        }
    }
    Image::from_u8(img.width(), img.height(), PixelFormat::Rgba8, out)
}

impl Filter for BoxBlur {
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8])?;
        Ok(vec![ValueDesc::Image(d)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        Ok(vec![Value::Image(box_cpu(img, self.radius)?)])
    }
    fn record_gpu(&self, rec: &mut NodeRecorder<'_>, inputs: &[GpuSlot], outputs: &[GpuSlot]) -> Result<()> {
        let (input, output, d) = one_to_one(&DEF, inputs, outputs)?;
        let r = self.radius;
        let limit = rec.gpu().limits.max_compute_workgroup_storage_size as u64;
        let has_subgroups = rec.gpu().has_subgroups();
        let subgroups = match self.subgroups {
            Some(true) if !has_subgroups => return Err(Error::Graph("box_blur: this device has no subgroup operations".into())),
            Some(on) => on,
            None => has_subgroups,
        };
        let (ch, strip_h) = match self.schedule {
            Some((ch, sh)) => {
                if ![1, 2, 4].contains(&ch) || sh == 0 || sh % ch != 0 || ch as u64 * BYTES_PER_ROUND_ROW > limit {
                    return Err(Error::Graph(format!("box_blur: invalid schedule ({ch} rows per round, strips of {sh})")));
                }
                (ch, sh)
            }
            None if subgroups => (1, strip_height_subgroups(r)),
            None => {
                let ch = rows_per_round(limit);
                (ch, strip_height(r, ch))
            }
        };
        let tile_w = NCOL - 2 * r;
        let two_n = 2 * (2 * r + 1) * (2 * r + 1);
        let params = BoxBlurParams { width: d.width, height: d.height, radius: r, tile_w, strip_h, two_n, inv_two_n: 1.0 / two_n as f32, _pad: 0 };
        let specialized = specialize(WGSL, &[("CH", ch)])?;
        let (kernel, source) = if subgroups {
            (Kernel::new(&format!("box_blur.sg.ch{ch}"), &[], "main_sg"), format!("{specialized}\n{SUBGROUP_WGSL}"))
        } else {
            (Kernel::new(&format!("box_blur.ch{ch}"), &[], "main"), specialized)
        };
        let mut kernel = kernel;
        kernel.generated = Some(source);
        rec.dispatch(&kernel, &[&input.buffer, &output.buffer], bytemuck::bytes_of(&params), [d.width.div_ceil(tile_w), d.height.div_ceil(strip_h), 1])
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn memory_and_strips() {
        assert_eq!(rows_per_round(16384), 2);
        assert_eq!(rows_per_round(8192), 1);
        for r in 0..=64 {
            for ch in [1, 2, 4] {
                let s = strip_height(r, ch);
                assert!(s % ch == 0 && s >= 32);
            }
            assert!(strip_height_subgroups(r) >= 16);
        }
    }
    #[test]
    fn cpu_constant_stays_constant_and_radius_zero_is_identity() {
        let img = Image::from_u8(5, 3, PixelFormat::Rgba8, (0..60).map(|i| (i * 37 % 256) as u8).collect()).unwrap();
        assert_eq!(box_cpu(&img, 0).unwrap(), img);
        let c = Image::from_u8(4, 4, PixelFormat::Rgba8, vec![77; 64]).unwrap();
        assert_eq!(box_cpu(&c, 3).unwrap(), c);
    }
}
