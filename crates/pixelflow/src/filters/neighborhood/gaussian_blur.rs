//! Gaussian blur. Matches GPUImage's `GPUImageGaussianBlurFilter` (separable Gaussian,
//! clamp-to-edge sampling).
//!
//! The kernel radius is `ceil(3 * sigma)` taps on each side; weights are
//! `exp(-x^2 / (2 sigma^2))` normalised to sum 1, computed once in f32 on the CPU and handed
//! to the GPU in the uniform, so both sides multiply by identical weights. Horizontal pass
//! first, then vertical, in f32 with no intermediate rounding; the result is rounded half up
//! as `pack4x8unorm` does.
//!
//! GPU: a fused tiled kernel (tile + halo in workgroup memory; per channel, horizontal pass
//! into workgroup memory, vertical pass from it; RGBA8 straight to the output) up to radius
//! `MAX_FUSED_RADIUS`, otherwise two passes through an Rgba32F temporary. Schedule variants
//! (`runtime::schedule`, key `gaussian_blur`): `tile` (that default), `twopass` (the
//! temporary at every radius) and `sweep*` (a strip walked top to bottom with the vertical
//! window in registers, up to `MAX_SWEEP_RADIUS`; see `SweepShape` for the cost reasoning).

use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::image::{Image, PixelFormat};
use crate::params::{check_float, ParamDef};
use crate::registry::{EXACT_ENOUGH, Family, Filter, FilterDef, IMAGE, UniformLayout, expect_image, input_image, one_to_one};
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

use super::{replace_block, specialize};

const WGSL: &str = include_str!("gaussian_blur.wgsl");
const FUSED_WGSL: &str = include_str!("gaussian_blur_fused.wgsl");
const FALLBACK_WGSL: &str = include_str!("gaussian_blur_fallback.wgsl");
const SWEEP_WGSL: &str = include_str!("gaussian_blur_sweep.wgsl");

/// Largest radius (`ceil(3 * 32)`), sizing the uniform's weight array.
pub const MAX_RADIUS: u32 = 96;
const MAX_TAPS: usize = 2 * MAX_RADIUS as usize + 1;

/// Gaussian blur with standard deviation `sigma` pixels.
#[derive(Clone, Debug)]
pub struct GaussianBlur {
    pub sigma: f32,
    schedule: Option<Schedule>,
}

/// How the GPU side runs (normally chosen from the radius and the device's workgroup
/// memory; tests and benchmarks may force one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    Fused(FusedTile),
    TwoPass,
    /// The sweep kernel (radius up to `MAX_SWEEP_RADIUS`; beyond it the default schedule).
    Sweep(SweepShape),
}

impl GaussianBlur {
    /// Fails when `sigma` is outside [0.1, 32].
    pub fn new(sigma: f32) -> Result<Self> {
        Ok(Self { sigma: check_float(&DEF, "sigma", sigma)?, schedule: None })
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
    /// The `2 * radius + 1` normalised weights, left to right.
    pub fn weights(&self) -> Vec<f32> {
        weights(self.sigma)
    }
}

impl Default for GaussianBlur {
    fn default() -> Self {
        Self { sigma: 2.0, schedule: None }
    }
}

fn radius(sigma: f32) -> u32 {
    ((3.0 * sigma).ceil() as u32).clamp(1, MAX_RADIUS)
}

fn weights(sigma: f32) -> Vec<f32> {
    let r = radius(sigma) as i32;
    let two_s2 = 2.0 * sigma * sigma;
    let raw: Vec<f32> = (-r..=r).map(|x| (-((x * x) as f32) / two_s2).exp()).collect();
    let sum: f32 = raw.iter().sum();
    raw.iter().map(|v| v / sum).collect()
}

/// Uniform; mirrors `GaussianBlurParams` in `gaussian_blur.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct GaussianBlurParams {
    pub width: u32,
    pub height: u32,
    pub radius: u32,
    pub _pad: u32,
    /// Weight `k` at `w[k / 4][k % 4]`.
    pub w: [[f32; 4]; 49],
}

pub static DEF: FilterDef = FilterDef {
    name: "gaussian_blur",
    family: Family::Neighborhood,
    summary: "Gaussian blur (separable, replicate-edge borders).",
    doc: "Kernel radius ceil(3*sigma) on each side; weights exp(-x^2/(2 sigma^2)) normalised to sum 1, computed once in f32 and shared by GPU and CPU. \
          Horizontal pass then vertical pass in f32 without intermediate rounding; the result is rounded half up like pack4x8unorm. \
          Borders replicate the edge pixel. GPU: up to radius 16 one fused tiled kernel (tile + halo loaded once into workgroup memory, \
          horizontal then vertical pass per channel through workgroup memory, no full-size intermediate); larger radii take two passes \
          through an Rgba32F temporary. Schedule variants (PIXELFLOW_SCHEDULE=gaussian_blur=NAME): tile (the default above), \
          twopass (the temporary at every radius), sweep, sweep_h16, sweep32, sweep_tall (a strip walked top to bottom with the \
          vertical window in registers, radius <= 12, the default beyond; the _h16, 32 and _tall shapes keep the horizontal \
          results as f16, which moves the output by at most 0.07 of a level before rounding).",
    gpuimage: "GPUImageGaussianBlurFilter",
    params: &[ParamDef::float("sigma", 2.0, 0.1, 32.0, "standard deviation in pixels (radius ceil(3*sigma))")],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(GaussianBlur::new(a.f32("sigma")?)?)),
    uniforms: &[UniformLayout { wgsl: WGSL, wgsl_struct: "GaussianBlurParams", rust_size: std::mem::size_of::<GaussianBlurParams>() }],
    test_inputs: None,
    schedules: &["tile", "twopass", "sweep", "sweep_h16", "sweep32", "sweep_tall"],
};

/// A fused-kernel schedule: `tw x th` output tile, `kh`/`kv` consecutive outputs per
/// invocation in the horizontal/vertical pass. Schedule choice, not algorithm; the
/// candidates and the cost model below are to be measured on H100.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FusedTile {
    pub tw: u32,
    pub th: u32,
    pub kh: u32,
    pub kv: u32,
}

/// Invocations per workgroup of the fused kernel (fixed in the WGSL).
const FUSED_WG: u32 = 256;

/// Workgroup memory the device's SMs share among resident workgroups, as assumed by the
/// cost model. Measured on NVIDIA H100/H200 with the Vulkan driver: a copy kernel slows
/// down as soon as 256-invocation workgroups use more than 64 KiB / 8 each, although the
/// hardware has more. Schedule choice; to be measured on other devices.
const SM_WORKGROUP_MEMORY: u64 = 64 * 1024;

impl FusedTile {
    /// Workgroup memory of the fused kernel at radius `r`, as laid out in the WGSL.
    pub fn bytes(&self, r: u32) -> u64 {
        let rows = (self.th + 2 * r) as u64;
        4 * ((self.tw + 2 * r) | 1) as u64 * rows + 4 * (self.tw | 1) as u64 * rows
    }
    /// Rough instructions per output pixel (load, horizontal pass over the halo rows per
    /// channel, vertical pass per channel), divided by the fraction of a full SM's 1024+
    /// invocations that the workgroup memory lets run at once.
    fn cost(&self, r: u32) -> f64 {
        let (tw, th, kh, kv) = (self.tw as f64, self.th as f64, self.kh as f64, self.kv as f64);
        let rf = r as f64;
        let taps = 2.0 * rf + 1.0;
        let rows = th + 2.0 * rf;
        let load = (tw + 2.0 * rf) * rows / (tw * th) * 8.0;
        let h_segs = rows * tw / kh;
        let h_rounds = (h_segs / FUSED_WG as f64).ceil() * FUSED_WG as f64 / h_segs;
        let h = 4.0 * rows / th * h_rounds * ((kh + 2.0 * rf) / kh * 4.0 + taps + 1.0);
        let v = 4.0 * ((kv + 2.0 * rf) / kv * 1.5 + taps);
        let resident = (SM_WORKGROUP_MEMORY / (self.bytes(r) + 1024)).min(8) as f64;
        let occupancy = (resident * FUSED_WG as f64 / 1024.0).min(1.0);
        (load + h + v + 15.0) / occupancy.max(1e-3)
    }
}

/// Largest radius run by the fused kernel: beyond it the halo makes every tile that fits
/// in a fair share of workgroup memory too small, and the two-pass kernel was faster on
/// H200 (radius 24: about 0.7 ms against 1.0-1.5 ms at 4K). Schedule choice.
const MAX_FUSED_RADIUS: u32 = 16;

/// The cheapest fused schedule fitting in `limit` bytes of workgroup memory, if any
/// (none for radii above `MAX_FUSED_RADIUS`: the two-pass fallback is then faster).
pub fn choose_tile(r: u32, limit: u64) -> Option<FusedTile> {
    if r > MAX_FUSED_RADIUS {
        return None;
    }
    let mut best: Option<(f64, FusedTile)> = None;
    for kv in [1u32, 2, 4, 8] {
        for tw in [8u32, 16, 32, 64] {
            let th = FUSED_WG * kv / tw;
            if th < 8 || th % kv != 0 {
                continue;
            }
            for kh in [4u32, 8, 16] {
                if kh > tw {
                    continue;
                }
                let t = FusedTile { tw, th, kh, kv };
                if t.bytes(r) > limit.min(SM_WORKGROUP_MEMORY / 2) {
                    continue;
                }
                let c = t.cost(r);
                if best.is_none_or(|(bc, _)| c < bc) {
                    best = Some((c, t));
                }
            }
        }
    }
    best.map(|(_, t)| t)
}

const LANES: [&str; 4] = ["x", "y", "z", "w"];

fn weight_ref(k: u32) -> String {
    format!("gp.w[{}].{}", k / 4, LANES[(k % 4) as usize])
}

/// Unrolled body of `h_segment`: same taps, same order as the loop it replaces.
fn gen_h(r: u32, kh: u32) -> String {
    let mut s = String::new();
    for o in 0..kh {
        s.push_str(&format!("    var a{o} = 0.0;\n"));
    }
    for j in 0..kh + 2 * r {
        s.push_str(&format!("    let p{j} = byte_f32(tile_in[ib + {j}u], shift);\n"));
        for o in 0..kh {
            if j >= o && j - o <= 2 * r {
                s.push_str(&format!("    a{o} += {} * p{j};\n", weight_ref(j - o)));
            }
        }
    }
    for o in 0..kh {
        s.push_str(&format!("    tile_h[hb + {o}u] = a{o};\n"));
    }
    s
}

/// Unrolled body of `v_segment`.
fn gen_v(r: u32, kv: u32) -> String {
    let mut s = String::new();
    for o in 0..kv {
        s.push_str(&format!("    var a{o} = 0.0;\n"));
    }
    for j in 0..kv + 2 * r {
        s.push_str(&format!("    let p{j} = tile_h[(oy + {j}u) * H_STRIDE + col];\n"));
        for o in 0..kv {
            if j >= o && j - o <= 2 * r {
                s.push_str(&format!("    a{o} += {} * p{j};\n", weight_ref(j - o)));
            }
        }
    }
    for o in 0..kv {
        s.push_str(&format!("    (*res)[{o}][c] = a{o};\n"));
    }
    s
}

/// The fused kernel's source for radius `r` and schedule `t`.
pub fn fused_source(r: u32, t: FusedTile) -> Result<String> {
    let s = specialize(&format!("{WGSL}\n{FUSED_WGSL}"), &[("R", r), ("TW", t.tw), ("TH", t.th), ("KH", t.kh), ("KV", t.kv)])?;
    let s = replace_block(&s, "h_segment", &gen_h(r, t.kh))?;
    replace_block(&s, "v_segment", &gen_v(r, t.kv))
}

// ---- sweep kernel (schedule variants `sweep*`) ----
//
// Cost model per output pixel at radius r, strip TW x TH, KH outputs per invocation in the
// horizontal pass (f_r = 1 + 2r/TH: halo rows; thread-instructions, NVIDIA SASS assumed):
// - loads: (TW + 2*R4)/TW * f_r / 4 16-byte loads, ~7 instructions each with the clamp and
//   the store to `raw`: ~2.5 (r=6, TW=64, TH=128).
// - horizontal, per output and times f_r: (KH+2r)/KH pixels unpacked, 4 channels x 2
//   instructions (byte select + FADD of the 2^23 trick) = 20 at r=6, KH=8; 4*(2r+1) FMAs =
//   52; 1 store to `hbuf` (+2 conversions for f16); (KH+2*R4)/(4*KH) 16-byte reads = 0.5.
//   ~75 x 1.094 = 82.
// - vertical, per output: 1 read of `hbuf` (+2 conversions for f16), 4*(2r+1) FMAs = 52,
//   pack ~8 (4 float-to-int conversions at quarter rate, on their own pipe), store +
//   condition ~4, plus the warm-up rows 2r/TH x ~26 = 2.4: ~68.
// - two barriers and the loop per chunk of KH rows: ~1.
// Total ~155 at sigma=2 (r=6) = 1.8x copy of issue time (85 per pixel); sigma=3 (r=9): FMAs
// 76+76, unpack 26: ~215 = 2.5x. The floor is the 8*(2r+1) FMAs (1.2x / 1.8x), so nothing
// but FMAs is more than a third of the work.
// Registers: 4*(2r+1) vertical accumulators live across the loop + 4*KH horizontal ones +
// the prefetched loads (ceil(KH*IQ/TW) vec4) + ~15: ~115 at r=6, ~165 at r=12; hence
// MAX_SWEEP_RADIUS. At ~115 registers about 570 invocations fit on an SM; 4K with TH=128
// makes 3840*2160/128 = 65k invocations = ~490 per SM: one wave, all resident at once.
// Workgroup memory: KH*IQS*16 (raw, 2.7 KiB) + KH*(TW+1)*16 (f32, 8.3 KiB) or *8 (f16,
// 4.2 KiB) per TW invocations: ~11 KiB x 8 workgroups per SM with f32 is above the ~64 KiB
// that the driver shares per SM (perf-notes), hence the f16 shapes; ~7 KiB x 8 fits.
// f16 intermediate error bound: |h| <= 255.01 so rounding to f16 (11-bit significand) is off
// by at most 2^-12 * 256 = 0.0625 of a level; the vertical weights are positive and sum to 1,
// so the output is off by at most 0.0625 + f32 rounding (< 1e-3): well under 0.5 of a level.

/// A sweep-kernel schedule: a workgroup of `tw` invocations owns `tw` output columns and walks
/// down `th` output rows, `kh` input rows per chunk; in the horizontal pass each invocation
/// computes `kh` consecutive outputs. `half`: the horizontal results are kept in workgroup
/// memory as f16 (error bound above) to halve that memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SweepShape {
    pub tw: u32,
    pub th: u32,
    pub kh: u32,
    pub half: bool,
}

/// Largest radius the sweep kernel runs: its 4*(2r+1) accumulators live in registers (about
/// 165 registers in all at 12; NVIDIA allows 255 but occupancy halves). Beyond it a `sweep*`
/// variant runs the default schedule. Schedule choice.
pub const MAX_SWEEP_RADIUS: u32 = 12;

/// The `sweep*` schedule variants. Shapes to be measured against each other on the GPU:
/// `sweep` keeps f32 intermediates (more workgroup memory, fewer conversions), `sweep_h16`
/// the same with f16, `sweep32` one-warp workgroups (cheap barriers, more halo loads),
/// `sweep_tall` twice the strip height (fewer halo rows, half the invocations).
pub const SWEEP_VARIANTS: &[(&str, SweepShape)] = &[
    ("sweep", SweepShape { tw: 64, th: 128, kh: 8, half: false }),
    ("sweep_h16", SweepShape { tw: 64, th: 128, kh: 8, half: true }),
    ("sweep32", SweepShape { tw: 32, th: 128, kh: 8, half: true }),
    ("sweep_tall", SweepShape { tw: 64, th: 256, kh: 8, half: true }),
];

/// Every schedule variant name `gaussian_blur` accepts.
pub fn variant_names() -> Vec<&'static str> {
    let mut v = vec!["tile", "twopass"];
    v.extend(SWEEP_VARIANTS.iter().map(|(n, _)| *n));
    v
}

fn round4(r: u32) -> u32 {
    r.div_ceil(4) * 4
}

impl SweepShape {
    fn check(&self) -> Result<()> {
        let ok = self.kh >= 4 && self.kh % 4 == 0 && self.tw % self.kh == 0 && self.tw >= self.kh && self.tw <= 256 && self.th >= 1;
        if ok {
            Ok(())
        } else {
            Err(Error::Graph(format!("gaussian_blur: invalid sweep shape {self:?}")))
        }
    }
    /// Workgroup memory at radius `r`, as laid out in the WGSL.
    pub fn bytes(&self, r: u32) -> u64 {
        let iq = (self.tw + 2 * round4(r)) / 4;
        let raw = (self.kh * (iq | 1)) as u64 * 16;
        let h = (self.kh * (self.tw + 1)) as u64 * if self.half { 8 } else { 16 };
        raw + h
    }
    fn key(&self, r: u32) -> String {
        format!("gaussian_blur.sweep.r{r}.w{}.h{}.k{}.{}", self.tw, self.th, self.kh, if self.half { "f16" } else { "f32" })
    }
}

fn lcm(a: u32, b: u32) -> u32 {
    let (mut x, mut y) = (a, b);
    while y != 0 {
        (x, y) = (y, x % y);
    }
    a / x * b
}

/// `vec4<f32>` splat of weight `k` from the uniform.
fn wv(k: u32) -> String {
    format!("vec4<f32>({})", weight_ref(k))
}

/// Body of `h_chunk`: KH outputs from KH + 2R inputs, each unpacked once (all 4 channels),
/// taps summed in order k = 0..2R per output.
fn gen_sweep_h(r: u32, s: SweepShape) -> String {
    let kh = s.kh;
    let off0 = round4(r) - r;
    let nq = (round4(r) + r + kh - 1) / 4 + 1;
    let mut o = String::new();
    for q in 0..nq {
        o.push_str(&format!("    let q{q} = raw[rbase + {q}u];\n"));
    }
    for m in 0..kh + 2 * r {
        let at = off0 + m;
        o.push_str(&format!("    let p{m} = bytes4(q{}.{});\n", at / 4, LANES[(at % 4) as usize]));
        for out in 0..kh {
            if m >= out && m - out <= 2 * r {
                let d = m - out;
                if d == 0 {
                    o.push_str(&format!("    var b{out} = {} * p{m};\n", wv(0)));
                } else {
                    o.push_str(&format!("    b{out} = fma(p{m}, {}, b{out});\n", wv(d)));
                }
            }
        }
    }
    for out in 0..kh {
        if s.half {
            o.push_str(&format!("    hbuf[hb + {out}u] = vec2<u32>(pack2x16float(b{out}.xy), pack2x16float(b{out}.zw));\n"));
        } else {
            o.push_str(&format!("    hbuf[hb + {out}u] = b{out};\n"));
        }
    }
    o
}

/// Body of `sweep`: prefetch, then the chunk loop unrolled over lcm(KH, 2R+1) rows so each
/// output row's accumulator sits in a fixed variable.
fn gen_sweep_body(r: u32, s: SweepShape) -> String {
    let (tw, kh) = (s.tw, s.kh);
    let n = 2 * r + 1;
    let iq = (tw + 2 * round4(r)) / 4;
    let items = kh * iq;
    let lpt = items.div_ceil(tw);
    let mut o = String::new();
    // load slots of this invocation: item lid + k*TW is raw row lr, group lq
    for k in 0..lpt {
        o.push_str(&format!("    let li{k} = lid + {}u;\n", k * tw));
        o.push_str(&format!("    let lr{k} = li{k} / IQ;\n    let lq{k} = li{k} - lr{k} * IQ;\n"));
        o.push_str(&format!("    let rs{k} = lr{k} * IQS + lq{k};\n    let lx{k} = xs + 4 * i32(lq{k});\n"));
        o.push_str(&format!("    var pf{k}: vec4<u32>;\n"));
    }
    let partial = |k: u32| (k + 1) * tw > items;
    let loads = |chunk: &str| {
        let mut l = String::new();
        for k in 0..lpt {
            let stmt = format!("pf{k} = load_group(u32(clamp(row0 + i32({chunk} * KH + lr{k}), 0, hmax)), lx{k}, fast);");
            if partial(k) {
                l.push_str(&format!("        if (li{k} < {items}u) {{ {stmt} }}\n"));
            } else {
                l.push_str(&format!("        {stmt}\n"));
            }
        }
        l
    };
    for a in 0..n {
        o.push_str(&format!("    var a{a} = vec4<f32>(0.0);\n"));
    }
    o.push_str("    {\n");
    o.push_str(&loads("0u"));
    o.push_str("    }\n    var chunk = 0u;\n    loop {\n");
    let period = lcm(kh, n);
    for m in 0..period / kh {
        o.push_str(&format!("        // chunk {m} of {}\n", period / kh));
        o.push_str("        if (chunk >= nch) { break; }\n");
        for k in 0..lpt {
            if partial(k) {
                o.push_str(&format!("        if (li{k} < {items}u) {{ raw[rs{k}] = pf{k}; }}\n"));
            } else {
                o.push_str(&format!("        raw[rs{k}] = pf{k};\n"));
            }
        }
        o.push_str("        if (chunk + 1u < nch) {\n");
        o.push_str(&loads("(chunk + 1u)").replace("        ", "            "));
        o.push_str("        }\n        workgroupBarrier();\n        h_chunk(rbase, hb);\n        workgroupBarrier();\n");
        // v_chunk's a{k} is variable a{(m*KH + k) mod n}: row `row` of chunk m is step m*KH + row
        let args: Vec<String> = (0..n).map(|k| format!("&a{}", (m * kh + k) % n)).collect();
        o.push_str(&format!("        v_chunk(i32(chunk * KH) - i32(2u * R), y0, x, x_ok, rows_out, lid, {});\n", args.join(", ")));
        o.push_str("        chunk += 1u;\n");
    }
    o.push_str("    }\n");
    o
}

/// `v_chunk`: KH rows of the vertical pass in scatter form. Row `row` of the chunk starts an
/// output in `a{row mod n}`, adds to the 2R pending ones and completes the one in
/// `a{(row + 1) mod n}` (output row tb + row of the strip); the caller rotates the pointers.
fn gen_sweep_v(r: u32, s: SweepShape) -> String {
    let n = 2 * r + 1;
    let params: Vec<String> = (0..n).map(|k| format!("a{k}: ptr<function, vec4<f32>>")).collect();
    let mut o = format!("fn v_chunk(tb: i32, y0: u32, x: u32, x_ok: bool, rows_out: u32, lid: u32, {}) {{\n", params.join(", "));
    for row in 0..s.kh {
        let slot = |d: u32| (row + n - d % n) % n;
        if s.half {
            o.push_str(&format!("    {{\n        let hp = hbuf[{row}u * HS + lid];\n        let hv = vec4<f32>(unpack2x16float(hp.x), unpack2x16float(hp.y));\n"));
        } else {
            o.push_str(&format!("    {{\n        let hv = hbuf[{row}u * HS + lid];\n"));
        }
        o.push_str(&format!("        *a{} = {} * hv;\n", slot(0), wv(0)));
        for d in 1..n {
            o.push_str(&format!("        *a{s} = fma(hv, {}, *a{s});\n", wv(d), s = slot(d)));
        }
        o.push_str(&format!("        let j = tb + {row};\n"));
        o.push_str(&format!("        if (x_ok && j >= 0 && u32(j) < rows_out) {{ dst[(y0 + u32(j)) * gp.width + x] = pack_half_up(*a{}); }}\n    }}\n", slot(2 * r)));
    }
    o.push_str("}\n");
    o
}

/// The sweep kernel's source for radius `r` and shape `s`.
pub fn sweep_source(r: u32, s: SweepShape) -> Result<String> {
    s.check()?;
    let src = specialize(&format!("{WGSL}\n{SWEEP_WGSL}"), &[("R", r), ("R4", round4(r)), ("TW", s.tw), ("TH", s.th), ("KH", s.kh)])?;
    let decl = if s.half { "var<workgroup> hbuf: array<vec2<u32>, KH * HS>;\n" } else { "var<workgroup> hbuf: array<vec4<f32>, KH * HS>;\n" };
    let src = replace_block(&src, "hbuf_decl", decl)?;
    let src = replace_block(&src, "h_chunk", &gen_sweep_h(r, s))?;
    let src = replace_block(&src, "v_chunk", &gen_sweep_v(r, s))?;
    replace_block(&src, "sweep_body", &gen_sweep_body(r, s))
}

impl GaussianBlur {
    fn params(&self, width: u32, height: u32) -> GaussianBlurParams {
        let mut p = GaussianBlurParams { width, height, radius: self.radius(), _pad: 0, w: [[0.0; 4]; 49] };
        for (k, w) in self.weights().iter().enumerate().take(MAX_TAPS) {
            p.w[k / 4][k % 4] = *w;
        }
        p
    }
}

/// CPU twin: horizontal then vertical, f32, taps in order, replicate edges.
pub fn blur_cpu(img: &Image, w: &[f32]) -> Result<Image> {
    let (width, height) = (img.width() as usize, img.height() as usize);
    let r = (w.len() / 2) as i64;
    let src = img.as_u8();
    let mut tmp = vec![0f32; width * height * 4];
    tmp.par_chunks_mut(width * 4).enumerate().for_each(|(y, row)| {
        let s = &src[y * width * 4..(y + 1) * width * 4];
        for x in 0..width {
            let mut acc = [0f32; 4];
            for (k, &wk) in w.iter().enumerate() {
                let xx = (x as i64 - r + k as i64).clamp(0, width as i64 - 1) as usize;
                for c in 0..4 {
                    acc[c] += wk * s[xx * 4 + c] as f32;
                }
            }
            row[x * 4..x * 4 + 4].copy_from_slice(&acc);
        }
    });
    let mut out = vec![0u8; width * height * 4];
    out.par_chunks_mut(width * 4).enumerate().for_each(|(y, row)| {
        for x in 0..width {
            let mut acc = [0f32; 4];
            for (k, &wk) in w.iter().enumerate() {
                let yy = (y as i64 - r + k as i64).clamp(0, height as i64 - 1) as usize;
                for c in 0..4 {
                    acc[c] += wk * tmp[(yy * width + x) * 4 + c];
                }
            }
            for c in 0..4 {
                row[x * 4 + c] = (acc[c].clamp(0.0, 255.0) + 0.5) as u8;
            }
        }
    });
    Image::from_u8(img.width(), img.height(), PixelFormat::Rgba8, out)
}

impl Filter for GaussianBlur {
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8])?;
        Ok(vec![ValueDesc::Image(d)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        Ok(vec![Value::Image(blur_cpu(img, &self.weights())?)])
    }
    fn record_gpu(&self, rec: &mut NodeRecorder<'_>, inputs: &[GpuSlot], outputs: &[GpuSlot]) -> Result<()> {
        let (input, output, d) = one_to_one(&DEF, inputs, outputs)?;
        let r = self.radius();
        let params = self.params(d.width, d.height);
        let uniform = bytemuck::bytes_of(&params);
        let limit = rec.gpu().limits.max_compute_workgroup_storage_size as u64;
        let default = || choose_tile(r, limit).map_or(Schedule::TwoPass, Schedule::Fused);
        // an explicit `with_schedule` wins over a `runtime::schedule` override
        let chosen = match self.schedule {
            Some(s) => s,
            None => match crate::runtime::schedule::get(DEF.name) {
                None => default(),
                Some(v) => match v.as_str() {
                    // today's default: fused tile up to MAX_FUSED_RADIUS, two passes beyond
                    "tile" => default(),
                    "twopass" => Schedule::TwoPass,
                    name => match SWEEP_VARIANTS.iter().find(|(n, _)| *n == name) {
                        Some((_, shape)) => Schedule::Sweep(*shape),
                        None => return Err(crate::runtime::schedule::unknown(DEF.name, name, &variant_names())),
                    },
                },
            },
        };
        let schedule = match chosen {
            Schedule::Fused(t) if t.bytes(r) > limit => {
                return Err(Error::Graph(format!("gaussian_blur: a {}x{} tile at radius {r} needs {} bytes of workgroup memory, the device has {limit}", t.tw, t.th, t.bytes(r))));
            }
            Schedule::Sweep(s) if s.bytes(r) > limit => {
                return Err(Error::Graph(format!("gaussian_blur: sweep {s:?} at radius {r} needs {} bytes of workgroup memory, the device has {limit}", s.bytes(r))));
            }
            // the sweep's accumulators stop fitting in registers (see MAX_SWEEP_RADIUS)
            Schedule::Sweep(_) if r > MAX_SWEEP_RADIUS => default(),
            s => s,
        };
        if let Schedule::Sweep(s) = schedule {
            let mut kernel = Kernel::new(&s.key(r), &[], "sweep");
            kernel.generated = Some(sweep_source(r, s)?);
            // every workgroup variable is written before it is read (raw: all KH*IQ groups
            // of a chunk; hbuf: all KH rows x TW columns; the padding is never read)
            return rec.dispatch_uninit(&kernel, &[&input.buffer, &output.buffer], uniform, groups_2d(d.width, d.height, s.tw, s.th));
        }
        if let Schedule::Fused(t) = schedule {
            if t.tw * t.th != FUSED_WG * t.kv || t.tw % t.kh != 0 || t.th % t.kv != 0 {
                return Err(Error::Graph(format!("gaussian_blur: invalid tile {t:?}")));
            }
            let key = format!("gaussian_blur.fused.r{r}.{}x{}.h{}.v{}", t.tw, t.th, t.kh, t.kv);
            let mut kernel = Kernel::new(&key, &[], "fused");
            kernel.generated = Some(fused_source(r, t)?);
            return rec.dispatch(&kernel, &[&input.buffer, &output.buffer], uniform, groups_2d(d.width, d.height, t.tw, t.th));
        }
        let tmp_bytes = PixelFormat::Rgba32F.gpu_bytes(d.width, d.height);
        let limit = rec.gpu().max_binding();
        if tmp_bytes > limit {
            return Err(Error::TooLarge { width: d.width, height: d.height, bytes: tmp_bytes, limit });
        }
        let tmp = rec.temp(tmp_bytes);
        rec.dispatch(&Kernel::new("gaussian_blur", &[WGSL, FALLBACK_WGSL], "fallback_h"), &[&input.buffer, &tmp], uniform, [d.width.div_ceil(256), d.height, 1])?;
        rec.dispatch(&Kernel::new("gaussian_blur", &[WGSL, FALLBACK_WGSL], "fallback_v"), &[&tmp, &output.buffer], uniform, groups_2d(d.width, d.height, 64, 4))
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
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
        for r in 1..=9 {
            assert!(choose_tile(r, 16384).is_some(), "r={r}");
        }
        assert!(choose_tile(MAX_FUSED_RADIUS + 1, 49152).is_none());
    }
    #[test]
    fn generated_bodies_parse_shape() {
        let t = FusedTile { tw: 16, th: 64, kh: 4, kv: 4 };
        let s = fused_source(3, t).unwrap();
        assert!(s.contains("const R: u32 = 3u;"));
        assert!(s.contains("a3 += gp.w[1].z * p9;"));
        assert!(!s.contains("var acc: array<f32, KH>"));
    }
    #[test]
    fn sweep_source_rotates_statically() {
        for (_, shape) in SWEEP_VARIANTS {
            for r in [1u32, 3, 6, 12] {
                let n = 2 * r + 1;
                let s = sweep_source(r, *shape).unwrap();
                // one v_chunk call per rotation, each a distinct rotation of the n accumulators
                let calls: Vec<&str> = s.lines().filter(|l| l.trim_start().starts_with("v_chunk(")).collect();
                assert_eq!(calls.len() as u32, lcm(shape.kh, n) / shape.kh, "r={r}");
                let mut firsts: Vec<&str> = calls.iter().map(|c| c.split("&a").nth(1).unwrap_or("").trim_end_matches([',', ' ', ')', ';'])).collect();
                firsts.sort();
                firsts.dedup();
                assert_eq!(firsts.len(), calls.len(), "r={r}");
                // every tap weight in both passes, the last one completing the output
                assert!(s.contains(&format!("fma(hv, vec4<f32>({}), *a", weight_ref(2 * r))));
                assert!(s.contains(&format!("fma(p{}, vec4<f32>({}), b{}", shape.kh + 2 * r - 1, weight_ref(2 * r), shape.kh - 1)));
                assert!(shape.bytes(r) <= 16384, "{shape:?} r={r}: {} bytes", shape.bytes(r));
            }
        }
        assert!(SweepShape { tw: 64, th: 128, kh: 6, half: false }.check().is_err());
        assert_eq!(lcm(8, 13), 104);
    }
}
