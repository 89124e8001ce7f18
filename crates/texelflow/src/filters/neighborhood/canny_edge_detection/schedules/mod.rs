//! The GPU schedules of `canny_edge_detection`'s gradient, suppression and hysteresis (the
//! luminance and the blur before them are `super`'s): [`Schedule`], the names
//! `--schedule canny_edge_detection=<name>` accepts ([`Schedule::parse`]), the default
//! ([`Schedule::choose`]) and the kernels beside them. Both give the twin's map bit for bit.

use super::*;
use crate::runtime::groups_2d;
use crate::runtime::wgsl_template::unroll;

// `unionfind`
const CLASSIFY: &str = include_str!("canny_classify.wgsl");
const FIND: &str = include_str!("canny_find.wgsl");
const MERGE: &str = include_str!("canny_merge.wgsl");
const RESOLVE: &str = include_str!("canny_resolve.wgsl");
const OUTPUT: &str = include_str!("canny_output.wgsl");
// `tiles`
const TILES: &str = include_str!("canny_tiles.wgsl");
const TILES_CLASSIFY: &str = include_str!("canny_tiles_classify.wgsl");
/// The in-tile union-find both classify kernels use (`tile_find`, `tile_unite`).
const TILE_UNION: &str = include_str!("canny_tile_union.wgsl");
const TILES_FIND: &str = include_str!("canny_tiles_find.wgsl");
const TILES_MERGE: &str = include_str!("canny_tiles_merge.wgsl");
const TILES_FINISH: &str = include_str!("canny_tiles_finish.wgsl");

/// Both schedules' tile, in packed words and rows (mirrors the classify kernels' 16 x 16
/// workgroups: 64 x 16 pixels); the merges run one invocation per pixel of a tile's top row
/// and left column.
const TILE_WORDS: u32 = 16;
const TILE_ROWS: u32 = 16;
const BORDER_PER_TILE: u64 = 80;
/// `tiles`: node slots, border bytes and `pending` bytes per tile (the mask of words with a
/// pending pixel, the number of weak nodes; mirror canny_tiles.wgsl).
const NODES_PER_TILE: u64 = 80;
const BORDER_BYTES: u64 = 160;
const PENDING_BYTES: u64 = 36;
// a tile's ring (156 pixels) holds at most 78 components (the test below); the border bytes
// are its top and bottom rows and left and right columns
const _: () = assert!(156 / 2 < NODES_PER_TILE && BORDER_BYTES == 2 * 64 + 2 * 16);

/// The names of the schedules that give the edge map (`DEF.schedules`: the equivalence matrix
/// runs each).
pub(super) const NAMES: &[&str] = &["unionfind", "tiles"];
/// Every name [`Schedule::parse`] takes: also, with the feature `bench`, the ablations that
/// stop after kernel k of a schedule (their output is not the edge map), so one GPU run gives
/// the per-kernel split the bench cannot see inside one node.
const ALL_NAMES: &[&str] = &[
    "unionfind",
    "tiles",
    "unionfind_upto1",
    "unionfind_upto2",
    "unionfind_upto3",
    "tiles_upto1",
    "tiles_upto2",
];

/// How the gradient, suppression and hysteresis run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// Bench-only ablation (feature `bench`): the first `kernels` kernels of `unionfind` (1..=3)
    /// or, with `tiles` true, of `tiles` (1..=2), the rest left out; the output is not the map.
    UpTo {
        /// `tiles` rather than `unionfind`.
        tiles: bool,
        /// Kernels recorded.
        kernels: u8,
    },
    /// Components within 64 x 16 tiles by union-find in workgroup memory (per pixel), every
    /// candidate's label (one u32 a pixel) joined along the tile borders in global memory,
    /// then every candidate resolved and the output written (canny_classify, canny_merge,
    /// canny_resolve, canny_output; issue 15).
    UnionFind,
    /// Magnitudes once per pixel in workgroup memory, union-find over horizontal runs, and
    /// each tile resolving what it can alone: only weak components touching a tile border
    /// take part in the global step, as one node each (canny_tiles_*.wgsl; issue 32).
    Tiles,
}

impl Schedule {
    /// The default: `unionfind`. H200 at 4K, Gray8, 50/150 (lead's run of 863c4d8, median of
    /// 30): random 0.2481 ms against `tiles`' 0.3236, flat shapes 0.1154 against 0.1389
    /// (docs/perf-notes.md, "Canny (issue 32)").
    pub fn choose() -> Schedule {
        Schedule::UnionFind
    }

    /// A schedule by its name.
    pub fn parse(v: &str) -> Result<Schedule> {
        match v {
            "unionfind" => Ok(Schedule::UnionFind),
            "tiles" => Ok(Schedule::Tiles),
            _ if cfg!(feature = "bench") => {
                let (tiles, k) = match v {
                    "unionfind_upto1" => (false, 1),
                    "unionfind_upto2" => (false, 2),
                    "unionfind_upto3" => (false, 3),
                    "tiles_upto1" => (true, 1),
                    "tiles_upto2" => (true, 2),
                    other => {
                        return Err(crate::runtime::schedule::unknown(
                            DEF.name, other, ALL_NAMES,
                        ))
                    }
                };
                Ok(Schedule::UpTo { tiles, kernels: k })
            }
            other => Err(crate::runtime::schedule::unknown(DEF.name, other, NAMES)),
        }
    }
}

/// Records the hysteresis part on the grey image `gray` (Gray8 layout) into `output`, with the
/// schedule the run names or the default.
pub(super) fn record(
    rec: &mut NodeRecorder<'_>,
    gray: &GpuBuffer,
    output: &GpuBuffer,
    width: u32,
    height: u32,
    u: &[u8],
) -> Result<()> {
    let schedule = match rec.schedule(DEF.name) {
        Some(v) => Schedule::parse(v)?,
        None => Schedule::choose(),
    };
    match schedule {
        Schedule::UnionFind => union_find(rec, gray, output, width, height, u, 4),
        Schedule::Tiles => tiles(rec, gray, output, width, height, u, 3),
        Schedule::UpTo {
            tiles: false,
            kernels,
        } => union_find(rec, gray, output, width, height, u, kernels),
        Schedule::UpTo {
            tiles: true,
            kernels,
        } => self::tiles(rec, gray, output, width, height, u, kernels),
    }
}

type GpuBuffer = std::sync::Arc<wgpu::Buffer>;

/// Schedule `unionfind`, its first `kernels` kernels (4: all).
fn union_find(
    rec: &mut NodeRecorder<'_>,
    gray: &GpuBuffer,
    output: &GpuBuffer,
    width: u32,
    height: u32,
    u: &[u8],
    kernels: u8,
) -> Result<()> {
    let pixels = width as u64 * height as u64;
    // labels: one u32 per pixel, an index below 2^31 (the top bit marks components)
    let label_bytes = pixels * 4;
    check_size(rec, width, height, label_bytes)?;
    let words = width.div_ceil(4);
    let labels = rec.temp(label_bytes);
    // the classes go into the output buffer (Gray8 layout) and are rewritten in place at the end
    let mut classify = Kernel::new(
        "canny.classify",
        &[CannyParams::WGSL, COMMON, TILE_UNION],
        "canny_classify",
    );
    classify.generated = Some(unroll(CLASSIFY, &[])?);
    rec.dispatch(
        &classify,
        &[gray, output, &labels],
        u,
        groups_2d(words, height, TILE_WORDS, TILE_ROWS),
    )?;
    if kernels < 2 {
        return Ok(());
    }
    let tiles = words.div_ceil(TILE_WORDS) as u64 * height.div_ceil(TILE_ROWS) as u64;
    rec.dispatch(
        &Kernel::new(
            "canny.merge",
            &[CannyParams::WGSL, COMMON, FIND, MERGE],
            "canny_merge",
        ),
        &[output, &labels],
        u,
        groups_1d(tiles * BORDER_PER_TILE, WG),
    )?;
    if kernels < 3 {
        return Ok(());
    }
    rec.dispatch(
        &Kernel::new(
            "canny.resolve",
            &[CannyParams::WGSL, COMMON, FIND, RESOLVE],
            "canny_resolve",
        ),
        &[output, &labels],
        u,
        groups_1d(pixels, WG),
    )?;
    if kernels < 4 {
        return Ok(());
    }
    rec.dispatch(
        &Kernel::new(
            "canny.output",
            &[CannyParams::WGSL, COMMON, OUTPUT],
            "canny_output",
        ),
        &[output, &labels],
        u,
        groups_1d(words as u64 * height as u64, WG),
    )
}

/// Schedule `tiles`: classify (everything a tile decides alone, writing the final bytes of
/// all but the pending pixels), merge over the ring nodes, finish of the pending pixels; its
/// first `kernels` kernels (3: all).
fn tiles(
    rec: &mut NodeRecorder<'_>,
    gray: &GpuBuffer,
    output: &GpuBuffer,
    width: u32,
    height: u32,
    u: &[u8],
    kernels: u8,
) -> Result<()> {
    let words = width.div_ceil(4);
    let tiles = words.div_ceil(TILE_WORDS) as u64 * height.div_ceil(TILE_ROWS) as u64;
    // node ids: strong ones below tiles K, weak ones from tiles K up to 2 tiles K
    let node_bytes = tiles * NODES_PER_TILE * 2 * 4;
    check_size(rec, width, height, node_bytes)?;
    let nodes = rec.temp(node_bytes);
    let border = rec.temp(tiles * BORDER_BYTES);
    let pending = rec.temp(tiles * PENDING_BYTES);
    let mut classify = Kernel::new(
        "canny.tiles_classify",
        &[CannyParams::WGSL, COMMON, TILES, TILE_UNION],
        "canny_tiles_classify",
    );
    classify.generated = Some(unroll(TILES_CLASSIFY, &[])?);
    let grid = groups_2d(words, height, TILE_WORDS, TILE_ROWS);
    rec.dispatch(
        &classify,
        &[gray, output, &nodes, &border, &pending],
        u,
        grid,
    )?;
    if kernels < 2 {
        return Ok(());
    }
    rec.dispatch(
        &Kernel::new(
            "canny.tiles_merge",
            &[CannyParams::WGSL, COMMON, TILES, TILES_FIND, TILES_MERGE],
            "canny_tiles_merge",
        ),
        &[&border, &nodes],
        u,
        groups_1d(tiles * BORDER_PER_TILE, WG),
    )?;
    if kernels < 3 {
        return Ok(());
    }
    rec.dispatch(
        &Kernel::new(
            "canny.tiles_finish",
            &[CannyParams::WGSL, COMMON, TILES, TILES_FINISH],
            "canny_tiles_finish",
        ),
        &[output, &nodes, &pending],
        u,
        grid,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_and_unknown_names_are_errors() {
        for n in NAMES {
            assert!(Schedule::parse(n).is_ok(), "{n}");
        }
        assert_eq!(Schedule::parse("tiles").ok(), Some(Schedule::Tiles));
        assert_eq!(Schedule::parse("unionfind").ok(), Some(Schedule::UnionFind));
        let e = Schedule::parse("tile").unwrap_err().to_string();
        assert!(e.contains("unionfind") && e.contains("tiles"), "{e}");
        assert_eq!(DEF.schedules, NAMES);
        // the ablations only with the feature `bench`
        for n in &ALL_NAMES[NAMES.len()..] {
            assert_eq!(Schedule::parse(n).is_ok(), cfg!(feature = "bench"), "{n}");
        }
    }

    #[test]
    fn a_tile_ring_holds_at_most_78_components() {
        // the node slots per tile (NODES_PER_TILE) rest on this: pairwise non-adjacent pixels
        // of the ring (one per component) in its cycle of 156, greedily as many as fit
        let ring: Vec<(i32, i32)> = (0..64)
            .map(|x| (x, 0))
            .chain((1..16).map(|y| (63, y)))
            .chain((0..63).rev().map(|x| (x, 15)))
            .chain((1..15).rev().map(|y| (0, y)))
            .collect();
        assert_eq!(ring.len(), 156);
        // consecutive ring pixels (cyclically) are 8-adjacent, so an independent set of the
        // ring is one of the cycle C_156: at most 78
        for i in 0..ring.len() {
            let (a, b) = (ring[i], ring[(i + 1) % ring.len()]);
            assert!(
                (a.0 - b.0).abs() <= 1 && (a.1 - b.1).abs() <= 1,
                "{a:?} {b:?}"
            );
        }
    }
}
