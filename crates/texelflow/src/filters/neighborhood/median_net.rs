//! The GPU kernels of `median_3x3` and `median_5x5` (OpenCV's `medianBlur(3)` / `medianBlur(5)`,
//! GPUImage's `GPUImageMedianFilter` at 3x3) that share work between neighbouring outputs:
//! each invocation computes a block of outputs (e.g. 4 x 2) from its pixels, with the
//! comparison network generated here once per shape.
//!
//! The network is built symbolically (`Net`): every value is a node (an input pixel, or the
//! `min` / `max` of two nodes), identical nodes are made once (so the column sorts that several
//! outputs of the block see are shared, as in Perrot et al.'s and Adams' separable medians),
//! and a `min` or `max` whose answer the ordering already known implies is no operation at all
//! (sorted columns make most of a forgetful selection's exchanges free). Only the nodes the
//! outputs use are emitted. The selection itself (`select`) is exact for any values, ties
//! included: an element is dropped only when enough others are known to lie on its side of
//! the median, the rank argument of forgetful selection.
//!
//! Lanes: `f16` keeps each channel as the half 1024 + byte (bits 0x6400 | byte, exact; min
//! and max of halves are exact), four channels in two 32-bit registers, so one `min` of a
//! pixel is two packed-half instructions (needs `shader-f16`); `u32` keeps one channel per
//! 32-bit lane (four instructions). Packed 16-bit lanes in u32 arithmetic (SWAR) were counted
//! and not built: a per-lane compare-exchange is at least six integer operations for two lanes
//! (add-with-borrow, mask, widen, two selects) against four for `u32` lanes and two for `f16`.

use std::collections::HashMap;

use crate::error::{Error, Result};
use crate::image::ImageDesc;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};

/// A node of the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Node {
    /// Input pixel `i` of the block (row-major over the block's loaded pixels).
    Input(usize),
    Min(usize, usize),
    Max(usize, usize),
}

/// A comparison network under construction, with the order relations its operations imply.
pub(crate) struct Net {
    nodes: Vec<Node>,
    cse: HashMap<Node, usize>,
    /// `lower[n]`: nodes known to be <= n when n was made; `upper[n]`: nodes known >= n.
    lower: Vec<Vec<u64>>,
    upper: Vec<Vec<u64>>,
}

fn has(set: &[u64], i: usize) -> bool {
    set.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

fn put(set: &mut Vec<u64>, i: usize) {
    if set.len() <= i / 64 {
        set.resize(i / 64 + 1, 0);
    }
    set[i / 64] |= 1 << (i % 64);
}

impl Net {
    pub(crate) fn new(inputs: usize) -> Self {
        let mut n = Net {
            nodes: Vec::new(),
            cse: HashMap::new(),
            lower: Vec::new(),
            upper: Vec::new(),
        };
        for i in 0..inputs {
            n.push(Node::Input(i), Vec::new(), Vec::new());
        }
        n
    }

    fn push(&mut self, node: Node, mut lower: Vec<u64>, mut upper: Vec<u64>) -> usize {
        let id = self.nodes.len();
        put(&mut lower, id);
        put(&mut upper, id);
        self.nodes.push(node);
        self.lower.push(lower);
        self.upper.push(upper);
        self.cse.insert(node, id);
        id
    }

    /// Whether `a <= b` follows from the operations so far (relations only ever link a new
    /// node to older ones, so checking both nodes' sets is complete for what was recorded).
    pub(crate) fn le(&self, a: usize, b: usize) -> bool {
        a == b || has(&self.upper[a], b) || has(&self.lower[b], a)
    }

    fn make(&mut self, is_min: bool, a: usize, b: usize) -> usize {
        let (x, y) = (a.min(b), a.max(b));
        let node = if is_min {
            Node::Min(x, y)
        } else {
            Node::Max(x, y)
        };
        if let Some(&id) = self.cse.get(&node) {
            return id;
        }
        let (mut lower, mut upper) = (Vec::new(), Vec::new());
        for z in 0..self.nodes.len() {
            let (za, zb) = (self.le(z, a), self.le(z, b));
            let (az, bz) = (self.le(a, z), self.le(b, z));
            // min: below both is below it, above either is above it; max the other way round
            let (below, above) = if is_min {
                (za && zb, az || bz)
            } else {
                (za || zb, az && bz)
            };
            if below {
                put(&mut lower, z);
            }
            if above {
                put(&mut upper, z);
            }
        }
        self.push(node, lower, upper)
    }

    pub(crate) fn min(&mut self, a: usize, b: usize) -> usize {
        if self.le(a, b) {
            a
        } else if self.le(b, a) {
            b
        } else {
            self.make(true, a, b)
        }
    }

    pub(crate) fn max(&mut self, a: usize, b: usize) -> usize {
        if self.le(a, b) {
            b
        } else if self.le(b, a) {
            a
        } else {
            self.make(false, a, b)
        }
    }

    /// Compare-exchange: `(min, max)`.
    pub(crate) fn ce(&mut self, a: usize, b: usize) -> (usize, usize) {
        (self.min(a, b), self.max(a, b))
    }

    /// Sorts `v` ascending (optimal networks up to 5 elements, insertion beyond).
    pub(crate) fn sort(&mut self, v: &[usize]) -> Vec<usize> {
        let pairs: &[(usize, usize)] = match v.len() {
            2 => &[(0, 1)],
            3 => &[(0, 1), (1, 2), (0, 1)],
            4 => &[(0, 1), (2, 3), (0, 2), (1, 3), (1, 2)],
            5 => &[
                (0, 1),
                (3, 4),
                (2, 4),
                (2, 3),
                (0, 3),
                (0, 2),
                (1, 4),
                (1, 3),
                (1, 2),
            ],
            _ => {
                let mut s: Vec<usize> = Vec::new();
                for &x in v {
                    s = self.insert(&s, x);
                }
                return s;
            }
        };
        let mut s = v.to_vec();
        for &(i, j) in pairs {
            let (lo, hi) = self.ce(s[i], s[j]);
            s[i] = lo;
            s[j] = hi;
        }
        s
    }

    /// `x` inserted into the sorted `s` (a bubble from the top: `s.len()` exchanges at most).
    pub(crate) fn insert(&mut self, s: &[usize], x: usize) -> Vec<usize> {
        let mut out = s.to_vec();
        out.push(x);
        for i in (0..s.len()).rev() {
            let (lo, hi) = self.ce(out[i], out[i + 1]);
            out[i] = lo;
            out[i + 1] = hi;
        }
        out
    }

    /// The `k`-th smallest (1-based) of the multiset `cands` (each node one element): forgetful
    /// selection. Elements are dropped when the recorded order shows at least `k` others at or
    /// below them (too large: the `k`-th smallest of the rest is the same) or at least
    /// `len - k + 1` others at or above them (too small: then it is the `k - 1`-th of the
    /// rest); otherwise the first `max(len - k + 2, k + 1)` candidates are put through one
    /// tournament (pairs, then the lows' minimum and the highs' maximum), after which their
    /// minimum and maximum are droppable. Candidates are taken in the order given, so sorted
    /// columns given column by column make most exchanges free.
    pub(crate) fn select(&mut self, cands: &[usize], k: usize) -> usize {
        let mut c = cands.to_vec();
        let mut k = k;
        loop {
            // drop what the known order already rules out
            loop {
                let n = c.len();
                let mut dropped = None;
                for (i, &e) in c.iter().enumerate() {
                    let below = c
                        .iter()
                        .enumerate()
                        .filter(|&(j, &x)| j != i && self.le(x, e))
                        .count();
                    let above = c
                        .iter()
                        .enumerate()
                        .filter(|&(j, &x)| j != i && self.le(e, x))
                        .count();
                    if below >= k {
                        dropped = Some((i, false));
                        break;
                    }
                    if above > n - k {
                        dropped = Some((i, true));
                        break;
                    }
                }
                match dropped {
                    Some((i, small)) => {
                        c.remove(i);
                        if small {
                            k -= 1;
                        }
                    }
                    None => break,
                }
            }
            if c.len() == 1 {
                return c[0];
            }
            let m = (c.len() - k + 2).max(k + 1).min(c.len());
            let w = &mut c[..m];
            let mut lows = Vec::new();
            let mut highs = Vec::new();
            for p in 0..m / 2 {
                let (lo, hi) = self.ce(w[2 * p], w[2 * p + 1]);
                w[2 * p] = lo;
                w[2 * p + 1] = hi;
                lows.push(2 * p);
                highs.push(2 * p + 1);
            }
            if m % 2 == 1 {
                lows.push(m - 1);
                highs.push(m - 1);
            }
            for &i in &lows[1..] {
                let (lo, hi) = self.ce(w[lows[0]], w[i]);
                w[lows[0]] = lo;
                w[i] = hi;
            }
            let last = *highs.last().expect("a candidate");
            for &i in &highs[..highs.len() - 1] {
                let (lo, hi) = self.ce(w[i], w[last]);
                w[i] = lo;
                w[last] = hi;
            }
        }
    }

    /// The nodes `outputs` need, in creation order (a topological order), inputs excluded.
    fn live(&self, outputs: &[usize]) -> Vec<usize> {
        let mut need = vec![false; self.nodes.len()];
        let mut stack: Vec<usize> = outputs.to_vec();
        while let Some(n) = stack.pop() {
            if need[n] {
                continue;
            }
            need[n] = true;
            if let Node::Min(a, b) | Node::Max(a, b) = self.nodes[n] {
                stack.push(a);
                stack.push(b);
            }
        }
        (0..self.nodes.len())
            .filter(|&n| need[n] && !matches!(self.nodes[n], Node::Input(_)))
            .collect()
    }

    /// Number of `min`/`max` operations (each on a whole pixel) the outputs need.
    #[cfg(test)]
    pub(crate) fn ops(&self, outputs: &[usize]) -> usize {
        self.live(outputs).len()
    }

    /// WGSL statements computing the outputs: `let vN = min(vA, vB);` per live node (inputs
    /// are `vI` for input I, bound by the caller).
    fn wgsl(&self, outputs: &[usize]) -> String {
        let mut s = String::new();
        for n in self.live(outputs) {
            let (f, a, b) = match self.nodes[n] {
                Node::Min(a, b) => ("min", a, b),
                Node::Max(a, b) => ("max", a, b),
                Node::Input(_) => unreachable!("inputs are not live nodes"),
            };
            s += &format!("    let v{n} = {f}(v{a}, v{b});\n");
        }
        s
    }
}

/// A block shape and lane type: a schedule of the fast medians.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Window side, 3 or 5.
    pub k: usize,
    /// Outputs per invocation across and down.
    pub bw: usize,
    pub bh: usize,
    pub f16: bool,
}

impl Shape {
    /// The schedule name: `f16_4x2`, `u32_4x1`, ...
    pub(crate) fn name(&self) -> String {
        format!(
            "{}_{}x{}",
            if self.f16 { "f16" } else { "u32" },
            self.bw,
            self.bh
        )
    }

    pub(crate) fn parse(k: usize, name: &str) -> Option<Shape> {
        let (lanes, dims) = name.split_once('_')?;
        let (bw, bh) = dims.split_once('x')?;
        let f16 = match lanes {
            "f16" => true,
            "u32" => false,
            _ => return None,
        };
        let shape = Shape {
            k,
            bw: bw.parse().ok()?,
            bh: bh.parse().ok()?,
            f16,
        };
        (SHAPES.contains(&(k, shape.bw, shape.bh))).then_some(shape)
    }
}

/// The block shapes offered (window side, across, down): 4 across so a row of a block is one
/// 16-byte load and store on widths that are a multiple of 4.
pub(crate) const SHAPES: &[(usize, usize, usize)] = &[
    (3, 4, 1),
    (3, 4, 2),
    (3, 4, 4),
    (5, 4, 1),
    (5, 4, 2),
    (5, 2, 2),
];

/// The network of one block: the outputs' nodes, row-major, and the net. Inputs: the
/// (bw + k - 1) x (bh + k - 1) pixels around the block, row-major.
pub(crate) fn block_network(s: Shape) -> (Net, Vec<usize>) {
    let (k, bw, bh) = (s.k, s.bw, s.bh);
    let (iw, ih) = (bw + k - 1, bh + k - 1);
    let mut net = Net::new(iw * ih);
    let px = |x: usize, y: usize| y * iw + x;
    // each column's rows seen by every output row of the block sorted once, then each output
    // row's extra rows inserted (Perrot's sharing between vertically adjacent outputs)
    let core = if bh <= k { (bh - 1)..k } else { 0..0 };
    let mut cols: Vec<Vec<Vec<usize>>> = vec![Vec::new(); bh]; // [output row][column] sorted k
    for x in 0..iw {
        let shared = net.sort(&core.clone().map(|y| px(x, y)).collect::<Vec<_>>());
        for (r, col) in cols.iter_mut().enumerate() {
            let mut s = shared.clone();
            for y in r..r + k {
                if !core.contains(&y) {
                    s = net.insert(&s, px(x, y));
                }
            }
            col.push(s);
        }
    }
    let mut outs = Vec::new();
    for col in &cols {
        for x in 0..bw {
            let window = &col[x..x + k];
            let o = if k == 3 {
                med9(&mut net, window, x)
            } else {
                med25(&mut net, window, x)
            };
            outs.push(o);
        }
    }
    (net, outs)
}

/// Median of a 3x3 window from its sorted columns: the median of (the largest minimum, the
/// median of the medians, the smallest maximum). The outputs of a block pair their columns
/// at odd offsets so neighbours share the pair's operations.
fn med9(net: &mut Net, w: &[Vec<usize>], x: usize) -> usize {
    // (single, pair) column indices within the window: the pair starts at an odd block column
    let (single, p0, p1) = if x.is_multiple_of(2) {
        (0, 1, 2)
    } else {
        (2, 0, 1)
    };
    let lo = net.max(w[p0][0], w[p1][0]);
    let lo = net.max(lo, w[single][0]);
    let hi = net.min(w[p0][2], w[p1][2]);
    let hi = net.min(hi, w[single][2]);
    let (a, b) = net.ce(w[p0][1], w[p1][1]);
    let mid = net.min(w[single][1], b);
    let mid = net.max(a, mid);
    med3(net, lo, mid, hi)
}

/// Median of a 5x5 window from its sorted columns: each rank's five values (a "row") sorted
/// too, which leaves the columns sorted, so the element of rank i in its column and j in its
/// row is at or above (i + 1)(j + 1) elements and at or below (5 - i)(5 - j): the 13 with
/// neither count above 13 are the candidates, and the median is the 7th of them (6 ruled out
/// on each side; dropping dominating elements first keeps every count, ties included). Rows
/// merge the window's columns as pairs starting at odd block columns, then the pair of pairs,
/// then the fifth, so neighbouring outputs share the pairs and quads.
#[allow(
    clippy::needless_range_loop,
    reason = "i is a row across five columns of w"
)]
fn med25(net: &mut Net, w: &[Vec<usize>], x: usize) -> usize {
    let (quad, single) = if x.is_multiple_of(2) { (1, 0) } else { (0, 4) };
    let mut rows = Vec::new();
    for i in 0..5 {
        let (a, b) = net.ce(w[quad][i], w[quad + 1][i]);
        let (c, d) = net.ce(w[quad + 2][i], w[quad + 3][i]);
        // merge the two sorted pairs
        let (a, c) = net.ce(a, c);
        let (b, d) = net.ce(b, d);
        let (b, c) = net.ce(b, c);
        rows.push(net.insert(&[a, b, c, d], w[single][i]));
    }
    let mut cands = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            if (i + 1) * (j + 1) <= 13 && (5 - i) * (5 - j) <= 13 {
                cands.push(v);
            }
        }
    }
    debug_assert_eq!(cands.len(), 13);
    net.select(&cands, 7)
}

fn med3(net: &mut Net, a: usize, b: usize, c: usize) -> usize {
    let (lo, hi) = net.ce(a, b);
    let m = net.min(hi, c);
    net.max(lo, m)
}

/// The kernel of shape `s`: a workgroup of 16 x 4 invocations, each loading its block's pixels
/// (clamped: replicated borders) and storing `bw x bh` outputs. `quads`: the width is a
/// multiple of 4 and bw is 4, so each row of the block loads its middle 4 pixels and stores
/// its 4 outputs as one 16-byte access.
pub(crate) fn kernel_source(s: Shape, quads: bool) -> String {
    let (k, bw, bh) = (s.k, s.bw, s.bh);
    let r = k / 2;
    let (iw, ih) = (bw + k - 1, bh + k - 1);
    let (net, outs) = block_network(s);
    let quads = quads && bw == 4;
    let mut src = String::new();
    if s.f16 {
        // halves 1024 + byte in the order R, B, G, A: each word's byte pairs stay in place.
        // Through f32 because naga 30 rejects bitcasts to f16 vectors; the conversions of
        // these exact halves are exact (and a compiler may drop them).
        src += "enable f16;\nalias V = vec4<f16>;\n\
                fn lanes(p: u32) -> V { return V(vec4<f32>(unpack2x16float((p & 0x00FF00FFu) | 0x64006400u), unpack2x16float(((p >> 8u) & 0x00FF00FFu) | 0x64006400u))); }\n\
                fn pixel(v: V) -> u32 { let f = vec4<f32>(v); return (pack2x16float(f.xy) & 0x00FF00FFu) | ((pack2x16float(f.zw) & 0x00FF00FFu) << 8u); }\n";
    } else {
        src += "alias V = vec4<u32>;\n\
                fn lanes(p: u32) -> V { return (vec4<u32>(p) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(255u); }\n\
                fn pixel(v: V) -> u32 { return v.x | (v.y << 8u) | (v.z << 16u) | (v.w << 24u); }\n";
    }
    src += "struct MedianNetParams { width: u32, height: u32, _p0: u32, _p1: u32 }\n";
    // quads: the same buffers seen as 16-byte words too (bindings as the stencil's rows4)
    src += if quads {
        "@group(0) @binding(0) var<storage, read> src4: array<vec4<u32>>;\n\
         @group(0) @binding(1) var<storage, read_write> dst4: array<vec4<u32>>;\n\
         @group(0) @binding(2) var<storage, read> src: array<u32>;\n\
         @group(0) @binding(3) var<uniform> mp: MedianNetParams;\n"
    } else {
        "@group(0) @binding(0) var<storage, read> src: array<u32>;\n\
         @group(0) @binding(1) var<storage, read_write> dst: array<u32>;\n\
         @group(0) @binding(2) var<uniform> mp: MedianNetParams;\n"
    };
    src += &format!(
        "@compute @workgroup_size({WG_X}, {WG_Y})\n\
         fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{\n\
         \x20   let bx = gid.x * {bw}u;\n\
         \x20   let by = gid.y * {bh}u;\n\
         \x20   if (bx >= mp.width || by >= mp.height) {{ return; }}\n\
         \x20   let wmax = i32(mp.width) - 1;\n\
         \x20   let hmax = i32(mp.height) - 1;\n"
    );
    for y in 0..ih {
        src += &format!(
            "    let row{y} = u32(clamp(i32(by) + {}, 0, hmax)) * mp.width;\n",
            y as i32 - r as i32
        );
        if quads {
            src += &format!("    let q{y} = src4[(row{y} + bx) / 4u];\n");
        }
        for x in 0..iw {
            let id = y * iw + x;
            let dx = x as i32 - r as i32;
            if quads && (0..4).contains(&dx) {
                let c = ["x", "y", "z", "w"][dx as usize];
                src += &format!("    let v{id} = lanes(q{y}.{c});\n");
            } else {
                src += &format!(
                    "    let v{id} = lanes(src[row{y} + u32(clamp(i32(bx) + {dx}, 0, wmax))]);\n"
                );
            }
        }
    }
    src += &net.wgsl(&outs);
    for oy in 0..bh {
        src += &format!("    if (by + {oy}u < mp.height) {{\n");
        let o = |ox: usize| format!("pixel(v{})", outs[oy * bw + ox]);
        if quads {
            src += &format!(
                "        dst4[((by + {oy}u) * mp.width + bx) / 4u] = vec4<u32>({}, {}, {}, {});\n",
                o(0),
                o(1),
                o(2),
                o(3)
            );
        } else {
            for ox in 0..bw {
                let guard = if ox == 0 {
                    String::new()
                } else {
                    format!("if (bx + {ox}u < mp.width) ")
                };
                src += &format!(
                    "        {guard}{{ dst[(by + {oy}u) * mp.width + bx + {ox}u] = {}; }}\n",
                    o(ox)
                );
            }
        }
        src += "    }\n";
    }
    src += "}\n";
    src
}

/// Workgroup: 16 x 4 invocations (64 blocks).
pub(crate) const WG_X: u32 = 16;
pub(crate) const WG_Y: u32 = 4;

/// The default shape: 4 x 2 outputs per invocation, in packed halves where the device runs
/// f16 natively, else u32 lanes.
fn choose(k: usize, native_f16: bool) -> Shape {
    // H100, 4K (fec4003:bench/results/h100-s12/): 3x3 f16_4x2 0.0418 ms (1.48x copy), f16_4x4
    // 0.0444, f16_4x1 0.0476, u32_4x2 0.0598, u32_4x1 0.0640, old rows4p 0.1116; 5x5 f16_4x2
    // 0.2040 (7.2x), f16_4x1 0.2167, f16_2x2 0.2196, u32_4x2 0.3734, old tile 0.56-1.11.
    // Software Vulkan (lavapipe) emulates f16 (100x slower there): u32 lanes on CPU devices.
    Shape {
        k,
        bw: 4,
        bh: 2,
        f16: native_f16,
    }
}

/// Every schedule name of the `k` x `k` median: the template's (`tile`, and for 3x3 `rows4` and
/// `rows4p`, the forgetful selection per output) and the networks'.
pub(crate) fn schedule_names(k: usize) -> Vec<String> {
    let mut v: Vec<String> = if k == 3 {
        vec!["rows4p".into(), "rows4".into(), "tile".into()]
    } else {
        vec!["tile".into()]
    };
    for &(sk, bw, bh) in SHAPES.iter().filter(|s| s.0 == k) {
        for f16 in [true, false] {
            v.push(Shape { k: sk, bw, bh, f16 }.name());
        }
    }
    v
}

/// Records the median of side `k` (`key`: the filter's name, its schedule key) on RGBA8 with a
/// block network; `Ok(false)` where the schedule names one of the stencil template's kernels.
pub(crate) fn record(
    k: usize,
    key: &str,
    rec: &mut NodeRecorder<'_>,
    src: &GpuSlot,
    dst: &GpuSlot,
    d: &ImageDesc,
) -> Result<bool> {
    let f16 = rec.gpu().has_f16();
    let shape = match rec.schedule(key) {
        None => choose(k, f16 && rec.gpu().info().device_type != "Cpu"),
        Some("tile" | "rows4" | "rows4p") => return Ok(false),
        Some(v) => match Shape::parse(k, v) {
            Some(s) => s,
            None => {
                let names = schedule_names(k);
                return Err(crate::runtime::schedule::unknown(
                    key,
                    v,
                    &names.iter().map(String::as_str).collect::<Vec<_>>(),
                ));
            }
        },
    };
    if shape.f16 && !f16 {
        return Err(Error::schedule_unsupported(
            key,
            format!(
                "the {} schedule needs a device with shader-f16",
                shape.name()
            ),
        ));
    }
    let quads = d.width.is_multiple_of(4) && shape.bw == 4;
    let mut kernel = Kernel::new(
        &format!("median_net.{}x{}.{}.q{}", k, k, shape.name(), quads as u32),
        &[],
        "main",
    );
    kernel.generated = Some(kernel_source(shape, quads));
    let mut uniform = Vec::with_capacity(16);
    for w in [d.width, d.height, 0, 0] {
        uniform.extend_from_slice(&w.to_le_bytes());
    }
    let groups = groups_2d(
        d.width.div_ceil(shape.bw as u32),
        d.height.div_ceil(shape.bh as u32),
        WG_X,
        WG_Y,
    );
    if quads {
        rec.dispatch(
            &kernel,
            &[&src.buffer, &dst.buffer, &src.buffer],
            &uniform,
            groups,
        )?;
    } else {
        rec.dispatch(&kernel, &[&src.buffer, &dst.buffer], &uniform, groups)?;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluates the block network on numbers (the network's values, as the kernel computes them).
    fn eval(net: &Net, outs: &[usize], input: &[u8]) -> Vec<u8> {
        let mut v = vec![0u8; net.nodes.len()];
        for (i, n) in net.nodes.iter().enumerate() {
            v[i] = match *n {
                Node::Input(j) => input[j],
                Node::Min(a, b) => v[a].min(v[b]),
                Node::Max(a, b) => v[a].max(v[b]),
            };
        }
        outs.iter().map(|&o| v[o]).collect()
    }

    /// Every shape's network gives each output's median, on random blocks with many ties.
    #[test]
    fn networks_select_the_median() {
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for &(k, bw, bh) in SHAPES {
            let s = Shape {
                k,
                bw,
                bh,
                f16: true,
            };
            let (net, outs) = block_network(s);
            let (iw, ih) = (bw + k - 1, bh + k - 1);
            for trial in 0..3000 {
                let range = [2u64, 4, 256][trial % 3];
                let input: Vec<u8> = (0..iw * ih).map(|_| (next() % range) as u8).collect();
                let got = eval(&net, &outs, &input);
                for oy in 0..bh {
                    for ox in 0..bw {
                        let mut w: Vec<u8> = (0..k)
                            .flat_map(|y| (0..k).map(move |x| (x, y)))
                            .map(|(x, y)| input[(oy + y) * iw + ox + x])
                            .collect();
                        w.sort_unstable();
                        assert_eq!(
                            got[oy * bw + ox],
                            w[w.len() / 2],
                            "{s:?} output ({ox}, {oy}) of {input:?}"
                        );
                    }
                }
            }
        }
    }

    /// The operation counts per output (printed with `--nocapture`; the report's estimates).
    #[test]
    fn operation_counts() {
        for &(k, bw, bh) in SHAPES {
            let s = Shape {
                k,
                bw,
                bh,
                f16: true,
            };
            let (net, outs) = block_network(s);
            let ops = net.ops(&outs);
            eprintln!(
                "{k}x{k} block {bw}x{bh}: {ops} min/max per block, {:.1} per output",
                ops as f64 / (bw * bh) as f64
            );
            assert!(ops as f64 / ((bw * bh) as f64) < if k == 3 { 20.0 } else { 180.0 });
        }
    }
}
