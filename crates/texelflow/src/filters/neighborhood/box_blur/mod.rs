//! Box blur: the mean over a `(2r+1) x (2r+1)` window. Matches GPUImage's
//! `GPUImageBoxBlurFilter` (a separable box, clamp-to-edge sampling).
//!
//! Exact integer arithmetic on both sides: the window sum of each channel is an integer and
//! the output is `round_half_up(sum / (2r+1)^2)`, so GPU and CPU agree bit for bit. The GPU
//! kernel's work per pixel does not depend on the radius (running column sums plus a prefix
//! sum per row: `box_blur.wgsl`, and `box_blur_subgroup.wgsl` on devices with subgroups).
//!
//! GPU schedule variants (`runtime::schedule`, key `box_blur`; the default is
//! `sweep_short_loops` below radius 11 and `blocks_lb2` from it, `strip` without subgroups):
//! - `strip`: the kernel above (one invocation per strip column, 4-byte loads and stores);
//! - `sweep`, `sweep_short`, `sweep_tall`, `sweep64`: `box_blur_sweep.wgsl`, four columns per invocation with
//!   16-byte loads and stores, a subgroup scan per row, the next rows' loads in flight, and an
//!   exact float division. They differ in strip shape (see [`SweepShape`]); each needs
//!   subgroup operations.
//! - `blocks`, `blocks_short`, `blocks192`, `blocks_lb2`: the sweep walk primed from 8-row block
//!   column sums (`box_blur_blocksum.wgsl` first, then `box_blur_blocks.wgsl`), so priming costs
//!   ~(2r+1)/8 32-byte loads and at most 14 rows instead of 2r+1 rows and strips stay 16 (8)
//!   rows at every radius; `blocks192` has 768-column strips, `blocks_lb2` loads 2 rows ahead.
//! - Every sweep and blocks name has its loops marked `// @unroll` unrolled (literal array
//!   indices, see `super::unroll`); `_loops` after a name keeps them loops.
//!   Bench-only ablations (wrong images, not in `DEF.schedules`): `blocks_ablate_walk`,
//!   `blocks_ablate_nobarrier`, `blocks_ablate_noprime` (see `ABL` in the WGSL).

use rayon::prelude::*;

use crate::error::Result;
use crate::filters::registry::{
    expect_image, input_image, one_to_one, Family, Filter, FilterDef, EXACT_ENOUGH, IMAGE,
};
use crate::graph::params::{check_int, ParamDef};
use crate::image::{Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Value, ValueDesc};

mod schedules;
pub use schedules::{BoxSchedule, SweepShape};

/// Mean over a `(2 * radius + 1)` square window.
#[derive(Clone, Debug)]
pub struct BoxBlur {
    /// Window radius in pixels.
    pub radius: u32,
    schedule: Option<(u32, u32)>,
    subgroups: Option<bool>,
}

impl BoxBlur {
    /// Fails when `radius` is outside [0, 64].
    pub fn new(radius: u32) -> Result<Self> {
        Ok(Self {
            radius: check_int(&DEF, "radius", radius)?,
            schedule: None,
            subgroups: None,
        })
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
        Self {
            radius: 4,
            schedule: None,
            subgroups: None,
        }
    }
}

uniform_struct! {
    /// Uniform of `box_blur.wgsl`.
    pub struct BoxBlurParams {
        pub width: u32,
        pub height: u32,
        pub radius: u32,
        /// Output columns per workgroup: NCOL - 2 * radius.
        pub tile_w: u32,
        /// Output rows per workgroup (a multiple of CH).
        pub strip_h: u32,
        /// 2 * (2r+1)^2
        pub two_n: u32,
        /// 1 / two_n, a first guess corrected exactly in div_round.
        pub inv_two_n: f32,
    }
}

uniform_struct! {
    /// Uniform of the sweep kernels (`box_blur_sweep.wgsl`, `box_blur_blocksum.wgsl`).
    pub struct BoxSweepParams {
        pub width: u32,
        pub height: u32,
        pub radius: u32,
        /// Radius rounded up to a multiple of 4 (halo columns per side).
        pub r4: u32,
        /// Output columns per workgroup: SW - 2 * r4.
        pub tile_w: u32,
        /// Output rows per workgroup (a multiple of LB).
        pub strip_h: u32,
        /// width / 4 (16-byte groups per row; used when VEC == 1).
        pub width4: u32,
        /// 1 / (2r+1)^2, correctly rounded.
        pub inv_n: f32,
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "box_blur",
    family: Family::Neighborhood,
    summary: "Mean over a (2r+1)x(2r+1) square (replicate-edge borders, exact integer rounding).",
    doc: "Exact: each channel's window sum is an integer and the output is round_half_up(sum / (2r+1)^2), identical on GPU and CPU. \
          Borders replicate the edge pixel; border=reflect reflects as OpenCV's default (BORDER_REFLECT_101; runs as pad, \
          the blur, crop: two extra copies of the image). GPU cost per pixel is independent of the radius: one kernel walks down strips of columns keeping \
          running column sums in registers, and takes each row's horizontal window sums as differences of a prefix sum over the strip. \
          With subgroup operations (the default): 4 columns per invocation, 16-byte loads and stores, a subgroup scan, and from radius 11 \
          the column sums primed from 8-row block sums; \
          otherwise (`strip`): one column per invocation and a workgroup-memory scan. \
          Takes rgba8, gray8 and rgba16; rgba16 (16-bit PNG/TIFF) runs two plain passes of exact integer sums, still identical to the CPU; \
          gray8 stays one channel (a quarter of the bytes): one kernel, row sums into workgroup memory, then column sums.",
    gpuimage: "GPUImageBoxBlurFilter",
    params: &[ParamDef::int("radius", 4, 0, 64, "window radius in pixels (window side 2*radius+1)"), crate::filters::shape::border::BORDER_PARAM],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| crate::filters::shape::border::from_args(Box::new(BoxBlur::new(a.u32("radius")?)?), a),
    uniforms: &[
        BoxBlurParams::layout(schedules::WGSL),
        BoxSweepParams::layout(schedules::SWEEP_WGSL),
        BoxSweepParams::layout(schedules::BLOCKSUM_WGSL),
    ],
    test_inputs: None,
    schedules: &["strip", "sweep", "sweep_short", "sweep_tall", "sweep64", "blocks", "blocks_short", "blocks192", "blocks_lb2", "sweep_short_loops", "blocks_lb2_loops"],
};

/// CPU twin: exact integer window sums (running sums along rows, then down columns); RGBA8 or Gray8.
pub fn box_cpu(img: &Image, r: u32) -> Result<Image> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let src = img.as_u8();
    let n4 = img.format().channels();
    let ri = r as i64;
    let cx = |x: i64| x.clamp(0, w as i64 - 1) as usize;
    let cy = |y: i64| y.clamp(0, h as i64 - 1) as usize;
    // horizontal window sums
    let mut hs = vec![0u32; w * h * n4];
    hs.par_chunks_mut(w * n4).enumerate().for_each(|(y, row)| {
        let s = &src[y * w * n4..(y + 1) * w * n4];
        let mut acc = [0u32; 4];
        for k in -ri..=ri {
            for c in 0..n4 {
                acc[c] += s[cx(k) * n4 + c] as u32;
            }
        }
        for x in 0..w {
            row[x * n4..x * n4 + n4].copy_from_slice(&acc[..n4]);
            let (enter, leave) = (cx(x as i64 + ri + 1), cx(x as i64 - ri));
            for c in 0..n4 {
                acc[c] = acc[c] + s[enter * n4 + c] as u32 - s[leave * n4 + c] as u32;
            }
        }
    });
    // vertical window sums of those, and the rounded mean
    let n = (2 * r + 1) * (2 * r + 1);
    let mut out = vec![0u8; w * h * n4];
    let mut acc = vec![0u32; w * n4];
    for j in -ri..=ri {
        let row = &hs[cy(j) * w * n4..][..w * n4];
        acc.iter_mut().zip(row).for_each(|(a, v)| *a += v);
    }
    for (y, orow) in out.chunks_exact_mut(w * n4).enumerate() {
        for (o, &sum) in orow.iter_mut().zip(&acc) {
            *o = ((2 * sum + n) / (2 * n)).min(255) as u8;
        }
        let enter = &hs[cy(y as i64 + ri + 1) * w * n4..][..w * n4];
        let leave = &hs[cy(y as i64 - ri) * w * n4..][..w * n4];
        for ((a, e), l) in acc.iter_mut().zip(enter).zip(leave) {
            *a = *a + e - l;
        }
    }
    Image::from_u8(img.width(), img.height(), img.format(), out)
}

impl Filter for BoxBlur {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::Radius(self.radius)
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(
            &DEF,
            inputs,
            0,
            &[PixelFormat::Rgba8, PixelFormat::Gray8, PixelFormat::Rgba16],
        )?;
        Ok(vec![ValueDesc::Image(d)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        if img.format() == PixelFormat::Rgba16 {
            return Ok(vec![Value::Image(super::gaussian_blur::blur16::box_cpu16(
                img,
                self.radius,
            )?)]);
        }
        Ok(vec![Value::Image(box_cpu(img, self.radius)?)])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        // the fields are public: values set past `new`'s checks are errors here, not overflows
        check_int(&DEF, "radius", self.radius)?;
        // RGBA16 has one schedule of its own (exact integer sums, `blur16.wgsl`)
        let (input, output, d) = one_to_one(&DEF, inputs, outputs)?;
        if d.format == PixelFormat::Rgba16 {
            return super::gaussian_blur::blur16::record_box(rec, input, output, d, self.radius);
        }
        // Gray8 too (`blur_gray.wgsl`: one channel, exact integer sums)
        if d.format == PixelFormat::Gray8 {
            return super::gaussian_blur::blur_gray::record_box(rec, input, output, d, self.radius);
        }
        schedules::record(self, rec, inputs, outputs)
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::schedules::{rows_per_round, strip_height, strip_height_subgroups};
    use super::*;
    #[test]
    fn memory_and_strips() {
        assert_eq!(rows_per_round(16384), 2);
        assert_eq!(rows_per_round(8192), 1);
        for r in 0..=64 {
            for ch in [1, 2, 4] {
                let s = strip_height(r, ch);
                assert!(s.is_multiple_of(ch) && s >= 32);
            }
            assert!(strip_height_subgroups(r) >= 16);
        }
    }
    /// The sweep kernel's division (box_blur_sweep.wgsl, `div_round`) emulated in f32, fused
    /// and unfused (the GPU compiler may contract the multiply-add or not), against the CPU
    /// twin's integer rounding for every reachable sum at every radius.
    #[test]
    fn float_division_is_exact() {
        for r in 0u32..=64 {
            let n = (2 * r + 1) * (2 * r + 1);
            let inv = 1.0f32 / n as f32;
            for s in 0..=255 * n {
                let want = (2 * s + n) / (2 * n);
                let sf = f32::from_bits(s | 0x4B00_0000) - 8388608.0;
                assert_eq!(sf, s as f32);
                let fused = sf.mul_add(inv, 8388608.0).to_bits() & 0xFF;
                let unfused = ((sf * inv) + 8388608.0).to_bits() & 0xFF;
                assert_eq!((fused, unfused), (want, want), "radius {r} sum {s}");
            }
        }
    }
    #[test]
    fn sweep_shapes_fit_every_radius() {
        for v in ["sweep", "sweep_short", "sweep_tall", "sweep64"] {
            let s = SweepShape::named(v).unwrap();
            assert_eq!(s.lb % s.ch, 0);
            for r in 0..=64u32 {
                assert!(4 * s.nt > 2 * r.div_ceil(4) * 4, "{v} radius {r}");
                assert!(s.strip_height(r) > 0);
            }
        }
        for v in ["blocks", "blocks_short", "blocks192", "blocks_lb2"] {
            let (s, blk) = SweepShape::blocks(v).unwrap();
            assert!(s.lb % s.ch == 0 && blk > 0 && s.strip_height(64) % s.lb == 0);
        }
        assert!(SweepShape::named("nope").is_none() && SweepShape::blocks("sweep").is_none());
    }
    #[test]
    fn cpu_constant_stays_constant_and_radius_zero_is_identity() {
        let img = Image::from_u8(
            5,
            3,
            PixelFormat::Rgba8,
            (0..60).map(|i| (i * 37 % 256) as u8).collect(),
        )
        .unwrap();
        assert_eq!(box_cpu(&img, 0).unwrap(), img);
        let c = Image::from_u8(4, 4, PixelFormat::Rgba8, vec![77; 64]).unwrap();
        assert_eq!(box_cpu(&c, 3).unwrap(), c);
    }
}
