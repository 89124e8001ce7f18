//! Dilation / erosion in one pass (schedule `onepass`, GPUImage's dilation and erosion at
//! larger radii): van Herk / Gil-Werman down each column in registers, then along the rows
//! from a buffer in workgroup memory (`morphology_onepass.wgsl`). RGBA8 only, radius up to
//! `MAX_ONEPASS_RADIUS`; elsewhere the separable passes run. The same per-byte maxima as
//! the separable passes, so the same bits.

use super::separable::{op, van_herk_stream, MorphParams, WGSL};
use crate::error::{Error, Result};
use crate::filters::neighborhood::{replace_block, specialize};
use crate::image::ImageDesc;
use crate::runtime::{GpuSlot, Kernel, NodeRecorder};

const ONEPASS_WGSL: &str = include_str!("morphology_onepass.wgsl");

/// Largest radius of the `onepass` schedule: each invocation keeps 2K = 4R + 2 words of its
/// column live, plus K outputs of its row task across a barrier, so registers bound it.
pub(crate) const MAX_ONEPASS_RADIUS: u32 = 16;

/// Schedule knobs: `onepass` followed by `_wg<N>` (invocations, that is columns, per
/// workgroup) and `_m<N>` (blocks of 2R + 1 rows per workgroup).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct OnepassOptions {
    wgx: Option<u32>,
    m: Option<u32>,
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
                _ => return None,
            }
        }
        Some(o)
    }
}

/// Columns per workgroup (halved while the buffer does not fit the device) and output rows
/// per workgroup aimed for (M = round(ONEPASS_ROWS / K), at least 1). Schedule choice, not
/// algorithm; to be measured (H200, 4K).
const ONEPASS_WGX: u32 = 256;
const ONEPASS_ROWS: u32 = 64;

/// The specialisation: radius, columns, blocks per workgroup, and what follows from them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Plan {
    r: u32,
    wgx: u32,
    m: u32,
    tw: u32,
    nbx: u32,
    bs: u32,
}

impl Plan {
    fn new(r: u32, wgx: u32, m: u32) -> Result<Plan> {
        let k = 2 * r + 1;
        if r == 0 || r > MAX_ONEPASS_RADIUS || wgx < 2 * r + 4 {
            return Err(Error::Graph(format!("morphology: the onepass schedule covers radius 1 to {MAX_ONEPASS_RADIUS} with at least 2r + 4 columns per workgroup (radius {r}, {wgx} columns)")));
        }
        let tw = (wgx - 2 * r) / 4 * 4;
        let nbx = tw.div_ceil(k);
        // every task of a flush is one invocation: K * NBX <= TW + K - 1 <= WGX
        debug_assert!(k * nbx <= wgx);
        Ok(Plan { r, wgx, m, tw, nbx, bs: bank_stride(wgx, r, nbx) })
    }
    fn k(&self) -> u32 {
        2 * self.r + 1
    }
    fn bytes(&self) -> u64 {
        4 * self.k() as u64 * self.bs as u64
    }
}

/// The buffer's row stride: at least WGX + 2R (the last task of a row reads 2K - 1 words
/// from K * (NBX - 1), which may pass WGX), chosen among the next 32 so that the tasks of a
/// warp, (row, block) = (lid / NBX, lid % NBX), start on as few shared banks as possible.
fn bank_stride(wgx: u32, r: u32, nbx: u32) -> u32 {
    let k = 2 * r + 1;
    let tasks = k * nbx;
    let cost = |bs: u32| -> u32 {
        (0..tasks.div_ceil(32))
            .map(|w| {
                let mut banks = [0u32; 32];
                for lid in w * 32..(w * 32 + 32).min(tasks) {
                    banks[((lid / nbx * bs + lid % nbx * k) % 32) as usize] += 1;
                }
                banks.into_iter().max().unwrap_or(0)
            })
            .sum()
    };
    let lo = wgx + 2 * r;
    (lo..lo + 32).min_by_key(|&bs| (cost(bs), bs)).unwrap_or(lo)
}

fn source(p: Plan, quads: bool) -> Result<String> {
    let (r, k) = (p.r, p.k());
    let consts = [("R", r), ("K", k), ("WGX", p.wgx), ("TW", p.tw), ("M", p.m), ("NBX", p.nbx), ("BS", p.bs)];
    let s = specialize(&format!("{WGSL}\n{ONEPASS_WGSL}"), &consts)?;
    // block 0: suffix maxima of its K rows
    let mut prime: String = (0..k).map(|t| format!("    let p{t} = o_load(xc, ys + {t});\n")).collect();
    prime += &format!("    var a{} = p{};\n", k - 1, k - 1);
    for t in (0..k - 1).rev() {
        op(&mut prime, true, format!("pa{t}"), format!("p{t}"), format!("a{}", t + 1));
        prime += &format!("    var a{t} = pa{t};\n");
    }
    let s = replace_block(&s, "o_prime", &prime)?;
    // block c: its K rows, the previous block's outputs (with its suffix maxima in a*), then
    // its own suffix maxima into a*
    let mut v: String = (0..k).map(|t| format!("        let v{t} = o_load(xc, yc + {t});\n")).collect();
    v += "        hbuf[lid] = a0;\n";
    let mut body = String::new();
    for t in 1..k {
        // b{t-1}: prefix maximum of rows 0 .. t-1
        if t == 1 {
            body += "    let b0 = v0;\n";
        } else {
            op(&mut body, true, format!("b{}", t - 1), format!("b{}", t - 2), format!("v{}", t - 1));
        }
        op(&mut body, true, format!("o{t}"), format!("a{t}"), format!("b{}", t - 1));
        body += &format!("    hbuf[{t}u * BS + lid] = o{t};\n");
    }
    body += &format!("    a{} = v{};\n", k - 1, k - 1);
    for t in (0..k - 1).rev() {
        op(&mut body, true, format!("s{t}"), format!("v{t}"), format!("a{}", t + 1));
        body += &format!("    a{t} = s{t};\n");
    }
    // the emitters indent for function scope; this block sits inside the loop
    v += &body.lines().map(|l| format!("    {l}\n")).collect::<String>();
    let s = replace_block(&s, "o_v", &v)?;
    // the row task: van Herk over hbuf[b ..], streamed so ~K + 8 inputs are live
    let mut h = String::new();
    van_herk_stream(&mut h, k, true, 8, |i| format!("hbuf[b + {i}u]"), |_| None);
    let s = replace_block(&s, "o_h", &h)?;
    let back: String = (0..k).map(|j| format!("        hbuf[b + {j}u] = o{j};\n")).collect();
    let s = replace_block(&s, "o_back", &back)?;
    if !quads {
        return Ok(s);
    }
    // rows start on 16-byte boundaries and the tasks' first columns are multiples of 4
    replace_block(&s, "o_store", "        if (x < params.width) { dst4[(y * params.words_per_row + x) / 4u] = o; }\n")
}

/// Records the `onepass` schedule for an RGBA8 image (`params` as the separable passes').
pub(crate) fn record(rec: &mut NodeRecorder<'_>, input: &GpuSlot, output: &GpuSlot, d: ImageDesc, params: MorphParams, radius: u32, o: OnepassOptions) -> Result<()> {
    let k = 2 * radius + 1;
    let m = o.m.unwrap_or(((ONEPASS_ROWS + k / 2) / k).max(1));
    let limit = rec.gpu().limits.max_compute_workgroup_storage_size as u64;
    let mut p = Plan::new(radius, o.wgx.unwrap_or(ONEPASS_WGX), m)?;
    while p.bytes() > limit && o.wgx.is_none() && p.wgx > 64 {
        p = Plan::new(radius, p.wgx / 2, m)?;
    }
    if p.bytes() > limit {
        return Err(Error::Graph(format!("morphology: the onepass schedule needs {} bytes of workgroup memory at radius {radius}, the device has {limit}", p.bytes())));
    }
    let quads = d.width.is_multiple_of(4);
    let mut kernel = Kernel::new(&format!("morphology.onepass.r{radius}.wg{}.m{m}.bs{}.q{}", p.wgx, p.bs, quads as u32), &[], "onepass");
    kernel.generated = Some(source(p, quads)?);
    // every buffer word a flush stores is read only after the vertical pass stored it;
    // the words past it are read only for outputs that are never stored
    rec.dispatch_uninit(&kernel, &[&input.buffer, &output.buffer], bytemuck::bytes_of(&params), [d.width.div_ceil(p.tw), d.height.div_ceil(m * k), 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn onepass_source_validates() {
        for (r, wgx, quads) in [(1, 128, true), (2, 256, false), (7, 256, true), (16, 64, true), (16, 256, false)] {
            let p = Plan::new(r, wgx, 2).unwrap();
            let src = source(p, quads).unwrap();
            let m = naga::front::wgsl::parse_str(&src).unwrap_or_else(|e| panic!("r={r}: {}", e.emit_to_string(&src)));
            naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all()).validate(&m).unwrap_or_else(|e| panic!("r={r}: {e:?}"));
        }
        assert_eq!(OnepassOptions::parse("onepass_wg128_m3"), Some(OnepassOptions { wgx: Some(128), m: Some(3) }));
        assert_eq!(OnepassOptions::parse("onepasses"), None);
        assert!(Plan::new(17, 256, 1).is_err());
        assert!(Plan::new(31, 64, 1).is_err());
    }

    #[test]
    fn plans_cover_their_columns_and_stay_in_the_buffer() {
        for r in 1..=MAX_ONEPASS_RADIUS {
            for wgx in [64, 128, 256] {
                let Ok(p) = Plan::new(r, wgx, 1) else { continue };
                let k = p.k();
                assert!(p.tw % 4 == 0 && p.tw > 0 && p.tw + 2 * r <= wgx, "{p:?}");
                assert!(k * p.nbx >= p.tw && k * p.nbx <= wgx, "{p:?}");
                // the last word any task reads lies inside the buffer
                assert!((k - 1) * p.bs + (p.nbx - 1) * k + 2 * k - 2 < k * p.bs, "{p:?}");
                assert!(p.bs >= wgx + 2 * r);
            }
        }
    }
}
