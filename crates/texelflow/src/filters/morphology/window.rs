//! Dilation / erosion for small radii in one pass (schedule `window`): the vertical window
//! of each column in registers, the horizontal maximum from a few rows buffered in
//! workgroup memory (`morphology_window.wgsl`). RGBA8 only; the separable passes run
//! elsewhere. The same per-byte maxima as the separable passes, so the same bits.

use super::separable::{MorphParams, WGSL};
use crate::error::{Error, Result};
use crate::image::ImageDesc;
use crate::runtime::wgsl_template::{replace_block, specialize};
use crate::runtime::{GpuSlot, Kernel, NodeRecorder};

const WINDOW_WGSL: &str = include_str!("morphology_window.wgsl");

/// Largest radius of the `window` schedule: its work grows with the radius (2R per-byte
/// maxima per pixel and pass, against van Herk's ~3), so it is for small windows only.
pub(crate) const MAX_WINDOW_RADIUS: u32 = 3;

/// Schedule knobs: `window` followed by `_wg<N>` (invocations, that is columns, per
/// workgroup), `_th<N>` (rows per workgroup), `_br<N>` (buffered rows per flush).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct WindowOptions {
    wgx: Option<u32>,
    th: Option<u32>,
    br: Option<u32>,
}

impl WindowOptions {
    /// `window[_knob]*`; `None` if `name` is not one.
    pub(crate) fn parse(name: &str) -> Option<Self> {
        let rest = name.strip_prefix("window")?;
        let mut o = WindowOptions::default();
        for t in rest.split('_').filter(|t| !t.is_empty()) {
            let num = |p: &str| t.strip_prefix(p).and_then(|n| n.parse::<u32>().ok());
            match t {
                _ if num("wg").is_some_and(|n| [64, 128, 256].contains(&n)) => o.wgx = num("wg"),
                _ if num("th").is_some_and(|n| (1..=256).contains(&n)) => o.th = num("th"),
                _ if num("br").is_some_and(|n| (1..=32).contains(&n)) => o.br = num("br"),
                _ => return None,
            }
        }
        Some(o)
    }
}

/// Columns per workgroup, rows per workgroup, buffered rows per flush. Schedule choice,
/// H200 at 4K (session 6, run g9), radius 1, ms: 128 columns, 32 rows, 8 per flush 0.0367;
/// 16 / 64 rows 0.0360 / 0.0382; 4 per flush 0.0372; 256 columns 0.0416.
const WINDOW_WGX: u32 = 128;
const WINDOW_TH: u32 = 16;
const WINDOW_BR: u32 = 8;

/// Per-byte maximum of the words `names` (`max4` folded left to right).
fn fold_max(names: &[String]) -> String {
    let mut e = names[0].clone();
    for n in &names[1..] {
        e = format!("max4({e}, {n})");
    }
    e
}

fn source(r: u32, wgx: u32, th: u32, br: u32, quads: bool) -> Result<String> {
    let tw = (wgx - 2 * r) / 4 * 4;
    let consts = [("R", r), ("WGX", wgx), ("TW", tw), ("TH", th), ("BR", br)];
    let s = specialize(
        &format!("{}\n{WGSL}\n{WINDOW_WGSL}", MorphParams::WGSL),
        &consts,
    )?;
    let k = 2 * r + 1;
    let mut prime: String = (0..k - 1)
        .map(|j| format!("    var s{j} = w_load(xc, i32(y0) - {r} + {j});\n"))
        .collect();
    prime.push_str(&format!("    var s{} = 0u;\n", k - 1));
    let s = replace_block(&s, "w_prime", &prime)?;
    let mut v = format!(
        "            s{} = w_load(xc, i32(y0 + yb + t) + {r});\n",
        k - 1
    );
    v.push_str(&format!(
        "            vbuf[t * BSTRIDE + col] = {};\n",
        fold_max(&(0..k).map(|j| format!("s{j}")).collect::<Vec<_>>())
    ));
    for j in 0..k - 1 {
        v.push_str(&format!("            s{j} = s{};\n", j + 1));
    }
    let s = replace_block(&s, "w_v", &v)?;
    let mut h: String = (0..4 + 2 * r)
        .map(|j| format!("        let p{j} = vbuf[b + {}u];\n", j + j / 4))
        .collect();
    for o in 0..4 {
        h.push_str(&format!(
            "        let o{o} = {};\n",
            fold_max(&(o..o + k).map(|j| format!("p{j}")).collect::<Vec<_>>())
        ));
    }
    let s = replace_block(&s, "w_h", &h)?;
    if !quads {
        return Ok(s);
    }
    // rows start on 16-byte boundaries and the tasks' first columns are multiples of 4
    replace_block(&s, "w_store", "        if (x < params.width) { dst4[(y * params.words_per_row + x) / 4u] = vec4<u32>(o0, o1, o2, o3) ^ vec4<u32>(params.flip); }\n")
}

/// Records the `window` schedule for an RGBA8 image (`params` as the separable passes').
pub(crate) fn record(
    rec: &mut NodeRecorder<'_>,
    input: &GpuSlot,
    output: &GpuSlot,
    d: ImageDesc,
    params: MorphParams,
    radius: u32,
    o: WindowOptions,
) -> Result<()> {
    if radius == 0 || radius > MAX_WINDOW_RADIUS {
        return Err(Error::schedule_unsupported(
            "morphology",
            format!("the window schedule covers radius 1 to {MAX_WINDOW_RADIUS}, not {radius}"),
        ));
    }
    let (wgx, th, br) = (
        o.wgx.unwrap_or(WINDOW_WGX),
        o.th.unwrap_or(WINDOW_TH),
        o.br.unwrap_or(WINDOW_BR),
    );
    let bytes = 4 * br as u64 * (wgx + wgx / 4 + 1) as u64;
    let limit = rec.gpu().limits.max_compute_workgroup_storage_size as u64;
    if bytes > limit {
        return Err(Error::schedule_unsupported("morphology", format!("the window schedule needs {bytes} bytes of workgroup memory, the device has {limit}")));
    }
    let quads = d.width.is_multiple_of(4);
    let tw = (wgx - 2 * radius) / 4 * 4;
    let mut kernel = Kernel::new(
        &format!(
            "morphology.window.r{radius}.wg{wgx}.th{th}.br{br}.q{}",
            quads as u32
        ),
        &[],
        "window",
    );
    kernel.generated = Some(source(radius, wgx, th, br, quads)?);
    // every buffer slot a flush reads was stored by the rows before it
    rec.dispatch_uninit(
        &kernel,
        &[&input.buffer, &output.buffer],
        bytemuck::bytes_of(&params),
        [d.width.div_ceil(tw), d.height.div_ceil(th), 1],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_source_validates() {
        for (r, quads) in [(1, true), (2, false), (3, true)] {
            let src = source(r, 128, 32, 8, quads).unwrap();
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
            WindowOptions::parse("window_th16_br4"),
            Some(WindowOptions {
                wgx: None,
                th: Some(16),
                br: Some(4)
            })
        );
        assert_eq!(WindowOptions::parse("windows"), None);
    }
}
