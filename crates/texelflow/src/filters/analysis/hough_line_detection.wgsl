// Hough line detection: what its kernels (hough_*.wgsl) share. CPU twin: `hough_cpu` in
// hough_line_detection.rs. Integer voting from the host's Q16 table of cos θ / ρres and
// sin θ / ρres, so the accumulator equals the twin's bin for bin.
struct HoughParams {
    width: u32,
    height: u32,
    // 0: Gray8 (4 pixels a word, rows padded to whole words), 1: RGBA8 (its red channel)
    format: u32,
    words_per_row: u32,
    // a pixel is an edge when its level is above this
    level: u32,
    // accumulator: n_theta rows of n_rho bins; bin r of a row is ρ = (r - k0) ρres
    n_theta: u32,
    n_rho: u32,
    k0: u32,
    // a line needs more votes than `threshold` and at least `relative` times the strongest bin's
    threshold: u32,
    relative: f32,
    // most lines kept (at most LINES_CAPACITY)
    limit: u32,
    rho_res: f32,
}

// Fractional bits of the vote table (`Q` in hough_line_detection.rs).
const Q: u32 = 16u;
// The candidate list: count, -, the strongest bin's votes, -, then (θ row << 16 | ρ bin, votes) pairs.
const CAND_HEADER: u32 = 4u;
// mirror LINES_HEADER_WORDS, LINE_WORDS and LINES_CAPACITY in value.rs
const LINES_HEADER: u32 = 4u;
const LINE_WORDS: u32 = 4u;
const LINES_CAPACITY: u32 = 65536u;
