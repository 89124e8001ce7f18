//! The shared engine of dilation and erosion: a separable max (or min) over a square
//! window, one horizontal and one vertical pass, each by van Herk / Gil-Werman (see
//! `morphology.wgsl`): kernels generated per radius as straight-line code, and the CPU twin.
//!
//! Max over a (2r+1)x(2r+1) square with clamped coordinates equals a row max followed by a
//! column max, because clamping acts on each axis separately. Erosion is dilation of the
//! inverted samples, so both share one kernel (`flip` uniform).

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::filters::registry::{expect_image, input_image, FilterDef, Tolerance, UniformLayout};
use crate::graph::params::ParamDef;
use crate::image::{Image, ImageDesc, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};

use crate::value::{Value, ValueDesc};

use super::onepass::{OnepassOptions, MAX_ONEPASS_RADIUS};
use super::window::{WindowOptions, MAX_WINDOW_RADIUS};

pub(crate) const WGSL: &str = include_str!("morphology.wgsl");

/// The radius parameter shared by the whole family.
pub(crate) const RADIUS: ParamDef = ParamDef::int(
    "radius",
    1,
    1,
    32,
    "window half-size: the square window is (2r+1)x(2r+1) pixels",
);

/// Max and min of 8-bit samples are exact, so the GPU and the CPU agree bit for bit.
pub(crate) const EXACT: Tolerance = Tolerance {
    max_diff: 0,
    why: "",
};

/// Formats the family accepts (and produces unchanged).
pub(crate) const FORMATS: &[PixelFormat] = &[PixelFormat::Rgba8, PixelFormat::Gray8];

pub(crate) const UNIFORMS: &[UniformLayout] = &[MorphParams::layout(WGSL)];

uniform_struct! {
    /// Uniform of both passes (`morphology.wgsl`).
    pub struct MorphParams {
        /// Samples along a row: pixels for the horizontal passes, words for the vertical one.
        pub width: u32,
        pub height: u32,
        /// Row pitch of both buffers in u32 words.
        pub words_per_row: u32,
        /// 0 for dilation (max); all ones for erosion (max of inverted samples).
        pub flip: u32,
    }
}

/// Max or min.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Max,
    Min,
}

/// Horizontal pass: aim for at least this many van Herk outputs per row of a workgroup
/// tile, so the clamped halo stays a small part of what is read. Schedule choice, not
/// algorithm; to be measured on H100 (it was, on an H200: 96).
const H_MIN_COLUMNS: u32 = 96;
/// Invocations per workgroup of the horizontal pass (rows are halved while the tile does
/// not fit the device's workgroup memory). Schedule choice, not algorithm.
const H_THREADS: u32 = 128;
/// Largest block radius the horizontal pass runs van Herk with. Beyond it the window is
/// split into two overlapping halves, max over [x-r, x+r] = max(M(x-d), M(x+d)) with M the
/// max over a window of radius r' = ceil((2r-1)/4) and d = r - r', until r' is small enough:
/// one more max per output per halving (two at radius 32). On an H200 the straight-line
/// block code grew slower per pixel past K = 17 in this pass (the vertical pass, without
/// workgroup memory, did not), so this is a schedule choice; to be measured on H100.
pub(super) const H_MAX_BLOCK_RADIUS: u32 = 8;
/// Vertical pass workgroup: 64 adjacent columns (a warp reads whole 128-byte row
/// segments) x this many blocks of K rows. Schedule choice, not algorithm; measured on an
/// H200 against a workgroup-memory tile like the horizontal one, which was slower.
const V_COLUMNS: u32 = 64;
const V_BLOCKS: u32 = 2;

/// The window split of `H_MAX_BLOCK_RADIUS`: the block radius and the offsets whose block
/// maxima make up the window of `radius`.
pub(super) fn split_window(radius: u32, max_block: u32) -> (u32, Vec<i32>) {
    let (mut r, mut offsets) = (radius, vec![0i32]);
    while r > max_block {
        let half = (2 * r - 1).div_ceil(4);
        let d = (r - half) as i32;
        offsets = offsets.iter().flat_map(|&o| [o - d, o + d]).collect();
        r = half;
    }
    (r, offsets)
}

/// The horizontal kernel's specialisation: TR rows x NB blocks of K = 2*RB+1 per workgroup.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct HTile {
    radius: u32,
    /// Block radius (the radius itself unless split).
    rb: u32,
    nb: u32,
    tr: u32,
    /// Row stride in workgroup memory: at least NB*K + 2*RB and congruent to NB*K mod 32,
    /// so invocation `lid` reads word `lid*K + s` mod 32 (K odd: distinct banks per warp).
    rs: u32,
    /// van Herk emitted in streaming order (`van_herk_stream`).
    stream: bool,
}

/// What a schedule asks of the horizontal tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HShape {
    /// Block maxima per tile row to aim for.
    min_columns: u32,
    /// Largest block radius before the window is split.
    max_block: u32,
    /// Invocations per workgroup (at most).
    threads: u32,
    /// van Herk in streaming order.
    stream: bool,
}

impl HShape {
    const DEFAULT: HShape = HShape {
        min_columns: H_MIN_COLUMNS,
        max_block: H_MAX_BLOCK_RADIUS,
        threads: H_THREADS,
        stream: false,
    };
    /// `wide`: see WIDE.
    const WIDE: HShape = HShape {
        min_columns: WIDE_COLUMNS,
        ..HShape::DEFAULT
    };
    /// `wide16`: see WIDE16.
    const WIDE16: HShape = HShape {
        min_columns: WIDE_COLUMNS,
        max_block: 16,
        threads: 64,
        stream: true,
    };
}

impl HTile {
    #[cfg(test)]
    fn fit(radius: u32, budget: u64) -> Result<HTile> {
        Self::fit_with(radius, budget, HShape::DEFAULT)
    }

    /// `fit` for another tile shape (the `wide*` schedules).
    fn fit_with(radius: u32, budget: u64, shape: HShape) -> Result<HTile> {
        let HShape {
            min_columns,
            max_block,
            threads,
            stream,
        } = shape;
        let (rb, _) = split_window(radius, max_block);
        let (k, dmax) = (2 * rb + 1, radius - rb);
        // a power of two from 4 to 32 (whole Gray8 words per tile row), leaving at least
        // 32 outputs per row once the split's reach is taken off
        let mut nb = min_columns.div_ceil(k).next_power_of_two().clamp(4, 32);
        while nb * k < 2 * dmax + 32 {
            nb *= 2;
        }
        let rs = nb * k + 32 * (2 * rb).div_ceil(32);
        let mut t = HTile {
            radius,
            rb,
            nb,
            tr: (threads / nb).max(1),
            rs,
            stream,
        };
        while t.tr > 1 && t.shared_bytes() > budget {
            t.tr /= 2;
        }
        if t.shared_bytes() > budget {
            return Err(Error::Gpu(format!("morphology radius {radius} needs more workgroup memory than the device's {budget} bytes")));
        }
        Ok(t)
    }
    fn k(&self) -> u32 {
        2 * self.rb + 1
    }
    /// Block maxima per tile row.
    fn ti(&self) -> u32 {
        self.nb * self.k()
    }
    /// Output columns per tile row: what the block maxima cover after the split's reach,
    /// in whole Gray8 words.
    fn tc(&self) -> u32 {
        (self.ti() - 2 * (self.radius - self.rb)) / 4 * 4
    }
    /// Input columns per tile row.
    fn ext(&self) -> u32 {
        self.ti() + 2 * self.rb
    }
    fn threads(&self) -> u32 {
        self.nb * self.tr
    }
    fn shared_bytes(&self) -> u64 {
        self.tr as u64 * self.rs as u64 * 4
    }

    fn kernel(&self, entry: &'static str) -> Kernel {
        let key = format!(
            "morphology/h/r{}/rb{}/nb{}/tr{}{}",
            self.radius,
            self.rb,
            self.nb,
            self.tr,
            if self.stream { "/s" } else { "" }
        );
        Kernel {
            key,
            sources: vec![MorphParams::WGSL, WGSL],
            entry,
            generated: Some(self.source()),
            checks: None,
            zero_init_workgroup: true,
        }
    }

    fn source(&self) -> String {
        let (r, k, nb, tr, rs, tc, ext, t) = (
            self.radius,
            self.k(),
            self.nb,
            self.tr,
            self.rs,
            self.tc(),
            self.ext(),
            self.threads(),
        );
        let (_, offsets) = split_window(r, self.rb);
        let dmax = (r - self.rb) as i32;
        let wc = tc / 4;
        let mut s = format!("// Horizontal pass, radius {r} (blocks of {k}, offsets {offsets:?}): {tr} rows x {nb} blocks per workgroup.\n");
        s += &format!("var<workgroup> tile: array<u32, {}>;\n\n", tr * rs);
        for fmt in ["rgba", "gray"] {
            s += &format!("fn h_in_{fmt}(i: u32, x0: u32, y0: u32) -> u32 {{\n    return h_load_{fmt}(i32(x0 + i % {ext}u) - {r}, min(y0 + i / {ext}u, params.height - 1u));\n}}\n\n");
        }
        // output (x0 + c) = max over the offsets of the block maximum at tile position
        // c + dmax + offset
        let combine = |s: &mut String, per_byte: bool, base: &str| {
            for (n, o) in offsets.iter().enumerate() {
                *s += &format!("    let m{n}_0 = tile[{base} + {}u];\n", dmax + o);
                if n > 0 {
                    op(
                        s,
                        per_byte,
                        format!("m{n}"),
                        format!("m{}", n - 1),
                        format!("m{n}_0"),
                    );
                } else {
                    *s += "    let m0 = m0_0;\n";
                }
            }
        };
        let last = offsets.len() - 1;
        s += &format!("fn h_out_rgba(i: u32, x0: u32, y0: u32) {{\n    let row = i / {tc}u;\n    let col = i % {tc}u;\n    let y = y0 + row;\n    let x = x0 + col;\n    if (row < {tr}u && y < params.height && x < params.width) {{\n");
        combine(&mut s, true, &format!("row * {rs}u + col"));
        s += &format!(
            "        dst[y * params.words_per_row + x] = m{last} ^ params.flip;\n    }}\n}}\n\n"
        );
        s += "fn h_gray_at(p: u32) -> u32 {\n";
        combine(&mut s, false, "p");
        s += &format!("    return (m{last} ^ params.flip) & 255u;\n}}\n\n");
        s += &format!(
            "fn h_out_gray(i: u32, x0: u32, y0: u32) {{\n    let row = i / {wc}u;\n    let c = i % {wc}u;\n    let y = y0 + row;\n    let xw = x0 / 4u + c;\n    if (row < {tr}u && y < params.height && xw < params.words_per_row) {{\n        let o = row * {rs}u + c * 4u;\n        dst[y * params.words_per_row + xw] = h_gray_at(o) | (h_gray_at(o + 1u) << 8u) | (h_gray_at(o + 2u) << 16u) | (h_gray_at(o + 3u) << 24u);\n    }}\n}}\n\n"
        );
        // Gray8 elements hold one sample in the low byte (the flip sets the others, equally
        // for all), so a plain u32 max does.
        for (fmt, per_byte, nout) in [("rgba", true, tr * tc), ("gray", false, tr * wc)] {
            s += &format!("@compute @workgroup_size({t})\nfn h_{fmt}(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n");
            s += &format!("    let x0 = wid.x * {tc}u;\n    let y0 = wid.y * {tr}u;\n");
            // copy in, straight-line with all loads first so they are in flight together
            // (measured much faster than a loop)
            let nin = tr * ext;
            let reps = nin.div_ceil(t);
            for n in 0..reps {
                s += &format!(
                    "    let c{n} = h_in_{fmt}(min(lid + {}u, {}u), x0, y0);\n",
                    n * t,
                    nin - 1
                );
            }
            for n in 0..reps {
                let i = format!("lid + {}u", n * t);
                let store = format!("tile[({i}) / {ext}u * {rs}u + ({i}) % {ext}u] = c{n};");
                if (n + 1) * t <= nin {
                    s += &format!("    {store}\n");
                } else {
                    s += &format!("    if ({i} < {nin}u) {{ {store} }}\n");
                }
            }
            s += "    workgroupBarrier();\n";
            s += &format!("    let tb = lid / {nb}u * {rs}u + lid % {nb}u * {k}u;\n");
            if self.stream {
                van_herk_stream(
                    &mut s,
                    k,
                    per_byte,
                    1,
                    |i| format!("tile[tb + {i}u]"),
                    |_| None,
                );
            } else {
                van_herk(&mut s, k, per_byte, |i| format!("tile[tb + {i}u]"));
            }
            // everyone has read its inputs before the tile is reused for the block maxima
            s += "    workgroupBarrier();\n";
            for j in 0..k {
                s += &format!("    tile[tb + {j}u] = o{j};\n");
            }
            s += "    workgroupBarrier();\n";
            for n in 0..nout.div_ceil(t) {
                s += &format!("    h_out_{fmt}(lid + {}u, x0, y0);\n", n * t);
            }
            s += "}\n\n";
        }
        s
    }
}

/// The vertical kernel's specialisation: one block of K rows per invocation, read straight
/// from the buffer (no workgroup memory, so no device limit applies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct VTile {
    radius: u32,
    /// Streaming order (`VSTREAM`).
    stream: bool,
}

impl VTile {
    fn k(&self) -> u32 {
        2 * self.radius + 1
    }
    fn kernel(&self) -> Kernel {
        if self.stream {
            let key = format!(
                "morphology/vs/r{}/b{V_BLOCKS}/c{V_STREAM_CHUNK}",
                self.radius
            );
            return Kernel {
                key,
                sources: vec![MorphParams::WGSL, WGSL],
                entry: "v_stream",
                generated: Some(self.source_stream()),
                checks: None,
                zero_init_workgroup: true,
            };
        }
        Kernel {
            key: format!("morphology/v/r{}/b{V_BLOCKS}", self.radius),
            sources: vec![MorphParams::WGSL, WGSL],
            entry: "v_words",
            generated: Some(self.source()),
            checks: None,
            zero_init_workgroup: true,
        }
    }
    /// The column pass in streaming order (`van_herk_stream` in chunks of `V_STREAM_CHUNK`
    /// rows, each output stored as soon as it is complete). The order is a hint only: SPIR-V
    /// lets the driver assume `src` and `dst` do not alias, so it may still hoist the later
    /// loads (then this measures like `twopass`).
    fn source_stream(&self) -> String {
        let (r, k) = (self.radius, self.k());
        let mut s = format!("// Vertical pass, radius {r}, streaming: one block of {k} rows per invocation, {V_STREAM_CHUNK} rows per chunk.\n");
        s += &format!("@compute @workgroup_size({V_COLUMNS}, {V_BLOCKS})\nfn v_stream(@builtin(global_invocation_id) gid: vec3<u32>) {{\n");
        s += &format!("    let x = gid.x;\n    let y0 = gid.y * {k}u;\n    if (x >= params.width || y0 >= params.height) {{ return; }}\n    let ys = i32(y0) - {r};\n");
        van_herk_stream(
            &mut s,
            k,
            true,
            V_STREAM_CHUNK,
            |i| format!("v_load(x, ys + {i})"),
            |t| Some(format!("    v_store(x, y0 + {t}u, o{t});\n")),
        );
        s += "}\n";
        s
    }
    fn source(&self) -> String {
        let (r, k) = (self.radius, self.k());
        let mut s =
            format!("// Vertical pass, radius {r}: one block of {k} rows per invocation.\n");
        s += &format!("@compute @workgroup_size({V_COLUMNS}, {V_BLOCKS})\nfn v_words(@builtin(global_invocation_id) gid: vec3<u32>) {{\n");
        s += &format!("    let x = gid.x;\n    let y0 = gid.y * {k}u;\n    if (x >= params.width || y0 >= params.height) {{ return; }}\n    let ys = i32(y0) - {r};\n");
        van_herk(&mut s, k, true, |i| format!("v_load(x, ys + {i})"));
        for j in 0..k {
            s += &format!("    v_store(x, y0 + {j}u, o{j});\n");
        }
        s += "}\n";
        s
    }
}

/// Emits van Herk for one block: inputs `load(0..2K-1)`, outputs `o0..o{K-1}` (see the
/// comment at the top of `morphology.wgsl`). The per-byte max is written out inline rather
/// than called as a function, and all code is straight-line: both measured much faster
/// than loops or calls on an H200 (Vulkan).
fn van_herk(s: &mut String, k: u32, per_byte: bool, load: impl Fn(u32) -> String) {
    van_herk_named(s, k, per_byte, "", load)
}

/// `van_herk` in streaming order: v[0..K) loaded and their suffix maxima taken, then
/// v[K..2K-1) loaded `chunk` at a time, each just before the prefix maxima and the outputs
/// that use it, so ~K + chunk words are live rather than 2K-1 inputs plus K maxima. Same
/// outputs and names; `store(t)` may add a line right after output t. The order is a hint:
/// the driver's scheduler may reorder the loads.
pub(super) fn van_herk_stream(
    s: &mut String,
    k: u32,
    per_byte: bool,
    chunk: u32,
    load: impl Fn(u32) -> String,
    store: impl Fn(u32) -> Option<String>,
) {
    for i in 0..k {
        *s += &format!("    let v{i} = {};\n", load(i));
    }
    *s += &format!("    let a{} = v{};\n", k - 1, k - 1);
    for j in (0..k - 1).rev() {
        op(
            s,
            per_byte,
            format!("a{j}"),
            format!("v{j}"),
            format!("a{}", j + 1),
        );
    }
    *s += "    let o0 = a0;\n";
    *s += &store(0).unwrap_or_default();
    let mut t0 = 0;
    while t0 < k - 1 {
        let t1 = (t0 + chunk).min(k - 1);
        for t in t0..t1 {
            *s += &format!("    let v{} = {};\n", k + t, load(k + t));
        }
        for t in t0..t1 {
            if t == 0 {
                *s += &format!("    let b0 = v{k};\n");
            } else {
                op(
                    s,
                    per_byte,
                    format!("b{t}"),
                    format!("b{}", t - 1),
                    format!("v{}", k + t),
                );
            }
            op(
                s,
                per_byte,
                format!("o{}", t + 1),
                format!("a{}", t + 1),
                format!("b{t}"),
            );
            *s += &store(t + 1).unwrap_or_default();
        }
        t0 = t1;
    }
}

/// `van_herk` with every name prefixed by `p`, so several blocks can share one scope
/// (outputs `{p}o0..{p}o{K-1}`).
pub(super) fn van_herk_named(
    s: &mut String,
    k: u32,
    per_byte: bool,
    p: &str,
    load: impl Fn(u32) -> String,
) {
    for i in 0..2 * k - 1 {
        *s += &format!("    let {p}v{i} = {};\n", load(i));
    }
    *s += &format!("    let {p}a{} = {p}v{};\n", k - 1, k - 1);
    for j in (0..k - 1).rev() {
        op(
            s,
            per_byte,
            format!("{p}a{j}"),
            format!("{p}v{j}"),
            format!("{p}a{}", j + 1),
        );
    }
    *s += &format!("    let {p}b0 = {p}v{k};\n");
    for t in 1..k - 1 {
        op(
            s,
            per_byte,
            format!("{p}b{t}"),
            format!("{p}b{}", t - 1),
            format!("{p}v{}", k + t),
        );
    }
    *s += &format!("    let {p}o0 = {p}a0;\n");
    for j in 1..k {
        op(
            s,
            per_byte,
            format!("{p}o{j}"),
            format!("{p}a{j}"),
            format!("{p}b{}", j - 1),
        );
    }
}

/// Emits `let out = max(a, b)`, per byte (`max4` of morphology.wgsl, written out inline) or
/// on whole words.
pub(super) fn op(s: &mut String, per_byte: bool, out: String, a: String, b: String) {
    if per_byte {
        *s += &format!(
            "    let {out}_l = ({a} | 0x80808080u) - ({b} & 0x7f7f7f7fu);
    let {out}_m = (((({a} & ~{b}) | (~({a} ^ {b}) & {out}_l)) & 0x80808080u) >> 7u) * 255u;
    let {out} = ({a} & {out}_m) | ({b} & ~{out}_m);
"
        );
    } else {
        *s += &format!(
            "    let {out} = max({a}, {b});
"
        );
    }
}

/// Output descriptions: the input's, for RGBA8 or Gray8.
pub(crate) fn output_descs(def: &FilterDef, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
    let d = expect_image(def, inputs, 0, FORMATS)?;
    Ok(vec![ValueDesc::Image(d)])
}

/// The default schedule's name: the two passes below.
pub(crate) const TWOPASS: &str = "twopass";

/// Bench-only ablations, NOT filters: each runs one of the two passes alone and so gives a
/// wrong image (a row-only or a column-only maximum), which is why they are left out of
/// `SCHEDULES` and the equivalence matrix never runs them. They let `bench --experiments`
/// time each pass on its own (docs/perf-notes.md: time the passes separately before
/// choosing what to change). `rows_only`: the row pass, input -> output (the same reads and
/// writes as its part of `twopass`, minus the temporary). `cols_only`: the column pass,
/// reading the input as if it were the row pass's temporary. One difference from `twopass`
/// remains: there the column pass reads a temporary just written, part of which may still
/// be in L2, while `cols_only` reads an input last touched one buffer set earlier; so
/// rows_only + cols_only may exceed twopass by that much.
pub(crate) const ROWS_ONLY: &str = "rows_only";
pub(crate) const COLS_ONLY: &str = "cols_only";

/// Every schedule variant name `record` accepts (the ablations included).
/// Single-pass sweep shapes (a strip walked down, van Herk over a ring of rows in workgroup
/// memory) measured slower than these two passes for r >= 4 on the H200 and were dropped
/// (docs/perf-notes.md, run 10).
pub(crate) const VARIANTS: &[&str] = &[
    TWOPASS,
    WINDOW,
    ONEPASS,
    ROWS_ONLY,
    COLS_ONLY,
    WIDE,
    VSTREAM,
    WIDE_VSTREAM,
    WIDE16,
    WIDE16_VSTREAM,
    WIDE_ROWS_ONLY,
    WIDE16_ROWS_ONLY,
    VSTREAM_COLS_ONLY,
];

/// `twopass` with row tiles of at least `WIDE_COLUMNS` block maxima per row (twice the
/// default's 96, half as many rows per workgroup, same workgroup memory and invocations):
/// the split window's reach (2(r - r') columns) and the block halo (2r') are paid per tile
/// row, so past radius 8 a wider row spends fewer per-byte maxima and loads per output.
/// At r = 32: 88 -> 224 outputs per tile row; block maxima per output 1.55 -> 1.21, tile
/// loads per output 1.73 -> 1.29, per-byte maxima per output 7.3 -> 6.3. Up to r = 8 the
/// tile rows change little (r = 7: 120 -> 240 outputs, 134 -> 254 loads).
pub(crate) const WIDE: &str = "wide";
/// `twopass` with the column pass in streaming order (`VTile::source_stream`): the same
/// van Herk block of K = 2r+1 rows per invocation, but only the first K inputs are loaded
/// up front; the other K-1 are loaded `V_STREAM_CHUNK` at a time, each chunk's outputs
/// stored before the next chunk is loaded. At most ~K + chunk words are live instead of
/// the 2K-1 inputs plus the maxima (about 130 words at r = 32), so more warps fit per SM.
pub(crate) const VSTREAM: &str = "vstream";
/// Both of the above.
pub(crate) const WIDE_VSTREAM: &str = "wide_vstream";
/// `wide` with blocks of up to K = 33 (block radius 16 instead of 8) in streaming order
/// (`van_herk_stream`) and 64-invocation workgroups: at r = 32 the window splits in two
/// instead of four (one combining max per output instead of three), ~4.3 per-byte maxima
/// per output against `wide`'s 6.3 and `twopass`'s 7.3; r = 9..16 need no split at all.
/// The cost: K words of workgroup memory per invocation (about 150 bytes against 84), so
/// fewer invocations per SM where workgroup memory is what limits residency; the
/// streaming order is there so registers do not limit it further (the all-loads-first
/// blocks measured slower past K = 17, see H_MAX_BLOCK_RADIUS).
pub(crate) const WIDE16: &str = "wide16";
pub(crate) const WIDE16_VSTREAM: &str = "wide16_vstream";
pub(crate) const WIDE16_ROWS_ONLY: &str = "wide16_rows_only";
/// Bench-only ablations like `rows_only` / `cols_only`: the pass that `wide` / `vstream`
/// change, alone.
pub(crate) const WIDE_ROWS_ONLY: &str = "wide_rows_only";
pub(crate) const VSTREAM_COLS_ONLY: &str = "vstream_cols_only";
/// Block maxima per tile row aimed for by `wide`.
const WIDE_COLUMNS: u32 = 192;
/// Rows loaded per chunk by the streaming column pass.
const V_STREAM_CHUNK: u32 = 8;

/// From these radii the default is `wide`, then `wide_vstream`. Schedule choice, H200 at
/// 4K (run g3, same process), ms: r = 7 twopass 0.0655, wide 0.0699, wide_vstream 0.0711;
/// r = 15 twopass 0.0834, wide 0.0767, wide_vstream 0.0792; r = 32 twopass 0.1179, wide
/// 0.1086, wide_vstream 0.1013. The switches sit between the measured radii.
const WIDE_FROM: u32 = 12;
const WIDE_VSTREAM_FROM: u32 = 24;

/// Largest radius where `onepass` is the default (RGBA8). Schedule choice, H200 at 4K
/// (session 7, runs m3 and 22), x copy: radius 2 / 3 / 5 / 7 / 8 / 9 / 10 onepass (column
/// pass reloaded, `nv`) 1.95 / 1.99 / 2.28 / 2.40 / 2.54 / 2.69 / 2.81 against the two
/// passes' 2.60 / 2.75 / 2.84 / 3.09 / 3.36 / 3.23 / 3.35; radius 11 3.69 against `wide`'s
/// 3.49; radius 15 3.88 against `wide_vstream`'s 3.62-3.71. Radius 1: 1.89 against
/// `window`'s 1.69-1.73. Keeping the column pass's suffix maxima across the flush (no
/// `nv`) measured 2-9% slower.
const ONEPASS_UP_TO: u32 = 10;
/// Largest radius where `onepass` with 128 columns per workgroup is the default, from
/// `ONEPASS_UP_TO + 1`. Schedule choice, H200 at 4K (session 8, runs s8-g1 and s8-g2), x
/// copy, 128 columns against the alternatives: radius 11 2.89 (256 columns 3.66, `wide`
/// 3.47; 90 registers either way, so 5 workgroups of 128 per SM instead of 2 of 256), 13 3.09
/// (`wide` 3.81), 15 3.81 (`wide_vstream` 3.58-3.74), 16 3.85 (`wide` 3.74); radius 8 / 10
/// 2.50 / 2.90 against 256 columns' 2.52 / 2.76; 64 columns lose everywhere (3.23 / 3.96 /
/// 4.91 at radius 11 / 13 / 15). Radius 14 sits between 13's win and 15's loss.
const ONEPASS_WG128_UP_TO: u32 = 14;

/// Largest radius where `window` is the default, and its shape there. Schedule choice, H200
/// at 4K (session 6, run g9), ms: radius 1 window 0.0367 (16 rows per workgroup 0.0360, 64
/// rows 0.0382, 4 rows per flush 0.0372, 256 columns 0.0416) against twopass 0.0532 (NPP's
/// 3x3 dilate: 0.0514 in run 19); radius 3 window 0.0764 against twopass 0.0592 (2R per-byte
/// maxima per pixel and pass against van Herk's ~3).
const WINDOW_UP_TO: u32 = 1;

/// The variants besides the default, for `FilterDef::schedules` (the ablations above
/// produce wrong images by design and are left out).
pub(crate) const SCHEDULES: &[&str] = &[
    TWOPASS,
    WIDE,
    VSTREAM,
    WIDE_VSTREAM,
    WIDE16,
    WIDE16_VSTREAM,
    WINDOW,
    "window_wg64_th5_br3",
    ONEPASS,
    "onepass_wg64_m1",
];

/// One pass for radius up to `onepass::MAX_ONEPASS_RADIUS` on RGBA8 (`onepass.rs`): van
/// Herk down the columns in registers and along the rows from workgroup memory; elsewhere
/// the schedule falls back to the separable default.
pub(crate) const ONEPASS: &str = "onepass";

/// One pass for small radii (`window.rs`): RGBA8 and radius up to
/// `window::MAX_WINDOW_RADIUS`; elsewhere the schedule falls back to the separable default.
pub(crate) const WINDOW: &str = "window";

/// Dilation's and erosion's GPU schedules; `runtime::schedule` names them (keys `dilation`
/// and `erosion`, names in `VARIANTS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MorphSchedule {
    /// `window[_knob]*`: one pass for small radii (window.rs), RGBA8 up to `MAX_WINDOW_RADIUS`.
    Window(WindowOptions),
    /// `onepass[_knob]*`: one van Herk pass (onepass.rs), RGBA8 up to `MAX_ONEPASS_RADIUS`.
    Onepass(OnepassOptions),
    /// The row pass then the column pass through a temporary, by row tile shape and column
    /// order: `twopass`, `wide`, `wide16`, and each with `_vstream` (`vstream` for `twopass`).
    TwoPass { rows: HShape, stream_cols: bool },
    /// Bench-only ablation, a wrong image: the row pass alone (`rows_only`, `wide_rows_only`,
    /// `wide16_rows_only`; see `ROWS_ONLY`).
    RowsOnly(HShape),
    /// Bench-only ablation, a wrong image: the column pass alone (`cols_only`,
    /// `vstream_cols_only`).
    ColsOnly { stream: bool },
}

impl MorphSchedule {
    /// The default at `radius` on RGBA8 or `gray` (H200 at 4K, BENCHMARKS.md run s9-b2
    /// unless named; the measurements behind each switch: the constants named).
    pub(crate) fn choose(radius: u32, gray: bool) -> MorphSchedule {
        let two_pass = |rows, stream_cols| MorphSchedule::TwoPass { rows, stream_cols };
        match radius {
            // 3x3: 0.0362 ms (1.69x copy; WINDOW_UP_TO)
            r if !gray && r <= WINDOW_UP_TO => MorphSchedule::Window(WindowOptions::default()),
            // 15x15: 0.0511 ms (2.39x copy; ONEPASS_UP_TO)
            r if !gray && r <= ONEPASS_UP_TO => MorphSchedule::Onepass(OnepassOptions {
                reload: true,
                ..Default::default()
            }),
            // 23x23: 0.0616 ms (2.88x copy; ONEPASS_WG128_UP_TO)
            r if !gray && r <= ONEPASS_WG128_UP_TO => MorphSchedule::Onepass(OnepassOptions {
                reload: true,
                wgx: Some(128),
                ..Default::default()
            }),
            // 65x65: 0.1016 ms (4.75x copy; WIDE_VSTREAM_FROM)
            r if r >= WIDE_VSTREAM_FROM => two_pass(HShape::WIDE, true),
            // 31x31: 0.0782 ms (3.65x copy; WIDE_FROM)
            r if r >= WIDE_FROM => two_pass(HShape::WIDE, false),
            // Gray8 below WIDE_FROM: r = 7 0.0655 ms (RGBA8, run g3)
            _ => two_pass(HShape::DEFAULT, false),
        }
    }

    /// A schedule by its variant name (`VARIANTS`; the ablations only with feature `bench`);
    /// `filter` names the filter in the error.
    pub(crate) fn parse(filter: &str, name: &str) -> Result<MorphSchedule> {
        if let Some(o) = WindowOptions::parse(name) {
            return Ok(MorphSchedule::Window(o));
        }
        if let Some(o) = OnepassOptions::parse(name) {
            return Ok(MorphSchedule::Onepass(o));
        }
        let two_pass = |rows, stream_cols| MorphSchedule::TwoPass { rows, stream_cols };
        let bench = cfg!(feature = "bench");
        Ok(match name {
            TWOPASS => two_pass(HShape::DEFAULT, false),
            VSTREAM => two_pass(HShape::DEFAULT, true),
            WIDE => two_pass(HShape::WIDE, false),
            WIDE_VSTREAM => two_pass(HShape::WIDE, true),
            WIDE16 => two_pass(HShape::WIDE16, false),
            WIDE16_VSTREAM => two_pass(HShape::WIDE16, true),
            ROWS_ONLY if bench => MorphSchedule::RowsOnly(HShape::DEFAULT),
            WIDE_ROWS_ONLY if bench => MorphSchedule::RowsOnly(HShape::WIDE),
            WIDE16_ROWS_ONLY if bench => MorphSchedule::RowsOnly(HShape::WIDE16),
            COLS_ONLY if bench => MorphSchedule::ColsOnly { stream: false },
            VSTREAM_COLS_ONLY if bench => MorphSchedule::ColsOnly { stream: true },
            _ => return Err(crate::runtime::schedule::unknown(filter, name, VARIANTS)),
        })
    }

    /// Whether this schedule runs at `radius` on RGBA8 or `gray` (the one-pass ones do not
    /// everywhere).
    fn runs_at(&self, radius: u32, gray: bool) -> bool {
        match self {
            MorphSchedule::Window(_) => !gray && radius <= MAX_WINDOW_RADIUS,
            MorphSchedule::Onepass(_) => !gray && radius <= MAX_ONEPASS_RADIUS,
            _ => true,
        }
    }
}

/// Records dilation (`Op::Max`) or erosion under the schedule the run's overrides name for
/// `filter` (its registry name; `NodeRecorder::schedule`), else `MorphSchedule::choose`'s.
pub(crate) fn record(
    rec: &mut NodeRecorder<'_>,
    filter: &str,
    input: &GpuSlot,
    output: &GpuSlot,
    radius: u32,
    op: Op,
) -> Result<()> {
    let d: ImageDesc = input
        .desc
        .image()
        .ok_or_else(|| Error::invalid("morphology input must be an image"))?;
    let gray = match d.format {
        PixelFormat::Rgba8 => false,
        PixelFormat::Gray8 => true,
        f => {
            return Err(Error::unsupported(format!(
                "morphology needs rgba8 or gray8, got {}",
                f.name()
            )))
        }
    };
    let budget = rec.gpu().limits.max_compute_workgroup_storage_size as u64;
    let words_per_row = (d.format.gpu_row_bytes(d.width) / 4) as u32;
    let flip = if op == Op::Min { u32::MAX } else { 0 };
    let params = MorphParams {
        width: d.width,
        height: d.height,
        words_per_row,
        flip,
        ..Default::default()
    };
    let schedule = match rec.schedule(filter) {
        Some(v) => MorphSchedule::parse(filter, v)?,
        None => MorphSchedule::choose(radius, gray),
    };
    // a one-pass schedule named where it does not run (Gray8, larger radii) gives way to the
    // two-pass default (Gray8's)
    let schedule = if schedule.runs_at(radius, gray) {
        schedule
    } else {
        MorphSchedule::choose(radius, true)
    };
    match schedule {
        MorphSchedule::Window(o) => super::window::record(rec, input, output, d, params, radius, o),
        MorphSchedule::Onepass(o) => {
            super::onepass::record(rec, input, output, d, params, radius, o)
        }
        MorphSchedule::TwoPass { rows, stream_cols } => {
            let tmp = rec.temp(d.format.gpu_bytes(d.width, d.height));
            record_rows(
                rec,
                &input.buffer,
                &tmp,
                d,
                gray,
                params,
                budget,
                radius,
                rows,
            )?;
            record_cols(rec, &tmp, &output.buffer, d, params, radius, stream_cols)
        }
        MorphSchedule::RowsOnly(rows) => record_rows(
            rec,
            &input.buffer,
            &output.buffer,
            d,
            gray,
            params,
            budget,
            radius,
            rows,
        ),
        MorphSchedule::ColsOnly { stream } => record_cols(
            rec,
            &input.buffer,
            &output.buffer,
            d,
            params,
            radius,
            stream,
        ),
    }
}

/// The row pass with tile shape `shape` (`twopass` writes it to a temporary): `src` -> `dst`.
#[allow(clippy::too_many_arguments)]
fn record_rows(
    rec: &mut NodeRecorder<'_>,
    src: &wgpu::Buffer,
    dst: &wgpu::Buffer,
    d: ImageDesc,
    gray: bool,
    params: MorphParams,
    budget: u64,
    radius: u32,
    shape: HShape,
) -> Result<()> {
    let th = HTile::fit_with(radius, budget, shape)?;
    let kh = th.kernel(if gray { "h_gray" } else { "h_rgba" });
    rec.dispatch(
        &kh,
        &[src, dst],
        bytemuck::bytes_of(&params),
        groups_2d(d.width, d.height, th.tc(), th.tr),
    )
}

/// The column pass, on words (`twopass` reads the temporary), in streaming order if
/// `stream` (see `VSTREAM`): `src` -> `dst`.
fn record_cols(
    rec: &mut NodeRecorder<'_>,
    src: &wgpu::Buffer,
    dst: &wgpu::Buffer,
    d: ImageDesc,
    params: MorphParams,
    radius: u32,
    stream: bool,
) -> Result<()> {
    let MorphParams {
        words_per_row,
        flip,
        ..
    } = params;
    let tv = VTile { radius, stream };
    let pv = MorphParams {
        width: words_per_row,
        height: d.height,
        words_per_row,
        flip,
        ..Default::default()
    };
    rec.dispatch(
        &tv.kernel(),
        &[src, dst],
        bytemuck::bytes_of(&pv),
        groups_2d(
            words_per_row,
            d.height.div_ceil(tv.k()),
            V_COLUMNS,
            V_BLOCKS,
        ),
    )
}

/// CPU twin: a direct row max (or min) over the clamped window, then a column one.
/// Deliberately the plain O(r) loop rather than van Herk, so the oracle shares no algorithm
/// with the kernel.
pub(crate) fn run_cpu(
    def: &FilterDef,
    inputs: &[&Value],
    radius: u32,
    op: Op,
) -> Result<Vec<Value>> {
    let img = input_image(def, inputs, 0)?;
    if !FORMATS.contains(&img.format()) {
        return Err(Error::unsupported(format!(
            "morphology needs rgba8 or gray8, got {}",
            img.format().name()
        )));
    }
    Ok(vec![Value::Image(cpu_morph(img, radius, op)?)])
}

fn pick(op: Op) -> fn(u8, u8) -> u8 {
    match op {
        Op::Max => |a, b| a.max(b),
        Op::Min => |a, b| a.min(b),
    }
}

fn cpu_morph(img: &Image, radius: u32, op: Op) -> Result<Image> {
    let (w, h, ch) = (
        img.width() as usize,
        img.height() as usize,
        img.format().channels(),
    );
    let r = radius as usize;
    let f = pick(op);
    let src = img.as_u8();
    let row = w * ch;

    let mut tmp = vec![0u8; src.len()];
    tmp.par_chunks_mut(row)
        .zip(src.par_chunks(row))
        .for_each(|(o, s)| {
            for x in 0..w {
                let (lo, hi) = (x.saturating_sub(r), (x + r).min(w - 1));
                for c in 0..ch {
                    let mut m = s[x * ch + c];
                    for xx in lo..=hi {
                        m = f(m, s[xx * ch + c]);
                    }
                    o[x * ch + c] = m;
                }
            }
        });

    let mut out = vec![0u8; src.len()];
    out.par_chunks_mut(row).enumerate().for_each(|(y, o)| {
        o.copy_from_slice(&tmp[y * row..(y + 1) * row]);
        for yy in y.saturating_sub(r)..=(y + r).min(h - 1) {
            for (a, &b) in o.iter_mut().zip(&tmp[yy * row..(yy + 1) * row]) {
                *a = f(*a, b);
            }
        }
    });
    Image::from_u8(img.width(), img.height(), img.format(), out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_fit_the_webgpu_minimum_at_every_radius() {
        for r in 1..=32 {
            for (budget, shape) in [16384, 32768, 49152]
                .into_iter()
                .flat_map(|b| [(b, HShape::DEFAULT), (b, HShape::WIDE), (b, HShape::WIDE16)])
            {
                let t = HTile::fit_with(r, budget, shape).unwrap();
                assert!(t.shared_bytes() <= budget);
                assert_eq!(t.tc() % 4, 0);
                assert!(t.threads() <= H_THREADS && t.tc() >= 32);
                assert!(t.rs >= t.ext() && (t.rs - t.ti()).is_multiple_of(32));
                let (rb, offsets) = split_window(r, shape.max_block);
                assert_eq!(rb, t.rb);
                assert!(t.tc() + 2 * (r - rb) <= t.ti());
                // the offset windows tile [-r, r] exactly: contiguous, nothing outside
                let mut covered = vec![false; 2 * r as usize + 1];
                for o in offsets {
                    for x in o - rb as i32..=o + rb as i32 {
                        covered[(x + r as i32) as usize] = true;
                    }
                }
                assert!(covered.iter().all(|&c| c), "r={r}");
            }
        }
    }

    #[test]
    fn generated_kernels_parse() {
        for r in [1, 2, 7, 32] {
            let h = HTile::fit(r, 49152).unwrap().kernel("h_rgba");
            let v = VTile {
                radius: r,
                stream: false,
            }
            .kernel();
            let hw = HTile::fit_with(r, 49152, HShape::WIDE)
                .unwrap()
                .kernel("h_gray");
            let h16 = HTile::fit_with(r, 49152, HShape::WIDE16)
                .unwrap()
                .kernel("h_rgba");
            let vs = VTile {
                radius: r,
                stream: true,
            }
            .kernel();
            for k in [h, v, hw, vs, h16] {
                let src = k.source();
                let m = naga::front::wgsl::parse_str(&src)
                    .unwrap_or_else(|e| panic!("r={r}: {}", e.emit_to_string(&src)));
                naga::valid::Validator::new(
                    naga::valid::ValidationFlags::all(),
                    naga::valid::Capabilities::all(),
                )
                .validate(&m)
                .unwrap_or_else(|e| panic!("{} r={r}: {}", k.key, e.emit_to_string(&src)));
            }
        }
    }

    #[test]
    fn schedule_names_parse_and_name_the_defaults() {
        for &name in SCHEDULES {
            assert!(MorphSchedule::parse("dilation", name).is_ok(), "{name}");
        }
        for &name in VARIANTS {
            let ablation = [
                ROWS_ONLY,
                COLS_ONLY,
                WIDE_ROWS_ONLY,
                WIDE16_ROWS_ONLY,
                VSTREAM_COLS_ONLY,
            ]
            .contains(&name);
            assert_eq!(
                MorphSchedule::parse("dilation", name).is_ok(),
                !ablation || cfg!(feature = "bench"),
                "{name}"
            );
        }
        let e = MorphSchedule::parse("erosion", "nope")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("erosion: unknown schedule `nope`") && e.contains("wide16_vstream"),
            "{e}"
        );
        // the defaults are variants by name
        let named = |v| MorphSchedule::parse("dilation", v).ok();
        assert_eq!(named(WINDOW), Some(MorphSchedule::choose(1, false)));
        assert_eq!(named("onepass_nv"), Some(MorphSchedule::choose(7, false)));
        assert_eq!(
            named("onepass_nv_wg128"),
            Some(MorphSchedule::choose(11, false))
        );
        assert_eq!(named(WIDE), Some(MorphSchedule::choose(15, false)));
        assert_eq!(named(WIDE_VSTREAM), Some(MorphSchedule::choose(32, false)));
        assert_eq!(named(TWOPASS), Some(MorphSchedule::choose(1, true)));
        assert_eq!(named(WIDE), Some(MorphSchedule::choose(12, true)));
        // one-pass schedules where they run
        assert!(
            MorphSchedule::choose(14, false).runs_at(14, false)
                && !MorphSchedule::choose(1, false).runs_at(4, false)
        );
    }

    #[test]
    fn cpu_is_a_square_window_with_replicated_edges() {
        let img = Image::from_u8(
            5,
            3,
            PixelFormat::Gray8,
            vec![0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0],
        )
        .unwrap();
        let v = Value::Image(img);
        let d = cpu_morph(v.as_image().unwrap(), 1, Op::Max).unwrap();
        assert_eq!(d.as_u8(), &[0, 0, 0, 9, 9, 5, 5, 5, 9, 9, 5, 5, 5, 0, 0]);
        let e = cpu_morph(&d, 1, Op::Min).unwrap();
        // closing: never below the input
        assert_eq!(e.as_u8(), &[0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 5, 5, 0, 0, 0]);
    }
}
