//! Analysis (GPUImage's "Image processing: analysis" group): whole-image reductions that
//! produce data (statistics, histograms, means) and filters that consume such data on the GPU
//! without a CPU round-trip.
//!
//! The reductions share one schedule: a grid-stride loop over pixel *quads* (16-byte loads),
//! per-invocation accumulators in registers, a workgroup-level combine (subgroup operations
//! where the device has them, workgroup atomics otherwise; both ran equally fast on an H200),
//! then one global atomic per workgroup per output slot. Buffers from the runtime's pool are sized in multiples of 256
//! bytes, so the last, partial quad of an image can be loaded whole and its missing pixels
//! masked out (checked by `check_quads`).

/// An overlay's colour (draw_points, draw_lines) as the GPU writes it: RGBA8, opaque.
pub(crate) fn opaque_rgba8(color: [f32; 3]) -> [u8; 4] {
    use crate::image::unorm8;
    [unorm8(color[0]), unorm8(color[1]), unorm8(color[2]), 255]
}

include!(concat!(env!("OUT_DIR"), "/filters_analysis.rs"));

use crate::error::{Error, Result};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{GpuSlot, NodeRecorder};

/// Grid-stride helpers shared by the family's kernels (`GridParams`).
pub(crate) const GRID_WGSL: &str = include_str!("grid.wgsl");
/// Workgroup combine through subgroup operations.
const SUBGROUP_ON_WGSL: &str = include_str!("subgroup_on.wgsl");
/// The same functions for devices without subgroups: every invocation is its own leader.
const SUBGROUP_OFF_WGSL: &str = include_str!("subgroup_off.wgsl");

/// The subgroup shim for this device and a suffix for kernel cache keys. `GpuOptions::
/// no_subgroups` selects the workgroup-atomic fallback on any device (to test it, or to
/// sidestep a driver's broken subgroup support).
pub(crate) fn subgroup_shim(rec: &NodeRecorder<'_>) -> (&'static str, &'static str) {
    if rec.gpu().subgroup_kernels() {
        (SUBGROUP_ON_WGSL, "sg")
    } else {
        (SUBGROUP_OFF_WGSL, "wg")
    }
}

uniform_struct! {
    /// Uniform of the grid-stride kernels (`grid.wgsl`).
    pub struct GridParams {
        /// Pixels in the image.
        pub count: u32,
        /// Whole quads (`count / 4`); the remaining 0..3 pixels are handled by invocation 0.
        pub quads: u32,
        /// Invocations in the grid: the loop step, in quads.
        pub stride: u32,
        /// Kernel-specific extra word.
        pub extra: u32,
    }
}

/// A 1-D grid of `groups` workgroups for a grid-stride loop over the quads of `count` pixels.
pub(crate) struct Grid {
    pub params: GridParams,
    pub groups: [u32; 3],
}

/// Largest image (in pixels) the grid-stride reductions accept: keeps every per-workgroup
/// partial sum (at most 65536 per pixel for mean saturation) within one `u32`.
const MAX_PIXELS: u64 = 1 << 31;

/// Sizes the grid: about `quads_per_thread` quads per invocation (schedule choice), at most
/// 65535 workgroups in one dimension (the loop then takes more quads per invocation).
pub(crate) fn grid(count: u64, wg: u32, quads_per_thread: u32, extra: u32) -> Result<Grid> {
    if count == 0 || count > MAX_PIXELS {
        return Err(Error::unsupported(format!(
            "image of {count} pixels is outside what the reductions support (1 to {MAX_PIXELS})"
        )));
    }
    let quads = count / 4;
    let groups = count
        .div_ceil(4)
        .div_ceil(wg as u64 * quads_per_thread as u64)
        .clamp(1, 65535);
    let stride = groups * wg as u64;
    Ok(Grid {
        params: GridParams {
            count: count as u32,
            quads: quads as u32,
            stride: stride as u32,
            extra,
            ..Default::default()
        },
        groups: [groups as u32, 1, 1],
    })
}

/// Per-workgroup partial sums must fit one `u32`: with `per_pixel_max` the largest sample,
/// checks that no workgroup of `wg` invocations can see more than `u32::MAX / per_pixel_max`.
pub(crate) fn check_partial_fits(g: &Grid, wg: u32, per_pixel_max: u64) -> Result<()> {
    let per_thread = (g.params.quads as u64).div_ceil(g.params.stride as u64) * 4 + 3;
    if per_thread * wg as u64 * per_pixel_max > u32::MAX as u64 {
        return Err(Error::unsupported(format!(
            "image of {} pixels is too large for one reduction pass",
            g.params.count
        )));
    }
    Ok(())
}

/// The kernels load whole 16-byte quads, the last one possibly partial: the buffer must hold
/// `ceil(count / 4)` quads. Pool buffers always do (their sizes are multiples of 256 bytes).
pub(crate) fn check_quads(slot: &GpuSlot, count: u64) -> Result<()> {
    if slot.buffer.size() < count.div_ceil(4) * 16 {
        return Err(Error::Gpu(format!(
            "buffer of {} bytes is not padded to whole 16-byte quads for {count} pixels",
            slot.buffer.size()
        )));
    }
    Ok(())
}

/// Shape of the grid-stride loop (a schedule choice, `runtime::schedule` variant `u<U>q<Q>`):
/// each loop iteration issues `unroll` independent 16-byte loads before using any of them, so
/// that many reads are in flight per invocation, and the grid is sized for about
/// `quads_per_thread` quads per invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LoopShape {
    pub unroll: u32,
    pub quads_per_thread: u32,
}

impl LoopShape {
    /// The shape for `filter`: its override in the run's schedules (`rec`'s) if any, else
    /// `default`.
    pub(crate) fn for_filter(
        rec: &NodeRecorder<'_>,
        filter: &str,
        default: LoopShape,
    ) -> Result<LoopShape> {
        let Some(v) = rec.schedule(filter) else {
            return Ok(default);
        };
        LoopShape::parse(v)
            .ok_or_else(|| crate::runtime::schedule::unknown(filter, v, &[LoopShape::NAMES]))
    }
    /// What `parse` accepts, for error messages.
    pub(crate) const NAMES: &'static str = "u<1..16>q<1..64>, e.g. u4q8";
    /// Parses a `u<U>q<Q>` variant name.
    pub(crate) fn parse(v: &str) -> Option<LoopShape> {
        let (u, q) = v.strip_prefix('u')?.split_once('q')?;
        let (u, q) = (u.parse::<u32>().ok()?, q.parse::<u32>().ok()?);
        ((1..=16).contains(&u) && (1..=64).contains(&q)).then_some(LoopShape {
            unroll: u,
            quads_per_thread: q,
        })
    }
    /// Cache-key suffix.
    pub(crate) fn key(&self) -> String {
        format!("u{}q{}", self.unroll, self.quads_per_thread)
    }
    /// `fn visit_pixels(gid)`: calls the kernel's `add_pixel` on every pixel of this
    /// invocation's grid-stride sequence of whole quads, `unroll` loads at a time, and on
    /// the 0..3 pixels after the last whole quad in invocation 0.
    pub(crate) fn visit_pixels_wgsl(&self) -> String {
        self.visit_pixels_wgsl_with(
            "add_pixel(a.x); add_pixel(a.y); add_pixel(a.z); add_pixel(a.w);",
        )
    }
    /// `visit_pixels_wgsl` with `add_quad`'s body given (its argument: `a`, a quad).
    pub(crate) fn visit_pixels_wgsl_with(&self, add_quad: &str) -> String {
        let u = self.unroll;
        let mut s = format!("fn add_quad(a: vec4<u32>) {{\n    {add_quad}\n}}\n");
        s += "fn visit_pixels(gid: u32) {\n    var q = gid;\n";
        if u > 1 {
            s += &format!(
                "    for (; q + {}u * grid.stride < grid.quads; q += {u}u * grid.stride) {{\n",
                u - 1
            );
            for k in 0..u {
                s += &format!("        let a{k} = src[q + {k}u * grid.stride];\n");
            }
            for k in 0..u {
                s += &format!("        add_quad(a{k});\n");
            }
            s += "    }\n";
        }
        s += "    for (; q < grid.quads; q += grid.stride) {\n        add_quad(src[q]);\n    }\n";
        s += TAIL_PIXELS_WGSL;
        s += "}\n";
        s
    }
}

/// The end of a generated `visit_pixels(gid)`: invocation 0 calls `add_pixel` on the 0..3
/// pixels after the last whole quad.
pub(crate) const TAIL_PIXELS_WGSL: &str = "    if (gid == 0u) {\n        let rest = tail_pixels(grid);\n        if (rest > 0u) {\n            let a = src[grid.quads];\n            add_pixel(a.x);\n            if (rest > 1u) { add_pixel(a.y); }\n            if (rest > 2u) { add_pixel(a.z); }\n        }\n    }\n";

/// Alternative loop shapes timed by `bench --experiments` and run by the equivalence tests.
pub(crate) const LOOP_VARIANTS: &[&str] = &["u1q8", "u2q8", "u4q4", "u1q16", "u4q16", "u8q8"];

/// The histogram solver kernels (`solve.wgsl`): small data in, small data out, one workgroup.
/// The solver kernels after the shared 64-bit helpers (u64.wgsl).
pub(crate) const SOLVE_WGSL: &str = concat!(include_str!("u64.wgsl"), include_str!("solve.wgsl"));

uniform_struct! {
    /// Uniform of the solver kernels (`solve.wgsl`; meaning per entry point).
    pub struct SolveParams {
        pub a: u32,
        pub b: u32,
        pub c: u32,
        pub d: u32,
    }
}

/// `SolveParams` for the uniform layout test.
pub(crate) const SOLVE_UNIFORM: crate::filters::registry::UniformLayout =
    SolveParams::layout(SOLVE_WGSL);

/// Records a solver node: entry point `entry` of `solve.wgsl` as one workgroup reading the
/// node's data input and writing its data output (every word of it).
pub(crate) fn record_solver(
    def: &crate::filters::registry::FilterDef,
    rec: &mut NodeRecorder<'_>,
    inputs: &[GpuSlot],
    outputs: &[GpuSlot],
    entry: &'static str,
    params: SolveParams,
) -> Result<()> {
    let (Some(input), Some(output)) = (inputs.first(), outputs.first()) else {
        return Err(Error::wrong_input(
            def.name,
            "needs one data input and one data output",
        ));
    };
    let kernel = crate::runtime::Kernel::new(
        &format!("analysis.solve.{entry}"),
        &[SolveParams::WGSL, SOLVE_WGSL],
        entry,
    );
    rec.dispatch(
        &kernel,
        &[&input.buffer, &output.buffer],
        bytemuck::bytes_of(&params),
        [1, 1, 1],
    )
}

/// A percentage parameter in thousandths of a percent, the unit the solvers count in.
pub(crate) fn percent_milli(p: f32) -> u32 {
    (p as f64 * 1000.0).round().clamp(0.0, 100_000.0) as u32
}
