//! Gaussian blur. Matches GPUImage's `GPUImageGaussianBlurFilter` (separable Gaussian,
//! clamp-to-edge sampling).
//!
//! The kernel radius is `ceil(3 * sigma)` taps on each side; weights are
//! `exp(-x^2 / (2 sigma^2))` normalised to sum 1, computed once in f32 on the CPU and handed
//! to the GPU in the uniform, so both sides multiply by identical weights. Horizontal pass
//! first, then vertical, in f32 with no intermediate rounding; the result is rounded half up
//! as `pack4x8unorm` does.
//!
//! GPU: up to sigma 5 (radius 15), on devices with f16, the direct filter in f16 arithmetic
//! (`gaussian_blur_half.wgsl`: each invocation walks one column with its vertical window in
//! registers, the horizontal pass reads a few rows buffered in workgroup memory), within one
//! level of the twin by a bound computed per sigma (`half_error_bound`); without f16 the same
//! shape in f32 up to radius 12, and a fused tiled kernel (tile + halo in workgroup memory;
//! per channel, horizontal pass into workgroup memory, vertical pass from it) where that shape
//! does not fit the device's workgroup memory (up to radius `MAX_FUSED_RADIUS`). Beyond, from
//! sigma ~5.1, the decimated schedule
//! (`gaussian_blur_decimate.wgsl`): the exact blur at the nodes of a grid `decimation_step`
//! pixels apart, cubic interpolation between them, with an error bound for any image
//! computed per sigma (`decimation_error_bound`) and kept below one level. Where no
//! spacing keeps the bound (radius 8..15), two passes through an Rgba32F temporary, each
//! making 8 consecutive outputs per invocation from a sliding window of inputs held in
//! registers (`gaussian_blur_window.wgsl`).
//!
//! RGBA16 input has one schedule of its own, chosen automatically (`blur16.wgsl`): the same
//! f32 sums in 16-bit units, two plain passes through a temporary; its twin `gaussian_cpu16`.
//! Gray8 input (GPUImage's `GPUImageSingleComponentGaussianBlurFilter`) has one too
//! (`blur_gray.wgsl`): one channel in and out, the same f32 sums; its twin is `blur_cpu`.

use rayon::prelude::*;

use crate::error::Result;
use crate::filters::registry::{
    expect_image, input_image, one_to_one, Family, Filter, FilterDef, EXACT_ENOUGH, IMAGE,
};
use crate::graph::params::{check_float, ParamDef};
use crate::image::{Image, ImageDesc, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Value, ValueDesc};

mod schedules;
pub use schedules::decimate::{
    cubic_weights, decimation_error_bound, decimation_step, DecimateOptions, NodeFormat, RowSource,
};
pub use schedules::half::{
    half_applies, half_error_bound, half_fits, HalfOptions, HALF_F32_MAX_RADIUS, MAX_HALF_RADIUS,
};
use schedules::MAX_FUSED_RADIUS;
pub use schedules::{blur16, blur_gray};
pub use schedules::{
    choose_tile, fused_source, window_source, FusedTile, PassAlone, Schedule, ScheduleContext,
};

/// Largest radius (`ceil(3 * 32)`), sizing the uniform's weight array.
pub const MAX_RADIUS: u32 = 96;
const MAX_TAPS: usize = 2 * MAX_RADIUS as usize + 1;
/// vec4s of weights in the uniform: the taps rounded up to a multiple of 8 (the two-pass
/// window reads whole blocks of 8 weights, the ones past the last tap being zero).
const WEIGHT_VECS: usize = MAX_TAPS.div_ceil(8) * 2;
/// Largest node spacing of the decimated schedule (sizing the uniform's cubic table).
pub const MAX_STEP: u32 = 16;
/// vec4s of polyphase weights in the uniform: `D * ceil(ceil(taps / D) / 4)` is at most
/// taps / 4 + 2 D <= 80 for taps <= 193 and D <= 16.
const POLY_VECS: usize = 80;

/// Gaussian blur with standard deviation `sigma` pixels.
#[derive(Clone, Debug)]
pub struct GaussianBlur {
    /// Standard deviation in pixels.
    pub sigma: f32,
    schedule: Option<Schedule>,
}

impl GaussianBlur {
    /// Fails when `sigma` is outside [0.1, 32].
    pub fn new(sigma: f32) -> Result<Self> {
        Ok(Self {
            sigma: check_float(&DEF, "sigma", sigma)?,
            schedule: None,
        })
    }
    /// Forces a GPU schedule (for tests and benchmarks). A fused tile that does not fit in
    /// the device's workgroup memory makes the run fail.
    #[doc(hidden)]
    pub fn with_schedule(mut self, schedule: Schedule) -> Self {
        self.schedule = Some(schedule);
        self
    }
    /// Taps on each side of the centre: `ceil(3 * sigma)`.
    pub fn radius(&self) -> u32 {
        radius(self.sigma)
    }
    /// The node spacing of the decimated schedule where it may run at this sigma (on any
    /// device), else `None`.
    pub fn decimation_grid(&self) -> Option<u32> {
        let r = self.radius();
        if r > MAX_FUSED_RADIUS {
            decimation_step(&self.weights())
        } else {
            None
        }
    }
    /// The `2 * radius + 1` normalised weights, left to right.
    pub fn weights(&self) -> Vec<f32> {
        weights(self.sigma)
    }
}

impl Default for GaussianBlur {
    fn default() -> Self {
        Self {
            sigma: 2.0,
            schedule: None,
        }
    }
}

fn radius(sigma: f32) -> u32 {
    ((3.0 * sigma).ceil() as u32).clamp(1, MAX_RADIUS)
}

fn weights(sigma: f32) -> Vec<f32> {
    let r = radius(sigma) as i32;
    let two_s2 = 2.0 * sigma * sigma;
    let raw: Vec<f32> = (-r..=r)
        .map(|x| (-((x * x) as f32) / two_s2).exp())
        .collect();
    let sum: f32 = raw.iter().sum();
    raw.iter().map(|v| v / sum).collect()
}

uniform_struct! {
    /// Uniform of `gaussian_blur.wgsl` and the kernels appended to it.
    pub struct GaussianBlurParams {
        pub width: u32,
        pub height: u32,
        pub radius: u32,
        /// Node columns and rows of the decimated schedule.
        pub nodes_x: u32,
        pub nodes_y: u32,
        /// Node columns per workgroup of the decimated row pass.
        pub seg_nodes: u32,
        /// Weight `k` for k in 0..=2*radius at `w[k / 4][k % 4]`: symmetric, summing to 1;
        /// zero past 2*radius (the two-pass window reads whole blocks of 8).
        pub w: [[f32; 4]; WEIGHT_VECS],
        /// Decimated schedule, node spacing `D`: weight `q * D + s` (zero past 2*radius) at
        /// `wp[s * QV + q / 4][q % 4]`, QV = ceil(ceil((2 * radius + 1) / D) / 4).
        pub wp: [[f32; 4]; POLY_VECS],
        /// Decimated schedule: the 4-point Lagrange cubic's weights at `t = p / D` for each
        /// phase `p < D`, for the nodes at t = -1, 0, 1, 2.
        pub cubic: [[f32; 4]; MAX_STEP as usize],
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "gaussian_blur",
    family: Family::Neighborhood,
    summary: "Gaussian blur (separable, replicate-edge borders).",
    doc: "Kernel radius ceil(3*sigma) on each side; weights exp(-x^2/(2 sigma^2)) normalised to sum 1, computed once in f32 and shared by GPU and CPU. \
          Horizontal pass then vertical pass in f32 without intermediate rounding; the result is rounded half up like pack4x8unorm. \
          Borders replicate the edge pixel; border=reflect reflects as OpenCV's default (BORDER_REFLECT_101, gfedcb|abcdefgh; \
          runs as pad, the blur, crop: two extra copies of the image). GPU: up to sigma 5, on devices with f16, the direct filter in f16 arithmetic (one kernel: \
          vertical pass in registers down each column, horizontal pass from rows buffered in workgroup memory); its error bound, computed \
          for the sigma at hand and valid for any image, stays below 0.9 level (0.62 at sigma 2), so the output stays within one level of \
          the twin's; without f16, the same kernel in f32 up to radius 12. From sigma ~5.1 the exact blur is \
          computed only at the nodes of a coarser grid (spacing 2 at sigma 5.1 up to 11 at sigma 32) and interpolated between them with \
          4-point cubics; the spacing is the largest whose error bound, computed for the sigma at hand and valid for any image, stays \
          below 0.8 level, so the output stays within one level of the twin's (documented tolerance; the twin stays the direct filter). \
          In between, two passes through an Rgba32F temporary, 8 outputs per invocation from a sliding window of inputs in registers. \
          Takes rgba8, gray8 and rgba16; rgba16 (16-bit PNG/TIFF) runs two plain f32 passes in 16-bit units, rounded to 16 bits; \
          gray8 (GPUImage's SingleComponentGaussianBlur) stays one channel, a quarter of the bytes: one kernel, rows blurred \
          into workgroup memory, then columns, four pixels per invocation.",
    gpuimage: "GPUImageGaussianBlurFilter",
    params: &[ParamDef::float("sigma", 2.0, 0.1, 32.0, "standard deviation in pixels (radius ceil(3*sigma))"), crate::filters::shape::border::BORDER_PARAM],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| crate::filters::shape::border::from_args(Box::new(GaussianBlur::new(a.f32("sigma")?)?), a),
    uniforms: &[blur16::UNIFORM, blur_gray::UNIFORM, GaussianBlurParams::layout(schedules::WGSL)],
    test_inputs: None,
    schedules: &["twopass", "twopass_packed", "decimate_packed", "decimate_unpacked", "decimate_unorm16", "decimate_f32", "decimate_rf", "decimate_cf_tr", "f32", "half_wg64_nf1_nb3", "half_f32", "half_cw"],
};

/// CPU twin: horizontal then vertical, f32, taps in order, replicate edges; RGBA8 or Gray8.
pub fn blur_cpu(img: &Image, w: &[f32]) -> Result<Image> {
    let out = separable_cpu(
        img.as_u8(),
        img.width() as usize,
        img.height() as usize,
        img.format().channels(),
        w,
        255.0,
        |v| v as u8,
    );
    Image::from_u8(img.width(), img.height(), img.format(), out)
}

/// The separable pass of the CPU twins at any sample depth: rows then columns of RGBA samples
/// in f32, taps in order, replicated edges, rounded half up into [0, `max`] by `store`; `n`
/// samples a pixel (4, or 1 for Gray8).
pub(crate) fn separable_cpu<T: Copy + Into<f32> + Send + Sync>(
    src: &[T],
    width: usize,
    height: usize,
    n: usize,
    w: &[f32],
    max: f32,
    store: impl Fn(f32) -> T + Sync,
) -> Vec<T> {
    let r = (w.len() / 2) as i64;
    let mut tmp = vec![0f32; width * height * n];
    tmp.par_chunks_mut(width * n)
        .enumerate()
        .for_each(|(y, row)| {
            let s = &src[y * width * n..(y + 1) * width * n];
            for x in 0..width {
                let mut acc = [0f32; 4];
                for (k, &wk) in w.iter().enumerate() {
                    let xx = (x as i64 - r + k as i64).clamp(0, width as i64 - 1) as usize;
                    for c in 0..n {
                        acc[c] += wk * s[xx * n + c].into();
                    }
                }
                row[x * n..x * n + n].copy_from_slice(&acc[..n]);
            }
        });
    let mut out = vec![store(0.0); width * height * n];
    out.par_chunks_mut(width * n)
        .enumerate()
        .for_each(|(y, row)| {
            for x in 0..width {
                let mut acc = [0f32; 4];
                for (k, &wk) in w.iter().enumerate() {
                    let yy = (y as i64 - r + k as i64).clamp(0, height as i64 - 1) as usize;
                    for c in 0..n {
                        acc[c] += wk * tmp[(yy * width + x) * n + c];
                    }
                }
                for c in 0..n {
                    row[x * n + c] = store(acc[c].clamp(0.0, max) + 0.5);
                }
            }
        });
    out
}

impl Filter for GaussianBlur {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        // the decimated schedule's cubic reaches two node spacings past the exact blur's nodes
        crate::filters::registry::Footprint::Radius(
            self.radius() + 2 * self.decimation_grid().unwrap_or(0),
        )
    }
    fn tile_alignment(&self) -> u32 {
        self.decimation_grid().unwrap_or(1)
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
            return Ok(vec![Value::Image(blur16::gaussian_cpu16(
                img,
                &self.weights(),
            )?)]);
        }
        Ok(vec![Value::Image(blur_cpu(img, &self.weights())?)])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        // the fields are public: values set past `new`'s checks are errors here, not overflows
        check_float(&DEF, "sigma", self.sigma)?;
        let (input, output, d) = one_to_one(&DEF, inputs, outputs)?;
        if d.format == PixelFormat::Rgba16 {
            return blur16::record_gaussian(rec, input, output, d, &self.weights());
        }
        if d.format == PixelFormat::Gray8 {
            return blur_gray::record_gaussian(rec, input, output, d, &self.weights());
        }
        schedules::record(self, rec, input, output, d)
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::schedules::{parse_tile, FUSED_WG};
    use super::*;
    #[test]
    fn weights_are_symmetric_and_normalised() {
        for sigma in [0.1f32, 0.5, 2.0, 7.3, 32.0] {
            let w = weights(sigma);
            assert_eq!(w.len(), 2 * radius(sigma) as usize + 1);
            assert!(w.len() <= MAX_TAPS);
            for k in 0..w.len() {
                assert_eq!(w[k], w[w.len() - 1 - k]);
            }
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
        assert_eq!(radius(2.0), 6);
        assert_eq!(radius(32.0), 96);
    }
    #[test]
    fn tile_choice_respects_the_memory_limit() {
        for r in 1..=MAX_RADIUS {
            for limit in [16384u64, 32768, 49152] {
                if let Some(t) = choose_tile(r, limit) {
                    assert!(t.bytes(r) <= limit);
                    assert_eq!(t.tw * t.th, FUSED_WG * t.kv);
                    assert_eq!(t.tw % t.kh, 0);
                }
            }
        }
        // small radii always fuse, even at WebGPU's minimum of 16 KiB
        for r in 1..=MAX_FUSED_RADIUS {
            assert!(choose_tile(r, 16384).is_some(), "r={r}");
        }
        assert!(choose_tile(MAX_FUSED_RADIUS + 1, 49152).is_none());
    }
    #[test]
    fn default_choice_by_sigma_and_device() {
        let h200 = |sigma| ScheduleContext::new(sigma, true, 49152);
        assert!(matches!(
            Schedule::choose(&h200(2.0)),
            Schedule::Half(HalfOptions { f32: None, .. })
        ));
        assert!(
            matches!(Schedule::choose(&h200(5.0)), Schedule::Half(_)),
            "radius 15, bound 0.928"
        );
        assert_eq!(
            Schedule::choose(&h200(8.0)),
            Schedule::Decimate(DecimateOptions::default())
        );
        // without f16: the f32 shape to radius 12, the decimated schedule past sigma 5.1
        let no_f16 = |sigma| ScheduleContext::new(sigma, false, 49152);
        assert!(matches!(
            Schedule::choose(&no_f16(2.0)),
            Schedule::Half(HalfOptions {
                f32: Some(true),
                ..
            })
        ));
        assert_eq!(
            Schedule::choose(&no_f16(8.0)),
            Schedule::Decimate(DecimateOptions::default())
        );
        // radius 15, neither f16 nor a node spacing: the two passes
        assert_eq!(Schedule::choose(&no_f16(5.0)), Schedule::TwoPass);
    }
    #[test]
    fn schedule_names_parse() {
        let ctx = ScheduleContext::new(2.0, true, 49152);
        for &name in DEF
            .schedules
            .iter()
            .chain(&["tile", "tile32x32h8v4", "decimate", "half_late"])
        {
            assert!(
                Schedule::parse(name, &ctx).is_ok_and(|(_, alone)| alone.is_none()),
                "{name}"
            );
        }
        assert_eq!(
            Schedule::parse("tile", &ctx).ok(),
            Some((Schedule::choose(&ctx), None))
        );
        assert_eq!(
            Schedule::parse("f32", &ctx).ok(),
            Some((
                Schedule::choose(&ScheduleContext { f16: false, ..ctx }),
                None
            ))
        );
        assert_eq!(
            Schedule::parse("twopass_packed", &ctx).ok(),
            Some((Schedule::TwoPassPacked, None))
        );
        // a decimated schedule where no spacing keeps its bound: the default
        assert_eq!(
            Schedule::parse("decimate_f32", &ctx).ok(),
            Some((Schedule::choose(&ctx), None))
        );
        let e = Schedule::parse("nope", &ctx).unwrap_err().to_string();
        assert!(
            e.contains("unknown schedule `nope`")
                && e.contains("twopass_packed")
                && e.contains("half[_<knob>]*"),
            "{e}"
        );
        // the one-pass ablations only in bench builds
        let ablation = Schedule::parse("twopass_h_only", &ctx);
        if cfg!(feature = "bench") {
            assert_eq!(
                ablation.ok(),
                Some((Schedule::TwoPass, Some(PassAlone::Rows)))
            );
        } else {
            assert!(ablation.is_err());
        }
    }
    #[test]
    fn tile_names_parse() {
        assert_eq!(
            parse_tile("tile32x64h8v8"),
            Some(FusedTile {
                tw: 32,
                th: 64,
                kh: 8,
                kv: 8
            })
        );
        assert_eq!(parse_tile("tile32x64h8"), None);
        assert_eq!(parse_tile("twopass"), None);
    }
    #[test]
    fn generated_bodies_parse_shape() {
        let t = FusedTile {
            tw: 16,
            th: 64,
            kh: 4,
            kv: 4,
        };
        let s = fused_source(3, t).unwrap();
        assert!(s.contains("const R: u32 = 3u;"));
        assert!(s.contains("a3 += gp.w[1].z * p9;"));
        assert!(!s.contains("var acc: array<f32, KH>"));
    }
}
