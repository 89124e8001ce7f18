//! The GPU schedules of `resize` (the methods, their geometry and CPU twins are `super`): for
//! bilinear, [`Schedule`] (`quads`, the `rows` walks, the workgroup-memory `tile`, the
//! `texture` sampler), for the other methods and `align_corners` [`GeneralSchedule`]; the names
//! `--schedule resize=<name>` accepts ([`Named::parse`]), the defaults with the measurements
//! behind them (`choose`), and the kernels beside them.

use super::*;
use crate::runtime::wgsl_template::specialize;
use crate::runtime::{groups_1d, Bind, Kernel};

pub(super) const WGSL: &str = include_str!("resize.wgsl");
const ROWS_WGSL: &str = include_str!("resize_rows.wgsl");
/// The general kernels' taps (`axis_taps`, `texel`, METHOD), ahead of each one's bindings.
const TAPS_WGSL: &str = include_str!("resize_taps.wgsl");
/// The direct general kernel, a whole module (the taps, then its bindings and entry point).
pub(super) const GENERAL_WGSL: &str = concat!(
    include_str!("resize_taps.wgsl"),
    "\n",
    include_str!("resize_general.wgsl")
);
/// Schedule `general_rows`: its entry point and its two store snippets (16-byte stores where
/// the part's width is a multiple of 4, else 4-byte ones).
const GENERAL_ROWS_WGSL: &str = include_str!("resize_general_rows.wgsl");
/// `general_rows` as one whole module with its 16-byte store (the uniform layout test parses it).
pub(super) const GENERAL_ROWS_MODULE: &str = concat!(
    include_str!("resize_taps.wgsl"),
    "\n",
    include_str!("resize_rows_store.wgsl"),
    "\n",
    include_str!("resize_general_rows.wgsl")
);
const ROWS_STORE_VEC4: &str = include_str!("resize_rows_store.wgsl");
const ROWS_STORE_VEC2: &str = include_str!("resize_rows_store2.wgsl");
const ROWS_STORE_U32: &str = include_str!("resize_rows_store_u32.wgsl");
/// Schedule `general_rows`: invocations per workgroup (mirrors `WG` in
/// resize_general_rows.wgsl) and output rows per invocation (its `RB`).
const GENERAL_ROWS_WG: u32 = 64;
const GENERAL_ROWS_RB: u32 = 16;
/// Schedule `general_tile`'s entry point, appended to GENERAL_WGSL.
const GENERAL_TILE_WGSL: &str = include_str!("resize_general_tile.wgsl");
/// Source rows one `general_tile` block may hold; mirrors MAX_ROWS in resize_general_tile.wgsl.
const GENERAL_TILE_ROWS: f64 = 48.0;
pub(super) const TILE_WGSL: &str = include_str!("resize_tile.wgsl");
/// Schedule `half`: exact halvings, bilinear and area (2x2 means in integers).
pub(super) const HALF_WGSL: &str = include_str!("resize_half.wgsl");
pub(super) const TEXTURE_WGSL: &str = include_str!("resize_texture.wgsl");
/// Schedule `tile`: 16 x 16 output pixels per workgroup; mirrors resize_tile.wgsl.
const TILE_WG: u32 = 16;
/// Workgroup of the general kernel (16 x 16 output pixels); mirrors its `@workgroup_size`.
const GENERAL_WG: u32 = 16;
/// Invocations per workgroup, 4 output pixels each. Schedule choice, not algorithm; mirrors
/// `@workgroup_size` in resize.wgsl.
const RESIZE_WG: u32 = 256;
/// Schedule `rows`: invocations per workgroup (4 output columns each; mirrors `WG` and
/// `@workgroup_size` in resize_rows.wgsl) and the default output rows per invocation (`RB`).
const ROWS_WG: u32 = 64;
const ROWS_RB: u32 = 8;

/// How the bilinear resize runs (the other methods: [`GeneralSchedule`]); the values are the
/// same, operation for operation, in every one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// `resize.wgsl`: 4 consecutive output pixels of the row-major order per invocation, each
    /// computed on its own.
    Quads,
    /// `resize_rows.wgsl`: 4 columns walked down `rows` output rows, the horizontal
    /// interpolations shared by the output rows that use the same source row. It needs an output
    /// width that is a multiple of 4 and, unless `any_ratio`, no side shrinking (it only pays off
    /// there): elsewhere `Quads` runs.
    Rows {
        /// Output rows per invocation.
        rows: u32,
        /// Also where a side shrinks (tests and the bench).
        any_ratio: bool,
        /// Unpacking without conversions (session 8).
        unpack_only: bool,
        /// A bench-only ablation of the output rounding's conversions (wrong at ties).
        ablate_round: bool,
    },
    /// `resize_tile.wgsl` (seed 004): a workgroup-memory tile, any ratio.
    Tile,
    /// `resize_texture.wgsl` (seed 004): the input copied into a texture and sampled with the
    /// bilinear filter; an input past the texture limit takes the default.
    Texture,
}

/// How the other methods (and `align_corners`) run: `resize_general.wgsl` per output pixel, or
/// for bicubic and lanczos3 blocks whose source rows fit in workgroup memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeneralSchedule {
    /// One output pixel per invocation (`resize_general`).
    Direct,
    /// Bicubic and lanczos3 in blocks with their source rows in workgroup memory
    /// (`resize_general_tile`), where the rows fit; elsewhere `Direct`.
    Tile,
    /// Bicubic and lanczos3 where no side shrinks: `cols` output columns per invocation (4 or
    /// 2) walked down output rows, the source rows' horizontal sums kept in registers
    /// (`resize_general_rows`); elsewhere `Tile`.
    Rows {
        /// Output columns per invocation.
        cols: u32,
    },
}

/// A schedule name of `resize`: it names one of the bilinear kernels or one of the general
/// kernel's; the other kind keeps its default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    /// A bilinear schedule.
    Bilinear(Schedule),
    /// A schedule of the general kernel.
    General(GeneralSchedule),
    /// `resize_half.wgsl`: an exact halving of a whole image (input twice the output on both
    /// sides, output width a multiple of 4), bilinear or area (align_corners off): both are
    /// the 2x2 mean rounded half up there. The default where it applies; elsewhere the
    /// method's default runs.
    Half,
}

/// Every name `Named::parse` takes (`rows16_ablate_round` with the feature `bench` only).
const NAMES: &[&str] = &[
    "quads",
    "rows",
    "rows16",
    "rows32",
    "rows64",
    "rows_any",
    "rows16_mu",
    "rows16_ablate_round",
    "tile",
    "texture",
    "general_direct",
    "general_tile",
    "general_rows",
    "general_rows2",
    "half",
];

impl Schedule {
    const fn rows(rows: u32, any_ratio: bool, unpack_only: bool, ablate_round: bool) -> Schedule {
        Schedule::Rows {
            rows,
            any_ratio,
            unpack_only,
            ablate_round,
        }
    }

    /// The default: `rows16` (where the output width is a multiple of 4 and no side shrinks;
    /// elsewhere `quads`). H200 run 18b at 4K: 1080p->4K 0.0302 ms (1.41x copy) against `rows`
    /// 0.0311 ms and `quads` 0.0471 ms (2.21x); `rows_any` shrinking 4K->1080p 0.0262 ms
    /// against `quads` 0.0215 ms, so shrinking stays on `quads`. `texture` (H200, session 13):
    /// 1080p->4K 0.0349 ms, 4K->1080p 0.0598 (the copy into the texture costs about a copy of
    /// the input).
    pub fn choose() -> Schedule {
        Schedule::rows(16, false, false, false)
    }
}

impl GeneralSchedule {
    /// The default: `Rows` with 2 columns per invocation (it runs only where no
    /// side shrinks; elsewhere `Tile`). H200 1080p->4K (session 25, calls 1-2): bicubic 2
    /// columns 0.0499 ms, 4 columns 0.0537, `Tile` 0.1165; lanczos3 2 columns 0.0797, 4 columns
    /// 0.7313 (the window of 6 rows x 4 columns spills), `Tile` 0.1513. `Tile` against `Direct`
    /// (session 13): lanczos3 0.152 against 0.377, bicubic 0.117 against 0.121.
    pub fn choose() -> GeneralSchedule {
        GeneralSchedule::Rows { cols: 2 }
    }
}

impl Named {
    /// A schedule by its name (`DEF.schedules` and the bench's variants).
    pub fn parse(v: &str) -> Result<Named> {
        Ok(Named::Bilinear(match v {
            "quads" => Schedule::Quads,
            "rows" => Schedule::rows(ROWS_RB, false, false, false),
            "rows16" => Schedule::rows(16, false, false, false),
            // longer walks (session 6: bench comparisons against `rows16`)
            "rows32" => Schedule::rows(32, false, false, false),
            "rows64" => Schedule::rows(64, false, false, false),
            "rows_any" => Schedule::rows(ROWS_RB, true, false, false),
            "rows16_mu" => Schedule::rows(16, false, true, false),
            "rows16_ablate_round" if cfg!(feature = "bench") => {
                Schedule::rows(16, false, true, true)
            }
            "tile" => Schedule::Tile,
            "texture" => Schedule::Texture,
            "general_direct" => return Ok(Named::General(GeneralSchedule::Direct)),
            "general_tile" => return Ok(Named::General(GeneralSchedule::Tile)),
            "general_rows" => return Ok(Named::General(GeneralSchedule::Rows { cols: 4 })),
            "general_rows2" => return Ok(Named::General(GeneralSchedule::Rows { cols: 2 })),
            "half" => return Ok(Named::Half),
            other => return Err(crate::runtime::schedule::unknown(DEF.name, other, NAMES)),
        }))
    }
}

/// Records the GPU side: a part of a larger resize (a tile) takes the kernels specialised with
/// `WINDOW = 1`; otherwise the schedule of the run's overrides or the default.
pub(super) fn record(
    f: &Resize,
    rec: &mut NodeRecorder<'_>,
    inputs: &[GpuSlot],
    outputs: &[GpuSlot],
) -> Result<()> {
    let d = slot_image(&DEF, inputs, 0)?;
    let geo = f.geometry(d.width, d.height)?;
    let (ow, oh) = (geo.out.w, geo.out.h);
    // a part of a larger resize (a tile): the kernels specialised with WINDOW = 1
    let window = f.window.is_some() as u32;
    if window == 1 && !f.general() {
        // the bilinear `quads` kernel (the `rows` schedules need a part width that is a
        // multiple of 4; their values are the same, operation for operation)
        let mut kernel = Kernel::new("geometry.resize.window", &[ResizeParams::WGSL], "resize");
        kernel.generated = Some(specialize(WGSL, &[("WINDOW", 1)])?);
        return rec.dispatch(
            &kernel,
            &[&inputs[0].buffer, &outputs[0].buffer],
            bytemuck::bytes_of(&ResizeParams::new(&geo)),
            groups_1d((ow as u64 * oh as u64).div_ceil(4), RESIZE_WG),
        );
    }
    let named = rec.schedule(DEF.name).map(Named::parse).transpose()?;
    // an exact halving: `half` unless another schedule is named. H200 4K->1080p (session 25,
    // call 1 before it): bilinear `quads` 0.0215 ms, area `general_tile` 0.0301; `half`: see
    // docs/perf-notes.md, session 25.
    let halving = window == 0
        && !f.align_corners
        && matches!(f.method, ResizeMethod::Bilinear | ResizeMethod::Area)
        && (d.width, d.height) == (2 * ow, 2 * oh)
        && ow.is_multiple_of(4);
    if halving && matches!(named, None | Some(Named::Half)) {
        let kernel = Kernel::new(
            "geometry.resize_half",
            &[ResizeParams::WGSL, HALF_WGSL],
            "resize_half",
        );
        return rec.dispatch(
            &kernel,
            &[&inputs[0].buffer, &outputs[0].buffer],
            bytemuck::bytes_of(&ResizeParams::new(&geo)),
            groups_1d((ow / 4) as u64 * oh as u64, RESIZE_WG),
        );
    }
    if f.general() {
        let g = ResizeGeneralParams::new(f, &geo);
        // a bilinear kernel's name leaves the general kernel at its default
        let schedule = match named {
            Some(Named::General(s)) => s,
            _ => GeneralSchedule::choose(),
        };
        let separable = matches!(f.method, ResizeMethod::Bicubic | ResizeMethod::Lanczos3);
        let taps = match f.method {
            ResizeMethod::Bicubic => 4,
            _ => 6,
        };
        // source pixels per output pixel along each axis, as the kernels step
        let (step_x, step_y) = if f.align_corners {
            (g.corner_x, g.corner_y)
        } else {
            (g.scale_x, g.scale_y)
        };
        // `general_rows` reads a row's 4 columns within taps + 3 pixels: only where no side
        // shrinks. A part of a larger resize takes the kernel the whole image takes (the same
        // arithmetic on every compiler: NVIDIA's `general_tile` and direct kernels differ in the
        // last bit), so the choice depends on the whole resize's geometry only.
        let rows = match schedule {
            GeneralSchedule::Rows { cols } if separable && step_x <= 1.0 && step_y <= 1.0 => {
                Some(cols)
            }
            _ => None,
        };
        if let Some(cols) = rows {
            let (store, whole) = if !g.part_width.is_multiple_of(cols) {
                (ROWS_STORE_U32, 0)
            } else if cols == 4 {
                (ROWS_STORE_VEC4, 1)
            } else {
                (ROWS_STORE_VEC2, 1)
            };
            let mut kernel = Kernel::new(
                &format!(
                    "geometry.resize_general_rows.m{}.w{window}.c{cols}.v{whole}",
                    g.method
                ),
                &[ResizeGeneralParams::WGSL],
                "resize_general_rows",
            );
            kernel.generated = Some(specialize(
                &format!("{TAPS_WGSL}\n{store}\n{GENERAL_ROWS_WGSL}"),
                &[
                    ("METHOD", g.method),
                    ("WINDOW", window),
                    ("TAPS", taps),
                    ("COLS", cols),
                    ("RB", GENERAL_ROWS_RB),
                ],
            )?);
            return rec.dispatch(
                &kernel,
                &[&inputs[0].buffer, &outputs[0].buffer],
                bytemuck::bytes_of(&g),
                [
                    g.part_width.div_ceil(cols).div_ceil(GENERAL_ROWS_WG),
                    g.part_height.div_ceil(GENERAL_ROWS_RB),
                    1,
                ],
            );
        }
        // a block's source rows: 15 output rows apart at most `step` each, plus the taps
        let fits = (15.0 * step_y as f64).ceil() + 1.0 + taps as f64 <= GENERAL_TILE_ROWS;
        // Bicubic and lanczos3 only: the others read 1 or 2 taps, or whole cells (area).
        let tile = schedule != GeneralSchedule::Direct && fits && separable;
        let (source, entry) = if tile {
            (
                format!("{GENERAL_WGSL}\n{GENERAL_TILE_WGSL}"),
                "resize_general_tile",
            )
        } else {
            (GENERAL_WGSL.to_string(), "resize_general")
        };
        let mut kernel = Kernel::new(
            &format!("geometry.{entry}.m{}.w{window}", g.method),
            &[ResizeGeneralParams::WGSL],
            entry,
        );
        kernel.generated = Some(specialize(
            &source,
            &[("METHOD", g.method), ("WINDOW", window)],
        )?);
        return rec.dispatch(
            &kernel,
            &[&inputs[0].buffer, &outputs[0].buffer],
            bytemuck::bytes_of(&g),
            crate::runtime::groups_2d(g.part_width, g.part_height, GENERAL_WG, GENERAL_WG),
        );
    }
    let u = ResizeParams::new(&geo);
    // a general kernel's name leaves the bilinear kernels at their default
    let schedule = match named {
        Some(Named::Bilinear(s)) => s,
        _ => Schedule::choose(),
    };
    let rows = match schedule {
        Schedule::Quads => None,
        Schedule::Rows {
            rows,
            any_ratio,
            unpack_only,
            ablate_round,
        } => Some((rows, any_ratio, unpack_only as u32, ablate_round as u32)),
        Schedule::Tile => {
            let kernel = Kernel::new(
                "geometry.resize_tile",
                &[ResizeParams::WGSL, TILE_WGSL],
                "resize_tile",
            );
            return rec.dispatch(
                &kernel,
                &[&inputs[0].buffer, &outputs[0].buffer],
                bytemuck::bytes_of(&u),
                crate::runtime::groups_2d(ow, oh, TILE_WG, TILE_WG),
            );
        }
        // inputs past the texture limit take the default
        Schedule::Texture
            if d.width <= rec.gpu().max_texture_side()
                && d.height <= rec.gpu().max_texture_side() =>
        {
            let tex = rec.rgba8_texture(&inputs[0].buffer, d.width, d.height)?;
            let sampler = rec.gpu().linear_sampler().clone();
            let kernel = Kernel::new(
                "geometry.resize_texture",
                &[ResizeParams::WGSL, TEXTURE_WGSL],
                "resize_texture",
            );
            let binds = [
                Bind::Texture(&tex),
                Bind::Sampler(&sampler),
                Bind::Buffer(&outputs[0].buffer),
            ];
            return rec.dispatch_binds(
                &kernel,
                &binds,
                bytemuck::bytes_of(&u),
                groups_1d((ow as u64 * oh as u64).div_ceil(4), RESIZE_WG),
            );
        }
        Schedule::Texture => match Schedule::choose() {
            Schedule::Rows { rows, .. } => Some((rows, false, 0, 0)),
            _ => None,
        },
    };
    if let Some((rb, any_ratio, mu, ar)) = rows {
        if ow % 4 == 0 && (any_ratio || (ow >= d.width && oh >= d.height)) {
            let mut kernel = Kernel::new(
                &format!("geometry.resize.rows.rb{rb}.mu{mu}.ar{ar}"),
                &[ResizeParams::WGSL],
                "resize_rows",
            );
            kernel.generated = Some(specialize(
                &format!("{WGSL}\n{ROWS_WGSL}"),
                &[("RB", rb), ("MU", mu), ("AR", ar)],
            )?);
            return rec.dispatch(
                &kernel,
                &[&inputs[0].buffer, &outputs[0].buffer],
                bytemuck::bytes_of(&u),
                [(ow / 4).div_ceil(ROWS_WG), oh.div_ceil(rb), 1],
            );
        }
    }
    let kernel = Kernel::new("geometry.resize", &[ResizeParams::WGSL, WGSL], "resize");
    rec.dispatch(
        &kernel,
        &[&inputs[0].buffer, &outputs[0].buffer],
        bytemuck::bytes_of(&u),
        groups_1d((ow as u64 * oh as u64).div_ceil(4), RESIZE_WG),
    )
}
