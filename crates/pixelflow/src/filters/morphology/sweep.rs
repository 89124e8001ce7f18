//! The single-pass "sweep" schedules of `dilation` and `erosion` (GPUImage's
//! `GPUImageDilationFilter` / `GPUImageErosionFilter`; `opening` and `closing` lower to
//! them and follow). Selected with `dilation=sweep` (or `sweep_tall`, `sweep128`) through
//! `runtime::schedule`; the default stays the two-pass kernels of `separable.rs`
//! (`twopass`) until the GPU run decides.
//!
//! Why: the two-pass schedule writes a full-image temporary and reads it back (one extra
//! DRAM round trip, ~1x copy) and its column pass reads 4R+1 rows per block of 2R+1 outputs
//! straight from DRAM. Here each input pixel comes from DRAM about once and each output is
//! written once; everything in between stays in workgroup memory and registers.
//!
//! Shape: a workgroup of T invocations owns T output words (T RGBA8 pixels, or 4T Gray8
//! pixels) of a strip of SH rows, and walks down it:
//! - Row pass, a chunk of up to N input rows at a time: the workgroup copies the chunk's
//!   row segments (its columns plus the window's halo, edges clamped) into workgroup
//!   memory, runs van Herk on blocks of K' = 2R'+1 (R' <= 8; larger radii combine 2 or 4
//!   overlapping windows, exactly as `HTile` of the two-pass schedule does), and writes the
//!   block maxima back in place.
//! - Column pass, in registers: invocation `lid` owns one output word column and keeps the
//!   van Herk state of the vertical window across the whole strip. The rows are cut into
//!   blocks of K = 2R+1; `hp[0..K)` holds the suffix maxima of the previous block, `g` the
//!   running prefix maximum of the current one, and output row (previous block start + R + j)
//!   is `max(hp[j], g[j-1])` (`hp[0]` for j = 0), stored as soon as row j-1 of the current
//!   block arrives. When a block is complete its rows (kept in registers) give the next
//!   `hp` backwards. Live state: about K words per invocation (each `hp[t]` dies as the row
//!   that replaces it arrives). The strip starts with one prologue block (rows ys-R..ys+R)
//!   that only fills `hp`: the vertical overhead is K/SH extra rows of row pass.
//! All loops are unrolled by the generator except the one over the strip's blocks (bounded
//! by a constant and the image height, so uniform: barriers inside are legal).
//!
//! Gray8: the tile holds one sample per u32 (plain `max` in the row pass, as `HTile` does);
//! each invocation packs its 4 samples per row into one word, and the column pass runs on
//! the packed word with the per-byte max.
//!
//! Cost model (H200, 3840x2160 RGBA8; 1x copy = 21.4 us ~ 85 thread-instructions per
//! pixel of issue; one u32 workgroup-memory access by a warp takes the whole 128 B/clk of
//! the SM's shared-memory pipe, so it is counted as 4 instruction slots). Per output pixel
//! and per input row of row pass (T = 64):
//!   global loads  ext/T words (1.06 at R=1, 1.4 at R=7, 2.1 at R=32) x ~9 instr (clamp,
//!                 index, div/mod by constants, load, xor) + one store each to the tile
//!   van Herk      (ti/T) x (~2 loads + 3 max4 of ~8 instr + 1 store) = 1.03 / 1.17 / 1.86 x ~40
//!   column read   (offsets) loads + (offsets-1) max4: 1 / 1 / 4 loads + 0 / 0 / 3 max4
//! and per output pixel once: 2 max4 + address + store ~ 22.
//! Row pass runs (SH+K)/SH times per output row (the prologue). Totals, thread-instr
//! (equivalents) per pixel and the predicted multiple of copy (issue time, with memory and
//! latency overlapped imperfectly: the estimate is max(issue, 1.1) x 1.25):
//!   shape       R=1            R=7             R=15            R=32
//!   sweep       ~60 -> ~1.4x   ~95 -> ~1.4x    ~125 -> ~1.8x   ~190 -> ~2.8x  (SH=130 at R=32: +50% rows)
//!   sweep_tall  ~60 -> ~1.4x   ~90 -> ~1.4x    ~115 -> ~1.7x   ~165 -> ~2.4x  (SH=260: +25%; 540 groups)
//!   sweep128    ~58 -> ~1.4x   ~85 -> ~1.3x    ~110 -> ~1.6x   ~160 -> ~2.4x  (ti/T 1.46 at R=32; 510 groups)
//! Radius dependence left: the block-maxima overhang ti/T and the halo loads grow with R
//! (the split windows), and the prologue K/SH. Occupancy: ~8 workgroups of 64 (registers:
//! ~K + 60 live words at R=32; tile n*rs*4 = 4.8 KiB), a grid of 60 x 17 = 1020 groups for
//! `sweep`: about one wave on 132 SMs. Latency: each chunk's loads (17 per invocation at
//! R=32) are in flight together; the other resident workgroups cover the barriers.

use crate::error::{Error, Result};
use crate::runtime::Kernel;

use super::separable::{op, split_window, van_herk_named, H_MAX_BLOCK_RADIUS, WGSL};

/// One sweep shape: the tunable schedule parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct SweepShape {
    /// Invocations per workgroup = output words per workgroup row.
    pub threads: u32,
    /// Most input rows per row-pass chunk (the tile's height).
    pub chunk_rows: u32,
    /// Output rows per strip, before rounding to whole vertical blocks.
    pub strip_rows: u32,
}

/// The sweep variants by schedule name (see the module comment for the predictions).
pub(super) const SHAPES: &[(&str, SweepShape)] = &[
    ("sweep", SweepShape { threads: 64, chunk_rows: 8, strip_rows: 128 }),
    ("sweep_tall", SweepShape { threads: 64, chunk_rows: 8, strip_rows: 256 }),
    ("sweep128", SweepShape { threads: 128, chunk_rows: 8, strip_rows: 128 }),
];

/// Longest loop body the generator unrolls when it packs several vertical blocks into one
/// iteration (small radii), in rows: keeps the shader small.
const MAX_BODY_ROWS: u32 = 160;

/// A sweep kernel specialised for one radius, format and shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Sweep {
    radius: u32,
    gray: bool,
    threads: u32,
    /// Row pass block radius and the offsets of the split windows (`split_window`).
    rb: u32,
    offsets: Vec<i32>,
    /// Row pass blocks per tile row.
    nb: u32,
    /// Tile row stride in words.
    rs: u32,
    /// Rows per chunk (the shape's, or fewer where the device's workgroup memory is small).
    n: u32,
    /// Vertical blocks per loop iteration.
    u: u32,
    /// Loop iterations per strip.
    iters: u32,
}

/// `rows` split into ceil(rows / n) chunks of near-equal size (sizes differ by at most one).
fn even_chunks(rows: u32, n: u32) -> Vec<u32> {
    let count = rows.div_ceil(n);
    (0..count).map(|i| rows / count + u32::from(i < rows % count)).collect()
}

impl Sweep {
    pub(super) fn plan(radius: u32, gray: bool, shape: SweepShape, budget: u64) -> Result<Sweep> {
        let (rb, offsets) = split_window(radius, H_MAX_BLOCK_RADIUS);
        let kb = 2 * rb + 1;
        let tc = shape.threads * if gray { 4 } else { 1 };
        let nb = (tc + 2 * (radius - rb)).div_ceil(kb);
        // >= ext and congruent to ti mod 32: job j's block starts at word j*K' mod 32 (K' odd),
        // so a warp's van Herk reads hit 32 different banks
        let rs = nb * kb + 32 * (2 * rb).div_ceil(32);
        let fit = (budget / (4 * rs as u64)) as u32;
        if fit == 0 {
            return Err(Error::Gpu(format!("morphology sweep radius {radius} needs more workgroup memory than the device's {budget} bytes")));
        }
        let n = shape.chunk_rows.min(fit).max(1);
        // Blocks per iteration: small windows (K < n) would leave chunks part-empty (a chunk
        // costs four barriers whatever its rows), so several vertical blocks share one body.
        let k = 2 * radius + 1;
        let (mut u, mut best) = (1, 0.0f64);
        for cand in 1..=n {
            let rows = cand * k;
            if cand > 1 && rows > MAX_BODY_ROWS.max(k) {
                break;
            }
            let fill = rows as f64 / (rows.div_ceil(n) * n) as f64;
            if fill > best + 1e-9 {
                (u, best) = (cand, fill);
            }
            if fill >= 0.9 {
                break;
            }
        }
        let iters = ((shape.strip_rows as f64 / (u * k) as f64).round() as u32).max(1);
        Ok(Sweep { radius, gray, threads: shape.threads, rb, offsets, nb, rs, n, u, iters })
    }

    fn spw(&self) -> u32 {
        if self.gray { 4 } else { 1 }
    }
    fn kb(&self) -> u32 {
        2 * self.rb + 1
    }
    /// Input samples per tile row.
    fn ext(&self) -> u32 {
        self.nb * self.kb() + 2 * self.rb
    }
    fn k(&self) -> u32 {
        2 * self.radius + 1
    }
    /// Output rows per strip.
    pub(super) fn strip_rows(&self) -> u32 {
        self.iters * self.u * self.k()
    }
    pub(super) fn threads(&self) -> u32 {
        self.threads
    }
    #[cfg(test)]
    fn shared_bytes(&self) -> u64 {
        self.n as u64 * self.rs as u64 * 4
    }

    pub(super) fn kernel(&self) -> Kernel {
        let key = format!(
            "morphology/sweep/{}/r{}/t{}/n{}/u{}/it{}",
            if self.gray { "gray" } else { "rgba" },
            self.radius,
            self.threads,
            self.n,
            self.u,
            self.iters
        );
        Kernel { key, sources: vec![WGSL], entry: "sweep", generated: Some(self.source()), checks: None, zero_init_workgroup: true }
    }

    /// Chunks of the prologue (K rows) and of one loop body (U*K rows), as (first row, rows).
    fn chunks(&self, rows: u32) -> Vec<(u32, u32)> {
        let mut start = 0;
        even_chunks(rows, self.n)
            .into_iter()
            .map(|c| {
                let r = (start, c);
                start += c;
                r
            })
            .collect()
    }

    pub(super) fn source(&self) -> String {
        let (r, t, rs, nb, kb, ext, k, uk) = (self.radius, self.threads, self.rs, self.nb, self.kb(), self.ext(), self.k(), self.u * self.k());
        let fmt = if self.gray { "gray" } else { "rgba" };
        let per_byte = !self.gray;
        let dmax = (r - self.rb) as i32;
        let tc = t * self.spw();
        let sh = self.strip_rows();
        let mut s = format!(
            "// Sweep, radius {r}, {fmt}: {t} output words x {sh} rows per workgroup; row pass in chunks of <= {} rows \
             (blocks of {kb}, offsets {:?}), column pass in registers, {} block(s) of {k} rows per iteration.\n",
            self.n, self.offsets, self.u
        );
        s += &format!("var<workgroup> tile: array<u32, {}>;\n\n", self.n * rs);
        s += &format!("fn sw_load(q: u32, y: i32, xs: i32) -> u32 {{\n    return h_load_{fmt}(xs + i32(q), clamp_to(y, params.height));\n}}\n\n");

        // Row pass of one chunk of c rows: copy in, van Herk, block maxima back in place.
        let mut sizes: Vec<u32> = self.chunks(k).into_iter().chain(self.chunks(uk)).map(|(_, c)| c).collect();
        sizes.sort_unstable();
        sizes.dedup();
        for &c in &sizes {
            s += &format!("fn sw_rows{c}(xs: i32, y: i32, lid: u32) {{\n");
            let nin = c * ext;
            let reps = nin.div_ceil(t);
            // all loads first, so they are in flight together
            for q in 0..reps {
                s += &format!("    let ix{q} = min(lid + {}u, {}u);\n    let l{q} = sw_load(ix{q} % {ext}u, y + i32(ix{q} / {ext}u), xs);\n", q * t, nin - 1);
            }
            // the previous chunk's column reads are done before the tile is overwritten
            s += "    workgroupBarrier();\n";
            for q in 0..reps {
                let store = format!("tile[ix{q} / {ext}u * {rs}u + ix{q} % {ext}u] = l{q};");
                if (q + 1) * t <= nin {
                    s += &format!("    {store}\n");
                } else {
                    s += &format!("    if (lid + {}u < {nin}u) {{ {store} }}\n", q * t);
                }
            }
            s += "    workgroupBarrier();\n";
            let jobs = c * nb;
            let jreps = jobs.div_ceil(t);
            for q in 0..jreps {
                s += &format!("    let jb{q} = min(lid + {}u, {}u);\n    let tb{q} = jb{q} / {nb}u * {rs}u + jb{q} % {nb}u * {kb}u;\n", q * t, jobs - 1);
                van_herk_named(&mut s, kb, per_byte, &format!("j{q}_"), |i| format!("tile[tb{q} + {i}u]"));
            }
            // every job has read its inputs before block maxima overwrite them
            s += "    workgroupBarrier();\n";
            for q in 0..jreps {
                let guard = (q + 1) * t > jobs;
                if guard {
                    s += &format!("    if (lid + {}u < {jobs}u) {{\n", q * t);
                }
                for j in 0..kb {
                    s += &format!("    tile[tb{q} + {j}u] = j{q}_o{j};\n");
                }
                if guard {
                    s += "    }\n";
                }
            }
            s += "    workgroupBarrier();\n}\n\n";
        }

        // Column read: the row maximum at this invocation's sample(s) of tile row `b`, the
        // split windows' block maxima combined.
        let combine = |s: &mut String, per_byte: bool, base: &str| {
            for (i, o) in self.offsets.iter().enumerate() {
                *s += &format!("    let m{i}_0 = tile[{base} + {}u];\n", dmax + o);
                if i > 0 {
                    op(s, per_byte, format!("m{i}"), format!("m{}", i - 1), format!("m{i}_0"));
                } else {
                    *s += "    let m0 = m0_0;\n";
                }
            }
        };
        let last = self.offsets.len() - 1;
        if self.gray {
            s += "fn sw_gray_at(p: u32) -> u32 {\n";
            combine(&mut s, false, "p");
            s += &format!("    return m{last} & 255u;\n}}\n\n");
            s += "fn sw_col(b: u32) -> u32 {\n    return sw_gray_at(b) | (sw_gray_at(b + 1u) << 8u) | (sw_gray_at(b + 2u) << 16u) | (sw_gray_at(b + 3u) << 24u);\n}\n\n";
        } else {
            s += "fn sw_col(b: u32) -> u32 {\n";
            combine(&mut s, true, "b");
            s += &format!("    return m{last};\n}}\n\n");
        }
        s += "fn sw_store(xw: u32, y: u32, v: u32) {\n    if (y < params.height && xw < params.words_per_row) {\n        dst[y * params.words_per_row + xw] = v ^ params.flip;\n    }\n}\n\n";

        s += &format!("@compute @workgroup_size({t})\nfn sweep(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n");
        s += &format!("    let xs = i32(wid.x * {tc}u) - {r};\n");
        s += &format!("    let xw = wid.x * {t}u + lid;\n    let cb = lid * {}u;\n", self.spw());
        s += &format!("    let ys = wid.y * {sh}u;\n    let py = i32(ys) - {r};\n");
        // Prologue: the block of rows ys-R .. ys+R only fills hp.
        for (first, c) in self.chunks(k) {
            s += &format!("    sw_rows{c}(xs, py + {first}, lid);\n");
            for row in 0..c {
                s += &format!("    let p{} = sw_col({}u + cb);\n", first + row, row * rs);
            }
        }
        s += &format!("    var hp{}: u32 = p{};\n", k - 1, k - 1);
        for j in (0..k - 1).rev() {
            op(&mut s, true, format!("q{j}"), format!("p{j}"), format!("hp{}", j + 1));
            s += &format!("    var hp{j}: u32 = q{j};\n");
        }
        s += &format!("    let iters = min({}u, (params.height - ys + {}u) / {uk}u);\n", self.iters, uk - 1);
        s += "    for (var it = 0u; it < iters; it++) {\n";
        s += &format!("        let iy = py + {k} + i32(it * {uk}u);\n        let oy = ys + it * {uk}u;\n");
        let mut body = String::new();
        let chunks = self.chunks(uk);
        for (first, c) in chunks {
            body += &format!("    sw_rows{c}(xs, iy + {first}, lid);\n");
            for row in 0..c {
                let u = first + row;
                let (b, j) = (u / k, u % k);
                body += &format!("    let v{u} = sw_col({}u + cb);\n", row * rs);
                if j == 0 {
                    body += &format!("    sw_store(xw, oy + {}u, hp0);\n    let g{u} = v{u};\n", b * k);
                } else {
                    op(&mut body, true, format!("g{u}"), format!("g{}", u - 1), format!("v{u}"));
                }
                if j + 1 < k {
                    op(&mut body, true, format!("e{u}"), format!("hp{}", j + 1), format!("g{u}"));
                    body += &format!("    sw_store(xw, oy + {}u, e{u});\n", b * k + j + 1);
                } else {
                    // block complete: its suffix maxima become the next block's hp
                    body += &format!("    hp{} = v{u};\n", k - 1);
                    for jj in (0..k - 1).rev() {
                        op(&mut body, true, format!("n{u}_{jj}"), format!("v{}", u - (k - 1 - jj)), format!("hp{}", jj + 1));
                        body += &format!("    hp{jj} = n{u}_{jj};\n");
                    }
                }
            }
        }
        for line in body.lines() {
            s += &format!("    {line}\n");
        }
        s += "    }\n}\n";
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_fit_and_chunks_cover_the_rows() {
        for &(_, shape) in SHAPES {
            for r in 1..=32 {
                for gray in [false, true] {
                    for budget in [16384, 32768, 49152] {
                        let p = Sweep::plan(r, gray, shape, budget).unwrap();
                        assert!(p.shared_bytes() <= budget);
                        assert!(p.rs >= p.ext());
                        // the block maxima cover every output plus the split windows' reach
                        assert!(p.nb * p.kb() >= shape.threads * p.spw() + 2 * (r - p.rb));
                        for rows in [p.k(), p.u * p.k()] {
                            let ch = p.chunks(rows);
                            assert_eq!(ch.iter().map(|c| c.1).sum::<u32>(), rows);
                            assert!(ch.iter().all(|c| c.1 >= 1 && c.1 <= p.n));
                        }
                        assert!(p.strip_rows() >= p.k());
                    }
                }
            }
        }
    }

    #[test]
    fn generated_kernels_parse_and_validate() {
        for &(_, shape) in SHAPES {
            for r in [1, 2, 3, 7, 9, 15, 32] {
                for gray in [false, true] {
                    let k = Sweep::plan(r, gray, shape, 32768).unwrap().kernel();
                    let src = format!("{}\n{}\n{}", include_str!("../common.wgsl"), WGSL, k.generated.unwrap());
                    let module = naga::front::wgsl::parse_str(&src).unwrap_or_else(|e| panic!("r={r}: {}", e.emit_to_string(&src)));
                    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
                        .validate(&module)
                        .unwrap_or_else(|e| panic!("r={r} gray={gray}: {e:?}"));
                }
            }
        }
    }
}
