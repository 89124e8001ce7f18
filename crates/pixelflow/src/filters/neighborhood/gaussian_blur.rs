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
//! `MAX_FUSED_RADIUS`. Beyond, from sigma ~5.1, the decimated schedule
//! (`gaussian_blur_decimate.wgsl`): the exact blur at the nodes of a grid `decimation_step`
//! pixels apart, cubic interpolation between them, with an error bound for any image
//! computed per sigma (`decimation_error_bound`) and kept below one level. Where no
//! spacing keeps the bound (radius 8..15), two passes through an Rgba32F temporary, each
//! making 8 consecutive outputs per invocation from a sliding window of inputs held in
//! registers (`gaussian_blur_window.wgsl`).

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
const WINDOW_WGSL: &str = include_str!("gaussian_blur_window.wgsl");
const DECIMATE_WGSL: &str = include_str!("gaussian_blur_decimate.wgsl");

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
    pub sigma: f32,
    schedule: Option<Schedule>,
}

/// How the GPU side runs (normally chosen from the radius and the device's workgroup
/// memory; tests and benchmarks may force one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
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
}

/// Schedule knobs of the decimated passes. Benchmarks name them as `decimate` followed by
/// `_<knob>` for each set one: `packed` / `unpacked` / `direct` (row source), `b<N>` (row-pass
/// nodes per invocation), `bv<N>` (column-pass nodes per invocation), `th<N>` (output rows
/// per interpolation invocation), `unorm16` / `f16` / `f32` (node storage); e.g.
/// `decimate_packed_bv4`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecimateOptions {
    pub row: Option<RowSource>,
    pub b: Option<u32>,
    pub bv: Option<u32>,
    pub th: Option<u32>,
    pub nodes: Option<NodeFormat>,
    /// Output bytes rounded by adding 1.5 * 2^23 (full-rate float adds and byte masks)
    /// instead of `pack4x8unorm` (float-to-int conversions at quarter rate).
    pub magic_pack: Option<bool>,
    /// The interpolation pass walks whole node intervals (TH rounded up to a multiple of D),
    /// the D rows of each unrolled, so each row's cubic weights are static operands
    /// instead of a uniform load with a dynamic index on every row.
    pub intervals: Option<bool>,
    /// Column-pass invocations per node column, each summing every PS-th phase.
    pub ps: Option<u32>,
    /// Invocations per row-pass workgroup.
    pub hwg: Option<u32>,
    /// Output columns per interpolation invocation: 4 or 2.
    pub columns: Option<u32>,
}

/// How the decimated passes store node values between them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeFormat {
    /// 16-bit unorm per channel: at most 0.002 levels off; 4 int-to-float conversions per load.
    Unorm16,
    /// f16 per channel, offset by -0.5: at most 255 * 2^-13 = 0.031 levels off.
    F16,
    /// f32 per channel: twice the bytes, no conversion.
    F32,
}

impl NodeFormat {
    fn bytes(self) -> u64 {
        match self {
            NodeFormat::Unorm16 | NodeFormat::F16 => 8,
            NodeFormat::F32 => 16,
        }
    }
    fn wgsl(self) -> &'static str {
        match self {
            NodeFormat::Unorm16 => "alias Node = vec2<u32>;\nfn node_store(v: vec4<f32>) -> Node {\n    return vec2<u32>(pack2x16unorm(v.xy), pack2x16unorm(v.zw));\n}\nfn node_load(p: Node) -> vec4<f32> {\n    return vec4<f32>(unpack2x16unorm(p.x), unpack2x16unorm(p.y));\n}\n",
            NodeFormat::F16 => "alias Node = vec2<u32>;\nfn node_store(v: vec4<f32>) -> Node {\n    let c = v - vec4<f32>(0.5);\n    return vec2<u32>(pack2x16float(c.xy), pack2x16float(c.zw));\n}\nfn node_load(p: Node) -> vec4<f32> {\n    return vec4<f32>(unpack2x16float(p.x), unpack2x16float(p.y)) + vec4<f32>(0.5);\n}\n",
            NodeFormat::F32 => "alias Node = vec4<f32>;\nfn node_store(v: vec4<f32>) -> Node {\n    return v;\n}\nfn node_load(p: Node) -> vec4<f32> {\n    return p;\n}\n",
        }
    }
}

impl DecimateOptions {
    /// `decimate[_knob]*` as above; `None` if `name` is not one.
    pub fn parse(name: &str) -> Option<Self> {
        let rest = name.strip_prefix("decimate")?;
        let mut o = DecimateOptions::default();
        for t in rest.split('_').filter(|t| !t.is_empty()) {
            let num = |p: &str| t.strip_prefix(p).and_then(|n| n.parse::<u32>().ok());
            match t {
                "packed" => o.row = Some(RowSource::Packed),
                "unpacked" => o.row = Some(RowSource::Unpacked),
                "direct" => o.row = Some(RowSource::Direct),
                "unorm16" => o.nodes = Some(NodeFormat::Unorm16),
                "f16" => o.nodes = Some(NodeFormat::F16),
                "f32" => o.nodes = Some(NodeFormat::F32),
                "magic" => o.magic_pack = Some(true),
                "iv" => o.intervals = Some(true),
                _ if num("ps").is_some_and(|n| (1..=16).contains(&n)) => o.ps = num("ps"),
                _ if num("hwg").is_some_and(|n| [32, 64, 128, 256].contains(&n)) => o.hwg = num("hwg"),
                _ if num("c").is_some_and(|n| [2, 4].contains(&n)) => o.columns = num("c"),
                "rowloop" => o.intervals = Some(false),
                "pack4x8" => o.magic_pack = Some(false),
                _ if num("bv").is_some_and(|n| (1..=8).contains(&n)) => o.bv = num("bv"),
                _ if num("b").is_some_and(|n| (2..=16).contains(&n)) => o.b = num("b"),
                _ if num("th").is_some_and(|n| (1..=64).contains(&n)) => o.th = num("th"),
                _ => return None,
            }
        }
        Some(o)
    }
}

/// Where the decimated row pass reads its row segment from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowSource {
    /// Unpacked to vec4<f32> in workgroup memory.
    Unpacked,
    /// Packed RGBA8 in workgroup memory, unpacked at each read.
    Packed,
    /// Straight from the image, through the L1 cache.
    Direct,
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
    /// Node columns and rows of the decimated schedule.
    pub nodes_x: u32,
    pub nodes_y: u32,
    /// Node columns per workgroup of the decimated row pass.
    pub seg_nodes: u32,
    pub _pad: [u32; 2],
    /// Weight `k` at `w[k / 4][k % 4]`.
    pub w: [[f32; 4]; WEIGHT_VECS],
    /// Decimated schedule, node spacing `D`: weight `q * D + s` at `wp[s * QV + q / 4][q % 4]`.
    pub wp: [[f32; 4]; POLY_VECS],
    /// Decimated schedule: the cubic's 4 weights at `t = p / D` for each phase `p < D`.
    pub cubic: [[f32; 4]; MAX_STEP as usize],
}

pub static DEF: FilterDef = FilterDef {
    name: "gaussian_blur",
    family: Family::Neighborhood,
    summary: "Gaussian blur (separable, replicate-edge borders).",
    doc: "Kernel radius ceil(3*sigma) on each side; weights exp(-x^2/(2 sigma^2)) normalised to sum 1, computed once in f32 and shared by GPU and CPU. \
          Horizontal pass then vertical pass in f32 without intermediate rounding; the result is rounded half up like pack4x8unorm. \
          Borders replicate the edge pixel. GPU: up to radius 7 one fused tiled kernel (tile + halo loaded once into workgroup memory, \
          horizontal then vertical pass per channel through workgroup memory, no full-size intermediate). From sigma ~5.1 the exact blur is \
          computed only at the nodes of a coarser grid (spacing 2 at sigma 5.1 up to 11 at sigma 32) and interpolated between them with \
          4-point cubics; the spacing is the largest whose error bound, computed for the sigma at hand and valid for any image, stays \
          below 0.8 level, so the output stays within one level of the twin's (documented tolerance; the twin stays the direct filter). \
          In between, two passes through an Rgba32F temporary, 8 outputs per invocation from a sliding window of inputs in registers.",
    gpuimage: "GPUImageGaussianBlurFilter",
    params: &[ParamDef::float("sigma", 2.0, 0.1, 32.0, "standard deviation in pixels (radius ceil(3*sigma))")],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(GaussianBlur::new(a.f32("sigma")?)?)),
    uniforms: &[UniformLayout { wgsl: WGSL, wgsl_struct: "GaussianBlurParams", rust_size: std::mem::size_of::<GaussianBlurParams>() }],
    test_inputs: None,
    schedules: &["twopass", "twopass_packed", "decimate_packed", "decimate_unpacked", "decimate_f16", "decimate_f32"],
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

/// Largest radius run by the fused kernel. Schedule choice, measured on the H200 at 4K
/// (run 15, same process): the register-blocked two passes take 0.194 / 0.203 / 0.223 ms at
/// radius 6 / 9 / 15, the best fused tiles 0.153 / 0.227 / 0.438 ms; the lines cross near
/// radius 8.
const MAX_FUSED_RADIUS: u32 = 7;

/// The fused tile measured fastest at radius 6 on the H200 (run 15: 0.1537 ms; the cost
/// model's 32x32 h8 v4 0.1626, 32x64 h8 v8 0.1532 with 1.7x the workgroup memory, 64x32 h16
/// v8 0.2252). Used up to `MAX_FUSED_RADIUS` wherever it fits (15 KB at radius 7).
const MEASURED_TILE: FusedTile = FusedTile { tw: 16, th: 64, kh: 8, kv: 4 };

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

/// `tile<tw>x<th>h<kh>v<kv>` (e.g. `tile32x32h8v4`), as `FusedTile`'s fields.
fn parse_tile(name: &str) -> Option<FusedTile> {
    let rest = name.strip_prefix("tile")?;
    let (tw, rest) = rest.split_once('x')?;
    let (th, rest) = rest.split_once('h')?;
    let (kh, kv) = rest.split_once('v')?;
    Some(FusedTile { tw: tw.parse().ok()?, th: th.parse().ok()?, kh: kh.parse().ok()?, kv: kv.parse().ok()? })
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

/// Outputs per invocation of the two-pass window kernels, and the row pass's workgroup
/// size. Schedule choice: B = 8 keeps 8 vec4 accumulators and an 8-input window (~80
/// registers) and reads each input (2R + 16) / 8 times; to be measured on H200.
const WINDOW_B: u32 = 8;
const _: () = assert!(WINDOW_B % 4 == 0 && WEIGHT_VECS * 4 >= MAX_TAPS.div_ceil(WINDOW_B as usize) * WINDOW_B as usize);
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
            s.push_str(&format!("        let w{st} = gp.w[kb / 4u + {}u].{};\n", st / 4, LANES[(st % 4) as usize]));
        } else {
            s.push_str(&format!("        let w{st} = tap(kb + {st}u);\n"));
        }
        for o in 0..b {
            s.push_str(&format!("        a{o} += w{st} * p{};\n", (st + o) % b));
        }
        s.push_str(&format!("        p{st} = {};\n", load(&format!("kb + {}u", st + b))));
    }
    s.push_str("    }\n");
    s
}

/// The two-pass window kernels' source for radius `r`.
pub fn window_source(r: u32, packed: bool) -> Result<String> {
    let b = WINDOW_B;
    let static_weights = r >= WINDOW_STATIC_FROM;
    let s = specialize(&format!("{WGSL}\n{WINDOW_WGSL}"), &[("R", r), ("B", b), ("HWG", WINDOW_HWG), ("PACKED", packed as u32)])?;
    let s = replace_block(&s, "window_h", &gen_window(b, static_weights, |j| format!("row_in(base, {j})")))?;
    let store_h: String = (0..b).map(|o| format!("    if (x + {o}u < gp.width) {{ tmp_out[row + x + {o}u] = a{o}; }}\n")).collect();
    let s = replace_block(&s, "window_h_store", &store_h)?;
    let s = replace_block(&s, "window_v", &gen_window(b, static_weights, |j| format!("col_in(x, y0, {j})")))?;
    let store_v: String = (0..b).map(|o| format!("    if (y0 + {o}u < gp.height) {{ dst[(y0 + {o}u) * gp.width + x] = pack_rounded(a{o}); }}\n")).collect();
    replace_block(&s, "window_v_store", &store_v)
}

/// The fused kernel's source for radius `r` and schedule `t`.
pub fn fused_source(r: u32, t: FusedTile) -> Result<String> {
    let s = specialize(&format!("{WGSL}\n{FUSED_WGSL}"), &[("R", r), ("TW", t.tw), ("TH", t.th), ("KH", t.kh), ("KV", t.kv)])?;
    let s = replace_block(&s, "h_segment", &gen_h(r, t.kh))?;
    replace_block(&s, "v_segment", &gen_v(r, t.kv))
}

/// Node outputs per invocation of the decimated schedule's row and column passes (even,
/// for the bank-conflict-free row segment layout), the row pass's workgroup size, and the
/// output rows per invocation of the interpolation pass. Schedule choice, first guesses
/// (B and HWG as the two-pass window's); to be measured on the H200.
const DECIM_B: u32 = 8;
const DECIM_HWG: u32 = 32;
const DECIM_TH: u32 = 16;
/// Node outputs per invocation of the column pass. Schedule choice, H200 at 4K (run g5),
/// whole schedule, BV 1 / 2 / 4 / 8: sigma 8 0.146 / 0.133 / 0.127 / 0.125 ms; sigma 32 (a
/// twentieth of the nodes) 0.195 / 0.194 / 0.192 / - ms.
const DECIM_BV: u32 = 4;
const _: () = assert!(DECIM_B % 2 == 0);
/// Default node outputs per invocation of the row pass for row source `row` and node
/// spacing `d`. Schedule choice: reading straight from memory, the invocations' reads are
/// B * D pixels apart and some strides run far slower than others (L1 set conflicts, by the
/// look of it: powers of two, and others). H200 at 4K, run g5, total ms by B:
/// D = 3: B 5 / 6 / 7 / 8 / 9 = 0.136 / 0.134 / 0.133 / 0.135 / 0.132;
/// D = 4: 0.139 / 0.143 / 0.137 / 0.191 / 0.136; D = 5: B 6 / 7 / 8 = 0.149 / 0.140 / 0.149;
/// D = 8: 0.155 / 0.146 / 0.205; D = 11: B 5 / 6 / 7 / 8 / 9 = 0.150 / 0.232 / 0.194 /
/// 0.153 / 0.154. Run g10 (other knobs at today's defaults): D = 3 B 11 / 13 / 15 = 0.112 /
/// 0.120 / 0.120 against B 9's 0.111; D = 4 B 11 / 13 = 0.110 / 0.119 against B 9's 0.114;
/// D = 11 B 3 / 4 / 7 = 0.128 / 0.124 / 0.173 against B 5's 0.129. In workgroup memory B
/// stays 8 (even, for the padded layout).
fn row_pass_b(row: RowSource, d: u32) -> u32 {
    match (row, d) {
        (RowSource::Direct, ..=3) => 9,
        (RowSource::Direct, 4) => 11,
        (RowSource::Direct, 5..=10) => 7,
        (RowSource::Direct, _) => 4,
        _ => DECIM_B,
    }
}

/// Default node storage between the decimated passes. Schedule choice, H200 at 4K (run g5):
/// the column pass alone at sigma 8 takes 0.034 / 0.027 / 0.031 ms with unorm16 / f16 / f32
/// nodes (the whole schedule 0.133 / 0.123 / 0.127); f16 adds at most 0.1 level to the bound
/// (see DECIMATION_MAX_ERROR).
const DECIM_NODES: NodeFormat = NodeFormat::F16;

/// Default output packing of the interpolation pass (see `DecimateOptions::magic_pack`).
/// Schedule choice, H200 at 4K (run g6): the interpolation pass alone at sigma 8 / 32
/// 0.0380 / 0.0318 ms against `pack4x8unorm`'s 0.0395 / 0.0331.
const DECIM_MAGIC_PACK: bool = true;

/// Default for `DecimateOptions::intervals`. Schedule choice, H200 at 4K (run g7): the
/// interpolation pass alone at sigma 8 / 32 0.0297 / 0.0243 ms against 0.0376 / 0.0312 with
/// a uniform load of the row's weights at a dynamic index on every row.
const DECIM_INTERVALS: bool = true;

/// Default output columns per interpolation invocation. Schedule choice, H200 at 4K (run
/// g11), whole schedule, 4 / 2 columns: sigma 8 0.1102 / 0.1075 ms, sigma 12 0.1096 /
/// 0.1090, sigma 32 0.1234 / 0.1187.
const DECIM_COLUMNS: u32 = 2;

/// Default column-pass phase groups and nodes per invocation for node spacing `d`: with a
/// wide spacing there are few nodes, so the phases are split over 4 invocations per column.
/// Schedule choice, H200 at 4K (run g8), whole schedule, ms: D = 3 (sigma 8) ps1 bv4 0.111,
/// ps3 bv4 0.114, ps3 bv2 0.118; D = 4 ps1 0.115, ps4 0.118; D = 5 ps1 0.120, ps4 0.123;
/// D = 8 ps1 0.131, ps4 0.128; D = 11 ps1 0.137, ps4 0.131, ps4 bv2 0.130, ps11 0.136 (the
/// column pass alone 0.024 -> 0.014 ms). The switch sits between the measured 5 and 8.
fn column_pass_shape(d: u32) -> (u32, u32) {
    if d >= 7 { (4, 2) } else { (1, DECIM_BV) }
}

/// A decimated schedule with every knob decided.
#[derive(Clone, Copy, Debug)]
struct DecimatePlan {
    step: u32,
    row: RowSource,
    b: u32,
    bv: u32,
    th: u32,
    nodes: NodeFormat,
    magic_pack: bool,
    intervals: bool,
    ps: u32,
    hwg: u32,
    columns: u32,
}

impl DecimatePlan {
    fn new(step: u32, o: DecimateOptions) -> Result<Self> {
        let row = o.row.unwrap_or(DECIM_ROW_SOURCE);
        let p = DecimatePlan { step, row, b: o.b.unwrap_or(row_pass_b(row, step)), bv: o.bv.unwrap_or(column_pass_shape(step).1), th: o.th.unwrap_or(DECIM_TH), nodes: o.nodes.unwrap_or(DECIM_NODES), magic_pack: o.magic_pack.unwrap_or(DECIM_MAGIC_PACK), intervals: o.intervals.unwrap_or(DECIM_INTERVALS), ps: o.ps.unwrap_or(column_pass_shape(step).0).min(step), hwg: o.hwg.unwrap_or(DECIM_HWG), columns: o.columns.unwrap_or(DECIM_COLUMNS) };
        let p = if p.intervals { DecimatePlan { th: p.th.next_multiple_of(step), ..p } } else { p };
        // the workgroup-memory layout needs an even B (odd stride between invocations)
        if row != RowSource::Direct && p.b % 2 != 0 {
            return Err(Error::Graph(format!("gaussian_blur: the decimated row pass with its segment in workgroup memory needs an even number of nodes per invocation, not {}", p.b)));
        }
        Ok(p)
    }
    fn key(&self, r: u32, quads: bool) -> String {
        format!("gaussian_blur.decimate.r{r}.d{}.{:?}.b{}.bv{}.th{}.{:?}.m{}.iv{}.ps{}.hwg{}.c{}.q{}", self.step, self.row, self.b, self.bv, self.th, self.nodes, self.magic_pack as u32, self.intervals as u32, self.ps, self.hwg, self.columns, quads as u32)
    }
}
/// The decimated row pass's default row source. Schedule choice, H200 at 4K (runs g1-g3):
/// unpacked 0.249 / 0.920 ms at sigma 8 / 32, packed 0.151 / 0.213 ms (NVIDIA's Vulkan
/// driver gives workgroup memory ~64 KiB per SM: 36 KiB per 32-invocation workgroup leaves
/// one resident), straight from memory 0.134 / 0.152 ms.
const DECIM_ROW_SOURCE: RowSource = RowSource::Direct;

/// Largest error, in 8-bit levels before rounding, that the decimated schedule may have by
/// its bound (`decimation_error_bound`). Below 1, so the rounded output is within one level
/// of the twin's; the margin covers the node storage between passes (f16: 0.031 levels per
/// store, twice, through the cubic's gain of at most 1.25 per direction: < 0.1 level;
/// unorm16 0.002 per store) and f32 rounding (~1e-4).
const DECIMATION_MAX_ERROR: f64 = 0.8;

/// Weights of the 4-point Lagrange cubic through nodes at -1, 0, 1, 2, evaluated at `t`.
pub fn cubic_weights(t: f64) -> [f64; 4] {
    [
        -t * (t - 1.0) * (t - 2.0) / 6.0,
        (t + 1.0) * (t - 1.0) * (t - 2.0) / 2.0,
        -(t + 1.0) * t * (t - 2.0) / 2.0,
        (t + 1.0) * t * (t - 1.0) / 6.0,
    ]
}

/// Bound on the decimated schedule's error, in 8-bit levels, for any image, with the nodes
/// `d` pixels apart and `w` the twin's weights.
///
/// At a pixel at phase p (0 <= p < d) the 1-D interpolation error is the linear functional
/// sum_x K(x) g(x), K(x) = T(p - x) - sum_j c_j(p / d) T(j d - x), of a row g of values in
/// [0, 255] (a blurred image is one); sum_x K = 0, so its largest value is 127.5 ||K||_1.
/// Interpolating down the node columns and then along the rows, the 2-D error is at most
/// e_x + L e_y with L = max_p sum_j |c_j| (the cubic's gain on the column errors).
pub fn decimation_error_bound(w: &[f32], d: u32) -> f64 {
    let (mut worst, mut gain) = (0f64, 0f64);
    for p in 0..d {
        let (_, k) = interpolation_error_kernel(w, d, p);
        worst = worst.max(127.5 * k.iter().map(|v| v.abs()).sum::<f64>());
        gain = gain.max(cubic_weights(p as f64 / d as f64).iter().map(|v| v.abs()).sum());
    }
    worst * (1.0 + gain)
}

/// K of `decimation_error_bound` at phase `p`, as (lo, K(lo), K(lo + 1), ...), positions
/// relative to the node at 0 (the nodes at -d, 0, d, 2d).
fn interpolation_error_kernel(w: &[f32], d: u32, p: u32) -> (i64, Vec<f64>) {
    let r = (w.len() / 2) as i64;
    let (d, p) = (d as i64, p as i64);
    let lo = -r - d;
    let mut k = vec![0f64; (2 * r + 3 * d + 1) as usize];
    let c = cubic_weights(p as f64 / d as f64);
    for (i, &wi) in w.iter().enumerate() {
        // T(a - x) = w[r + a - x], so tap i reaches x = a + r - i
        let off = r - i as i64;
        k[(p + off - lo) as usize] += wi as f64;
        for (j, cj) in c.iter().enumerate() {
            k[((j as i64 - 1) * d + off - lo) as usize] -= cj * wi as f64;
        }
    }
    (lo, k)
}

/// The decimated schedule's node spacing for weights `w`: the largest spacing (from 2, up to
/// `MAX_STEP`, stopping at the first that fails) whose `decimation_error_bound` stays within
/// `DECIMATION_MAX_ERROR`; `None` when not even 2 does (small sigma).
pub fn decimation_step(w: &[f32]) -> Option<u32> {
    let mut best = None;
    for d in 2..=MAX_STEP {
        if decimation_error_bound(w, d) > DECIMATION_MAX_ERROR {
            break;
        }
        best = Some(d);
    }
    best
}

/// Node columns (or rows) of the decimated grid over `len` pixels: nodes at (n - 1) * d for
/// n = 0 ..= (len - 1) / d + 3, so that every pixel has the cubic's 4.
fn node_count(len: u32, d: u32) -> u32 {
    (len - 1) / d + 4
}

/// Sliding-window body of the decimated passes (see gaussian_blur_decimate.wgsl): per
/// phase s (a loop), inputs t = 0, 1, ... of the phase's stride-D sequence in `p{t % B}`;
/// step q adds weight q * D + s times input q + b to node b.
fn gen_poly(b: u32, q: u32, phases: &str, load: impl Fn(u32) -> String) -> String {
    let mut s = String::new();
    for o in 0..b {
        s.push_str(&format!("    var a{o} = vec4<f32>(0.0);\n"));
    }
    s.push_str(&format!("    for ({phases}) {{\n"));
    for t in 0..b {
        s.push_str(&format!("        var p{t} = {};\n", load(t)));
    }
    for qi in 0..q {
        s.push_str(&format!("        let w{qi} = gp.wp[s * QV + {}u].{};\n", qi / 4, LANES[(qi % 4) as usize]));
        for o in 0..b {
            s.push_str(&format!("        a{o} += w{qi} * p{};\n", (qi + o) % b));
        }
        if qi + 1 < q {
            s.push_str(&format!("        p{} = {};\n", qi % b, load(qi + b)));
        }
    }
    s.push_str("    }\n");
    s
}

/// The interpolation pass's row walk by whole node intervals (`DecimateOptions::intervals`):
/// y0 is a multiple of D (TH is), so each interval's rows are phases 0 .. D - 1.
fn gen_up_intervals(d: u32, suffix: &str) -> String {
    let mut s = format!("    for (var i = 0u; i < TH / D; i++) {{\n        let yb = y0 + i * D;\n        if (yb >= gp.height) {{\n            break;\n        }}\n        if (i > 0u) {{\n            k += 1u;\n            r0 = r1;\n            r1 = r2;\n            r2 = r3;\n            r3 = across{suffix}(ahead, c);\n            ahead = load5(k + 4u, j0);\n        }}\n");
    for ph in 0..d {
        s.push_str(&format!("        if (yb + {ph}u < gp.height) {{ put_row{suffix}(yb + {ph}u, x0, gp.cubic[{ph}], r0, r1, r2, r3); }}\n"));
    }
    s.push_str("    }\n");
    s
}

/// The decimated schedule's source for radius `r`, node spacing `d`.
fn decimate_source(r: u32, plan: &DecimatePlan, quads: bool) -> Result<String> {
    let (d, b, bv, th) = (plan.step, plan.b, plan.bv, plan.th);
    let q = (2 * r + 1).div_ceil(d);
    let slots = decimate_segment_slots(r, d, b, plan.hwg);
    let (mode, px_slots, packed_slots) = match plan.row {
        RowSource::Unpacked => (0, slots, 1),
        RowSource::Packed => (1, 1, slots),
        RowSource::Direct => (2, 1, 1),
    };
    let consts = [("R", r), ("D", d), ("Q", q), ("QV", q.div_ceil(4)), ("B", b), ("BV", bv), ("HWG", plan.hwg), ("ROW_MODE", mode), ("PX_SLOTS", px_slots), ("PACKED_SLOTS", packed_slots), ("TH", th), ("PS", plan.ps), ("VPART", ((plan.ps - 1) * 64 * bv).max(1))];
    let s = specialize(&format!("{WGSL}\n{DECIMATE_WGSL}"), &consts)?;
    let s = replace_block(&s, "node_format", plan.nodes.wgsl())?;
    let s = if plan.magic_pack { replace_block(&s, "out_pack", MAGIC_PACK_WGSL)? } else { s };
    let s = if plan.intervals { replace_block(&s, "decim_up_rows", &gen_up_intervals(d, ""))? } else { s };
    let s = if plan.intervals { replace_block(&s, "decim_up2_rows", &gen_up_intervals(d, "2"))? } else { s };
    let s = if plan.row != RowSource::Direct {
        let loads = decimate_segment_slots(r, d, b, plan.hwg).div_ceil(plan.hwg);
        let mut l = String::new();
        // in rounds of 16 loads (registers)
        for round in (0..loads).collect::<Vec<_>>().chunks(16) {
            for j in round {
                l.push_str(&format!("    let g{j} = src[row + u32(clamp(x0 + i32(lid + {}u), 0, wmax))];\n", j * plan.hwg));
            }
            for j in round {
                l.push_str(&format!("    if (lid + {0}u < n_in) {{ dec_put(lid + {0}u, g{j}); }}\n", j * plan.hwg));
            }
        }
        replace_block(&s, "decim_h_load", &l)?
    } else {
        replace_block(&s, "decim_h_load", "")?
    };
    let s = replace_block(&s, "decim_h", &gen_poly(b, q, "var s = 0u; s < D; s++", |t| format!("dec_row_in(base + s + {}u)", t * d)))?;
    let store_h: String = (0..b).map(|o| format!("    if (n0 + {o}u < gp.nodes_x) {{ node_out[out_row + n0 + {o}u] = node_store(a{o} * (1.0 / 255.0)); }}\n")).collect();
    let s = replace_block(&s, "decim_h_store", &store_h)?;
    // dead invocations (past the grid) sum nothing but still meet the barrier
    let body = gen_poly(bv, q, "var s = g; live && s < D; s += PS", |t| format!("dec_col_in(n, y0 + i32(s) + {})", t * d));
    let s = replace_block(&s, "decim_v", &body)?;
    let mut combine = String::new();
    if plan.ps > 1 {
        for o in 0..bv {
            combine.push_str(&format!("    if (g > 0u) {{ vpart[((g - 1u) * 64u + lid.x) * BV + {o}u] = a{o}; }}\n"));
        }
        combine.push_str("    workgroupBarrier();\n    if (g == 0u) {\n        for (var h = 1u; h < PS; h++) {\n");
        for o in 0..bv {
            combine.push_str(&format!("            a{o} += vpart[((h - 1u) * 64u + lid.x) * BV + {o}u];\n"));
        }
        combine.push_str("        }\n    }\n");
    }
    let s = replace_block(&s, "decim_v_combine", &combine)?;
    let store_v: String = (0..bv).map(|o| format!("    if (m0 + {o}u < gp.nodes_y) {{ node_out[(m0 + {o}u) * gp.nodes_x + n] = node_store(a{o}); }}\n")).collect();
    let s = replace_block(&s, "decim_v_store", &store_v)?;
    if !quads {
        return Ok(s);
    }
    let s = replace_block(&s, "decim_up_store", "        dst4[(row + x0) / 4u] = vec4<u32>(o0, o1, o2, o3);\n")?;
    replace_block(&s, "decim_up2_store", "    dst2[(row + x0) / 2u] = vec2<u32>(o0, o1);\n")
}

/// `out_pack` by float-magic rounding: clamped first, so the add cannot be reassociated into
/// the interpolation's sums; 1.5 * 2^23 + v for v in [0, 255] holds round(v) (to nearest,
/// ties to even: within one level of the twin all the same, as any rounding to nearest of
/// a value less than one level off) in its low 8 bits.
const MAGIC_PACK_WGSL: &str = "fn out_pack(v: vec4<f32>) -> u32 {\n    let m = bitcast<vec4<u32>>(clamp(v, vec4<f32>(0.0), vec4<f32>(1.0)) * 255.0 + vec4<f32>(12582912.0));\n    return (m.x & 0xFFu) | ((m.y & 0xFFu) << 8u) | ((m.z & 0xFFu) << 16u) | (m.w << 24u);\n}\n";

/// Slots of the decimated row pass's segment in workgroup memory (`ROW_SLOTS` in the WGSL).
fn decimate_segment_slots(r: u32, d: u32, b: u32, hwg: u32) -> u32 {
    let q = (2 * r + 1).div_ceil(d);
    let row_in = d * (hwg * b + q - 1);
    row_in + row_in / (b * d) + 1
}

/// Bytes of workgroup memory of the decimated row pass.
fn decimate_segment_bytes(r: u32, plan: &DecimatePlan) -> u64 {
    decimate_segment_slots(r, plan.step, plan.b, plan.hwg) as u64
        * match plan.row {
            RowSource::Unpacked => 16,
            RowSource::Packed => 4,
            RowSource::Direct => 0,
        }
}

impl GaussianBlur {
    fn params(&self, width: u32, height: u32) -> GaussianBlurParams {
        let mut p = GaussianBlurParams::zeroed();
        (p.width, p.height, p.radius) = (width, height, self.radius());
        for (k, w) in self.weights().iter().enumerate().take(MAX_TAPS) {
            p.w[k / 4][k % 4] = *w;
        }
        p
    }
    /// `params` plus the decimated schedule's tables for node spacing `d`.
    fn decimate_params(&self, width: u32, height: u32, d: u32, b: u32, hwg: u32) -> Result<GaussianBlurParams> {
        let mut p = self.params(width, height);
        (p.nodes_x, p.nodes_y) = (node_count(width, d), node_count(height, d));
        // a row's nodes spread evenly over its workgroups, a multiple of B each
        let segs = p.nodes_x.div_ceil(b * hwg);
        p.seg_nodes = p.nodes_x.div_ceil(segs).next_multiple_of(b);
        let w = self.weights();
        let q = w.len().div_ceil(d as usize);
        let qv = q.div_ceil(4);
        if d > MAX_STEP || d < 2 || d as usize * qv > POLY_VECS {
            return Err(Error::Graph(format!("gaussian_blur: node spacing {d} is outside the decimated schedule's tables")));
        }
        for s in 0..d as usize {
            for qi in 0..q {
                if let Some(&wk) = w.get(qi * d as usize + s) {
                    p.wp[s * qv + qi / 4][qi % 4] = wk;
                }
            }
        }
        for ph in 0..d {
            p.cubic[ph as usize] = cubic_weights(ph as f64 / d as f64).map(|c| c as f32);
        }
        Ok(p)
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
        // Variants (runtime::schedule): `tile` (default: fused tile up to radius 7, two
        // passes beyond, their row segment packed from WINDOW_PACKED_FROM), `twopass` and
        // `twopass_packed` (the register-blocked passes at every radius, row segment unpacked
        // or packed). One output per invocation (before run 15; 0.527 ms at σ=8 against the
        // window's 0.289) was removed, as was a 128-invocation row pass (slower). A sweep
        // schedule (strip walked down, vertical window in registers) measured slower than
        // `tile` on the H200 and was dropped (docs/perf-notes.md, run 10).
        // Bench-only ablations (wrong images, so not in `DEF.schedules`): one of the two
        // register-blocked passes alone, to place the two-pass time (docs/perf-notes.md).
        let variant = crate::runtime::schedule::get(DEF.name);
        let mut name = variant.as_deref();
        let mut only = None;
        for (suffix, pass) in [("_h_only", "h"), ("_v_only", "v"), ("_up_only", "up")] {
            if let Some(n) = name.and_then(|n| n.strip_suffix(suffix)) {
                (name, only) = (Some(n), Some(pass));
            }
        }
        let decimate = |o: DecimateOptions| decimation_step(&self.weights()).map(|_| Schedule::Decimate(o));
        let forced = match name {
            None | Some("tile") => self.schedule,
            Some("twopass") => self.schedule.or(Some(Schedule::TwoPass)),
            Some("twopass_packed") => self.schedule.or(Some(Schedule::TwoPassPacked)),
            Some(other) => match (parse_tile(other), DecimateOptions::parse(other)) {
                // a fused tile shape by name, for benchmarks: `tile<tw>x<th>h<kh>v<kv>`
                (Some(t), _) => self.schedule.or(Some(Schedule::Fused(t))),
                // the decimated schedule wherever its bound holds (the default elsewhere)
                (_, Some(o)) => self.schedule.or(decimate(o)),
                _ => return Err(crate::runtime::schedule::unknown(DEF.name, other, &["tile", "twopass", "twopass_packed", "decimate[_packed|_unpacked|_direct][_b<n>][_bv<n>][_th<n>][_unorm16|_f16|_f32]", "tile<tw>x<th>h<kh>v<kv>"])),
            },
        };
        let schedule = match forced {
            Some(Schedule::Fused(t)) if t.bytes(r) > limit => {
                return Err(Error::Graph(format!("gaussian_blur: a {}x{} tile at radius {r} needs {} bytes of workgroup memory, the device has {limit}", t.tw, t.th, t.bytes(r))));
            }
            Some(s) => s,
            None => match choose_tile(r, limit) {
                Some(t) => Schedule::Fused(t),
                None => decimate(DecimateOptions::default()).unwrap_or(if r >= WINDOW_PACKED_FROM { Schedule::TwoPassPacked } else { Schedule::TwoPass }),
            },
        };
        if let Schedule::Fused(t) = schedule {
            if t.tw * t.th != FUSED_WG * t.kv || t.tw % t.kh != 0 || t.th % t.kv != 0 {
                return Err(Error::Graph(format!("gaussian_blur: invalid tile {t:?}")));
            }
            let key = format!("gaussian_blur.fused.r{r}.{}x{}.h{}.v{}", t.tw, t.th, t.kh, t.kv);
            let mut kernel = Kernel::new(&key, &[], "fused");
            kernel.generated = Some(fused_source(r, t)?);
            return rec.dispatch(&kernel, &[&input.buffer, &output.buffer], uniform, groups_2d(d.width, d.height, t.tw, t.th));
        }
        if let Schedule::Decimate(o) = schedule {
            let Some(step) = decimation_step(&self.weights()) else {
                return Err(Error::Graph(format!("gaussian_blur: no node spacing keeps the decimated schedule within {DECIMATION_MAX_ERROR} levels at sigma {}", self.sigma)));
            };
            let plan = DecimatePlan::new(step, o)?;
            if decimate_segment_bytes(r, &plan) > limit {
                return Err(Error::Graph(format!("gaussian_blur: the decimated row pass at radius {r} needs {} bytes of workgroup memory, the device has {limit}", decimate_segment_bytes(r, &plan))));
            }
            let p = self.decimate_params(d.width, d.height, step, plan.b, plan.hwg)?;
            let (nx, ny) = (p.nodes_x, p.nodes_y);
            let rows_bytes = plan.nodes.bytes() * nx as u64 * d.height as u64;
            let nodes_bytes = plan.nodes.bytes() * nx as u64 * ny as u64;
            let max = rec.gpu().max_binding();
            if rows_bytes > max {
                return Err(Error::TooLarge { width: d.width, height: d.height, bytes: rows_bytes, limit: max });
            }
            let rows = rec.temp(rows_bytes);
            let nodes = rec.temp(nodes_bytes);
            // whole 16-byte quads (4 columns) or 8-byte pairs (2) per output row
            let quads = d.width % plan.columns == 0;
            let key = plan.key(r, quads);
            let mut h = Kernel::new(&key, &[], "decim_h");
            h.generated = Some(decimate_source(r, &plan, quads)?);
            let mut v = Kernel::new(&key, &[], "decim_v");
            v.generated = h.generated.clone();
            let mut up = Kernel::new(&key, &[], if plan.columns == 2 { "decim_up2" } else { "decim_up" });
            up.generated = h.generated.clone();
            let uniform = bytemuck::bytes_of(&p);
            // bench-only ablations: one pass alone (`only`)
            if only.is_none_or(|o| o == "h") {
                // every workgroup-memory slot the row pass reads it has written first
                rec.dispatch_uninit(&h, &[&input.buffer, &rows], uniform, [nx.div_ceil(p.seg_nodes), d.height, 1])?;
            }
            if only.is_none_or(|o| o == "v") {
                // every workgroup-memory slot read (the phase groups' partial sums) is written first
                rec.dispatch_uninit(&v, &[&rows, &nodes], uniform, [nx.div_ceil(64), ny.div_ceil(plan.bv), 1])?;
            }
            if only.is_none_or(|o| o == "up") {
                rec.dispatch(&up, &[&nodes, &output.buffer], uniform, groups_2d(d.width.div_ceil(plan.columns), d.height.div_ceil(plan.th), 64, 1))?;
            }
            return Ok(());
        }
        let tmp_bytes = PixelFormat::Rgba32F.gpu_bytes(d.width, d.height);
        let limit = rec.gpu().max_binding();
        if tmp_bytes > limit {
            return Err(Error::TooLarge { width: d.width, height: d.height, bytes: tmp_bytes, limit });
        }
        let tmp = rec.temp(tmp_bytes);
        let packed = schedule == Schedule::TwoPassPacked;
        let key = format!("gaussian_blur.window.r{r}.p{}", packed as u32);
        let mut h = Kernel::new(&key, &[], "window_h");
        h.generated = Some(window_source(r, packed)?);
        let mut v = Kernel::new(&key, &[], "window_v");
        v.generated = h.generated.clone();
        if only != Some("v") {
            rec.dispatch(&h, &[&input.buffer, &tmp], uniform, [d.width.div_ceil(WINDOW_B * WINDOW_HWG), d.height, 1])?;
        }
        if only == Some("h") {
            return Ok(());
        }
        rec.dispatch(&v, &[&tmp, &output.buffer], uniform, groups_2d(d.width, d.height.div_ceil(WINDOW_B), 64, 4))
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
        for r in 1..=MAX_FUSED_RADIUS {
            assert!(choose_tile(r, 16384).is_some(), "r={r}");
        }
        assert!(choose_tile(MAX_FUSED_RADIUS + 1, 49152).is_none());
    }
    #[test]
    fn tile_names_parse() {
        assert_eq!(parse_tile("tile32x64h8v8"), Some(FusedTile { tw: 32, th: 64, kh: 8, kv: 8 }));
        assert_eq!(parse_tile("tile32x64h8"), None);
        assert_eq!(parse_tile("twopass"), None);
    }
    #[test]
    fn decimation_step_grows_with_sigma_and_keeps_its_bound() {
        let mut last = None;
        for tenth in 10..=320 {
            let sigma = tenth as f32 / 10.0;
            let w = weights(sigma);
            let step = decimation_step(&w);
            if let Some(d) = step {
                assert!(decimation_error_bound(&w, d) <= DECIMATION_MAX_ERROR);
                assert!((2..=MAX_STEP).contains(&d));
                // the uniform's polyphase table holds it
                assert!(d as usize * w.len().div_ceil(d as usize).div_ceil(4) <= POLY_VECS, "sigma {sigma}");
            }
            // never shrinks by more than one as sigma grows (the bound is not exactly monotone)
            if let (Some(a), Some(b)) = (last, step) {
                assert!(b + 1 >= a, "sigma {sigma}: {a} -> {b}");
            }
            // from sigma 5.1 on there is always a spacing (4.7 and 4.8 have one too: the
            // bound moves with the truncation as well as with sigma)
            assert!(sigma < 5.1 || step.is_some(), "sigma {sigma}");
            last = step;
        }
        assert_eq!(decimation_step(&weights(3.0)), None);
        assert!(decimation_step(&weights(8.0)).is_some_and(|d| d >= 3));
        assert!(decimation_step(&weights(32.0)).is_some_and(|d| d >= 8));
    }
    /// The bound's kernel is the error of interpolating exact node values: on a row that is
    /// 255 where K > 0 and 0 elsewhere, exact blur minus cubic of the exact node values at
    /// the phase's pixel is 127.5 ||K||_1.
    #[test]
    fn decimation_bound_is_attained_by_its_worst_row() {
        for (sigma, p) in [(6.0f32, 1u32), (11.0, 2), (32.0, 5)] {
            let w = weights(sigma);
            let d = decimation_step(&w).unwrap();
            let (lo, k) = interpolation_error_kernel(&w, d, p);
            let r = (w.len() / 2) as i64;
            let g = |x: i64| -> f64 {
                let i = x - lo;
                if (0..k.len() as i64).contains(&i) && k[i as usize] > 0.0 { 255.0 } else { 0.0 }
            };
            let h = |a: i64| -> f64 { w.iter().enumerate().map(|(i, &wi)| wi as f64 * g(a + i as i64 - r)).sum() };
            let c = cubic_weights(p as f64 / d as f64);
            let interp: f64 = (0..4).map(|j| c[j] * h((j as i64 - 1) * d as i64)).sum();
            let err = h(p as i64) - interp;
            let l1: f64 = k.iter().map(|v| v.abs()).sum();
            assert!((err - 127.5 * l1).abs() < 1e-6, "sigma {sigma}: {err} vs {}", 127.5 * l1);
            assert!(err > 0.1, "sigma {sigma}: a bound this small would not be worth testing ({err})");
        }
    }
    #[test]
    fn decimated_source_parses_shape() {
        let plan = DecimatePlan::new(3, DecimateOptions { row: Some(RowSource::Packed), ..Default::default() }).unwrap();
        let s = decimate_source(24, &plan, true).unwrap();
        assert!(s.contains("const Q: u32 = 17u;") && s.contains("const QV: u32 = 5u;"));
        assert!(s.contains("a7 += w16 * p7;"), "step 16 of 17 adds input 23 (slot 7) to node 7");
        assert!(s.contains("dst4[(row + x0) / 4u]"));
    }
    #[test]
    fn generated_bodies_parse_shape() {
        let t = FusedTile { tw: 16, th: 64, kh: 4, kv: 4 };
        let s = fused_source(3, t).unwrap();
        assert!(s.contains("const R: u32 = 3u;"));
        assert!(s.contains("a3 += gp.w[1].z * p9;"));
        assert!(!s.contains("var acc: array<f32, KH>"));
    }
}
