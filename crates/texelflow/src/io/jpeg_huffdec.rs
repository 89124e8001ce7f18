//! JPEG entropy (Huffman) decoding on the GPU (issue 30): the host parses the markers, builds
//! the Huffman lookup tables and lays out the scan's entropy-coded bytes (stuffing removed,
//! each restart interval starting at a subsequence boundary); the device decodes them into the
//! quantised coefficients the IDCT reads (`jpeg_huffdec*.wgsl`), so only the file's bytes
//! travel instead of its coefficients.
//!
//! The device decode is the self-synchronising method of Weißenberger and Schmidt (ICPP 2018,
//! and its JPEG form, 2021): the bits are cut into subsequences of `sub_words` words; each is
//! first decoded from a guessed state (its first bit, the DC of the MCU's first block), then in
//! rounds each subsequence is decoded again from the state its predecessor ended in, and
//! carried on into the following ones until the state it reaches equals the one stored there
//! (synchronised). A round that changes nothing proves every state exact; where the recorded
//! rounds are not enough, one invocation walks the rest in order (exact, slow: only
//! pathological streams). Then the number of blocks started in each subsequence is
//! prefix-summed, each subsequence is decoded once more from its exact state writing its
//! coefficients (zigzag to natural order) and DC differences, and the DC differences are
//! prefix-summed per component (reset at each restart), dummy blocks past the edges chaining
//! the prediction without being stored, as libjpeg does.
//!
//! Damage: libjpeg-turbo warns about damaged entropy-coded data (and the host path then
//! decodes the file with its policy for damaged files); the device flags the same damage in a
//! status word (`jpeg_coef::DAMAGE_*`) so the caller can decode such a file on the host. The
//! writing decode, from exact states, flags a code longer than 16 bits in a unit of its
//! interval (JWRN_HUFF_BAD_CODE), an interval whose units need bits past its real end (the
//! host gives each interval's end bit; JWRN_HIT_MARKER) or are not complete within its
//! subsequences, and a whole byte or more left after its units (JWRN_EXTRANEOUS_DATA; where
//! libjpeg-turbo's bit buffer has read the marker already it does not warn: flagged anyway,
//! the host then decodes the file as libjpeg-turbo does). The parse refuses a file without
//! EOI after the scan (truncated), restart markers missing or out of order, and an empty
//! interval. Each flag is one atomic write, only where found.
//!
//! Taken: baseline or extended sequential Huffman (SOF0, SOF1), 8-bit, one component or three
//! in one interleaved scan, the sampling factors `JpegDecode` takes, with or without restart
//! intervals. Anything else is "not taken" ([`HuffScan::parse`] gives `None`) and goes to the
//! host's entropy decode.

use crate::io::jpeg_coef::{Coefficients, Plane};

/// The natural (row-major) index of each zigzag position (libjpeg's `jpeg_natural_order`).
const ZIGZAG: [usize; 64] = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20,
    13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59,
    52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

/// Bits looked up at once in a table's fast part.
const LOOKAHEAD: u32 = 9;
/// Words per Huffman table on the device: the lookahead entries (`length << 8 | symbol`, 0 for
/// longer codes), `maxcode` for lengths 0..=17, `valoffset` for lengths 0..=17, the symbols.
pub(crate) const TABLE_WORDS: usize = (1 << LOOKAHEAD) + 18 + 18 + 256;
/// Most blocks in an MCU (libjpeg's `D_MAX_BLOCKS_IN_MCU`).
const MAX_BLOCKS_IN_MCU: u32 = 10;

/// How the device decode is cut up: words per subsequence, synchronisation rounds recorded,
/// and how many subsequences one invocation carries on into per round. The defaults suit
/// photos; tests use tiny subsequences and few rounds to exercise synchronisation.
///
/// `reach` must pass the device's SIMD width to help: invocations that run in lockstep store
/// the states they reach together and the last lane's store wins, so within one SIMD group a
/// state moves on by one subsequence a round whatever the reach (measured on llvmpipe's 8
/// lanes: reach 1-4 left q100 noise unsynchronised after 64 rounds of 1-word subsequences,
/// reach 8 synchronised it in 2). Rounds that find nothing to do cost a dispatch each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// Words (32 bits) per subsequence, 1..=32.
    pub sub_words: u32,
    /// Synchronisation rounds recorded after the first decode (at least 1).
    pub rounds: u32,
    /// Subsequences one invocation decodes per round before it stops (at least 1).
    pub reach: u32,
}

impl Default for Tuning {
    fn default() -> Self {
        Self {
            sub_words: 16,
            rounds: 16,
            reach: 64,
        }
    }
}

/// One component of the scan.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ScanComponent {
    pub sampling: (u32, u32),
    pub blocks: (u32, u32),
    pub quant: [u16; 64],
    pub dc_table: u32,
    pub ac_table: u32,
    /// The component's first block among all planes' blocks.
    pub first: u32,
}

/// A parsed file ready for the device decode.
#[derive(Clone, Debug)]
pub struct HuffScan {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) max_sampling: (u32, u32),
    pub(crate) components: Vec<ScanComponent>,
    /// MCUs per row and MCU rows (one component: its blocks).
    pub(crate) mcus: (u32, u32),
    pub(crate) blocks_per_mcu: u32,
    /// MCUs per restart interval (the whole scan where there are none).
    pub(crate) restart_mcus: u32,
    /// The entropy-coded data without stuffing, big-endian in words, each interval from a
    /// subsequence boundary, two zero words after the end.
    pub(crate) words: Vec<u32>,
    /// Per subsequence its interval, then per interval its first subsequence, then per
    /// interval the bit where its data ends (before the padding).
    pub(crate) meta: Vec<u32>,
    pub(crate) subs: u32,
    pub(crate) intervals: u32,
    /// The Huffman tables, DC 0..4 then AC 0..4, `TABLE_WORDS` each.
    pub(crate) tables: Vec<u32>,
    pub(crate) tuning: Tuning,
}

/// A frame component: its id, sampling factors, quantisation table.
type FrameComponent = (u8, u32, u32, usize);
/// The frame: width, height, components.
type Frame = (u32, u32, Vec<FrameComponent>);

/// A Huffman table as the file defines it.
#[derive(Clone)]
struct Dht {
    bits: [u8; 17],
    values: Vec<u8>,
}

fn be16(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from(*b.get(at)?) << 8 | u32::from(*b.get(at + 1)?))
}

/// The device form of one table (`jpeg_make_d_derived_tbl`), or `None` where libjpeg would
/// refuse it (more codes than fit their lengths, a DC symbol past 15).
fn derive(t: &Dht, dc: bool) -> Option<Vec<u32>> {
    let mut out = vec![0u32; TABLE_WORDS];
    let look = 0usize;
    let maxcode = 1 << LOOKAHEAD;
    let valoff = maxcode + 18;
    let vals = valoff + 18;
    let mut code: u32 = 0;
    let mut p = 0usize;
    for l in 1..=16usize {
        let n = t.bits[l] as usize;
        if n > 0 {
            out[valoff + l] = (p as i32 - code as i32) as u32;
            code += n as u32;
            if code > 1 << l {
                return None;
            }
            out[maxcode + l] = code as i32 as u32 - 1;
            // lookahead entries of the codes of this length
            if l as u32 <= LOOKAHEAD {
                for k in 0..n {
                    let c = code - n as u32 + k as u32;
                    let sym = u32::from(*t.values.get(p + k)?);
                    let shift = LOOKAHEAD - l as u32;
                    for fill in 0..(1u32 << shift) {
                        out[look + ((c << shift) | fill) as usize] = (l as u32) << 8 | sym;
                    }
                }
            }
            p += n;
        } else {
            out[maxcode + l] = (-1i32) as u32;
        }
        code <<= 1;
    }
    out[maxcode + 17] = 0xfffff;
    if p > 256 || p > t.values.len() {
        return None;
    }
    for (k, &v) in t.values.iter().take(p).enumerate() {
        if dc && v > 15 {
            return None;
        }
        out[vals + k] = u32::from(v);
    }
    Some(out)
}

impl HuffScan {
    /// Parses `bytes` for the device decode with the default [`Tuning`], or `None` where it is
    /// not taken (see the module's doc) or the coefficients would pass `cap_bytes`.
    pub fn parse(bytes: &[u8], cap_bytes: u64) -> Option<Self> {
        Self::parse_tuned(bytes, cap_bytes, Tuning::default())
    }

    /// [`HuffScan::parse`] with `tuning` (clamped to its ranges).
    pub fn parse_tuned(bytes: &[u8], cap_bytes: u64, tuning: Tuning) -> Option<Self> {
        let tuning = Tuning {
            sub_words: tuning.sub_words.clamp(1, 32),
            rounds: tuning.rounds.clamp(1, 64),
            reach: tuning.reach.max(1),
        };
        if be16(bytes, 0)? != 0xffd8 {
            return None;
        }
        let mut at = 2usize;
        let mut quant: [Option<[u16; 64]>; 4] = [None; 4];
        let mut dc: [Option<Dht>; 4] = [None, None, None, None];
        let mut ac: [Option<Dht>; 4] = [None, None, None, None];
        let mut restart = 0u32;
        let mut frame: Option<Frame> = None;
        let mut jfif = false;
        let mut adobe = false;
        loop {
            // markers may be preceded by fill bytes
            if *bytes.get(at)? != 0xff {
                return None;
            }
            while *bytes.get(at + 1)? == 0xff {
                at += 1;
            }
            let marker = *bytes.get(at + 1)?;
            at += 2;
            if marker == 0x01 || (0xd0..=0xd7).contains(&marker) {
                continue;
            }
            if marker == 0xd8 || marker == 0xd9 {
                return None;
            }
            let len = be16(bytes, at)? as usize;
            if len < 2 {
                return None;
            }
            let body = bytes.get(at + 2..at + len)?;
            at += len;
            match marker {
                0xc0 | 0xc1 => {
                    if frame.is_some() || body.len() < 6 || body[0] != 8 {
                        return None;
                    }
                    let height = be16(body, 1)?;
                    let width = be16(body, 3)?;
                    let n = body[5] as usize;
                    if width == 0 || height == 0 || !(n == 1 || n == 3) || body.len() != 6 + 3 * n {
                        return None;
                    }
                    let comps = (0..n)
                        .map(|i| {
                            let c = &body[6 + 3 * i..][..3];
                            (
                                c[0],
                                u32::from(c[1] >> 4),
                                u32::from(c[1] & 15),
                                c[2] as usize,
                            )
                        })
                        .collect::<Vec<_>>();
                    if comps.iter().any(|&(_, h, v, q)| {
                        !(1..=4).contains(&h) || !(1..=4).contains(&v) || q > 3
                    }) {
                        return None;
                    }
                    frame = Some((width, height, comps));
                }
                0xc2..=0xcf if marker != 0xc4 && marker != 0xc8 && marker != 0xcc => return None,
                0xcc => return None,
                0xc4 => {
                    let mut p = 0usize;
                    while p < body.len() {
                        let tc = body[p] >> 4;
                        let th = (body[p] & 15) as usize;
                        if tc > 1 || th > 3 {
                            return None;
                        }
                        let mut bits = [0u8; 17];
                        bits[1..].copy_from_slice(body.get(p + 1..p + 17)?);
                        let count: usize = bits.iter().map(|&b| b as usize).sum();
                        if count > 256 {
                            return None;
                        }
                        let values = body.get(p + 17..p + 17 + count)?.to_vec();
                        p += 17 + count;
                        let t = Some(Dht { bits, values });
                        if tc == 0 {
                            dc[th] = t;
                        } else {
                            ac[th] = t;
                        }
                    }
                }
                0xdb => {
                    let mut p = 0usize;
                    while p < body.len() {
                        let pq = body[p] >> 4;
                        let tq = (body[p] & 15) as usize;
                        if pq > 1 || tq > 3 {
                            return None;
                        }
                        let mut q = [0u16; 64];
                        for (i, &k) in ZIGZAG.iter().enumerate() {
                            q[k] = if pq == 0 {
                                u16::from(*body.get(p + 1 + i)?)
                            } else {
                                be16(body, p + 1 + 2 * i)? as u16
                            };
                        }
                        p += 1 + 64 * (1 + pq as usize);
                        quant[tq] = Some(q);
                    }
                }
                0xdd => {
                    restart = be16(body, 0)?;
                }
                0xe0 if body.len() >= 14 && body.starts_with(b"JFIF\0") => jfif = true,
                0xee if body.len() >= 12 && body.starts_with(b"Adobe") => adobe = true,
                0xda => {
                    let (width, height, comps) = frame?;
                    let scan = Scan {
                        width,
                        height,
                        comps: &comps,
                        body,
                        quant: &quant,
                        dc: &dc,
                        ac: &ac,
                        restart,
                        colour_ok: comps.len() == 1
                            || (!adobe && (jfif || comps.iter().map(|c| c.0).eq([1u8, 2, 3]))),
                    };
                    return scan.build(bytes.get(at..)?, cap_bytes, tuning);
                }
                // APPn, COM, DNL and anything else before the scan: skipped
                _ => {}
            }
        }
    }

    /// The coefficients' geometry (planes, quantisation, sizes) with no data: what
    /// `JpegDecode` reads from a [`Coefficients`].
    pub fn geometry(&self) -> Coefficients {
        Coefficients {
            width: self.width,
            height: self.height,
            progressive: false,
            color_space: if self.components.len() == 1 { 1 } else { 3 },
            max_sampling: self.max_sampling,
            planes: self
                .components
                .iter()
                .map(|c| Plane {
                    sampling: c.sampling,
                    blocks: c.blocks,
                    quant: c.quant,
                    offset: c.first as usize * 64,
                })
                .collect(),
            data: Vec::new(),
        }
    }

    /// Blocks stored (every plane's).
    pub fn blocks(&self) -> u64 {
        self.components
            .iter()
            .map(|c| c.blocks.0 as u64 * c.blocks.1 as u64)
            .sum()
    }

    /// Scan units: every MCU's blocks, dummies included.
    pub(crate) fn units(&self) -> u64 {
        self.mcus.0 as u64 * self.mcus.1 as u64 * self.blocks_per_mcu as u64
    }
}

struct Scan<'a> {
    width: u32,
    height: u32,
    comps: &'a [FrameComponent],
    body: &'a [u8],
    quant: &'a [Option<[u16; 64]>; 4],
    dc: &'a [Option<Dht>; 4],
    ac: &'a [Option<Dht>; 4],
    restart: u32,
    colour_ok: bool,
}

impl Scan<'_> {
    fn build(&self, rest: &[u8], cap_bytes: u64, tuning: Tuning) -> Option<HuffScan> {
        let n = self.comps.len();
        let b = self.body;
        if !self.colour_ok || b.first().map(|&x| x as usize) != Some(n) || b.len() != 4 + 2 * n {
            return None;
        }
        // sequential: Ss = 0, Se = 63, Ah = Al = 0
        if b[1 + 2 * n..] != [0, 63, 0] {
            return None;
        }
        let mh = self.comps.iter().map(|c| c.1).max()?;
        let mv = self.comps.iter().map(|c| c.2).max()?;
        let mut components = Vec::with_capacity(n);
        let mut first = 0u64;
        let mut tables = vec![0u32; 8 * TABLE_WORDS];
        for (i, &(id, h, v, q)) in self.comps.iter().enumerate() {
            // scan components in frame order
            if b[1 + 2 * i] != id {
                return None;
            }
            // the ratios JpegDecode upsamples
            if mh % h != 0 || mv % v != 0 || mh / h > 2 || mv / v > 2 {
                return None;
            }
            let (td, ta) = ((b[2 + 2 * i] >> 4) as usize, (b[2 + 2 * i] & 15) as usize);
            if td > 3 || ta > 3 {
                return None;
            }
            let dct = derive(self.dc[td].as_ref()?, true)?;
            let act = derive(self.ac[ta].as_ref()?, false)?;
            tables[td * TABLE_WORDS..][..TABLE_WORDS].copy_from_slice(&dct);
            tables[(4 + ta) * TABLE_WORDS..][..TABLE_WORDS].copy_from_slice(&act);
            let blocks = (
                (self.width * h).div_ceil(mh * 8),
                (self.height * v).div_ceil(mv * 8),
            );
            components.push(ScanComponent {
                sampling: (h, v),
                blocks,
                quant: self.quant[q]?,
                dc_table: td as u32,
                ac_table: ta as u32,
                first: u32::try_from(first).ok()?,
            });
            first += blocks.0 as u64 * blocks.1 as u64;
        }
        if first.checked_mul(128)? > cap_bytes {
            return None;
        }
        let (mcus, blocks_per_mcu) = if n == 1 {
            (components[0].blocks, 1)
        } else {
            (
                (self.width.div_ceil(8 * mh), self.height.div_ceil(8 * mv)),
                components.iter().map(|c| c.sampling.0 * c.sampling.1).sum(),
            )
        };
        if blocks_per_mcu > MAX_BLOCKS_IN_MCU {
            return None;
        }
        let total_mcus = mcus.0 as u64 * mcus.1 as u64;
        let units = total_mcus * blocks_per_mcu as u64;
        if units >= 1 << 31 {
            return None;
        }
        let restart_mcus = if self.restart == 0 {
            total_mcus as u32
        } else {
            self.restart
        };
        let intervals = total_mcus.div_ceil(restart_mcus as u64);
        let sub_bytes = tuning.sub_words as usize * 4;
        // the layout: each interval's bytes from a subsequence boundary; every interval holds
        // at least one byte in the file, so this is bounded by the file and the header
        let (data, starts, ends) = unstuff(rest, intervals, sub_bytes)?;
        // bit positions are u32 on the device, with room past the end
        if data.len() >= 1 << 28 {
            return None;
        }
        let subs = data.len() / sub_bytes;
        let mut words: Vec<u32> = data
            .chunks_exact(4)
            .map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        words.extend_from_slice(&[0, 0]);
        let mut meta = Vec::with_capacity(subs + starts.len());
        for (k, &s) in starts.iter().enumerate() {
            let end = starts.get(k + 1).copied().unwrap_or(subs);
            meta.extend(std::iter::repeat_n(k as u32, end.saturating_sub(s)));
        }
        meta.extend(starts.iter().map(|&s| s as u32));
        meta.extend(ends.iter().map(|&e| (e * 8) as u32));
        Some(HuffScan {
            width: self.width,
            height: self.height,
            max_sampling: (mh, mv),
            components,
            mcus,
            blocks_per_mcu,
            restart_mcus,
            words,
            meta,
            subs: subs as u32,
            intervals: starts.len() as u32,
            tables,
            tuning,
        })
    }
}

/// The laid-out data, each interval's first subsequence, each interval's end (bytes).
type Unstuffed = (Vec<u8>, Vec<usize>, Vec<usize>);

/// The scan's entropy-coded bytes without the zero stuffed after each 0xFF, each of the
/// `intervals` restart intervals from a multiple of `sub_bytes` (zero-padded), each interval's
/// first subsequence, and where its bytes end (before the padding); `None` unless exactly
/// `intervals` intervals are found, none empty (an MCU takes at least one bit: a damaged file,
/// left to the host), the restart markers in sequence, and the scan is followed by EOI (a
/// truncated file).
fn unstuff(rest: &[u8], intervals: u64, sub_bytes: usize) -> Option<Unstuffed> {
    let mut out = Vec::with_capacity(rest.len() + sub_bytes);
    let mut starts = vec![0usize];
    let mut ends = Vec::new();
    // the end of the interval just read, padded: `None` where it is empty
    let mut close = |out: &mut Vec<u8>, starts: &[usize]| {
        let start = starts.last().copied().unwrap_or(0) * sub_bytes;
        if out.len() <= start {
            return None;
        }
        ends.push(out.len());
        out.resize(out.len().div_ceil(sub_bytes) * sub_bytes, 0);
        Some(())
    };
    let mut at = 0usize;
    loop {
        let ff = rest[at..].iter().position(|&x| x == 0xff)?;
        out.extend_from_slice(&rest[at..at + ff]);
        at += ff;
        // fill bytes before a marker
        let mut next = at + 1;
        while *rest.get(next)? == 0xff {
            next += 1;
        }
        let m = rest[next];
        if m == 0 && next == at + 1 {
            out.push(0xff);
            at = next + 1;
            continue;
        }
        if (0xd0..=0xd7).contains(&m) {
            let expected = 0xd0 + ((starts.len() - 1) % 8) as u8;
            if m != expected || starts.len() as u64 >= intervals {
                return None;
            }
            close(&mut out, &starts)?;
            starts.push(out.len() / sub_bytes);
            at = next + 1;
            continue;
        }
        if m != 0xd9 || starts.len() as u64 != intervals {
            return None;
        }
        close(&mut out, &starts)?;
        return Some((out, starts, ends));
    }
}

/// MCUs per chunk of the DC prediction.
const DC_CHUNK: u32 = 32;

const U_WGSL: &str = include_str!("jpeg_huffdec_u.wgsl");
const SHARED_WGSL: &str = include_str!("jpeg_huffdec.wgsl");

impl HuffScan {
    /// The uniform every kernel reads (`HdU` of `jpeg_huffdec_u.wgsl`), for `round`.
    fn uniform(&self, round: u32, coef_base: u32) -> Vec<u8> {
        let mut u = [0u32; 16 + 40 + 16];
        let total_mcus = self.mcus.0 * self.mcus.1;
        let chunks = total_mcus.div_ceil(DC_CHUNK);
        u[..16].copy_from_slice(&[
            self.subs,
            self.tuning.sub_words * 32,
            self.blocks_per_mcu,
            self.components.len() as u32,
            self.units() as u32,
            total_mcus,
            self.mcus.0,
            self.restart_mcus,
            round,
            self.intervals,
            DC_CHUNK,
            chunks,
            self.tuning.reach,
            self.tuning.rounds,
            coef_base,
            self.blocks() as u32,
        ]);
        let mut b = 0usize;
        for (ci, c) in self.components.iter().enumerate() {
            let tables = c.dc_table | c.ac_table << 8;
            let (h, v) = if self.components.len() == 1 {
                (1, 1)
            } else {
                c.sampling
            };
            for j in 0..v {
                for i in 0..h {
                    if b < 10 {
                        u[16 + 4 * b..][..4].copy_from_slice(&[ci as u32, i, j, tables]);
                    }
                    b += 1;
                }
            }
            u[56 + 4 * ci..][..4].copy_from_slice(&[
                c.first,
                c.blocks.0,
                c.blocks.1,
                c.sampling.0 | c.sampling.1 << 8,
            ]);
        }
        u.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// Records the device decode: the coefficients of every plane, 64 `i16` a block in natural
    /// order, plane after plane (what `read_coefficients` gives), into `coef` from word
    /// `coef_base` (0, or 4 after a `DataKind::Bytes` header the decode writes), and the
    /// damage found into word 1 of `status` (the `jpeg_coef::DAMAGE_*` bits ORed in: a
    /// `DataKind::Bytes` header). `coef` and `status` must be zeroed (`rec.clear`) by the
    /// caller, and `coef` hold the coefficients.
    pub(crate) fn record(
        &self,
        rec: &mut crate::extend::NodeRecorder<'_>,
        coef: &wgpu::Buffer,
        coef_base: u32,
        status: &wgpu::Buffer,
    ) -> crate::Result<()> {
        use crate::extend::{groups_1d, Kernel};
        let subs = self.subs as u64;
        let rounds = self.tuning.rounds;
        let sbits =
            rec.upload_staged("jpeg entropy-coded data", bytemuck::cast_slice(&self.words))?;
        let mut tables = self.tables.clone();
        tables.extend(ZIGZAG.iter().map(|&k| k as u32));
        let tables = rec.upload("jpeg huffman tables", bytemuck::cast_slice(&tables))?;
        let ivls = rec.upload("jpeg restart intervals", bytemuck::cast_slice(&self.meta))?;
        let st = rec.temp((subs + rounds as u64 + 2) * 4);
        rec.clear(&st);
        let sync = Kernel::new(
            "jpeg.huffdec_sync",
            &[U_WGSL, SHARED_WGSL, include_str!("jpeg_huffdec_sync.wgsl")],
            "hd_sync",
        );
        let finish = Kernel::new(
            "jpeg.huffdec_finish",
            &[U_WGSL, SHARED_WGSL, include_str!("jpeg_huffdec_sync.wgsl")],
            "finish",
        );
        let bind = [&*sbits, &*tables, &*ivls, &*st];
        for round in 0..=rounds {
            rec.dispatch(
                &sync,
                &bind,
                &self.uniform(round, coef_base),
                groups_1d(subs, 64),
            )?;
        }
        let u = self.uniform(0, coef_base);
        rec.dispatch(&finish, &bind, &u, [1, 1, 1])?;
        let scan_groups = groups_1d(subs, 256);
        let n_groups = scan_groups.iter().map(|&g| g as u64).product::<u64>();
        let scan = rec.temp((subs + n_groups) * 4);
        let scan_src = include_str!("jpeg_huffdec_scan.wgsl");
        let local = Kernel::new("jpeg.huffdec_scan_local", &[U_WGSL, scan_src], "scan_local");
        let groups = Kernel::new(
            "jpeg.huffdec_scan_groups",
            &[U_WGSL, scan_src],
            "scan_groups",
        );
        rec.dispatch(&local, &[&st, &scan], &u, scan_groups)?;
        rec.dispatch(&groups, &[&st, &scan], &u, [1, 1, 1])?;
        let dcd = rec.temp(self.units().max(1) * 4);
        rec.clear(&dcd);
        let write = Kernel::new(
            "jpeg.huffdec_write",
            &[U_WGSL, SHARED_WGSL, include_str!("jpeg_huffdec_write.wgsl")],
            "decode",
        );
        rec.dispatch(
            &write,
            &[&sbits, &tables, &ivls, &st, &scan, coef, &dcd, status],
            &u,
            groups_1d(subs, 64),
        )?;
        let chunks = (self.mcus.0 as u64 * self.mcus.1 as u64).div_ceil(DC_CHUNK as u64);
        let chunk_buf = rec.temp(chunks.max(1) * 16);
        let dc_src = include_str!("jpeg_huffdec_dc.wgsl");
        let sums = Kernel::new("jpeg.huffdec_dc_sums", &[U_WGSL, dc_src], "dc_sums");
        let carry = Kernel::new("jpeg.huffdec_dc_carry", &[U_WGSL, dc_src], "dc_carry");
        let apply = Kernel::new("jpeg.huffdec_dc_apply", &[U_WGSL, dc_src], "dc_apply");
        let dc_bind = [&*dcd, &*chunk_buf, coef];
        rec.dispatch(&sums, &dc_bind, &u, groups_1d(chunks, 64))?;
        rec.dispatch(&carry, &dc_bind, &u, [1, 1, 1])?;
        rec.dispatch(&apply, &dc_bind, &u, groups_1d(chunks, 64))
    }
}

static COEF_DEF: crate::extend::FilterDef = crate::extend::FilterDef {
    name: "jpeg_coefficients",
    family: crate::extend::Family::Convert,
    summary: "a JPEG's quantised coefficients entropy-decoded on the device (not in the catalogue)",
    doc: "",
    gpuimage: "",
    params: &[],
    inputs: &[],
    outputs: &[
        crate::filters::registry::PortDef {
            name: "coefficients",
            kind: crate::filters::registry::PortKind::Data(crate::value::DataKind::Bytes {
                capacity: 0,
            }),
        },
        crate::filters::registry::PortDef {
            name: "status",
            kind: crate::filters::registry::PortKind::Data(crate::value::DataKind::Bytes {
                capacity: 0,
            }),
        },
    ],
    tolerance: crate::extend::EXACT_ENOUGH,
    build: |_| {
        Err(crate::Error::invalid(
            "jpeg_coefficients is made by io::jpeg_huffdec::JpegCoefficients::new",
        ))
    },
    uniforms: &[],
    test_inputs: None,
    schedules: &[],
};

/// A graph node with no inputs giving a file's quantised coefficients as a
/// `DataKind::Bytes` stream (little-endian `i16`s, the layout of [`Coefficients::data`]), and
/// the damage the device decode found (a second, empty `DataKind::Bytes` whose word 1 holds
/// the `jpeg_coef::DAMAGE_*` bits, as `JpegDecode`'s): entropy-decoded on the device by
/// `record_gpu`, by libjpeg-turbo (`read_coefficients`) in `run_cpu`. For tests and tools comparing the two; `JpegDecode::from_file` decodes the same
/// way straight into its IDCT.
#[derive(Clone, Debug)]
pub struct JpegCoefficients {
    scan: std::sync::Arc<HuffScan>,
    bytes: std::sync::Arc<Vec<u8>>,
}

impl JpegCoefficients {
    /// The node for `bytes` (a whole file) cut up as `tuning` says, or `None` where the device
    /// decode does not take the file or its coefficients pass `cap_bytes` (or 2^32 bytes).
    pub fn new(bytes: Vec<u8>, cap_bytes: u64, tuning: Tuning) -> Option<Self> {
        let scan = HuffScan::parse_tuned(&bytes, cap_bytes.min(u32::MAX as u64), tuning)?;
        Some(Self {
            scan: std::sync::Arc::new(scan),
            bytes: std::sync::Arc::new(bytes),
        })
    }

    fn capacity(&self) -> u32 {
        (self.scan.blocks() * 128) as u32
    }
}

impl crate::extend::Filter for JpegCoefficients {
    fn def(&self) -> &'static crate::extend::FilterDef {
        &COEF_DEF
    }
    fn output_descs(&self, _: &[crate::ValueDesc]) -> crate::Result<Vec<crate::ValueDesc>> {
        Ok(vec![
            crate::ValueDesc::Data(crate::value::DataKind::Bytes {
                capacity: self.capacity(),
            }),
            crate::io::jpeg_coef::STATUS_DESC,
        ])
    }
    fn run_cpu(
        &self,
        _: &[&crate::Value],
        _: &[crate::ValueDesc],
    ) -> crate::Result<Vec<crate::Value>> {
        let c = crate::io::jpeg_coef::read_coefficients(&self.bytes, self.capacity() as u64)
            .map_err(|e| crate::Error::invalid(format!("the host decode: {e:?}")))?;
        Ok(vec![
            crate::Value::Data(crate::value::Data::Bytes(crate::value::Bytes {
                words: [0; 3],
                bytes: bytemuck::cast_slice(&c.data).to_vec(),
            })),
            crate::io::jpeg_coef::undamaged(),
        ])
    }
    fn record_gpu(
        &self,
        rec: &mut crate::extend::NodeRecorder<'_>,
        _: &[crate::extend::GpuSlot],
        outputs: &[crate::extend::GpuSlot],
    ) -> crate::Result<()> {
        rec.clear(&outputs[0].buffer);
        rec.clear(&outputs[1].buffer);
        self.scan
            .record(rec, &outputs[0].buffer, 4, &outputs[1].buffer)
    }
    fn footprint(&self, _: &[crate::ValueDesc]) -> crate::extend::Footprint {
        crate::extend::Footprint::WholeImage
    }
    fn box_clone(&self) -> Box<dyn crate::extend::Filter> {
        Box::new(self.clone())
    }
}
