//! Gaussian blur's `half` schedule (small sigma), the GPU side of `GaussianBlur` in f16
//! arithmetic: GPUImage's `GPUImageGaussianBlurFilter` within one level of the twin's f32
//! filter, for any image, by the bound `half_error_bound` (see gaussian_blur_half.wgsl for
//! why f16 and how the kernel is laid out).
//!
//! Needs a device with `shader-f16`; elsewhere the f32 schedules run.

use super::{GaussianBlur, WGSL};
use crate::error::{Error, Result};
use crate::image::ImageDesc;
use crate::runtime::{GpuSlot, Kernel, NodeRecorder};

use crate::runtime::wgsl_template::{replace_block, specialize};

const HALF_WGSL: &str = include_str!("gaussian_blur_half.wgsl");

/// Unit roundoff of f16 (half an ulp, relative): 2^-11.
const F16_U: f64 = 1.0 / 2048.0;

/// Largest radius of the `half` schedule: its bound grows with the taps (0.83 level at
/// radius 12, sigma 4; 0.89 at radius 14, sigma 4.6; 0.928 at radius 15, sigma 5), and the
/// K-row window and the flush's reads must stay in registers.
pub const MAX_HALF_RADIUS: u32 = 15;

/// Largest error the bound may reach for the schedule to run, in 8-bit levels: below 1 (so
/// the rounded output is within one level of the twin's), with room for the twin's own f32
/// rounding (~1e-4) and f16 weights that a device flushes to zero (at most 128 * 6.1e-5 per
/// tap: weights that small do not occur at these radii; the smallest, at radius 15 and sigma
/// 4.67, is ~6e-4). Session 7 raised it from 0.9 to 0.93 so that sigma 4.7-5.0 (radius 15,
/// bound 0.90-0.928) runs here rather than in the two f32 passes (~10x copy).
const HALF_MAX_ERROR: f64 = 0.93;

/// From this radius the window's refills are loaded one row before use (`late`), below it a
/// block ahead. Why: registers. H200 at 4K (session 8, runs s8-g1 and s8-g2; registers from
/// `bench --shader-stats`), x copy late / early: sigma 3 (radius 9) 3.19 / 3.23-3.25 (91 / 111
/// registers); sigma 4 (radius 12) 4.10 / 4.22-4.25 (119 / 128 registers and 16 bytes
/// spilled); sigma 2.5 (radius 8) 3.03 / 3.00; sigma 2.3 (radius 7) 2.89 / 2.73; sigma 2
/// (radius 6) 2.52 / 2.45-2.48 (74 / 79 registers).
const LATE_FROM: u32 = 9;

/// Schedule knobs (`None`: the default). Named `half` followed by `_wg<N>` (invocations,
/// that is columns, per workgroup: 64, 96, 128, 160, 192 or 256), `_nf<N>` (buffer flushes per K rows)
/// `_nb<N>` (blocks of K rows per workgroup) and `_kh<N>` (outputs per flush task, 4 or 8),
/// `_f32` (f32 arithmetic in the same shape), `_late` (refills loaded one row before use)
/// and `_early` (refills loaded a block ahead), `_cw` / `_uw` (weights as constants / from the uniform), e.g. `half_wg256_nf3`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HalfOptions {
    /// Invocations (columns) per workgroup (`wg<N>`).
    pub wgx: Option<u32>,
    /// Buffer flushes per K rows (`nf<N>`).
    pub nf: Option<u32>,
    /// Blocks of K rows per workgroup (`nb<N>`).
    pub nb: Option<u32>,
    /// Outputs per flush task, 4 or 8 (`kh<N>`).
    pub kh: Option<u32>,
    /// f32 arithmetic in the same shape (no f16 needed, no bound beyond f32 rounding).
    pub f32: Option<bool>,
    /// The window's refills loaded one row before use (`late`) instead of a block ahead:
    /// fewer live registers. H200 at 4K (session 6, run g12), ms, sigma 2 / 3 / 4: 0.0536 /
    /// 0.0678 / 0.0876 against the default's 0.0525 / 0.0692 / 0.0901. The default from
    /// `LATE_FROM` (see there).
    pub late: Option<bool>,
    /// The weights as compile-time constants (`cw`, one pipeline per sigma) or read from the
    /// uniform once per invocation (`uw`, one pipeline per radius). Default: `cw` for the
    /// first `MAX_CW_SIGMAS` sigmas a process uses, `uw` for any more, so a slider over sigma
    /// compiles and keeps a bounded number of kernels (H200 at 4K, run s9-b1: sigma 2 / 3 / 4
    /// `cw` 0.0526 / 0.0680 / 0.0875 ms, `uw` 0.0544 / 0.0730 / 0.0948).
    pub const_weights: Option<bool>,
}

impl HalfOptions {
    /// `half[_knob]*` as above; `None` if `name` is not one.
    pub fn parse(name: &str) -> Option<Self> {
        let rest = name.strip_prefix("half")?;
        let mut o = HalfOptions::default();
        for t in rest.split('_').filter(|t| !t.is_empty()) {
            let num = |p: &str| t.strip_prefix(p).and_then(|n| n.parse::<u32>().ok());
            match t {
                _ if num("wg").is_some_and(|n| [64, 96, 128, 160, 192, 256].contains(&n)) => {
                    o.wgx = num("wg")
                }
                _ if num("nf").is_some_and(|n| (1..=8).contains(&n)) => o.nf = num("nf"),
                _ if num("nb").is_some_and(|n| (1..=16).contains(&n)) => o.nb = num("nb"),
                _ if num("kh").is_some_and(|n| [4, 8].contains(&n)) => o.kh = num("kh"),
                "f32" => o.f32 = Some(true),
                "late" => o.late = Some(true),
                "early" => o.late = Some(false),
                "cw" => o.const_weights = Some(true),
                "uw" => o.const_weights = Some(false),
                _ => return None,
            }
        }
        Some(o)
    }
}

/// Columns per workgroup. Schedule choice, H200 at 4K (session 6, runs g4-g7), ms: sigma 2
/// 64 / 128 / 256 columns 0.0795 / 0.0767 / 0.0737 (5 blocks), 128 / 256 0.0688 / 0.0733 (1
/// block); sigma 3 128 / 256 0.0871 / 0.0916 (1 block, 3 flushes); with today's kernel
/// (g6-g7) sigma 2 64 / 96 / 128 / 160 / 192 = 0.0675 / 0.0589-0.0602 / 0.0593-0.0599 /
/// 0.0606 / 0.0620, sigma 3 128 / 160 / 192 = 0.0774-0.0780 / 0.0781 / 0.0796.
const HALF_WGX: u32 = 128;
/// Buffer flushes per K rows by radius: the buffer of ceil(K / NF) rows is workgroup memory,
/// which limits residency on NVIDIA's Vulkan driver (~64 KiB per SM), and every flush costs
/// two barriers. Schedule choice, H200 at 4K (g4-g5), ms: sigma 2 NF 1 / 2 / 3 = 0.0995 /
/// 0.0767 / 0.0868 (5 blocks); sigma 3 NF 2 / 3 / 4 = 0.0952 / 0.0871 / 0.0963 (1 block, 2
/// for 4); sigma 4 NF 3 / 4 / 5 = 0.1055 / 0.1114 / 0.1199 (1 block).
fn half_nf(r: u32) -> u32 {
    if r <= 7 {
        2
    } else {
        3
    }
}
/// Blocks of K rows per workgroup: more rows per workgroup pay the window's priming (2R
/// rows) less often, but fewer workgroups hide less latency, and one block measured best.
/// Schedule choice, H200 at 4K (g5), ms: sigma 2 1 / 2 / 3 / 5 / 10 blocks = 0.0688 /
/// 0.0715 / 0.0712 / 0.0767 / 0.0786 (g4-g5); sigma 3 1 / 2 = 0.0871 / 0.0898 (3 flushes).
const HALF_NB: u32 = 1;
/// Outputs per flush task (KH + 2R buffer reads for KH outputs; fewer tasks to spread over
/// the invocations with more). Schedule choice, H200 at 4K (g7), ms: sigma 2 / 3 / 4 KH 4
/// 0.0593 / 0.0774 / 0.0947 (g7-g8), KH 8 0.0609 / 0.0884 / 0.1040.
const HALF_KH: u32 = 4;

/// The `half` schedule with every knob decided, for radius `r`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct HalfPlan {
    r: u32,
    wgx: u32,
    tw: u32,
    nb: u32,
    br: u32,
    kh: u32,
    f32: bool,
    late: bool,
    const_weights: bool,
}

impl HalfPlan {
    fn new(r: u32, o: HalfOptions) -> Result<Self> {
        let k = 2 * r + 1;
        let wgx = o.wgx.unwrap_or(HALF_WGX);
        let kh = o.kh.unwrap_or(HALF_KH);
        if r == 0 || r > MAX_HALF_RADIUS || wgx < 2 * r + kh {
            return Err(Error::schedule_unsupported("gaussian_blur", format!("the half schedule covers radius 1 to {MAX_HALF_RADIUS} (this one: {r}, {wgx} columns per workgroup)")));
        }
        let nf = o.nf.unwrap_or(half_nf(r)).min(k);
        let nb = o.nb.unwrap_or(HALF_NB);
        Ok(HalfPlan {
            r,
            wgx,
            tw: (wgx - 2 * r) / kh * kh,
            nb,
            br: k.div_ceil(nf),
            kh,
            f32: o.f32.unwrap_or(false),
            late: o.late.unwrap_or(r >= LATE_FROM),
            const_weights: o.const_weights.unwrap_or(false),
        })
    }
    /// Pipeline cache key: the plan, and sigma only when the weights are compiled in.
    fn key(&self, sigma: f32) -> String {
        let w = if self.const_weights {
            format!("s{:08x}", sigma.to_bits())
        } else {
            "uw".into()
        };
        format!(
            "gaussian_blur.half.{w}.r{}.wg{}.nb{}.br{}.kh{}.f{}.l{}",
            self.r,
            self.wgx,
            self.nb,
            self.br,
            self.kh,
            if self.f32 { 32 } else { 16 },
            self.late as u32
        )
    }
    /// Workgroup memory of the vertical pass's buffer.
    fn bytes(&self) -> u64 {
        (if self.f32 { 16 } else { 8 }) * self.br as u64 * (self.wgx + self.wgx / 4 + 1) as u64
    }
}

/// Bound on the `half` schedule's error, in 8-bit levels before rounding, for any image,
/// with `w` the twin's weights (radius `w.len() / 2`). Model (gaussian_blur_half.wgsl):
/// samples centred, |c| <= 128; per pass the taps are added outside in, pair sums first;
/// each operation rounds to f16 with relative error at most u = 2^-11 (multiply and add
/// rounded separately); partial sums are at most M times the weights added so far. Per
/// pass: the roundings of the sums (u M W_j at every step), of the products (u M w), of
/// the pair sums in the second pass (whose inputs are no longer integers: u 2 M w per
/// pair), of the weights themselves (u M), plus the first pass's error carried through the
/// second (its weights sum to 1 within u).
pub fn half_error_bound(w: &[f32]) -> f64 {
    let first = pass_bound(w, 128.0, true);
    first * (1.0 + F16_U) + pass_bound(w, 128.0 + first, false)
}

fn pass_bound(w: &[f32], m: f64, exact_pairs: bool) -> f64 {
    let r = w.len() / 2;
    let (mut sum_w, mut err) = (0f64, 0f64);
    for k in (1..=r).rev() {
        let wk = w[r + k] as f64;
        sum_w += 2.0 * wk;
        err += F16_U * m * sum_w + F16_U * m * 2.0 * wk;
        if !exact_pairs {
            err += wk * F16_U * 2.0 * m;
        }
    }
    sum_w += w[r] as f64;
    err += F16_U * m * sum_w + F16_U * m * w[r] as f64;
    err + F16_U * m
}

/// Whether the `half` schedule may run for weights `w` (radius and bound).
pub fn half_applies(w: &[f32]) -> bool {
    (w.len() / 2) as u32 <= MAX_HALF_RADIUS && half_error_bound(w) <= HALF_MAX_ERROR
}

/// Largest radius at which the `_f32` variant is the default on devices without f16: past
/// it the two-pass kernels are faster. Schedule choice, H200 at 4K (session 6, run g8), ms:
/// radius 6 / 9 / 12 / 14 `half_f32` 0.0983 / 0.1390 / 0.1593 / 0.2934 against the f32
/// choice before it (fused tile, then two passes) 0.1529 / 0.2025 / 0.2120 / 0.2184.
pub const HALF_F32_MAX_RADIUS: u32 = 12;

/// Whether the schedule `o` fits the device's workgroup memory (`limit` bytes) at radius `r`.
pub fn half_fits(r: u32, o: HalfOptions, limit: u64) -> bool {
    HalfPlan::new(r, o).is_ok_and(|p| p.bytes() <= limit)
}

/// The `_f32` variant's sample type and conversions (see `half_types` in the WGSL).
const F32_TYPES: &str = "alias V = vec4<f32>;
fn unpack_c(p: u32) -> V {
    return bytes4(p) - V(128.0);
}
fn out_pack_c(c: V) -> u32 {
    let m = bitcast<vec4<u32>>(clamp(c + V(128.0), V(0.0), V(255.0)) + V(12582912.0));
    return (m.x & 0xFFu) | ((m.y & 0xFFu) << 8u) | ((m.z & 0xFFu) << 16u) | (m.w << 24u);
}
";

/// The sum of the taps of one output, outside in: `at(j)` names input j (0 ..= 2R, the
/// output's centre at R).
fn gen_taps(r: u32, at: impl Fn(u32) -> String) -> String {
    let mut e = format!("W{r} * ({} + {})", at(0), at(2 * r));
    for k in (1..r).rev() {
        e = format!("fma(V(W{k}), {} + {}, {e})", at(r - k), at(r + k));
    }
    format!("fma(V(W0), {}, {e})", at(r))
}

/// The kernel's source for `plan` and the twin's weights `w`.
fn half_source(plan: &HalfPlan, w: &[f32], quads: bool) -> Result<String> {
    let (r, k) = (plan.r, 2 * plan.r + 1);
    let consts = [
        ("R", r),
        ("K", k),
        ("WGX", plan.wgx),
        ("TW", plan.tw),
        ("NB", plan.nb),
        ("BR", plan.br),
        ("KH", plan.kh),
    ];
    let enable = if plan.f32 { "" } else { "enable f16;\n" };
    let s = specialize(
        &format!(
            "{enable}{}{WGSL}\n{HALF_WGSL}",
            super::GaussianBlurParams::WGSL
        ),
        &consts,
    )?;
    let s = if plan.f32 {
        replace_block(&s, "half_types", F32_TYPES)?
    } else {
        s
    };
    // f16 literals: WGSL rounds them to the nearest f16
    let (ty, suffix) = if plan.f32 { ("f32", "") } else { ("f16", "h") };
    let s = if plan.const_weights {
        // f16: the weight rounded to f16 here (to nearest, ties to even), so the literal is exact
        // and equal to what the `uw` kernel's conversion gives: both kernels compute the same
        let lit = |v: f32| if plan.f32 { v } else { round_to_f16(v) };
        let weights: String = (0..=r)
            .map(|j| {
                format!(
                    "const W{j}: {ty} = {:e}{suffix};\n",
                    lit(w[(r + j) as usize])
                )
            })
            .collect();
        let s = replace_block(&s, "half_weights", &weights)?;
        replace_block(&s, "half_load_weights", "")?
    } else {
        // private copies read from the uniform's weights (`w[k]` at w[k / 4][k % 4]) once per
        // invocation; converted to f16 as WGSL converts (the error bound allows either rounding)
        let weights: String = (0..=r)
            .map(|j| format!("var<private> W{j}: {ty};\n"))
            .collect();
        let s = replace_block(&s, "half_weights", &weights)?;
        let load: String = (0..=r)
            .map(|j| format!("    W{j} = {ty}(gp.w[{}][{}]);\n", (r + j) / 4, (r + j) % 4))
            .collect();
        replace_block(&s, "half_load_weights", &load)?
    };
    // the window, then the rows that refill it in the first block (packed; all K of them
    // only if a second block will refill from the last)
    let refills = if plan.nb > 1 { k } else { k - 1 };
    let mut prime: String = (0..k)
        .map(|j| format!("    var s{j} = unpack_c(load_raw(i32(y0) - i32(R) + {j}));\n"))
        .collect();
    if !plan.late {
        prime.extend(
            (0..refills).map(|t| format!("    var q{t} = load_raw(i32(y0) + {});\n", r + 1 + t)),
        );
    }
    let s = replace_block(&s, "half_prime", &prime)?;
    // K rows unrolled: row t reads slots (t + j) % K, then refills slot t % K with row
    // t + R + 1; the buffer is flushed after every BR rows and after the block's last
    let mut block = String::new();
    for t in 0..k {
        block.push_str(&format!(
            "        vbuf[{}u * BSTRIDE + col] = {};\n",
            t % plan.br,
            gen_taps(r, |j| format!("s{}", (t + j) % k))
        ));
        // row t + R + 1 into the slot just used, loaded a block ahead; then the next block's
        // (past the last block, a clamped load never used)
        if plan.late {
            // `late`: loaded here, used by the next row
            if plan.nb > 1 || t + 1 < k {
                block.push_str(&format!(
                    "        s{} = unpack_c(load_raw(i32(yb) + {}));\n",
                    t % k,
                    t + r + 1
                ));
            }
            continue_flush(&mut block, t, k, plan.br);
            continue;
        }
        if t < refills {
            block.push_str(&format!("        s{} = unpack_c(q{t});\n", t % k));
        }
        if plan.nb > 1 {
            block.push_str(&format!(
                "        q{t} = load_raw(i32(yb) + {});\n",
                k + r + 1 + t
            ));
        }
        continue_flush(&mut block, t, k, plan.br);
    }
    let s = replace_block(&s, "half_block", &block)?;
    // the flush: KH + 2R buffer reads (one pad slot per 4 columns), 4 outputs
    let mut h = String::new();
    let kh = plan.kh;
    for j in 0..kh + 2 * r {
        h.push_str(&format!("        let p{j} = vbuf[b + {}u];\n", j + j / 4));
    }
    for o in 0..kh {
        h.push_str(&format!(
            "        let o{o} = {};\n",
            gen_taps(r, |j| format!("p{}", j + o))
        ));
    }
    let s = replace_block(&s, "half_h", &h)?;
    let store: String = if quads {
        // rows start on 16-byte boundaries, and so do the tasks' outputs (TW is a multiple of KH)
        (0..kh / 4)
            .map(|q| format!("            if (x + {}u < gp.width) {{ dst4[(y * gp.width + x) / 4u + {q}u] = vec4<u32>({}); }}\n", 4 * q, (0..4).map(|i| format!("out_pack_c(o{})", 4 * q + i)).collect::<Vec<_>>().join(", ")))
            .collect()
    } else {
        let mut st = String::from("            let base = y * gp.width + x;\n");
        for o in 0..kh {
            st.push_str(&format!(
                "            if (x + {o}u < gp.width) {{ dst[base + {o}u] = out_pack_c(o{o}); }}\n"
            ));
        }
        st
    };
    replace_block(&s, "half_store", &store)
}

/// After row `t` of a block of `k`: the flush, when the buffer of `br` rows is full or the
/// block ends.
fn continue_flush(block: &mut String, t: u32, k: u32, br: u32) {
    if t % br == br - 1 || t == k - 1 {
        block.push_str(&format!(
            "        h_flush(lid, x0, yb + {}u, {}u, yend);\n",
            t - t % br,
            t % br + 1
        ));
    }
}

/// Largest number of sigmas per process that get their own compiled-constant kernel.
const MAX_CW_SIGMAS: usize = 16;

/// Whether `sigma` gets a kernel with its weights compiled in: one of the first
/// `MAX_CW_SIGMAS` sigmas of the process.
fn compiled_weights(sigma: f32) -> bool {
    static SIGMAS: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());
    let Ok(mut compiled) = SIGMAS.lock() else {
        return false;
    };
    let key = sigma.to_bits();
    if compiled.contains(&key) {
        return true;
    }
    if compiled.len() < MAX_CW_SIGMAS {
        compiled.push(key);
        return true;
    }
    false
}

/// The f16 nearest to `v` (ties to even), as an f32: what an f32 to f16 conversion gives.
pub fn round_to_f16(v: f32) -> f32 {
    if v.abs() < 6.103_515_6e-5 {
        // subnormal f16: multiples of 2^-24
        return (v * 16_777_216.0).round_ties_even() / 16_777_216.0;
    }
    let bits = v.to_bits();
    let (keep, rem) = (bits & !0x1fff, bits & 0x1fff);
    let up = rem > 0x1000 || (rem == 0x1000 && keep & 0x2000 != 0);
    f32::from_bits(if up { keep + 0x2000 } else { keep })
}

/// Records the `half` schedule.
pub(super) fn record(
    blur: &GaussianBlur,
    rec: &mut NodeRecorder<'_>,
    input: &GpuSlot,
    output: &GpuSlot,
    d: ImageDesc,
    o: HalfOptions,
) -> Result<()> {
    let r = blur.radius();
    let w = blur.weights();
    let o = HalfOptions {
        const_weights: Some(
            o.const_weights
                .unwrap_or_else(|| compiled_weights(blur.sigma)),
        ),
        ..o
    };
    let plan = HalfPlan::new(r, o)?;
    if !plan.f32 && !rec.gpu().has_f16() {
        return Err(Error::schedule_unsupported(
            "gaussian_blur",
            "the half schedule needs a device with shader-f16",
        ));
    }
    if !plan.f32 && !half_applies(&w) {
        return Err(Error::schedule_unsupported(
            "gaussian_blur",
            format!(
                "the half schedule's error bound does not hold at sigma {} ({:.3} levels)",
                blur.sigma,
                half_error_bound(&w)
            ),
        ));
    }
    let limit = rec.gpu().limits.max_compute_workgroup_storage_size as u64;
    if plan.bytes() > limit {
        return Err(Error::schedule_unsupported(
            "gaussian_blur",
            format!(
                "the half schedule needs {} bytes of workgroup memory, the device has {limit}",
                plan.bytes()
            ),
        ));
    }
    let quads = d.width.is_multiple_of(4);
    let mut kernel = Kernel::new(
        &format!("{}.q{}", plan.key(blur.sigma), quads as u32),
        &[],
        "half",
    );
    kernel.generated = Some(half_source(&plan, &w, quads)?);
    let params = blur.params(d.width, d.height);
    let th = plan.nb * (2 * r + 1);
    // every buffer slot a flush reads was stored by the rows before it
    rec.dispatch_uninit(
        &kernel,
        &[&input.buffer, &output.buffer],
        bytemuck::bytes_of(&params),
        [d.width.div_ceil(plan.tw), d.height.div_ceil(th), 1],
    )
}

#[cfg(test)]
mod tests {
    use super::super::weights;
    use super::*;

    #[test]
    fn half_bound_holds_up_to_its_radius() {
        // sigma 2 and 3 (the targets) fit with room; the bound grows with the taps
        let b2 = half_error_bound(&weights(2.0));
        let b3 = half_error_bound(&weights(3.0));
        assert!(b2 < 0.7 && b3 < 0.8 && b2 < b3, "{b2} {b3}");
        for tenth in 1..=40 {
            let w = weights(tenth as f32 / 10.0);
            assert!(
                half_applies(&w),
                "sigma {}: {}",
                tenth as f32 / 10.0,
                half_error_bound(&w)
            );
        }
        assert!(half_applies(&weights(4.6)));
        assert!(half_applies(&weights(5.0)), "radius 15, bound 0.928");
        assert!(
            !half_applies(&weights(5.1)),
            "radius 16 is past MAX_HALF_RADIUS (and its bound 0.94 past the limit)"
        );
    }

    #[test]
    fn half_source_validates() {
        for (sigma, o) in [
            (2.0f32, HalfOptions::default()),
            (
                2.0f32,
                HalfOptions {
                    const_weights: Some(true),
                    ..Default::default()
                },
            ),
            (
                0.3,
                HalfOptions {
                    wgx: Some(64),
                    nf: Some(1),
                    nb: Some(2),
                    kh: Some(8),
                    f32: None,
                    late: Some(true),
                    const_weights: None,
                },
            ),
            (
                4.0,
                HalfOptions {
                    wgx: Some(256),
                    nf: Some(3),
                    nb: None,
                    kh: None,
                    f32: Some(true),
                    late: None,
                    const_weights: None,
                },
            ),
        ] {
            let w = weights(sigma);
            let plan = HalfPlan::new(super::super::radius(sigma), o).unwrap();
            let src = half_source(&plan, &w, sigma > 1.0).unwrap();
            let m = naga::front::wgsl::parse_str(&src)
                .unwrap_or_else(|e| panic!("sigma {sigma}: {}", e.emit_to_string(&src)));
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::all(),
            )
            .validate(&m)
            .unwrap_or_else(|e| panic!("sigma {sigma}: {e:?}"));
        }
    }

    #[test]
    fn f16_rounding_is_to_nearest_even() {
        assert_eq!(round_to_f16(1.0), 1.0);
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to even (1)
        assert_eq!(round_to_f16(1.0 + 2f32.powi(-11)), 1.0);
        assert_eq!(
            round_to_f16(1.0 + 3.0 * 2f32.powi(-11)),
            1.0 + 2.0 * 2f32.powi(-10)
        );
        assert_eq!(round_to_f16(0.1), 0.099975586);
        assert_eq!(round_to_f16(3.0e-6), 2.9802322e-6);
    }

    #[test]
    fn half_names_parse() {
        assert_eq!(HalfOptions::parse("half"), Some(HalfOptions::default()));
        assert_eq!(
            HalfOptions::parse("half_wg256_nf3_nb2_kh8"),
            Some(HalfOptions {
                wgx: Some(256),
                nf: Some(3),
                nb: Some(2),
                kh: Some(8),
                f32: None,
                late: None,
                const_weights: None
            })
        );
        assert_eq!(
            HalfOptions::parse("half_cw"),
            Some(HalfOptions {
                const_weights: Some(true),
                ..Default::default()
            })
        );
        assert_eq!(HalfOptions::parse("half_wg100"), None);
        assert_eq!(HalfOptions::parse("halfx"), None);
    }
}
