//! Poisson (gradient-domain) blend, after GPUImage's `GPUImagePoissonBlendFilter`: repeated
//! Jacobi-style passes move the first image, inside the second image's alpha, toward the
//! solution of the Poisson equation whose guidance field is the second image's Laplacian,
//! the first image being the boundary. Not a per-pixel op (each pass reads the previous
//! pass's neighbours), so it has its own kernels: poisson_blend.wgsl (shared) and
//! poisson_blend_{init,step,pack}.wgsl.
//!
//! GPUImage's per-pass formula (its fragment shader), with `c` the current image, `t` the
//! second image and `mean4` the mean of the four edge neighbours (clamped at the borders):
//! `next.rgb = mix(c.rgb, mean4(c) + (t.rgb - mean4(t)), t.a * mix)`, `next.a = c.a`.
//! Differences from GPUImage, on purpose: the iterate stays f32 between passes (GPUImage
//! stores 8 bits per pass) and is rounded once at the end; `iterations=0` returns the base
//! image (GPUImage always runs its first pass, so its 0 and 1 are both one pass); GPUImage's
//! `init` sets mix to 0.5, its documentation (and ours) says 1.0 is the normal level.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_image, input_image, slot_image, Family, Filter, FilterDef, Footprint, Tolerance,
    TWO_IMAGES,
};
use crate::graph::params::{ParamDef, FIT_DOC, FIT_OPTIONS};
use crate::image::{unorm8, Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

const COMMON: &str = include_str!("poisson_blend.wgsl");
const INIT: &str = include_str!("poisson_blend_init.wgsl");
const STEP: &str = include_str!("poisson_blend_step.wgsl");
const PACK: &str = include_str!("poisson_blend_pack.wgsl");
/// Invocations per workgroup, one pixel each; mirrors `@workgroup_size` in the kernels.
const WG: u32 = 256;
/// With a tolerance, the largest change is measured on every CHECK_EVERY-th iteration only
/// (a workgroup reduction and a global atomic per workgroup cost more than the step itself).
pub const CHECK_EVERY: u32 = 8;
/// Most iterations: one dispatch each, all recorded into one submission.
pub const MAX_ITERATIONS: u32 = 10_000;
/// `check_slot` / `prev_slot`: none.
const NONE: u32 = u32::MAX;

/// Poisson blend of the `with` image into the input.
#[derive(Clone, Debug)]
pub struct PoissonBlend {
    /// Weight of the new value per pass, times the second image's alpha.
    pub mix: f32,
    /// Passes (GPUImage's numIterations).
    pub iterations: u32,
    /// Stop once a checked iteration changes no sample by this much or more (0: never).
    pub tolerance: f32,
}

impl PoissonBlend {
    /// Fails on parameters out of their declared ranges.
    pub fn new(mix: f32, iterations: u32, tolerance: f32) -> Result<Self> {
        crate::graph::params::check_float(&DEF, "mix", mix)?;
        crate::graph::params::check_int(&DEF, "iterations", iterations)?;
        crate::graph::params::check_float(&DEF, "tolerance", tolerance)?;
        Ok(Self {
            mix,
            iterations,
            tolerance,
        })
    }
}

uniform_struct! {
    /// Uniform of the Poisson kernels (poisson_blend.wgsl and its passes).
    pub struct PoissonParams {
        pub width: u32,
        pub height: u32,
        /// width * height
        pub count: u32,
        /// This step's iteration, 1-based (pack: the iterations requested).
        pub iter: u32,
        /// Status word this step adds its largest change to; NONE: no check.
        pub check_slot: u32,
        /// Status word of the previous iteration's check; NONE: none.
        pub prev_slot: u32,
        /// Stop when a checked iteration's largest change is below this.
        pub tol: f32,
        pub mix: f32,
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "poisson_blend",
    family: Family::Blend,
    gpuimage: "GPUImagePoissonBlendFilter",
    summary: "Gradient-domain (Poisson) blend of the second image into the first, where its alpha is set.",
    doc: "Iterative, as GPUImage: each pass replaces every pixel by mix(current, mean of its 4 neighbours + \
(second image - mean of the second image's 4 neighbours), second alpha * mix), borders replicated, the input's \
alpha kept; the second image's alpha is the mask, the input outside it the boundary. More iterations move the \
result closer to the Poisson solution (slowly: Jacobi passes, about the mask's width squared to converge). \
Computed in f32 throughout, rounded once at the end; iterations=0 returns the input. tolerance > 0 stops early \
once the largest change of a sample in one iteration (0-1 scale; 1/255 is one 8-bit level) is below it, \
measured every 8th iteration, on the GPU without readback (the remaining passes do no work). \
A second image of another size needs `fit=`.",
    params: &[
        ParamDef::image("with", "the image pasted in; its alpha is the blend mask"),
        ParamDef::float("mix", 1.0, 0.0, 1.0, "weight of each pass's new value (times the second image's alpha)"),
        ParamDef::int("iterations", 10, 0, MAX_ITERATIONS as i64, "passes (GPUImage's numIterations, default 10)"),
        ParamDef::float("tolerance", 0.0, 0.0, 1.0, "stop early when an iteration changes no sample by this much (0 = run all)"),
        ParamDef::choice("fit", "none", FIT_OPTIONS, FIT_DOC),
    ],
    inputs: TWO_IMAGES,
    outputs: crate::filters::registry::IMAGE,
    // Measured on lavapipe (tests/poisson.rs `gpu_cpu_drift`, random images, mix 1 and 0.37):
    // max 1 level after 1 iteration, 0 after 10, 100 and 1000. Both sides run the same f32
    // operations; the GPU may contract `a * b + c` into an FMA, and the averaging passes damp
    // that drift rather than amplify it, so what shows is a rounding boundary crossed.
    tolerance: Tolerance { max_diff: 1, why: "" },
    build: |a| Ok(Box::new(PoissonBlend::new(a.f32("mix")?, a.u32("iterations")?, a.f32("tolerance")?)?)),
    uniforms: &[PoissonParams::layout(COMMON)],
    test_inputs: None,
    schedules: &[],
};

/// Index of pixel (x, y)'s left, right, upper and lower neighbours, borders replicated
/// (twin of `neighbours` in poisson_blend.wgsl).
fn neighbours(x: usize, y: usize, w: usize, h: usize) -> [usize; 4] {
    let row = y * w;
    [
        row + x.saturating_sub(1),
        row + (x + 1).min(w - 1),
        y.saturating_sub(1) * w + x,
        (y + 1).min(h - 1) * w + x,
    ]
}

/// Mean of four colours, summed in the kernels' order.
fn mean4(a: [f32; 3], b: [f32; 3], c: [f32; 3], d: [f32; 3]) -> [f32; 3] {
    std::array::from_fn(|k| (((a[k] + b[k]) + c[k]) + d[k]) * 0.25)
}

impl PoissonBlend {
    /// The check slot (status word) of iteration `i` (1-based), if it is measured.
    fn slot(&self, i: u32) -> u32 {
        if self.tolerance > 0.0 && i > 0 && i.is_multiple_of(CHECK_EVERY) {
            i / CHECK_EVERY
        } else {
            NONE
        }
    }
}

impl Filter for PoissonBlend {
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn footprint(&self, _inputs: &[ValueDesc]) -> Footprint {
        // each pass reaches one pixel further: after many, anything
        if self.iterations == 0 {
            Footprint::Pixel
        } else {
            Footprint::WholeImage
        }
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8])?;
        let e = expect_image(&DEF, inputs, 1, &[PixelFormat::Rgba8])?;
        if (d.width, d.height) != (e.width, e.height) {
            return Err(Error::invalid(format!(
                "`poisson_blend`: the second image is {}x{}, the input {}x{}; give both the same size, or fit=stretch|fill|fit|center",
                e.width, e.height, d.width, d.height
            )));
        }
        Ok(vec![ValueDesc::Image(d)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        let top = input_image(&DEF, inputs, 1)?;
        let (w, h) = (img.width() as usize, img.height() as usize);
        if (top.width() as usize, top.height() as usize) != (w, h) {
            return Err(Error::invalid(format!(
                "`poisson_blend`: the second image is {}x{}, the input {w}x{h}",
                top.width(),
                top.height()
            )));
        }
        let unit = |p: &[u8]| {
            [
                p[0] as f32 / 255.0,
                p[1] as f32 / 255.0,
                p[2] as f32 / 255.0,
                p[3] as f32 / 255.0,
            ]
        };
        let mut cur: Vec<[f32; 4]> = img.as_u8().chunks_exact(4).map(unit).collect();
        let t: Vec<[f32; 4]> = top.as_u8().chunks_exact(4).map(unit).collect();
        let rgb = |p: &[f32; 4]| [p[0], p[1], p[2]];
        // fixed per pixel: the second image's colour minus its neighbours' mean, and the weight
        let guide: Vec<[f32; 4]> = (0..w * h)
            .into_par_iter()
            .map(|i| {
                let n = neighbours(i % w, i / w, w, h);
                let m = mean4(rgb(&t[n[0]]), rgb(&t[n[1]]), rgb(&t[n[2]]), rgb(&t[n[3]]));
                [
                    t[i][0] - m[0],
                    t[i][1] - m[1],
                    t[i][2] - m[2],
                    t[i][3] * self.mix,
                ]
            })
            .collect();
        let mut next = cur.clone();
        for i in 1..=self.iterations {
            let change = next
                .par_iter_mut()
                .enumerate()
                .map(|(p, o)| {
                    let n = neighbours(p % w, p / w, w, h);
                    let c = cur[p];
                    let g = guide[p];
                    let m = mean4(
                        rgb(&cur[n[0]]),
                        rgb(&cur[n[1]]),
                        rgb(&cur[n[2]]),
                        rgb(&cur[n[3]]),
                    );
                    let mut d = 0.0f32;
                    for k in 0..3 {
                        let jacobi = m[k] + g[k];
                        o[k] = c[k] * (1.0 - g[3]) + jacobi * g[3];
                        d = d.max((o[k] - c[k]).abs());
                    }
                    o[3] = c[3];
                    d
                })
                .reduce(|| 0.0, f32::max);
            std::mem::swap(&mut cur, &mut next);
            // the GPU measures the same iterations and stops after the same one
            if self.slot(i) != NONE && change < self.tolerance {
                break;
            }
        }
        let out: Vec<u8> = cur.iter().flat_map(|p| p.map(unorm8)).collect();
        Ok(vec![Value::Image(Image::from_u8(
            w as u32,
            h as u32,
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
        let (Some(base), Some(top), Some(out)) = (inputs.first(), inputs.get(1), outputs.first())
        else {
            return Err(Error::invalid(
                "`poisson_blend` needs two inputs and one output",
            ));
        };
        let count = d.width * d.height;
        let groups = groups_1d(count as u64, WG);
        // three f32 RGBA buffers (two iterates, the guidance): 4x the image each
        let floats = count as u64 * 16;
        let limit = rec.gpu().max_binding();
        if floats > limit {
            return Err(Error::TooLarge {
                width: d.width,
                height: d.height,
                bytes: floats,
                limit,
            });
        }
        let (even, odd, guide) = (rec.temp(floats), rec.temp(floats), rec.temp(floats));
        // status word 0 and one per check (see poisson_blend_step.wgsl)
        let status = rec.temp(4 * (self.iterations / CHECK_EVERY + 2) as u64);
        rec.clear(&status);
        let params = |iter: u32, check_slot: u32, prev_slot: u32| PoissonParams {
            width: d.width,
            height: d.height,
            count,
            iter,
            check_slot,
            prev_slot,
            tol: self.tolerance,
            mix: self.mix,
            ..Default::default()
        };
        let init = Kernel::new(
            "blend.poisson_init",
            &[PoissonParams::WGSL, COMMON, INIT],
            "poisson_init",
        );
        rec.dispatch(
            &init,
            &[&base.buffer, &top.buffer, &even, &guide],
            bytemuck::bytes_of(&params(0, NONE, NONE)),
            groups,
        )?;
        // every iteration in this node's one pass: no readback between them
        let step = Kernel::new(
            "blend.poisson_step",
            &[PoissonParams::WGSL, COMMON, STEP],
            "poisson_step",
        );
        for i in 1..=self.iterations {
            let (src, dst) = if i % 2 == 1 {
                (&even, &odd)
            } else {
                (&odd, &even)
            };
            let u = params(i, self.slot(i), self.slot(i - 1));
            rec.dispatch(
                &step,
                &[src, dst, &guide, &status],
                bytemuck::bytes_of(&u),
                groups,
            )?;
        }
        let pack = Kernel::new(
            "blend.poisson_pack",
            &[PoissonParams::WGSL, COMMON, PACK],
            "poisson_pack",
        );
        rec.dispatch(
            &pack,
            &[&even, &odd, &status, &out.buffer],
            bytemuck::bytes_of(&params(self.iterations, NONE, NONE)),
            groups,
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
