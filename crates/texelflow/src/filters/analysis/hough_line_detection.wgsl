// Hough line detection: what its kernels (hough_*.wgsl) share. CPU twin: `hough_cpu` in
// hough_line_detection.rs. Integer voting from the host's Q16 table of cos θ / ρres and
// sin θ / ρres, so the accumulator equals the twin's bin for bin.

// Fractional bits of the vote table (`Q` in hough_line_detection.rs).
const Q: u32 = 16u;
// The candidate list: count, -, the strongest bin's votes, -, then (θ row << 16 | ρ bin, votes) pairs.
const CAND_HEADER: u32 = 4u;
// mirror LINES_HEADER_WORDS, LINE_WORDS and LINES_CAPACITY in value.rs
const LINES_HEADER: u32 = 4u;
const LINE_WORDS: u32 = 4u;
const LINES_CAPACITY: u32 = 65536u;
