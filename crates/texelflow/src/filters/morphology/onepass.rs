//! Dilation / erosion in one pass (schedule `onepass`, GPUImage's dilation and erosion at
//! larger radii): van Herk / Gil-Werman down each column in registers, then along the rows
//! from a buffer in workgroup memory (`morphology_onepass.wgsl`). RGBA8 only, radius up to
//! `MAX_ONEPASS_RADIUS`; elsewhere the separable passes run. The same per-byte maxima as
//! the separable passes, so the same bits.

use super::separable::{op, split_window, van_herk_stream, MorphParams, WGSL};
use crate::error::{Error, Result};
use crate::image::ImageDesc;
use crate::runtime::wgsl_template::{replace_block, specialize};
use crate::runtime::{GpuSlot, Kernel, NodeRecorder};

const ONEPASS_WGSL: &str = include_str!("morphology_onepass.wgsl");

/// Largest radius of the `onepass` schedule: each invocation keeps 2K = 4R + 2 words of its
/// column live, plus K outputs of its row task across a barrier, so registers bound it.
pub(crate) const MAX_ONEPASS_RADIUS: u32 = 16;

/// Schedule knobs: `onepass` followed by `_wg<N>` (invocations, that is columns, per
/// workgroup), `_m<N>` (blocks of 2R + 1 rows per workgroup) and `_nv` (see `reload`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct OnepassOptions {
    pub(super) wgx: Option<u32>,
    pub(super) m: Option<u32>,
    /// `_nv`: the column pass reloads the previous block's K rows in every block instead
    /// of keeping their suffix maxima across the flush (K fewer live words there; twice
    /// the loads, the second from cache).
    pub(super) reload: bool,
    /// `_hb<N>`: largest block radius of the row tasks (past it the row window is split).
    pub(super) hb: Option<u32>,
}

impl OnepassOptions {
    /// `onepass[_knob]*`; `None` if `name` is not one.
    pub(crate) fn parse(name: &str) -> Option<Self> {
        let rest = name.strip_prefix("onepass")?;
        let mut o = OnepassOptions::default();
        for t in rest.split('_').filter(|t| !t.is_empty()) {
            let num = |p: &str| t.strip_prefix(p).and_then(|n| n.parse::<u32>().ok());
            match t {
                _ if num("wg").is_some_and(|n| [64, 128, 256].contains(&n)) => o.wgx = num("wg"),
                _ if num("m").is_some_and(|n| (1..=64).contains(&n)) => o.m = num("m"),
                "nv" => o.reload = true,
                _ if num("hb").is_some_and(|n| (1..=MAX_ONEPASS_RADIUS).contains(&n)) => {
                    o.hb = num("hb")
                }
                _ => return None,
            }
        }
        Some(o)
    }
}

/// Columns per workgroup (halved while the buffer does not fit the device), blocks of K
/// rows per workgroup (`blocks_per_workgroup`), and the largest block radius of the row
/// tasks before the row window is split in two (one more `max4` per output, in the
/// copy-out). Schedule choices, H200 at 4K (session 7, runs m1-m3 and 22), x copy: 128
/// columns 2.61 / 4.01 at radius 7 / 15 against 256 columns' 2.49 / 3.95; the row window
/// split (block radius 4 or 5 at radius 7, 6 or 8 at radius 11 and 15) 7-18% slower than
/// whole blocks up to K = 31.
const ONEPASS_WGX: u32 = 256;
const ONEPASS_MAX_BLOCK: u32 = MAX_ONEPASS_RADIUS;

/// Blocks of K = 2R + 1 rows per workgroup: about 14 rows, at least 2 blocks up to K = 15,
/// one block past it. Schedule choice, H200 at 4K (runs m3 and 22), x copy: radius 2 with 3
/// / 6 blocks 1.95 / 2.12; radius 3 with 2 / 3 / 5 / 9 blocks 1.99 / 2.03 / 2.14 / 2.38;
/// radius 7 with 1 / 2 / 3 blocks 2.59 / 2.49 / 2.51 (column pass kept), 2.40 / 2.45 with
/// 2 / 3 (reloaded); radius 8-10 with 1 block 2.54 / 2.69 / 2.81; radius 11 with 1 / 2
/// blocks 3.70 / 4.08.
fn blocks_per_workgroup(k: u32) -> u32 {
    if k > 15 {
        1
    } else {
        ((14 + k / 2) / k).max(2)
    }
}

/// The specialisation: radius, columns, blocks per workgroup, and what follows from them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Plan {
    r: u32,
    wgx: u32,
    m: u32,
    reload: bool,
    /// Output columns per workgroup.
    tw: u32,
    /// Block radius of the row tasks: R itself, or R split into two overlapping windows of
    /// radius `rb` whose starts lie `d` apart (see `split_window` in separable.rs).
    rb: u32,
    d: u32,
    /// Row tasks per buffered row, and buffered rows per round of tasks (one task per
    /// invocation and round).
    nbx: u32,
    g: u32,
    bs: u32,
}

impl Plan {
    fn new(r: u32, wgx: u32, m: u32, reload: bool, max_block: u32) -> Result<Plan> {
        let k = 2 * r + 1;
        if r == 0 || r > MAX_ONEPASS_RADIUS || wgx < 2 * r + 4 || max_block == 0 {
            return Err(Error::schedule_unsupported("morphology", format!("the onepass schedule covers radius 1 to {MAX_ONEPASS_RADIUS} with at least 2r + 4 columns per workgroup (radius {r}, {wgx} columns)")));
        }
        let tw = (wgx - 2 * r) / 4 * 4;
        // one split at most: the block radius never below half the window's
        let (rb, offsets) = split_window(r, max_block.max((2 * r - 1).div_ceil(4)));
        debug_assert!(offsets.len() <= 2);
        let d = 2 * (r - rb);
        let kh = 2 * rb + 1;
        // window maxima needed per row: starts 0 .. TW + D
        let nbx = (tw + d).div_ceil(kh);
        let g = (wgx / nbx).min(k);
        // the last task of a row reads 2KH - 1 words from KH * (NBX - 1); the vertical
        // pass stores WGX
        let lo = wgx.max(nbx * kh + kh - 1);
        Ok(Plan {
            r,
            wgx,
            m,
            reload,
            tw,
            rb,
            d,
            nbx,
            g,
            bs: bank_stride(lo, kh, nbx, g),
        })
    }
    fn k(&self) -> u32 {
        2 * self.r + 1
    }
    fn kh(&self) -> u32 {
        2 * self.rb + 1
    }
    fn bytes(&self) -> u64 {
        4 * self.k() as u64 * self.bs as u64
    }
}

/// The buffer's row stride: at least `lo`, chosen among the next 32 so that the tasks of a
/// warp, (row, block) = (lid / NBX, lid % NBX), start on as few shared banks as possible.
fn bank_stride(lo: u32, kh: u32, nbx: u32, g: u32) -> u32 {
    let tasks = g * nbx;
    let cost = |bs: u32| -> u32 {
        (0..tasks.div_ceil(32))
            .map(|w| {
                let mut banks = [0u32; 32];
                for lid in w * 32..(w * 32 + 32).min(tasks) {
                    banks[((lid / nbx * bs + lid % nbx * kh) % 32) as usize] += 1;
                }
                banks.into_iter().max().unwrap_or(0)
            })
            .sum()
    };
    (lo..lo + 32).min_by_key(|&bs| (cost(bs), bs)).unwrap_or(lo)
}

/// The emitters write at function scope; the column block sits inside the block loop.
fn indent(code: &str) -> String {
    code.lines().map(|l| format!("    {l}\n")).collect()
}

fn source(p: Plan, quads: bool) -> Result<String> {
    let (r, k) = (p.r, p.k());
    let kh = p.kh();
    let consts = [
        ("R", r),
        ("K", k),
        ("WGX", p.wgx),
        ("TW", p.tw),
        ("M", p.m),
        ("KH", kh),
        ("NBX", p.nbx),
        ("G", p.g),
        ("BS", p.bs),
    ];
    let s = specialize(
        &format!("{}\n{WGSL}\n{ONEPASS_WGSL}", MorphParams::WGSL),
        &consts,
    )?;
    // block 0: suffix maxima of its K rows into a* (vars, updated per block), unless every
    // block reloads its predecessor (`reload`: lets inside the loop)
    let mut prime = String::new();
    let mut v = String::new();
    if p.reload {
        v += &(0..k)
            .map(|t| format!("        let u{t} = o_load(xc, yc - {k} + {t});\n"))
            .collect::<String>();
        let mut suffix = format!("    let a{} = u{};\n", k - 1, k - 1);
        for t in (0..k - 1).rev() {
            op(
                &mut suffix,
                true,
                format!("a{t}"),
                format!("u{t}"),
                format!("a{}", t + 1),
            );
        }
        v += &indent(&suffix);
    } else {
        prime += &(0..k)
            .map(|t| format!("    let p{t} = o_load(xc, ys + {t});\n"))
            .collect::<String>();
        prime += &format!("    var a{} = p{};\n", k - 1, k - 1);
        for t in (0..k - 1).rev() {
            op(
                &mut prime,
                true,
                format!("pa{t}"),
                format!("p{t}"),
                format!("a{}", t + 1),
            );
            prime += &format!("    var a{t} = pa{t};\n");
        }
    }
    let s = replace_block(&s, "o_prime", &prime)?;
    // block c: its K rows, the previous block's outputs (with its suffix maxima in a*), then
    // (unless reloaded next time) its own suffix maxima into a*
    v += &(0..k)
        .map(|t| format!("        let v{t} = o_load(xc, yc + {t});\n"))
        .collect::<String>();
    v += "        hbuf[lid] = a0;\n";
    let mut body = String::new();
    for t in 1..k {
        // b{t-1}: prefix maximum of rows 0 .. t-1
        if t == 1 {
            body += "    let b0 = v0;\n";
        } else {
            op(
                &mut body,
                true,
                format!("b{}", t - 1),
                format!("b{}", t - 2),
                format!("v{}", t - 1),
            );
        }
        op(
            &mut body,
            true,
            format!("o{t}"),
            format!("a{t}"),
            format!("b{}", t - 1),
        );
        body += &format!("    hbuf[{t}u * BS + lid] = o{t};\n");
    }
    if !p.reload {
        body += &format!("    a{} = v{};\n", k - 1, k - 1);
        for t in (0..k - 1).rev() {
            op(
                &mut body,
                true,
                format!("s{t}"),
                format!("v{t}"),
                format!("a{}", t + 1),
            );
            body += &format!("    a{t} = s{t};\n");
        }
    }
    v += &indent(&body);
    let s = replace_block(&s, "o_v", &v)?;
    // the row task: van Herk over hbuf[b ..], streamed so ~K + 8 inputs are live
    let mut h = String::new();
    van_herk_stream(&mut h, kh, true, 8, |i| format!("hbuf[b + {i}u]"), |_| None);
    let s = replace_block(&s, "o_h", &indent(&h))?;
    let back: String = (0..kh)
        .map(|j| format!("            hbuf[b + {j}u] = o{j};\n"))
        .collect();
    let s = replace_block(&s, "o_back", &back)?;
    // the copy-out: a window maximum, or the maximum of two D apart
    let out = if p.d == 0 {
        "        let o = vec4<u32>(hbuf[i], hbuf[i + 1u], hbuf[i + 2u], hbuf[i + 3u]);\n"
            .to_string()
    } else {
        let mut o = String::new();
        for j in 0..4 {
            o += &format!(
                "    let w{j} = hbuf[i + {j}u];\n    let e{j} = hbuf[i + {}u];\n",
                j + p.d
            );
            op(
                &mut o,
                true,
                format!("m{j}"),
                format!("w{j}"),
                format!("e{j}"),
            );
        }
        o += "    let o = vec4<u32>(m0, m1, m2, m3);\n";
        indent(&o)
    };
    let s = replace_block(&s, "o_out", &out)?;
    if !quads {
        return Ok(s);
    }
    // rows start on 16-byte boundaries and the tasks' first columns are multiples of 4
    replace_block(&s, "o_store", "        if (x < params.width) { dst4[(y * params.words_per_row + x) / 4u] = o ^ vec4<u32>(params.flip); }\n")
}

/// Records the `onepass` schedule for an RGBA8 image (`params` as the separable passes').
pub(crate) fn record(
    rec: &mut NodeRecorder<'_>,
    input: &GpuSlot,
    output: &GpuSlot,
    d: ImageDesc,
    params: MorphParams,
    radius: u32,
    o: OnepassOptions,
) -> Result<()> {
    let k = 2 * radius + 1;
    let m = o.m.unwrap_or(blocks_per_workgroup(k));
    let limit = rec.gpu().limits.max_compute_workgroup_storage_size as u64;
    let hb = o.hb.unwrap_or(ONEPASS_MAX_BLOCK);
    let mut p = Plan::new(radius, o.wgx.unwrap_or(ONEPASS_WGX), m, o.reload, hb)?;
    while p.bytes() > limit && o.wgx.is_none() && p.wgx > 64 {
        p = Plan::new(radius, p.wgx / 2, m, o.reload, hb)?;
    }
    if p.bytes() > limit {
        return Err(Error::schedule_unsupported("morphology", format!("the onepass schedule needs {} bytes of workgroup memory at radius {radius}, the device has {limit}", p.bytes())));
    }
    let quads = d.width.is_multiple_of(4);
    let mut kernel = Kernel::new(
        &format!(
            "morphology.onepass.r{radius}.wg{}.m{m}.rb{}.bs{}.nv{}.q{}",
            p.wgx, p.rb, p.bs, p.reload as u32, quads as u32
        ),
        &[],
        "onepass",
    );
    kernel.generated = Some(source(p, quads)?);
    // every buffer word a flush stores is read only after the vertical pass stored it;
    // the words past it are read only for outputs that are never stored
    rec.dispatch_uninit(
        &kernel,
        &[&input.buffer, &output.buffer],
        bytemuck::bytes_of(&params),
        [d.width.div_ceil(p.tw), d.height.div_ceil(m * k), 1],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn onepass_source_validates() {
        for (r, wgx, quads, reload) in [
            (1, 128, true, false),
            (2, 256, false, true),
            (7, 256, true, false),
            (16, 64, true, true),
            (16, 256, false, false),
        ] {
            let p = Plan::new(r, wgx, 2, reload, if r == 16 { 8 } else { 4 }).unwrap();
            let src = source(p, quads).unwrap();
            let m = naga::front::wgsl::parse_str(&src)
                .unwrap_or_else(|e| panic!("r={r}: {}", e.emit_to_string(&src)));
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::all(),
            )
            .validate(&m)
            .unwrap_or_else(|e| panic!("r={r}: {e:?}"));
        }
        assert_eq!(
            OnepassOptions::parse("onepass_wg128_m3"),
            Some(OnepassOptions {
                wgx: Some(128),
                m: Some(3),
                reload: false,
                hb: None
            })
        );
        assert_eq!(OnepassOptions::parse("onepasses"), None);
        assert_eq!(
            OnepassOptions::parse("onepass_nv_hb5"),
            Some(OnepassOptions {
                wgx: None,
                m: None,
                reload: true,
                hb: Some(5)
            })
        );
        assert_eq!(
            [5, 7, 15, 17, 33].map(blocks_per_workgroup),
            [3, 2, 2, 1, 1]
        );
        assert!(Plan::new(17, 256, 1, false, 8).is_err());
        assert!(Plan::new(31, 64, 1, false, 8).is_err());
        assert_eq!(
            Plan::new(16, 256, 1, false, 4).unwrap().rb,
            8,
            "one split at most"
        );
    }

    #[test]
    fn plans_cover_their_columns_and_stay_in_the_buffer() {
        for r in 1..=MAX_ONEPASS_RADIUS {
            for wgx in [64, 128, 256] {
                for hb in [4, 8, 16] {
                    let Ok(p) = Plan::new(r, wgx, 1, false, hb) else {
                        continue;
                    };
                    let (k, kh) = (p.k(), p.kh());
                    assert!(p.tw % 4 == 0 && p.tw > 0 && p.tw + 2 * r <= wgx, "{p:?}");
                    // the two windows cover [j, j + 2R] with nothing outside
                    assert!(
                        p.rb <= hb.max((2 * r - 1).div_ceil(4))
                            && 2 * p.rb + p.d == 2 * r
                            && p.d <= kh,
                        "{p:?}"
                    );
                    // every needed window start has a task, every task an invocation
                    assert!(
                        kh * p.nbx >= p.tw + p.d && p.g * p.nbx <= wgx && p.g >= 1 && p.g <= k,
                        "{p:?}"
                    );
                    // the last word any task reads lies inside the buffer, and windows
                    // starting below TW + D read only the WGX stored columns
                    assert!(
                        (k - 1) * p.bs + (p.nbx - 1) * kh + 2 * kh - 2 < k * p.bs,
                        "{p:?}"
                    );
                    assert!(p.tw + p.d - 1 + 2 * p.rb < wgx && p.bs >= wgx, "{p:?}");
                }
            }
        }
    }
}
