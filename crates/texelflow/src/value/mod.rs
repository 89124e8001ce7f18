//! Values that flow along graph edges: images, and data such as statistics and histograms.
//! Data values live in GPU buffers mid-graph (later nodes read them on the GPU) and can be
//! read back by the caller.

pub mod histogram;
pub mod photo;

use crate::error::{Error, Result};
use crate::image::{Image, ImageDesc};

/// The kind of a non-image value. Each has a fixed GPU buffer layout (documented per variant).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DataKind {
    /// Per-channel min, max, sum for R, G, B, A and BT.601 luma Y, plus the pixel count.
    /// GPU: 24 `u32`: for channel c in 0..5, `[4c] = max(255 - v)`, `[4c+1] = max(v)`,
    /// `[4c+2], [4c+3]` = sum lo/hi words; `[20], [21]` = count lo/hi. Zero is the identity of
    /// every slot, so one buffer clear initialises it.
    Stats,
    /// 256 bins each for R, G, B, Y (BT.601 luma) and A. GPU: `HISTOGRAM_WORDS` `u32`: the
    /// bins channel-major (`[256c + v]`, c = 0 r, 1 g, 2 b, 3 y, 4 a; A appended so the first
    /// four keep their indices), then `[1280]` = the colour space (`HistogramSpace` as u32;
    /// zero is RGB, so one buffer clear initialises it), then padding to a 16-byte multiple.
    Histogram,
    /// A mean of fixed-point samples. GPU: 4 `u32`: sum lo, sum hi, count lo, count hi;
    /// the mean is `sum / count / FIXED_ONE`.
    Mean,
    /// A list of image points with a score (corners), at most `POINTS_CAPACITY`.
    /// GPU: 4 `u32` of header, then 2 `u32` per point: `[0]` = points found (an atomic counter,
    /// counting past the capacity), `[1]` = the list's limit (`max`, at most `POINTS_CAPACITY`,
    /// written by the producer), `[2], [3]` = 0; point `i` at `[4 + 2i]` = `y << 16 | x`,
    /// `[5 + 2i]` = the score's `f32` bits. Producers append with atomics in any order; the
    /// read-back sorts by (y, x). Zero is the empty list, so one buffer clear initialises it.
    Points,
    /// A list of straight lines in OpenCV's `HoughLines` convention, the strongest first, at
    /// most `LINES_CAPACITY`. A line is the pixels (x, y) with x cos θ + y sin θ = ρ (ρ in
    /// pixels from the top-left pixel's centre, possibly negative; θ in radians in [0, π)).
    /// GPU: 4 `u32` of header, then 4 `u32` per line: `[0]` = lines found (counting past the
    /// list's limit), `[1]` = the list's limit (`max`, at most `LINES_CAPACITY`), `[2]` = the
    /// votes of the strongest accumulator bin, `[3]` = 0; line `i` at `[4 + 4i]` = ρ's `f32`
    /// bits, `[5 + 4i]` = θ's `f32` bits, `[6 + 4i]` = its votes, `[7 + 4i]` = cos θ and sin θ
    /// rounded to Q1.14 as two `i16` (low half cos, high half sin; see `line_cos_sin_q14`), so
    /// that GPU consumers draw without trigonometry. The producer writes the lines in rank
    /// order (votes descending, then θ, then ρ ascending) and the read-back sorts the same way.
    /// Zero is the empty list.
    Lines,
    /// A colour fingerprint (`color_fingerprint`): pixel counts per (block, colour) bin, up to
    /// `FINGERPRINT_MAX_BINS` bins. GPU: `FINGERPRINT_HEADER_WORDS` (4) `u32` of header, then
    /// the bins: `[0]` = grid, `[1]` = bits (written by the producer), `[2], [3]` = pixels
    /// counted lo/hi; bin `i` at `[4 + i]` for `i < grid^2 * 2^(3 bits)` (layout:
    /// `photo::Fingerprint`). Zero is the empty fingerprint, so one clear initialises it.
    Fingerprint,
    /// Raw integer sums of the photo assessment (`photo_metrics`; meaning of each sum:
    /// `photo::PhotoMetrics`). GPU: `PHOTO_METRICS_WORDS` `u32`: `[0..256)` the BT.601
    /// luma histogram, then sum `k` of `PhotoMetrics::SUMS` as lo/hi words at `[256 + 2k]`,
    /// `[257 + 2k]` (signed sums stored with a per-pixel offset that makes each sample
    /// non-negative, see `PhotoMetrics::OFFSETS`), then width and height at `[274]`, `[275]`.
    /// Zero is the identity of every slot, so one buffer clear initialises it.
    PhotoMetrics,
    /// A tone curve per channel: 256 entries, each output level for one input level of R, G, B
    /// and A. GPU: 256 `u32`, entry v = `r | g << 8 | b << 16 | a << 24` (the outputs for
    /// input level v), so one load serves a pixel's four channels.
    Lut,
    /// Black and white points (clip percentiles) of R, G, B and Y. GPU: 12 `u32`: `[c]` = the
    /// low point of channel c (0 r, 1 g, 2 b, 3 y), `[4 + c]` = its high point, `[8]` = a mask
    /// of the channels computed (bit c), `[9..12]` = 0.
    Range,
    /// The dominant colour (`dominant_color`): the pixels of the most populated cell of a
    /// coarse RGB grid and their sums. GPU: 12 `u32`: `[0], [1]` = pixels in the cell lo/hi,
    /// `[2 + 2c], [3 + 2c]` = the sum of channel c (r, g, b) over them lo/hi, `[8]` = the
    /// cell (`r' | g' << bits | b' << 2 bits`, c' the top `bits` bits), `[9]` = bits,
    /// `[10], [11]` = the image's pixels lo/hi. Zero is the identity of every slot.
    Color,
    /// Motion in a frame (`motion_detector`): the pixels that moved and their position sums,
    /// whose mean is the centroid. GPU: 8 `u32`, lo/hi pairs: `[0], [1]` = moving pixels,
    /// `[2], [3]` = the sum of their x, `[4], [5]` = of their y, `[6]`, `[7]` = the frame's
    /// width and height (written by the producer). Zero is the identity of every sum.
    Motion,
    /// A stream of bytes whose length the producer finds as it writes (a JPEG's entropy-coded
    /// data, `io::jpeg_file`), at most `capacity` bytes. GPU: `BYTES_HEADER_WORDS` (4) `u32`
    /// of header, then the bytes: `[0]` = how many bytes follow (at most `capacity`),
    /// `[1]`..`[3]` = words the producer defines (`Bytes::words`). Only the header and the
    /// bytes written are read back.
    Bytes {
        /// The most bytes the stream can hold.
        capacity: u32,
    },
}

/// Most bins a `DataKind::Fingerprint` holds: grid 8 (64 blocks) times 4 bits per channel (4096 colours).
pub const FINGERPRINT_MAX_BINS: u32 = 64 * 4096;
/// Words before the first bin of a `DataKind::Fingerprint` buffer.
pub const FINGERPRINT_HEADER_WORDS: u32 = 4;
/// Words of a `DataKind::PhotoMetrics` buffer (276 used, padded to a multiple of 8 words).
pub const PHOTO_METRICS_WORDS: u32 = 280;

/// Words of a `DataKind::Histogram` buffer: 5 x 256 bins, the space word, padding.
pub const HISTOGRAM_WORDS: u32 = 1284;

/// Lines a `DataKind::Lines` buffer holds at most (65536: 1 MiB on the GPU).
pub const LINES_CAPACITY: u32 = 65536;
/// Words before the first line of a `DataKind::Lines` buffer.
pub const LINES_HEADER_WORDS: u32 = 4;
/// Words per line of a `DataKind::Lines` buffer.
pub const LINE_WORDS: u32 = 4;

/// cos θ and sin θ rounded to Q1.14 (the fourth word of a `Lines` entry), from θ as stored:
/// what `draw_lines` draws with on both sides.
pub fn line_cos_sin_q14(theta: f32) -> (i32, i32) {
    let t = theta as f64;
    (
        (t.cos() * 16384.0).round() as i32,
        (t.sin() * 16384.0).round() as i32,
    )
}

/// Points a `DataKind::Points` buffer holds at most (65536: 512 KiB on the GPU).
pub const POINTS_CAPACITY: u32 = 65536;
/// Words before the first point of a `DataKind::Points` buffer.
pub const POINTS_HEADER_WORDS: u32 = 4;

/// Fixed-point scale of `DataKind::Mean` samples (16 fractional bits).
pub const FIXED_ONE: f64 = 65536.0;

impl DataKind {
    /// Size of the GPU buffer in bytes.
    pub fn gpu_bytes(self) -> u64 {
        match self {
            DataKind::Stats => 24 * 4,
            DataKind::Histogram => HISTOGRAM_WORDS as u64 * 4,
            DataKind::Mean => 4 * 4,
            DataKind::Points => (POINTS_HEADER_WORDS as u64 + 2 * POINTS_CAPACITY as u64) * 4,
            DataKind::Lines => {
                (LINES_HEADER_WORDS as u64 + LINE_WORDS as u64 * LINES_CAPACITY as u64) * 4
            }
            DataKind::Fingerprint => {
                (FINGERPRINT_HEADER_WORDS as u64 + FINGERPRINT_MAX_BINS as u64) * 4
            }
            DataKind::PhotoMetrics => PHOTO_METRICS_WORDS as u64 * 4,
            DataKind::Lut => 256 * 4,
            DataKind::Range => 12 * 4,
            DataKind::Color => 12 * 4,
            DataKind::Motion => 8 * 4,
            DataKind::Bytes { capacity } => {
                BYTES_HEADER_WORDS as u64 * 4 + (capacity as u64).div_ceil(16) * 16
            }
        }
    }
    /// `None` when results of this kind over disjoint parts of an image merge into the whole
    /// image's exactly (`Data::merge`: integer sums and counts add, minima and maxima combine);
    /// otherwise why not, for tiled runs' errors.
    pub fn merge_refusal(self) -> Option<&'static str> {
        match self {
            DataKind::Stats | DataKind::Histogram | DataKind::Mean => None,
            DataKind::Points => {
                Some("a list with a capacity, kept in raster order of the whole image")
            }
            DataKind::Lines => Some("peaks of the whole image's votes"),
            DataKind::Fingerprint => Some("counts per block of a grid laid over the whole image"),
            DataKind::PhotoMetrics => {
                Some("sums over each pixel's neighbours and the image's size")
            }
            DataKind::Lut | DataKind::Range => Some("derived from the whole image's histogram"),
            DataKind::Color => Some(
                "the most populated colour cell of the whole image (maxima of counts do not add)",
            ),
            DataKind::Motion => Some("sums of pixel positions in the whole frame"),
            DataKind::Bytes { .. } => Some("a stream coded from the whole image"),
        }
    }
    /// The kind's name in specs and JSON.
    pub fn name(self) -> &'static str {
        match self {
            DataKind::Stats => "stats",
            DataKind::Histogram => "histogram",
            DataKind::Mean => "mean",
            DataKind::Points => "points",
            DataKind::Lines => "lines",
            DataKind::Fingerprint => "fingerprint",
            DataKind::PhotoMetrics => "photo_metrics",
            DataKind::Lut => "lut",
            DataKind::Range => "range",
            DataKind::Color => "color",
            DataKind::Motion => "motion",
            DataKind::Bytes { .. } => "bytes",
        }
    }
}

/// Per-channel statistics of an 8-bit image: R, G, B, A, Y (BT.601 luma, rounded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Pixels counted.
    pub count: u64,
    /// Per-channel minimum, in `CHANNELS` order.
    pub min: [u8; 5],
    /// Per-channel maximum.
    pub max: [u8; 5],
    /// Per-channel sum.
    pub sum: [u64; 5],
}

impl Stats {
    /// Channel names in storage order.
    pub const CHANNELS: [&'static str; 5] = ["r", "g", "b", "a", "y"];
    /// Mean of channel `c` in 8-bit units.
    pub fn mean(&self, c: usize) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum[c] as f64 / self.count as f64
        }
    }
}

pub use histogram::{CompareMethod, Histogram, HistogramSpace};

/// Per-channel tone curves (`DataKind::Lut`): `table[c][v]` is the output level of channel c
/// (0 r, 1 g, 2 b, 3 a) for input level v.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lut {
    /// `table[c][v]`: channel c's output level for input level v.
    pub table: [[u8; 256]; 4],
}

impl Lut {
    /// Channel names in storage order.
    pub const CHANNELS: [&'static str; 4] = ["r", "g", "b", "a"];
    /// The identity curve on every channel.
    pub fn identity() -> Lut {
        Lut {
            table: [std::array::from_fn(|v| v as u8); 4],
        }
    }
    /// Applies the curves to an RGBA8 pixel.
    pub fn apply(&self, p: [u8; 4]) -> [u8; 4] {
        std::array::from_fn(|c| self.table[c][p[c] as usize])
    }
    /// The GPU layout (see `DataKind::Lut`).
    pub fn to_words(&self) -> [u32; 256] {
        std::array::from_fn(|v| (0..4).map(|c| (self.table[c][v] as u32) << (8 * c)).sum())
    }
}

/// Words before the first byte of a `DataKind::Bytes` buffer.
pub const BYTES_HEADER_WORDS: u32 = 4;

/// A stream of bytes (`DataKind::Bytes`) and the three words its producer wrote beside it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bytes {
    /// Words `[1]..[3]` of the GPU header, as the producer defines them.
    pub words: [u32; 3],
    /// The stream.
    pub bytes: Vec<u8>,
}

impl Bytes {
    /// The bytes of a GPU buffer to read back when its header says `header_len` bytes follow:
    /// the header and the stream, in whole words, at most the buffer.
    pub fn read_len(capacity: u32, header_len: u32) -> u64 {
        let all = DataKind::Bytes { capacity }.gpu_bytes();
        (BYTES_HEADER_WORDS as u64 * 4 + (header_len.min(capacity) as u64).div_ceil(4) * 4).min(all)
    }

    /// Parses a GPU buffer (the header and at least the bytes it counts).
    fn from_gpu(capacity: u32, b: &[u8]) -> Result<Bytes> {
        let head = BYTES_HEADER_WORDS as usize * 4;
        let word = |i: usize| {
            b.get(4 * i..4 * i + 4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        };
        let (Some(n), Some(w1), Some(w2), Some(w3)) = (word(0), word(1), word(2), word(3)) else {
            return Err(Error::Gpu("bytes buffer too small".into()));
        };
        if n > capacity {
            return Err(Error::Gpu(format!(
                "a stream of {n} bytes in a buffer of {capacity}"
            )));
        }
        let bytes = b
            .get(head..head + n as usize)
            .ok_or_else(|| Error::Gpu("the stream was not read back whole".into()))?
            .to_vec();
        Ok(Bytes {
            words: [w1, w2, w3],
            bytes,
        })
    }
}

/// Motion in a frame (`DataKind::Motion`): the pixels that differ from the running average
/// by more than a threshold, counted with the sums of their coordinates (pixel indices).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Motion {
    /// Pixels that moved.
    pub moving: u64,
    /// Sum of their columns.
    pub sum_x: u64,
    /// Sum of their rows.
    pub sum_y: u64,
    /// Frame width in pixels.
    pub width: u32,
    /// Frame height in pixels.
    pub height: u32,
}

impl Motion {
    /// The centroid of the moving pixels in normalised coordinates (0..1 across the frame, of
    /// pixel centres: GPUImage's texture coordinates); `None` when nothing moved.
    pub fn centroid(&self) -> Option<(f64, f64)> {
        (self.moving > 0 && self.width > 0 && self.height > 0).then(|| {
            let n = self.moving as f64;
            (
                (self.sum_x as f64 / n + 0.5) / self.width as f64,
                (self.sum_y as f64 / n + 0.5) / self.height as f64,
            )
        })
    }
    /// The share of the frame's pixels that moved, 0..1 (GPUImage's motion intensity).
    pub fn intensity(&self) -> f64 {
        let pixels = self.width as u64 * self.height as u64;
        if pixels == 0 {
            0.0
        } else {
            self.moving as f64 / pixels as f64
        }
    }
}

/// The dominant colour (`DataKind::Color`): the most populated cell of a coarse RGB grid
/// (`bits` per channel) and the exact sums of its pixels, whose mean is the colour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DominantCell {
    /// Pixels in the cell.
    pub count: u64,
    /// Sums of R, G, B over them.
    pub sum: [u64; 3],
    /// The cell: `r' | g' << bits | b' << 2 bits`, c' the top `bits` bits of each channel.
    pub cell: u32,
    /// Bits per channel of the grid.
    pub bits: u32,
    /// Pixels in the image.
    pub pixels: u64,
}

impl DominantCell {
    /// The mean of the cell's pixels, each channel rounded half up (black for an empty image).
    pub fn color(&self) -> [u8; 3] {
        std::array::from_fn(|c| {
            if self.count == 0 {
                0
            } else {
                ((2 * self.sum[c] + self.count) / (2 * self.count)).min(255) as u8
            }
        })
    }
    /// The cell's share of the image's pixels, 0..1.
    pub fn share(&self) -> f64 {
        if self.pixels == 0 {
            0.0
        } else {
            self.count as f64 / self.pixels as f64
        }
    }
}

/// Black and white points (`DataKind::Range`) of R, G, B and Y (index 0..4); `channels` has
/// bit c set for each channel computed (the others read 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Range {
    /// Black point per channel.
    pub low: [u8; 4],
    /// White point per channel.
    pub high: [u8; 4],
    /// Bit c set for each channel computed.
    pub channels: u32,
}

impl Range {
    /// Channel names in storage order.
    pub const CHANNELS: [&'static str; 4] = ["r", "g", "b", "y"];
    /// Whether channel `c` was computed.
    pub fn has(&self, c: usize) -> bool {
        self.channels >> c & 1 == 1
    }
}

/// One point of a `Points` list: pixel column, row, and the score it was found with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Pixel column.
    pub x: u32,
    /// Pixel row.
    pub y: u32,
    /// The detector's score.
    pub score: f32,
}

/// Points (corners) sorted by (y, x). `found` counts every point the producer found; when it
/// exceeds the list's limit, `overflow` is set and `points` holds `limit` of them: which ones
/// is unspecified on the GPU (appended in any order), the first in raster order on the CPU.
#[derive(Clone, Debug, Default)]
pub struct Points {
    /// The points kept, sorted by (y, x).
    pub points: Vec<Point>,
    /// Every point the producer found.
    pub found: u64,
    /// Whether `found` exceeded the limit.
    pub overflow: bool,
}

/// Two lists are equal when they agree on `found` and `overflow` and, unless overflowed
/// (where which points were kept is unspecified), on every point.
impl PartialEq for Points {
    fn eq(&self, other: &Self) -> bool {
        self.found == other.found
            && self.overflow == other.overflow
            && self.points.len() == other.points.len()
            && (self.overflow || self.points == other.points)
    }
}

impl Points {
    /// A list from points in any order, keeping at most `limit` (the first in (y, x) order).
    pub fn from_unsorted(mut points: Vec<Point>, limit: u32) -> Points {
        points.sort_by_key(|p| (p.y, p.x));
        let found = points.len() as u64;
        let limit = limit.min(POINTS_CAPACITY) as usize;
        points.truncate(limit);
        Points {
            points,
            found,
            overflow: found > limit as u64,
        }
    }
}

/// One line of a `Lines` list: x cos θ + y sin θ = ρ, and the accumulator votes it got.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    /// Signed distance from the top-left pixel's centre, in pixels.
    pub rho: f32,
    /// Angle of the line's normal in radians, [0, π).
    pub theta: f32,
    /// Accumulator votes.
    pub votes: u32,
}

/// Lines, strongest first (votes descending, then θ, then ρ ascending). `found` counts every
/// line the producer found; when it exceeds the list's limit, `overflow` is set and `lines`
/// holds the `limit` strongest. More than `LINES_CAPACITY` found: which are kept is
/// unspecified on the GPU. `max_votes` is the strongest accumulator bin's votes.
#[derive(Clone, Debug, Default)]
pub struct Lines {
    /// The lines kept, strongest first.
    pub lines: Vec<Line>,
    /// Every line the producer found.
    pub found: u64,
    /// Whether `found` exceeded the limit.
    pub overflow: bool,
    /// Votes of the strongest accumulator bin.
    pub max_votes: u32,
}

/// Two lists are equal when they agree on `found`, `overflow`, `max_votes` and, unless more
/// than `LINES_CAPACITY` were found (where the GPU's choice is unspecified), every line.
impl PartialEq for Lines {
    fn eq(&self, other: &Self) -> bool {
        self.found == other.found
            && self.overflow == other.overflow
            && self.max_votes == other.max_votes
            && self.lines.len() == other.lines.len()
            && (self.found > LINES_CAPACITY as u64 || self.lines == other.lines)
    }
}

impl Lines {
    /// The rank order: votes descending, then θ, then ρ ascending.
    pub fn sort(lines: &mut [Line]) {
        lines.sort_by(|a, b| {
            b.votes
                .cmp(&a.votes)
                .then(a.theta.total_cmp(&b.theta))
                .then(a.rho.total_cmp(&b.rho))
        });
    }
    /// A list from lines in any order, keeping the `limit` strongest.
    pub fn from_unsorted(mut lines: Vec<Line>, limit: u32, max_votes: u32) -> Lines {
        Lines::sort(&mut lines);
        let found = lines.len() as u64;
        let limit = limit.min(LINES_CAPACITY) as usize;
        lines.truncate(limit);
        Lines {
            lines,
            found,
            overflow: found > limit as u64,
            max_votes,
        }
    }
}

/// Non-image result of a node.
#[derive(Clone, Debug, PartialEq)]
#[allow(
    clippy::large_enum_variant,
    reason = "a Histogram (5 KiB) inline: one per node output, and boxing it would change the public variant"
)]
pub enum Data {
    /// Per-channel statistics (`stats`).
    Stats(Stats),
    /// Histograms (`histogram`).
    Histogram(Histogram),
    /// Exact fixed-point mean: `sum / count / FIXED_ONE`.
    Mean {
        /// Sum, fixed-point.
        sum: u64,
        /// Values summed.
        count: u64,
    },
    /// Points with scores (e.g. corners from `corner_points`).
    Points(Points),
    /// Straight lines (e.g. from `hough_line_detection`).
    Lines(Lines),
    /// A colour fingerprint (`color_fingerprint`).
    Fingerprint(photo::Fingerprint),
    /// The photo assessment's raw sums (`photo_metrics`).
    PhotoMetrics(photo::PhotoMetrics),
    /// Per-channel tone curves (e.g. from `levels_lut`).
    Lut(Lut),
    /// Black and white points (e.g. from `range_from_histogram`).
    Range(Range),
    /// The dominant colour (from `dominant_color`).
    Color(DominantCell),
    /// Motion in a frame (from `motion_detector`).
    Motion(Motion),
    /// A stream of bytes (e.g. `io::jpeg_file::JpegFile`'s entropy-coded data).
    Bytes(Bytes),
}

impl Data {
    /// Which kind of data this is.
    pub fn kind(&self) -> DataKind {
        match self {
            Data::Stats(_) => DataKind::Stats,
            Data::Histogram(_) => DataKind::Histogram,
            Data::Mean { .. } => DataKind::Mean,
            Data::Points(_) => DataKind::Points,
            Data::Lines(_) => DataKind::Lines,
            Data::Fingerprint(_) => DataKind::Fingerprint,
            Data::PhotoMetrics(_) => DataKind::PhotoMetrics,
            Data::Lut(_) => DataKind::Lut,
            Data::Range(_) => DataKind::Range,
            Data::Color(_) => DataKind::Color,
            Data::Motion(_) => DataKind::Motion,
            Data::Bytes(b) => DataKind::Bytes {
                capacity: b.bytes.len().min(u32::MAX as usize) as u32,
            },
        }
    }
    /// The value of a `Mean`, in [0,1] units of its samples.
    pub fn mean_value(&self) -> Option<f64> {
        match self {
            Data::Mean { sum, count } => Some(if *count == 0 {
                0.0
            } else {
                *sum as f64 / *count as f64 / FIXED_ONE
            }),
            _ => None,
        }
    }

    /// Adds `other`, the same kind of result over a disjoint part of the same image, so that
    /// `self` becomes the result over both, exactly (`DataKind::merge_refusal` says which kinds
    /// merge). Sums that would overflow their width are an error, not wrapped.
    pub fn merge(&mut self, other: &Data) -> Result<()> {
        let overflow =
            |what: &str| Error::invalid(format!("merging partial results overflows the {what}"));
        match (self, other) {
            (Data::Stats(a), Data::Stats(b)) => {
                a.count = a
                    .count
                    .checked_add(b.count)
                    .ok_or_else(|| overflow("pixel count"))?;
                for c in 0..5 {
                    a.min[c] = a.min[c].min(b.min[c]);
                    a.max[c] = a.max[c].max(b.max[c]);
                    a.sum[c] = a.sum[c]
                        .checked_add(b.sum[c])
                        .ok_or_else(|| overflow("64-bit channel sum"))?;
                }
            }
            (Data::Histogram(a), Data::Histogram(b)) => {
                if a.space != b.space {
                    return Err(Error::invalid(format!(
                        "cannot merge a {:?} histogram into a {:?} one",
                        b.space, a.space
                    )));
                }
                for (x, &y) in a.bins.iter_mut().flatten().zip(b.bins.iter().flatten()) {
                    *x = x
                        .checked_add(y)
                        .ok_or_else(|| overflow("32-bit histogram bin"))?;
                }
            }
            (Data::Mean { sum, count }, Data::Mean { sum: s, count: n }) => {
                *sum = sum
                    .checked_add(*s)
                    .ok_or_else(|| overflow("64-bit sum of the mean"))?;
                *count = count
                    .checked_add(*n)
                    .ok_or_else(|| overflow("sample count of the mean"))?;
            }
            (a, b) if a.kind() != b.kind() => {
                return Err(Error::invalid(format!(
                    "cannot merge {} data into {} data",
                    b.kind().name(),
                    a.kind().name()
                )))
            }
            (a, _) => {
                let k = a.kind();
                return Err(Error::invalid(format!(
                    "{} data does not merge from parts of an image: {}",
                    k.name(),
                    k.merge_refusal().unwrap_or("no rule for it")
                )));
            }
        }
        Ok(())
    }

    /// Parses the GPU buffer layout (see `DataKind`). A `Bytes` buffer may be given up to the
    /// end of its stream only (`Bytes::read_len`).
    pub fn from_gpu_bytes(kind: DataKind, bytes: &[u8]) -> Result<Data> {
        if let DataKind::Bytes { capacity } = kind {
            return Bytes::from_gpu(capacity, bytes).map(Data::Bytes);
        }
        if (bytes.len() as u64) < kind.gpu_bytes() {
            return Err(Error::Gpu(format!("{} buffer too small", kind.name())));
        }
        let w: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let wide = |lo: u32, hi: u32| lo as u64 | ((hi as u64) << 32);
        Ok(match kind {
            DataKind::Stats => {
                let mut s = Stats {
                    count: wide(w[20], w[21]),
                    min: [0; 5],
                    max: [0; 5],
                    sum: [0; 5],
                };
                for c in 0..5 {
                    s.min[c] = 255u32.saturating_sub(w[4 * c]) as u8;
                    s.max[c] = w[4 * c + 1].min(255) as u8;
                    s.sum[c] = wide(w[4 * c + 2], w[4 * c + 3]);
                }
                Data::Stats(s)
            }
            DataKind::Histogram => {
                let mut bins = [[0u32; 256]; 5];
                for (c, ch) in bins.iter_mut().enumerate() {
                    ch.copy_from_slice(&w[c * 256..(c + 1) * 256]);
                }
                let space = HistogramSpace::from_u32(w[1280]).ok_or_else(|| {
                    Error::Gpu(format!("histogram buffer names colour space {}", w[1280]))
                })?;
                Data::Histogram(Histogram { bins, space })
            }
            DataKind::Mean => Data::Mean {
                sum: wide(w[0], w[1]),
                count: wide(w[2], w[3]),
            },
            DataKind::Points => {
                let found = w[0] as u64;
                let limit = w[1].min(POINTS_CAPACITY);
                let n = found.min(limit as u64) as usize;
                let h = POINTS_HEADER_WORDS as usize;
                let mut points: Vec<Point> = (0..n)
                    .map(|i| Point {
                        x: w[h + 2 * i] & 0xFFFF,
                        y: w[h + 2 * i] >> 16,
                        score: f32::from_bits(w[h + 2 * i + 1]),
                    })
                    .collect();
                // appended by atomics in any order: sorted for a deterministic result
                points.sort_by_key(|p| (p.y, p.x));
                Data::Points(Points {
                    points,
                    found,
                    overflow: found > limit as u64,
                })
            }
            DataKind::Lines => {
                let found = w[0] as u64;
                let limit = w[1].min(LINES_CAPACITY);
                let n = found.min(limit as u64) as usize;
                let (h, lw) = (LINES_HEADER_WORDS as usize, LINE_WORDS as usize);
                let mut lines: Vec<Line> = (0..n)
                    .map(|i| Line {
                        rho: f32::from_bits(w[h + lw * i]),
                        theta: f32::from_bits(w[h + lw * i + 1]),
                        votes: w[h + lw * i + 2],
                    })
                    .collect();
                // written in rank order already; sorted again so a read-back never depends on it
                Lines::sort(&mut lines);
                Data::Lines(Lines {
                    lines,
                    found,
                    overflow: found > limit as u64,
                    max_votes: w[2],
                })
            }
            DataKind::Fingerprint => Data::Fingerprint(photo::Fingerprint::from_words(&w)?),
            DataKind::PhotoMetrics => Data::PhotoMetrics(photo::PhotoMetrics::from_words(&w)?),
            DataKind::Lut => {
                let mut table = [[0u8; 256]; 4];
                for (v, word) in w[..256].iter().enumerate() {
                    for (c, t) in table.iter_mut().enumerate() {
                        t[v] = (word >> (8 * c)) as u8;
                    }
                }
                Data::Lut(Lut { table })
            }
            DataKind::Color => Data::Color(DominantCell {
                count: wide(w[0], w[1]),
                sum: [wide(w[2], w[3]), wide(w[4], w[5]), wide(w[6], w[7])],
                cell: w[8],
                bits: w[9],
                pixels: wide(w[10], w[11]),
            }),
            DataKind::Bytes { .. } => return Err(Error::internal("bytes parsed above")),
            DataKind::Motion => Data::Motion(Motion {
                moving: wide(w[0], w[1]),
                sum_x: wide(w[2], w[3]),
                sum_y: wide(w[4], w[5]),
                width: w[6],
                height: w[7],
            }),
            DataKind::Range => Data::Range(Range {
                low: std::array::from_fn(|c| w[c].min(255) as u8),
                high: std::array::from_fn(|c| w[4 + c].min(255) as u8),
                channels: w[8] & 0xF,
            }),
        })
    }
}

/// What a graph edge carries, known before execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueDesc {
    /// An image of this size and format.
    Image(ImageDesc),
    /// Data of this kind.
    Data(DataKind),
}

impl ValueDesc {
    /// Bytes of the value's GPU buffer.
    pub fn gpu_bytes(&self) -> u64 {
        match self {
            ValueDesc::Image(d) => d.format.gpu_bytes(d.width, d.height),
            ValueDesc::Data(k) => k.gpu_bytes(),
        }
    }
    /// The image's description; `None` for data.
    pub fn image(&self) -> Option<ImageDesc> {
        match self {
            ValueDesc::Image(d) => Some(*d),
            ValueDesc::Data(_) => None,
        }
    }
}

impl std::fmt::Display for ValueDesc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValueDesc::Image(d) => write!(f, "image {d}"),
            ValueDesc::Data(k) => write!(f, "{} data", k.name()),
        }
    }
}

/// A concrete value: an image or data.
#[derive(Clone, Debug, PartialEq)]
#[allow(
    clippy::large_enum_variant,
    reason = "Data inline, as in Data itself: one per node output, and boxing it would change the public variant"
)]
pub enum Value {
    /// An image.
    Image(Image),
    /// Data.
    Data(Data),
}

impl Value {
    /// What the value is, without its contents.
    pub fn desc(&self) -> ValueDesc {
        match self {
            Value::Image(i) => ValueDesc::Image(i.desc()),
            Value::Data(d) => ValueDesc::Data(d.kind()),
        }
    }
    /// The image; `None` for data.
    pub fn as_image(&self) -> Option<&Image> {
        match self {
            Value::Image(i) => Some(i),
            Value::Data(_) => None,
        }
    }
    /// The data; `None` for an image.
    pub fn as_data(&self) -> Option<&Data> {
        match self {
            Value::Data(d) => Some(d),
            Value::Image(_) => None,
        }
    }
    /// The image, by value; `None` for data.
    pub fn into_image(self) -> Option<Image> {
        match self {
            Value::Image(i) => Some(i),
            Value::Data(_) => None,
        }
    }
}

impl From<Image> for Value {
    fn from(i: Image) -> Self {
        Value::Image(i)
    }
}
