//! The GPU schedules of `gaussian_blur` (the algorithm and its CPU twin are `super`): the
//! [`Schedule`] enum, [`Schedule::choose`] with the measurement behind each choice, the names
//! `--schedule gaussian_blur=<name>` accepts ([`Schedule::parse`]), and each schedule's kernel
//! beside it: the f16 direct filter (`half`), the fused tile, the two-pass sliding window, the
//! decimated grid (`decimate`), and the RGBA16 and Gray8 schedules (`blur16`, `blur_gray`).

use bytemuck::Zeroable;

use super::*;
use crate::error::Error;
use crate::runtime::wgsl_template::{replace_block, specialize};
use crate::runtime::{groups_2d, Kernel};

pub mod blur16;
pub mod blur_gray;
pub(super) mod decimate;
pub(super) mod half;

pub(super) const WGSL: &str = include_str!("gaussian_blur.wgsl");
const FUSED_WGSL: &str = include_str!("gaussian_blur_fused.wgsl");
const WINDOW_WGSL: &str = include_str!("gaussian_blur_window.wgsl");

/// How the GPU side runs: by default [`Schedule::choose`]; tests force one with
/// `with_schedule`, benchmarks name one through `runtime::schedule` ([`Schedule::parse`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// One kernel for both passes, in tiles (`gaussian_blur_fused.wgsl`).
    Fused(FusedTile),
    /// Two register-blocked passes through an Rgba32F temporary (`gaussian_blur_window.wgsl`).
    TwoPass,
    /// `TwoPass` with the row segment kept packed RGBA8 in workgroup memory, unpacked at
    /// every window read.
    TwoPassPacked,
    /// The exact blur at the nodes of a grid `decimation_step` pixels apart, cubic
    /// interpolation between them (`gaussian_blur_decimate.wgsl`); within one level of the
    /// twin by construction, and only where `decimation_step` finds a spacing that keeps
    /// that bound. Knobs left `None` take the measured defaults.
    Decimate(DecimateOptions),
    /// The direct filter in f16 arithmetic (`gaussian_blur_half.wgsl`), within one level of
    /// the twin by `half_error_bound`; only up to `MAX_HALF_RADIUS` and on devices with
    /// `shader-f16`.
    Half(HalfOptions),
}

/// What the choice of schedule depends on besides a name: the blur's radius, what its
/// weights allow, and the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScheduleContext {
    /// The blur's radius in pixels.
    pub radius: u32,
    /// The decimated schedule's node spacing (`decimation_step`), if one keeps its bound.
    pub step: Option<u32>,
    /// Whether the f16 schedule may run: the device has `shader-f16` and `half_error_bound`
    /// holds at this sigma.
    pub f16: bool,
    /// The device's workgroup memory per workgroup, in bytes.
    pub workgroup_memory: u64,
}

impl ScheduleContext {
    /// For the blur of `sigma` on a device with (`has_f16`) or without `shader-f16` and
    /// `workgroup_memory` bytes of workgroup memory.
    pub fn new(sigma: f32, has_f16: bool, workgroup_memory: u64) -> Self {
        let (r, w) = (radius(sigma), weights(sigma));
        // no spacing keeps the bound at the fused tile's radii (the first is near sigma 4.7,
        // radius 15; a unit test pins it), so the search is skipped there
        let step = if r > MAX_FUSED_RADIUS {
            decimation_step(&w)
        } else {
            None
        };
        Self {
            radius: r,
            step,
            f16: has_f16 && half_applies(&w),
            workgroup_memory,
        }
    }

    /// `Half(o)` where it runs: in f16 where `f16` allows, in f32 (`o.f32`) up to
    /// `MAX_HALF_RADIUS`, and only where it fits the workgroup memory.
    fn half(&self, o: HalfOptions) -> Option<Schedule> {
        let applies = if o.f32 == Some(true) {
            self.radius <= MAX_HALF_RADIUS
        } else {
            self.f16
        };
        (applies && half_fits(self.radius, o, self.workgroup_memory)).then_some(Schedule::Half(o))
    }

    /// `Decimate(o)` where a node spacing keeps its bound.
    fn decimate(&self, o: DecimateOptions) -> Option<Schedule> {
        self.step.map(|_| Schedule::Decimate(o))
    }
}

/// Bench-only ablation: one pass of a multi-pass schedule alone, so a wrong image (named by a
/// `_h_only`, `_v_only` or `_up_only` suffix; docs/perf-notes.md places the passes' times).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassAlone {
    /// `_h_only`: the row pass.
    Rows,
    /// `_v_only`: the column pass.
    Columns,
    /// `_up_only`: the decimated schedule's interpolation pass.
    Interpolation,
}

impl Schedule {
    /// The default (H200 at 4K; BENCHMARKS.md run s9-b2 unless named; the measurements
    /// behind each branch: docs/perf-notes.md, "Gaussian blur: the default's branches").
    pub fn choose(c: &ScheduleContext) -> Schedule {
        // f16 up to sigma 5: sigma 2 / 3 / 4 0.0525 / 0.0682 / 0.0877 ms (2.45 / 3.19 / 4.10x copy)
        if let Some(s) = c.half(HalfOptions::default()) {
            return s;
        }
        // without f16, the same shape in f32 to radius 12: radius 6 / 9 / 12 0.0983 / 0.1390 / 0.1593 ms (run g8)
        if c.radius <= HALF_F32_MAX_RADIUS {
            if let Some(s) = c.half(HalfOptions {
                f32: Some(true),
                ..Default::default()
            }) {
                return s;
            }
        }
        // the fused tile where that shape does not fit: radius 6 0.1537 ms (run 15)
        if let Some(t) = choose_tile(c.radius, c.workgroup_memory) {
            return Schedule::Fused(t);
        }
        // decimated from sigma ~5.1: sigma 8 / 32 0.1020 / 0.0952 ms (4.77 / 4.45x copy)
        if let Some(s) = c.decimate(DecimateOptions::default()) {
            return s;
        }
        // two passes in between: sigma 5 0.2213 ms (run s7-g1); packed from radius 16, see WINDOW_PACKED_FROM
        if c.radius >= WINDOW_PACKED_FROM {
            Schedule::TwoPassPacked
        } else {
            Schedule::TwoPass
        }
    }

    /// The schedule a variant name asks for (`runtime::schedule`, key `gaussian_blur`), and
    /// the pass its bench-only suffix runs alone. `tile`: the default; `f32`: the default
    /// without f16; `twopass`, `twopass_packed`: the two passes, row segment unpacked or
    /// packed; `tile<tw>x<th>h<kh>v<kv>`: a fused tile; `decimate[_knob]*`
    /// ([`DecimateOptions`]) and `half[_knob]*` ([`HalfOptions`]): that schedule where it
    /// runs at this sigma on this device, the default elsewhere.
    pub fn parse(name: &str, c: &ScheduleContext) -> Result<(Schedule, Option<PassAlone>)> {
        let (mut name, mut alone) = (name, None);
        for (suffix, pass) in [
            ("_h_only", PassAlone::Rows),
            ("_v_only", PassAlone::Columns),
            ("_up_only", PassAlone::Interpolation),
        ] {
            if let Some(n) = name
                .strip_suffix(suffix)
                .filter(|_| cfg!(feature = "bench"))
            {
                (name, alone) = (n, Some(pass));
            }
        }
        let schedule = match name {
            "tile" => Self::choose(c),
            "f32" => Self::choose(&ScheduleContext { f16: false, ..*c }),
            "twopass" => Schedule::TwoPass,
            "twopass_packed" => Schedule::TwoPassPacked,
            other => match (
                parse_tile(other),
                DecimateOptions::parse(other),
                HalfOptions::parse(other),
            ) {
                (Some(t), ..) => Schedule::Fused(t),
                (_, Some(o), _) => c.decimate(o).unwrap_or_else(|| Self::choose(c)),
                (.., Some(o)) => c.half(o).unwrap_or_else(|| Self::choose(c)),
                _ => {
                    return Err(crate::runtime::schedule::unknown(
                        DEF.name,
                        other,
                        &[
                            "tile",
                            "f32",
                            "twopass",
                            "twopass_packed",
                            "decimate[_<knob>]* (see DecimateOptions)",
                            "half[_<knob>]* (see HalfOptions)",
                            "tile<tw>x<th>h<kh>v<kv>",
                        ],
                    ))
                }
            },
        };
        Ok((schedule, alone))
    }
}

/// Records `f` on RGBA8 with the schedule forced by `with_schedule`, else the one named in the
/// run's schedule overrides, else [`Schedule::choose`]'s.
pub(super) fn record(
    f: &GaussianBlur,
    rec: &mut NodeRecorder<'_>,
    input: &GpuSlot,
    output: &GpuSlot,
    d: ImageDesc,
) -> Result<()> {
    let limit = rec.gpu().limits.max_compute_workgroup_storage_size as u64;
    let ctx = ScheduleContext::new(f.sigma, rec.gpu().has_f16(), limit);
    let (named, alone) = match crate::runtime::schedule::get(DEF.name) {
        Some(v) => {
            let (s, alone) = Schedule::parse(&v, &ctx)?;
            (Some(s), alone)
        }
        None => (None, None),
    };
    // a schedule forced by `with_schedule` wins over a named one (whose pass-alone suffix
    // still applies)
    match f
        .schedule
        .or(named)
        .unwrap_or_else(|| Schedule::choose(&ctx))
    {
        Schedule::Fused(t) => f.record_fused(rec, input, output, d, t, limit),
        Schedule::Decimate(o) => decimate::record(f, rec, input, output, d, ctx.step, o, alone),
        Schedule::Half(o) => half::record(f, rec, input, output, d, o),
        Schedule::TwoPass => f.record_two_pass(rec, input, output, d, false, alone),
        Schedule::TwoPassPacked => f.record_two_pass(rec, input, output, d, true, alone),
    }
}

/// A fused-kernel schedule: `tw x th` output tile, `kh`/`kv` consecutive outputs per
/// invocation in the horizontal/vertical pass. Schedule choice, not algorithm; the
/// candidates and the cost model below are to be measured on H100.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FusedTile {
    /// Output tile width.
    pub tw: u32,
    /// Output tile height.
    pub th: u32,
    /// Consecutive outputs per invocation in the horizontal pass.
    pub kh: u32,
    /// Consecutive outputs per invocation in the vertical pass.
    pub kv: u32,
}

/// Invocations per workgroup of the fused kernel (fixed in the WGSL).
pub(super) const FUSED_WG: u32 = 256;

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
        let (tw, th, kh, kv) = (
            self.tw as f64,
            self.th as f64,
            self.kh as f64,
            self.kv as f64,
        );
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

/// Largest radius run by the fused kernel. Schedule choice, measured on the H200 at 4K
/// (run 15, same process): the register-blocked two passes take 0.194 / 0.203 / 0.223 ms at
/// radius 6 / 9 / 15, the best fused tiles 0.153 / 0.227 / 0.438 ms; the lines cross near
/// radius 8.
pub(super) const MAX_FUSED_RADIUS: u32 = 7;

/// The fused tile measured fastest at radius 6 on the H200 (run 15: 0.1537 ms; the cost
/// model's 32x32 h8 v4 0.1626, 32x64 h8 v8 0.1532 with 1.7x the workgroup memory, 64x32 h16
/// v8 0.2252). Used up to `MAX_FUSED_RADIUS` wherever it fits (15 KB at radius 7).
const MEASURED_TILE: FusedTile = FusedTile {
    tw: 16,
    th: 64,
    kh: 8,
    kv: 4,
};

/// The cheapest fused schedule fitting in `limit` bytes of workgroup memory, if any
/// (none for radii above `MAX_FUSED_RADIUS`: the two-pass fallback is then faster).
pub fn choose_tile(r: u32, limit: u64) -> Option<FusedTile> {
    if r > MAX_FUSED_RADIUS {
        return None;
    }
    if MEASURED_TILE.bytes(r) <= limit {
        return Some(MEASURED_TILE);
    }
    let mut best: Option<(f64, FusedTile)> = None;
    for kv in [1u32, 2, 4, 8] {
        for tw in [8u32, 16, 32, 64] {
            let th = FUSED_WG * kv / tw;
            if th < 8 || !th.is_multiple_of(kv) {
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

/// `tile<tw>x<th>h<kh>v<kv>` (e.g. `tile32x32h8v4`), as `FusedTile`'s fields.
pub(super) fn parse_tile(name: &str) -> Option<FusedTile> {
    let rest = name.strip_prefix("tile")?;
    let (tw, rest) = rest.split_once('x')?;
    let (th, rest) = rest.split_once('h')?;
    let (kh, kv) = rest.split_once('v')?;
    Some(FusedTile {
        tw: tw.parse().ok()?,
        th: th.parse().ok()?,
        kh: kh.parse().ok()?,
        kv: kv.parse().ok()?,
    })
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
        s.push_str(&format!(
            "    let p{j} = byte_f32(tile_in[ib + {j}u], shift);\n"
        ));
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
        s.push_str(&format!(
            "    let p{j} = tile_h[(oy + {j}u) * H_STRIDE + col];\n"
        ));
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

/// Outputs per invocation of the two-pass window kernels, and the row pass's workgroup
/// size. Schedule choice: B = 8 keeps 8 vec4 accumulators and an 8-input window (~80
/// registers) and reads each input (2R + 16) / 8 times; to be measured on H200.
const WINDOW_B: u32 = 8;
const _: () = assert!(
    WINDOW_B.is_multiple_of(4)
        && WEIGHT_VECS * 4 >= MAX_TAPS.div_ceil(WINDOW_B as usize) * WINDOW_B as usize
);
const WINDOW_HWG: u32 = 32;

/// From this radius the row pass keeps its segment packed RGBA8 in workgroup memory (4x the
/// resident invocations, an unpack at every window read). Schedule choice, H200 run 15 at
/// 4K: packed 0.2275 / 0.2508 / 0.8316 ms against unpacked 0.2014 / 0.2890 / 0.8695 ms at
/// radius 9 / 24 / 96; the switch sits between the measured radii, not at a measured one.
const WINDOW_PACKED_FROM: u32 = 16;

/// From this radius the window passes read their weights a vec4 at a time with static
/// components, below it one at a time with a dynamic component (`tap`). Schedule choice,
/// H200 runs 16, 16b, 17b at 4K: static 0.2107 / 0.2566 / 0.7087 ms against dynamic
/// 0.2016 / 0.2515 / 0.8314 ms at radius 9 / 24 / 96 (with static weights the column pass
/// got slower at radius 24, 0.103 -> 0.115 ms, reason not established; and `tap` clamping
/// its index to the array's end instead of to 2R measured 0.2101 / 0.2683 ms, run 17);
/// the switch sits between measured radii.
const WINDOW_STATIC_FROM: u32 = 48;

/// Unrolled sliding-window body over B steps per loop trip (see gaussian_blur_window.wgsl):
/// input j sits in `p{j % B}`, so step s of a trip adds `w * p{(s + o) % B}` to output o,
/// then refills `p{s}` with input j + B.
fn gen_window(b: u32, static_weights: bool, load: impl Fn(&str) -> String) -> String {
    let mut s = String::new();
    for o in 0..b {
        s.push_str(&format!("    var a{o} = vec4<f32>(0.0);\n"));
    }
    for j in 0..b {
        s.push_str(&format!("    var p{j} = {};\n", load(&format!("{j}u"))));
    }
    s.push_str("    for (var kb = 0u; kb < STEPS; kb += B) {\n");
    // kb is a multiple of B (a multiple of 4), so weight kb + st is component st % 4 of
    // vec4 kb / 4 + st / 4: a static component (weights past the last tap are zero); or
    // one weight at a time through `tap`, a dynamic component (see WINDOW_STATIC_FROM)
    for st in 0..b {
        if static_weights {
            s.push_str(&format!(
                "        let w{st} = gp.w[kb / 4u + {}u].{};\n",
                st / 4,
                LANES[(st % 4) as usize]
            ));
        } else {
            s.push_str(&format!("        let w{st} = tap(kb + {st}u);\n"));
        }
        for o in 0..b {
            s.push_str(&format!("        a{o} += w{st} * p{};\n", (st + o) % b));
        }
        s.push_str(&format!(
            "        p{st} = {};\n",
            load(&format!("kb + {}u", st + b))
        ));
    }
    s.push_str("    }\n");
    s
}

/// The two-pass window kernels' source for radius `r`.
pub fn window_source(r: u32, packed: bool) -> Result<String> {
    let b = WINDOW_B;
    let static_weights = r >= WINDOW_STATIC_FROM;
    let s = specialize(
        &format!("{}{WGSL}\n{WINDOW_WGSL}", GaussianBlurParams::WGSL),
        &[
            ("R", r),
            ("B", b),
            ("HWG", WINDOW_HWG),
            ("PACKED", packed as u32),
        ],
    )?;
    let s = replace_block(
        &s,
        "window_h",
        &gen_window(b, static_weights, |j| format!("row_in(base, {j})")),
    )?;
    let store_h: String = (0..b)
        .map(|o| format!("    if (x + {o}u < gp.width) {{ tmp_out[row + x + {o}u] = a{o}; }}\n"))
        .collect();
    let s = replace_block(&s, "window_h_store", &store_h)?;
    let s = replace_block(
        &s,
        "window_v",
        &gen_window(b, static_weights, |j| format!("col_in(x, y0, {j})")),
    )?;
    let store_v: String = (0..b).map(|o| format!("    if (y0 + {o}u < gp.height) {{ dst[(y0 + {o}u) * gp.width + x] = pack_rounded(a{o}); }}\n")).collect();
    replace_block(&s, "window_v_store", &store_v)
}

/// The fused kernel's source for radius `r` and schedule `t`.
pub fn fused_source(r: u32, t: FusedTile) -> Result<String> {
    let s = specialize(
        &format!("{}{WGSL}\n{FUSED_WGSL}", GaussianBlurParams::WGSL),
        &[
            ("R", r),
            ("TW", t.tw),
            ("TH", t.th),
            ("KH", t.kh),
            ("KV", t.kv),
        ],
    )?;
    let s = replace_block(&s, "h_segment", &gen_h(r, t.kh))?;
    replace_block(&s, "v_segment", &gen_v(r, t.kv))
}

impl GaussianBlur {
    /// The fused kernel with tile `t` (`gaussian_blur_fused.wgsl`); `limit`: the device's
    /// workgroup memory.
    fn record_fused(
        &self,
        rec: &mut NodeRecorder<'_>,
        input: &GpuSlot,
        output: &GpuSlot,
        d: ImageDesc,
        t: FusedTile,
        limit: u64,
    ) -> Result<()> {
        let r = self.radius();
        if t.bytes(r) > limit {
            return Err(Error::schedule_unsupported("gaussian_blur", format!("a {}x{} tile at radius {r} needs {} bytes of workgroup memory, the device has {limit}", t.tw, t.th, t.bytes(r))));
        }
        if t.tw * t.th != FUSED_WG * t.kv
            || !t.tw.is_multiple_of(t.kh)
            || !t.th.is_multiple_of(t.kv)
        {
            return Err(Error::schedule_unsupported(
                "gaussian_blur",
                format!("invalid tile {t:?}"),
            ));
        }
        let key = format!(
            "gaussian_blur.fused.r{r}.{}x{}.h{}.v{}",
            t.tw, t.th, t.kh, t.kv
        );
        let mut kernel = Kernel::new(&key, &[], "fused");
        kernel.generated = Some(fused_source(r, t)?);
        let params = self.params(d.width, d.height);
        rec.dispatch(
            &kernel,
            &[&input.buffer, &output.buffer],
            bytemuck::bytes_of(&params),
            groups_2d(d.width, d.height, t.tw, t.th),
        )
    }

    /// The two register-blocked passes through an Rgba32F temporary
    /// (`gaussian_blur_window.wgsl`), the row segment `packed` or not; `alone`: one pass only
    /// (bench-only ablation).
    fn record_two_pass(
        &self,
        rec: &mut NodeRecorder<'_>,
        input: &GpuSlot,
        output: &GpuSlot,
        d: ImageDesc,
        packed: bool,
        alone: Option<PassAlone>,
    ) -> Result<()> {
        let r = self.radius();
        let params = self.params(d.width, d.height);
        let uniform = bytemuck::bytes_of(&params);
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
        let key = format!("gaussian_blur.window.r{r}.p{}", packed as u32);
        let mut h = Kernel::new(&key, &[], "window_h");
        h.generated = Some(window_source(r, packed)?);
        let mut v = Kernel::new(&key, &[], "window_v");
        v.generated = h.generated.clone();
        if alone != Some(PassAlone::Columns) {
            rec.dispatch(
                &h,
                &[&input.buffer, &tmp],
                uniform,
                [d.width.div_ceil(WINDOW_B * WINDOW_HWG), d.height, 1],
            )?;
        }
        if alone == Some(PassAlone::Rows) {
            return Ok(());
        }
        rec.dispatch(
            &v,
            &[&tmp, &output.buffer],
            uniform,
            groups_2d(d.width, d.height.div_ceil(WINDOW_B), 64, 4),
        )
    }

    fn params(&self, width: u32, height: u32) -> GaussianBlurParams {
        let mut p = GaussianBlurParams::zeroed();
        (p.width, p.height, p.radius) = (width, height, self.radius());
        for (k, w) in self.weights().iter().enumerate().take(MAX_TAPS) {
            p.w[k / 4][k % 4] = *w;
        }
        p
    }
}
