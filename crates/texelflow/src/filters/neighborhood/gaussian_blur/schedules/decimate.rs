//! Gaussian blur's decimated schedule (large sigma), the GPU side of `GaussianBlur` from
//! sigma ~5.1: GPUImage's `GPUImageGaussianBlurFilter` output within one level of the twin's
//! direct filter, for any image.
//!
//! The twin's exact blur is computed only at the nodes of a grid `decimation_step` pixels
//! apart and interpolated between them with 4-point Lagrange cubics
//! (`gaussian_blur_decimate.wgsl`). The nodes are exact, so the interpolation is the only
//! approximation; `decimation_error_bound` bounds it for every image and `decimation_step`
//! keeps it below `DECIMATION_MAX_ERROR`. The knobs (`DecimateOptions`) are schedule
//! choices, each default measured (the constants below name the run).

use super::{GaussianBlur, GaussianBlurParams, PassAlone, LANES, MAX_STEP, POLY_VECS, WGSL};
use crate::error::{Error, Result};
use crate::image::ImageDesc;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};

use crate::runtime::wgsl_template::{replace_block, specialize};

const DECIMATE_WGSL: &str = include_str!("gaussian_blur_decimate.wgsl");

/// Schedule knobs of the decimated passes (`None`: the measured default). Benchmarks and
/// `TEXELFLOW_SCHEDULE` name them as `decimate` followed by `_<knob>` for each one set:
/// `packed` / `unpacked` / `direct` (row source), `b<N>` (row-pass nodes per invocation),
/// `hwg<N>` (row-pass workgroup size), `bv<N>` (column-pass nodes per invocation), `ps<N>`
/// (column-pass phase groups), `th<N>` (output rows per interpolation invocation), `iv` /
/// `rowloop` (its row walk), `cf` / `rf` (column or row pass first; a row source implies `rf`), `tr` (with `cf`: node rows transposed), `magic` / `pack4x8` (output
/// rounding), `unorm16` / `f16` / `f32` (node storage); e.g. `decimate_packed_bv4`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DecimateOptions {
    /// Where the row pass reads its rows (`packed`, `unpacked`, `direct`).
    pub row: Option<RowSource>,
    /// Row-pass nodes per invocation (`b<N>`).
    pub b: Option<u32>,
    /// Column-pass nodes per invocation (`bv<N>`).
    pub bv: Option<u32>,
    /// Output rows per interpolation invocation (`th<N>`).
    pub th: Option<u32>,
    /// Node storage (`unorm16`, `f16`, `f32`).
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
    /// Column pass first (`cf`): the column pass runs on the image at node rows (every
    /// column, each warp's reads one coalesced 128-byte row segment), then the row pass on
    /// those node rows at node columns; the same sums in the other order (the twin's
    /// replicate-edge blur is separable either way), so the same bound.
    pub column_first: Option<bool>,
    /// With the column pass first (`tr`): its node rows are stored transposed (node rows
    /// consecutive for each image column), so the row pass reads them as a column pass does,
    /// coalesced, instead of strided along a row; the strided access moves to the first
    /// pass's stores (BV consecutive nodes, whole 32-byte sectors, per invocation).
    pub transposed: Option<bool>,
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
                "cf" => o.column_first = Some(true),
                "rf" => o.column_first = Some(false),
                "tr" => o.transposed = Some(true),
                _ if num("ps").is_some_and(|n| (1..=16).contains(&n)) => o.ps = num("ps"),
                _ if num("hwg").is_some_and(|n| [32, 64, 128, 256].contains(&n)) => {
                    o.hwg = num("hwg")
                }
                "rowloop" => o.intervals = Some(false),
                "pack4x8" => o.magic_pack = Some(false),
                _ if num("bv").is_some_and(|n| (1..=16).contains(&n)) => o.bv = num("bv"),
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
    /// Unpacked to vec4<f32> in workgroup memory (packed where that does not fit).
    Unpacked,
    /// Packed RGBA8 in workgroup memory, unpacked at each read.
    Packed,
    /// Straight from the image, through the L1 cache.
    Direct,
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
const _: () = assert!(DECIM_B.is_multiple_of(2));
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

/// Output columns per interpolation invocation (`decim_up`; 4 measured slower, run g11).
const UP_COLUMNS: u32 = 2;

/// Default column-pass phase groups and nodes per invocation for node spacing `d`: with a
/// wide spacing there are few nodes, so the phases are split over 4 invocations per column.
/// Schedule choice, H200 at 4K (run g8), whole schedule, ms: D = 3 (sigma 8) ps1 bv4 0.111,
/// ps3 bv4 0.114, ps3 bv2 0.118; D = 4 ps1 0.115, ps4 0.118; D = 5 ps1 0.120, ps4 0.123;
/// D = 8 ps1 0.131, ps4 0.128; D = 11 ps1 0.137, ps4 0.131, ps4 bv2 0.130, ps11 0.136 (the
/// column pass alone 0.024 -> 0.014 ms). The switch sits between the measured 5 and 8.
fn column_pass_shape(d: u32) -> (u32, u32) {
    if d >= 7 {
        (4, 2)
    } else {
        (1, DECIM_BV)
    }
}

/// Default nodes per invocation of the row pass when it runs second, on node rows (8-byte
/// nodes, so the strides between invocations double). Schedule choice, H200 at 4K (runs
/// g2-g3), whole schedule, ms: D = 3 (sigma 8) B 4 / 5 / 6 / 7 / 9 = 0.1032 / 0.1024 / 0.1036 /
/// 0.1044 / 0.1072; D = 4 (sigma 12) B 5 / 7 / 11 = 0.1059 / 0.1093 / 0.1110; D = 5 (sigma 16)
/// B 5 / 7 = 0.1048 / 0.1076; D = 8 (sigma 24) 0.1049 / 0.1045; D = 11 (sigma 32) B 3 / 4 / 5
/// = 0.0956 / 0.0976 / 0.0993.
fn cf_row_pass_b(d: u32) -> u32 {
    if d <= 10 {
        5
    } else {
        3
    }
}

/// Default order of the two node passes (`DecimateOptions::column_first`). Schedule choice,
/// H200 at 4K (session 6, runs g1-g2), whole schedule, ms: sigma 8 row pass first 0.1079-0.1086,
/// column pass first 0.1072 (row pass B 9), 0.1044-0.1053 (B 7), 0.1024 (B 5); sigma 12
/// 0.1101 against 0.1098-0.1112 (B 11); sigma 32 0.1192-0.1203 against 0.0975-0.0979. The
/// column pass on the image reads whole rows (0.052 ms at sigma 8, the row pass it replaces
/// 0.061); the row pass on node rows costs more than the column pass it replaces (0.033
/// against 0.026 ms) but less at large spacings. Node rows transposed (`tr`) were slower at
/// sigma 8 (0.124 ms: the transposed stores cost the first pass 0.015 ms) and no faster at
/// 12 and 32 (0.1093, 0.0956).
const DECIM_COLUMN_FIRST: bool = true;
/// Nodes per invocation of the column pass when it runs first, over every image column
/// (`bv<N>` sets it). Schedule choice, H200 at 4K (runs g1-g2), sigma 8, whole schedule, ms:
/// BV 4 / 6 / 8 / 12 / 16 = 0.1203 / 0.1127 / 0.1072 / 0.1046* / 0.1069* (* with row pass B 7,
/// against 0.1044 for BV 8); sigma 32: BV 8 / 16 0.0975 / 0.0969.
const DECIM_CF_BV: u32 = 8;

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
    column_first: bool,
    /// `DecimateOptions::transposed`, and the second (row) pass's column-pass shape then.
    transposed: bool,
    ps2: u32,
    bv2: u32,
}

impl DecimatePlan {
    fn new(step: u32, o: DecimateOptions) -> Result<Self> {
        // a row source names the row-pass-first order (its segment is image pixels)
        let column_first = o
            .column_first
            .unwrap_or(DECIM_COLUMN_FIRST && o.row.is_none());
        // column first, the row pass reads f16/f32 node rows: straight from memory only
        let row = if column_first {
            RowSource::Direct
        } else {
            o.row.unwrap_or(DECIM_ROW_SOURCE)
        };
        let (ps, bv) = if column_first {
            (1, DECIM_CF_BV)
        } else {
            column_pass_shape(step)
        };
        let p = DecimatePlan {
            step,
            row,
            b: o.b.unwrap_or(if column_first {
                cf_row_pass_b(step)
            } else {
                row_pass_b(row, step)
            }),
            bv: o.bv.unwrap_or(bv),
            th: o.th.unwrap_or(DECIM_TH),
            nodes: o.nodes.unwrap_or(DECIM_NODES),
            magic_pack: o.magic_pack.unwrap_or(DECIM_MAGIC_PACK),
            intervals: o.intervals.unwrap_or(DECIM_INTERVALS),
            ps: o.ps.unwrap_or(ps).min(step),
            hwg: o.hwg.unwrap_or(DECIM_HWG),
            column_first,
            transposed: column_first && o.transposed.unwrap_or(false),
            ps2: column_pass_shape(step).0.min(step),
            bv2: column_pass_shape(step).1,
        };
        let p = if p.intervals {
            DecimatePlan {
                th: p.th.next_multiple_of(step),
                ..p
            }
        } else {
            p
        };
        // the workgroup-memory layout needs an even B (odd stride between invocations)
        if row != RowSource::Direct && p.b % 2 != 0 {
            return Err(Error::schedule_unsupported("gaussian_blur", format!("the decimated row pass with its segment in workgroup memory needs an even number of nodes per invocation, not {}", p.b)));
        }
        Ok(p)
    }
    fn key(&self, r: u32, quads: bool) -> String {
        format!("gaussian_blur.decimate.r{r}.d{}.{:?}.b{}.bv{}.th{}.{:?}.m{}.iv{}.ps{}.hwg{}.cf{}.tr{}.q{}", self.step, self.row, self.b, self.bv, self.th, self.nodes, self.magic_pack as u32, self.intervals as u32, self.ps, self.hwg, self.column_first as u32, self.transposed as u32, quads as u32)
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
        gain = gain.max(
            cubic_weights(p as f64 / d as f64)
                .iter()
                .map(|v| v.abs())
                .sum(),
        );
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
        s.push_str(&format!(
            "        let w{qi} = gp.wp[s * QV + {}u].{};\n",
            qi / 4,
            LANES[(qi % 4) as usize]
        ));
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
fn gen_up_intervals(d: u32) -> String {
    let mut s = String::from("    for (var i = 0u; i < TH / D; i++) {\n        let yb = y0 + i * D;\n        if (yb >= gp.height) {\n            break;\n        }\n        if (i > 0u) {\n            k += 1u;\n            r0 = r1;\n            r1 = r2;\n            r2 = r3;\n            r3 = across(ahead, c);\n            ahead = load5(k + 4u, j0);\n        }\n");
    for ph in 0..d {
        s.push_str(&format!("        if (yb + {ph}u < gp.height) {{ put_row(yb + {ph}u, x0, gp.cubic[{ph}], r0, r1, r2, r3); }}\n"));
    }
    s.push_str("    }\n");
    s
}

/// What `decim_v` (the column-pass kernel) computes in a generated source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ColumnRole {
    /// The column pass after the row pass (reads its node values, by rows).
    Second,
    /// The column pass first, on the image; `transposed`: node rows stored transposed.
    First { transposed: bool },
    /// The row pass after a transposed first pass, as a column pass over the transposed
    /// node rows (storing the nodes untransposed).
    TransposedRows,
}

/// The decimated schedule's source for radius `r`, node spacing `d`, with `decim_v` in
/// `role`.
fn decimate_source(r: u32, plan: &DecimatePlan, quads: bool, role: ColumnRole) -> Result<String> {
    let (bv, ps) = if role == ColumnRole::TransposedRows {
        (plan.bv2, plan.ps2)
    } else {
        (plan.bv, plan.ps)
    };
    let (d, b, th) = (plan.step, plan.b, plan.th);
    let q = (2 * r + 1).div_ceil(d);
    let slots = decimate_segment_slots(r, d, b, plan.hwg);
    let (mode, px_slots, packed_slots) = match plan.row {
        RowSource::Unpacked => (0, slots, 1),
        RowSource::Packed => (1, 1, slots),
        RowSource::Direct => (2, 1, 1),
    };
    let consts = [
        ("R", r),
        ("D", d),
        ("Q", q),
        ("QV", q.div_ceil(4)),
        ("B", b),
        ("BV", bv),
        ("HWG", plan.hwg),
        ("ROW_MODE", mode),
        ("PX_SLOTS", px_slots),
        ("PACKED_SLOTS", packed_slots),
        ("TH", th),
        ("PS", ps),
        ("VPART", ((ps - 1) * 64 * bv).max(1)),
    ];
    let s = specialize(
        &format!("{}{WGSL}\n{DECIMATE_WGSL}", GaussianBlurParams::WGSL),
        &consts,
    )?;
    let s = replace_block(&s, "node_format", plan.nodes.wgsl())?;
    let s = if plan.magic_pack {
        replace_block(&s, "out_pack", MAGIC_PACK_WGSL)?
    } else {
        s
    };
    let s = if plan.intervals {
        replace_block(&s, "decim_up_rows", &gen_up_intervals(d))?
    } else {
        s
    };
    let s = if plan.row != RowSource::Direct {
        let loads = decimate_segment_slots(r, d, b, plan.hwg).div_ceil(plan.hwg);
        let mut l = String::new();
        // in rounds of 16 loads (registers)
        for round in (0..loads).collect::<Vec<_>>().chunks(16) {
            for j in round {
                l.push_str(&format!(
                    "    let g{j} = src[row + u32(clamp(x0 + i32(lid + {}u), 0, wmax))];\n",
                    j * plan.hwg
                ));
            }
            for j in round {
                l.push_str(&format!(
                    "    if (lid + {0}u < n_in) {{ dec_put(lid + {0}u, g{j}); }}\n",
                    j * plan.hwg
                ));
            }
        }
        replace_block(&s, "decim_h_load", &l)?
    } else {
        replace_block(&s, "decim_h_load", "")?
    };
    // column first, the row pass reads node rows (already scaled to 0..1) and the column
    // pass reads the image (scaled at its store)
    let cf = plan.column_first;
    let (row_in, h_scale) = if cf {
        ("dec_node_row_in", "")
    } else {
        ("dec_row_in", " * (1.0 / 255.0)")
    };
    let s = replace_block(
        &s,
        "decim_h",
        &gen_poly(b, q, "var s = 0u; s < D; s++", |t| {
            format!("{row_in}(base + s + {}u)", t * d)
        }),
    )?;
    let store_h: String = (0..b).map(|o| format!("    if (n0 + {o}u < gp.nodes_x) {{ node_out[out_row + n0 + {o}u] = node_store(a{o}{h_scale}); }}\n")).collect();
    let s = replace_block(&s, "decim_h_store", &store_h)?;
    // dead invocations (past the grid) sum nothing but still meet the barrier
    let (col_in, v_scale) = match role {
        ColumnRole::First { .. } => ("dec_src_col", " * (1.0 / 255.0)"),
        _ => ("dec_col_in", ""),
    };
    let body = gen_poly(bv, q, "var s = g; live && s < D; s += PS", |t| {
        format!("{col_in}(n, y0 + i32(s) + {})", t * d)
    });
    let s = replace_block(&s, "decim_v", &body)?;
    let mut combine = String::new();
    if ps > 1 {
        for o in 0..bv {
            combine.push_str(&format!(
                "    if (g > 0u) {{ vpart[((g - 1u) * 64u + lid.x) * BV + {o}u] = a{o}; }}\n"
            ));
        }
        combine.push_str("    workgroupBarrier();\n    if (g == 0u) {\n        for (var h = 1u; h < PS; h++) {\n");
        for o in 0..bv {
            combine.push_str(&format!(
                "            a{o} += vpart[((h - 1u) * 64u + lid.x) * BV + {o}u];\n"
            ));
        }
        combine.push_str("        }\n    }\n");
    }
    let s = replace_block(&s, "decim_v_combine", &combine)?;
    // transposed (both passes of `tr`): the invocation's BV outputs consecutive in memory
    let transposed = matches!(
        role,
        ColumnRole::First { transposed: true } | ColumnRole::TransposedRows
    );
    let at = |o: u32| {
        if transposed {
            format!("n * gp.nodes_y + m0 + {o}u")
        } else {
            format!("(m0 + {o}u) * gp.nodes_x + n")
        }
    };
    let store_v: String = (0..bv)
        .map(|o| {
            format!(
                "    if (m0 + {o}u < gp.nodes_y) {{ node_out[{}] = node_store(a{o}{v_scale}); }}\n",
                at(o)
            )
        })
        .collect();
    let s = replace_block(&s, "decim_v_store", &store_v)?;
    if !quads {
        return Ok(s);
    }
    replace_block(
        &s,
        "decim_up_store",
        "    dst2[(row + x0) / 2u] = vec2<u32>(o0, o1);\n",
    )
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

/// `GaussianBlur::params` plus the decimated schedule's tables for node spacing `d`.
fn decimate_params(
    blur: &GaussianBlur,
    width: u32,
    height: u32,
    d: u32,
    b: u32,
    hwg: u32,
) -> Result<GaussianBlurParams> {
    let mut p = blur.params(width, height);
    (p.nodes_x, p.nodes_y) = (node_count(width, d), node_count(height, d));
    // a row's nodes spread evenly over its workgroups, a multiple of B each
    let segs = p.nodes_x.div_ceil(b * hwg);
    p.seg_nodes = p.nodes_x.div_ceil(segs).next_multiple_of(b);
    let w = blur.weights();
    let q = w.len().div_ceil(d as usize);
    let qv = q.div_ceil(4);
    if !(2..=MAX_STEP).contains(&d) || d as usize * qv > POLY_VECS {
        return Err(Error::schedule_unsupported(
            "gaussian_blur",
            format!("node spacing {d} is outside the decimated schedule's tables"),
        ));
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

/// Records the decimated schedule's three passes (`alone`: one of them alone, a bench-only
/// ablation giving a wrong image). `step`: `decimation_step` of the blur's weights, computed
/// once by the caller.
#[allow(clippy::too_many_arguments)]
pub(super) fn record(
    blur: &GaussianBlur,
    rec: &mut NodeRecorder<'_>,
    input: &GpuSlot,
    output: &GpuSlot,
    d: ImageDesc,
    step: Option<u32>,
    o: DecimateOptions,
    alone: Option<PassAlone>,
) -> Result<()> {
    let r = blur.radius();
    let limit = rec.gpu().limits.max_compute_workgroup_storage_size as u64;
    let Some(step) = step else {
        return Err(Error::schedule_unsupported("gaussian_blur", format!("no node spacing keeps the decimated schedule within {DECIMATION_MAX_ERROR} levels at sigma {}", blur.sigma)));
    };
    let mut plan = DecimatePlan::new(step, o)?;
    // an unpacked segment that does not fit (large radius, small device limit) is kept packed
    if plan.row == RowSource::Unpacked && decimate_segment_bytes(r, &plan) > limit {
        plan.row = RowSource::Packed;
    }
    if decimate_segment_bytes(r, &plan) > limit {
        return Err(Error::schedule_unsupported("gaussian_blur", format!("the decimated row pass at radius {r} needs {} bytes of workgroup memory, the device has {limit}", decimate_segment_bytes(r, &plan))));
    }
    let p = decimate_params(blur, d.width, d.height, step, plan.b, plan.hwg)?;
    let (nx, ny) = (p.nodes_x, p.nodes_y);
    // between the two node passes: row pass first, every image row at node columns; column
    // pass first, node rows at every image column
    let mid_bytes = plan.nodes.bytes()
        * if plan.column_first {
            d.width as u64 * ny as u64
        } else {
            nx as u64 * d.height as u64
        };
    let nodes_bytes = plan.nodes.bytes() * nx as u64 * ny as u64;
    let max = rec.gpu().max_binding();
    if mid_bytes > max {
        return Err(Error::TooLarge {
            width: d.width,
            height: d.height,
            bytes: mid_bytes,
            limit: max,
        });
    }
    let mid = rec.temp(mid_bytes);
    let nodes = rec.temp(nodes_bytes);
    // whole 8-byte pixel pairs per output row
    let quads = d.width.is_multiple_of(UP_COLUMNS);
    let key = plan.key(r, quads);
    let first = if plan.column_first {
        ColumnRole::First {
            transposed: plan.transposed,
        }
    } else {
        ColumnRole::Second
    };
    let mut h = Kernel::new(&key, &[], "decim_h");
    h.generated = Some(decimate_source(r, &plan, quads, first)?);
    let mut v = Kernel::new(&key, &[], "decim_v");
    v.generated = h.generated.clone();
    let mut up = Kernel::new(&key, &[], "decim_up");
    up.generated = h.generated.clone();
    let uniform = bytemuck::bytes_of(&p);
    // bench-only ablations: one pass alone
    let (run_h, run_v) = (
        alone.is_none_or(|p| p == PassAlone::Rows),
        alone.is_none_or(|p| p == PassAlone::Columns),
    );
    if plan.transposed {
        // both passes are column passes: the first over the image's columns (its "node
        // columns"), storing node rows transposed; the second over those, with rows and
        // columns swapped (clamping at the image's width, nodes_x node columns as its rows)
        let pv = GaussianBlurParams {
            nodes_x: d.width,
            ..p
        };
        let pt = GaussianBlurParams {
            width: d.height,
            height: d.width,
            nodes_x: ny,
            nodes_y: nx,
            ..p
        };
        let mut t = Kernel::new(&format!("{key}.rows"), &[], "decim_v");
        t.generated = Some(decimate_source(
            r,
            &plan,
            quads,
            ColumnRole::TransposedRows,
        )?);
        if run_v {
            rec.dispatch_uninit(
                &v,
                &[&input.buffer, &mid],
                bytemuck::bytes_of(&pv),
                [d.width.div_ceil(64), ny.div_ceil(plan.bv), 1],
            )?;
        }
        if run_h {
            rec.dispatch_uninit(
                &t,
                &[&mid, &nodes],
                bytemuck::bytes_of(&pt),
                [ny.div_ceil(64), nx.div_ceil(plan.bv2), 1],
            )?;
        }
    } else if plan.column_first {
        // the column pass's "node columns" are the image's columns
        let pv = GaussianBlurParams {
            nodes_x: d.width,
            ..p
        };
        if run_v {
            rec.dispatch_uninit(
                &v,
                &[&input.buffer, &mid],
                bytemuck::bytes_of(&pv),
                [d.width.div_ceil(64), ny.div_ceil(plan.bv), 1],
            )?;
        }
        if run_h {
            rec.dispatch_uninit(
                &h,
                &[&mid, &nodes],
                uniform,
                [nx.div_ceil(p.seg_nodes), ny, 1],
            )?;
        }
    } else {
        if run_h {
            // every workgroup-memory slot the row pass reads it has written first
            rec.dispatch_uninit(
                &h,
                &[&input.buffer, &mid],
                uniform,
                [nx.div_ceil(p.seg_nodes), d.height, 1],
            )?;
        }
        if run_v {
            // every workgroup-memory slot read (the phase groups' partial sums) is written first
            rec.dispatch_uninit(
                &v,
                &[&mid, &nodes],
                uniform,
                [nx.div_ceil(64), ny.div_ceil(plan.bv), 1],
            )?;
        }
    }
    if alone.is_none_or(|p| p == PassAlone::Interpolation) {
        rec.dispatch(
            &up,
            &[&nodes, &output.buffer],
            uniform,
            groups_2d(
                d.width.div_ceil(UP_COLUMNS),
                d.height.div_ceil(plan.th),
                64,
                1,
            ),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::weights;
    use super::*;

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
                assert!(
                    d as usize * w.len().div_ceil(d as usize).div_ceil(4) <= POLY_VECS,
                    "sigma {sigma}"
                );
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
        // gaussian_blur.rs skips the search at the fused tile's radii
        for tenth in 1..=((super::super::MAX_FUSED_RADIUS as f32 / 3.0) * 10.0) as u32 {
            assert_eq!(decimation_step(&weights(tenth as f32 / 10.0)), None);
        }
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
                if (0..k.len() as i64).contains(&i) && k[i as usize] > 0.0 {
                    255.0
                } else {
                    0.0
                }
            };
            let h = |a: i64| -> f64 {
                w.iter()
                    .enumerate()
                    .map(|(i, &wi)| wi as f64 * g(a + i as i64 - r))
                    .sum()
            };
            let c = cubic_weights(p as f64 / d as f64);
            let interp: f64 = (0..4).map(|j| c[j] * h((j as i64 - 1) * d as i64)).sum();
            let err = h(p as i64) - interp;
            let l1: f64 = k.iter().map(|v| v.abs()).sum();
            assert!(
                (err - 127.5 * l1).abs() < 1e-6,
                "sigma {sigma}: {err} vs {}",
                127.5 * l1
            );
            assert!(
                err > 0.1,
                "sigma {sigma}: a bound this small would not be worth testing ({err})"
            );
        }
    }
    #[test]
    fn decimated_source_parses_shape() {
        let plan = DecimatePlan::new(
            3,
            DecimateOptions {
                row: Some(RowSource::Packed),
                ..Default::default()
            },
        )
        .unwrap();
        assert!(
            !plan.column_first,
            "a row source implies the row pass first"
        );
        let s = decimate_source(24, &plan, true, ColumnRole::Second).unwrap();
        assert!(s.contains("const Q: u32 = 17u;") && s.contains("const QV: u32 = 5u;"));
        assert!(
            s.contains("a7 += w16 * p7;"),
            "step 16 of 17 adds input 23 (slot 7) to node 7"
        );
        assert!(s.contains("dst2[(row + x0) / 2u]"));
    }
}
