//! The JPEG encode with the GPU's help, whole (issue 30): a graph node ([`JpegFile`]) takes
//! the image to the entropy-coded data on the device, so only those bytes come back (a 4K
//! image's 1-3 MB instead of its 33 MB of pixels), and the host adds the markers
//! ([`file_bytes`]). On the device: whether the image is grey and opaque
//! (`jpeg_classify.wgsl`, what `codec::is_grey_opaque` decides on the host: one component or
//! three), the quantised blocks of that layout (`jpeg_encode.wgsl`'s `fdct`), then baseline
//! Huffman coding with the standard tables (`jpeg_huffman*.wgsl`: each block's bits, a scan,
//! each block's codes at its bit offset). The host pads the last byte with ones, stuffs a zero
//! after each 0xFF and writes the markers libjpeg-turbo writes (JFIF, DQT, SOF0, DHT, SOS,
//! EOI): the file equals TurboJPEG's for the same pixels, quality and subsampling, byte for
//! byte (the tests compare). The CPU twin ([`JpegFile`]'s `run_cpu`: [`forward_blocks`] and
//! [`huffman_twin`]) gives the same bytes.
//!
//! Not here (the host encoder keeps them): optimised tables and progressive files, images
//! with transparency (the stream says so and the caller encodes on the host, over its
//! background), formats other than RGBA8 and Gray8.

use crate::error::{Error, Result};
use crate::image::{Image, PixelFormat};
use crate::io::codec::Subsampling;
use crate::io::jpeg_coef::Coefficients;
use crate::io::jpeg_encode::{forward_blocks, geometry, quant_tables, EncodeOptions, Layout};
use crate::value::{Bytes, Data, DataKind};

/// A Huffman table as the file states it: codes per length 1..=16, then the symbols.
struct StdTable {
    bits: [u8; 16],
    values: &'static [u8],
}

const DC_VALUES: [u8; 12] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];

/// The standard tables (JPEG Annex K.3, as libjpeg's jstdhuff.c states them): luma DC, luma
/// AC, chroma DC, chroma AC.
const STD_TABLES: [StdTable; 4] = [
    StdTable {
        bits: [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
        values: &DC_VALUES,
    },
    StdTable {
        bits: [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d],
        values: &AC_LUMA,
    },
    StdTable {
        bits: [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0],
        values: &DC_VALUES,
    },
    StdTable {
        bits: [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77],
        values: &AC_CHROMA,
    },
];

const AC_LUMA: [u8; 162] = [
    0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07,
    0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0,
    0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28,
    0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49,
    0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69,
    0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89,
    0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
    0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5,
    0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2,
    0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
    0xf9, 0xfa,
];

const AC_CHROMA: [u8; 162] = [
    0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71,
    0x13, 0x22, 0x32, 0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0,
    0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26,
    0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48,
    0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68,
    0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
    0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5,
    0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3,
    0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda,
    0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
    0xf9, 0xfa,
];

/// Words per table of [`code_tables`]: 12 DC entries, then 256 AC entries.
const TABLE_WORDS: usize = 268;

/// The most bits one block codes to: the DC symbol (at most 16 bits) and 11 value bits, then
/// 63 AC symbols of at most 16 bits with at most 10 value bits each (8-bit samples).
const MAX_BLOCK_BITS: u64 = 16 + 11 + 63 * (16 + 10);

/// Each table's symbols as `code | length << 16`, the canonical codes of the stated lengths
/// (jchuff.c's `jpeg_make_c_derived_tbl`): per table t (0 luma, 1 chroma), at
/// `t * TABLE_WORDS`, the 12 DC symbols, then the 256 AC symbols (0: not in the table).
pub fn code_tables() -> Vec<u32> {
    let mut out = vec![0u32; 2 * TABLE_WORDS];
    for (i, t) in STD_TABLES.iter().enumerate() {
        let (table, ac) = (i / 2, i % 2 == 1);
        let base = table * TABLE_WORDS + if ac { 12 } else { 0 };
        let (mut code, mut k) = (0u32, 0usize);
        for (len, &n) in (1u32..=16).zip(t.bits.iter()) {
            for _ in 0..n {
                out[base + t.values[k] as usize] = code | len << 16;
                code += 1;
                k += 1;
            }
            code <<= 1;
        }
    }
    out
}

/// How a layout's blocks are scanned: units (blocks in the order the scan codes them,
/// dummies included), MCUs per row, blocks per MCU, and per plane its first block, blocks per
/// row, block rows, sampling and table.
#[derive(Clone, Debug, PartialEq)]
struct ScanPlan {
    units: u64,
    mcus_per_row: u32,
    blocks_per_mcu: u32,
    planes: Vec<PlanePlan>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct PlanePlan {
    first: u32,
    blocks: (u32, u32),
    sampling: (u32, u32),
    table: u32,
}

fn scan_plan(width: u32, height: u32, layout: Layout) -> ScanPlan {
    let geo = geometry(width, height, layout);
    let (mh, mv) = (
        geo.iter().map(|g| g.sampling.0).max().unwrap_or(1),
        geo.iter().map(|g| g.sampling.1).max().unwrap_or(1),
    );
    let mut first = 0u32;
    let planes: Vec<PlanePlan> = geo
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let p = PlanePlan {
                first,
                blocks: g.blocks,
                sampling: g.sampling,
                table: (i > 0) as u32,
            };
            first = first.saturating_add(g.blocks.0.saturating_mul(g.blocks.1));
            p
        })
        .collect();
    if planes.len() == 1 {
        let b = planes[0].blocks;
        return ScanPlan {
            units: b.0 as u64 * b.1 as u64,
            mcus_per_row: b.0,
            blocks_per_mcu: 1,
            planes,
        };
    }
    let mcus = (width.div_ceil(8 * mh), height.div_ceil(8 * mv));
    let per_mcu: u32 = planes.iter().map(|p| p.sampling.0 * p.sampling.1).sum();
    ScanPlan {
        units: mcus.0 as u64 * mcus.1 as u64 * per_mcu as u64,
        mcus_per_row: mcus.0,
        blocks_per_mcu: per_mcu,
        planes,
    }
}

/// A unit of the scan: its block (`None`: a dummy) and the block its DC is coded against.
fn scan_unit(p: &ScanPlan, n: u64) -> (Option<u64>, Option<u64>, u32) {
    let at =
        |q: &PlanePlan, x: u32, y: u32| q.first as u64 + y as u64 * q.blocks.0 as u64 + x as u64;
    if p.planes.len() == 1 {
        let q = &p.planes[0];
        return (
            Some(q.first as u64 + n),
            n.checked_sub(1).map(|m| q.first as u64 + m),
            q.table,
        );
    }
    let bpm = p.blocks_per_mcu as u64;
    let (mcu, mut r) = (n / bpm, (n % bpm) as u32);
    let mcux = p.mcus_per_row as u64;
    let (mx, my) = ((mcu % mcux) as u32, (mcu / mcux) as u32);
    let mut c = 0;
    while c + 1 < p.planes.len() && r >= p.planes[c].sampling.0 * p.planes[c].sampling.1 {
        r -= p.planes[c].sampling.0 * p.planes[c].sampling.1;
        c += 1;
    }
    let q = &p.planes[c];
    let (h, v) = q.sampling;
    let (i, j) = (r % h, r / h);
    let (bx, by) = (mx * h + i, my * v + j);
    if bx >= q.blocks.0 || by >= q.blocks.1 {
        return (None, None, q.table);
    }
    // the last real block of the component before it in scan order (dummies carry its DC)
    let prev = if i > 0 {
        Some(at(q, bx - 1, by))
    } else if j > 0 {
        Some(at(q, mx * h + (h - 1).min(q.blocks.0 - 1 - mx * h), by - 1))
    } else if mcu > 0 {
        let (px, py) = (((mcu - 1) % mcux) as u32, ((mcu - 1) / mcux) as u32);
        let row = (v - 1).min(q.blocks.1 - 1 - py * v);
        let col = (h - 1).min(q.blocks.0 - 1 - px * h);
        Some(at(q, px * h + col, py * v + row))
    } else {
        None
    };
    (Some(at(q, bx, by)), prev, q.table)
}

const ZIGZAG: [usize; 64] = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20,
    13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59,
    52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
];

/// Bits written most significant first into 32-bit words.
struct BitWriter {
    words: Vec<u32>,
    bits: u64,
}

impl BitWriter {
    fn put(&mut self, code: u32, len: u32) {
        for b in (0..len).rev() {
            let word = (self.bits / 32) as usize;
            if word == self.words.len() {
                self.words.push(0);
            }
            self.words[word] |= ((code >> b) & 1) << (31 - self.bits % 32);
            self.bits += 1;
        }
    }
}

/// The CPU twin of `jpeg_huffman*.wgsl`: the blocks of `c` (baseline, standard tables,
/// libjpeg-turbo's scan order and dummy blocks) to the stream's words as the GPU writes them
/// (little-endian bytes of words filled from their most significant bit) and its bits.
pub fn huffman_twin(c: &Coefficients) -> Result<(Vec<u8>, u64)> {
    let layout = match c.planes.len() {
        1 => Layout::Grey,
        3 => Layout::Colour(match (c.planes[0].sampling, c.max_sampling) {
            ((2, 2), _) => Subsampling::S420,
            ((2, 1), _) => Subsampling::S422,
            _ => Subsampling::S444,
        }),
        n => return Err(Error::invalid(format!("{n} components (1 or 3 are coded)"))),
    };
    let plan = scan_plan(c.width, c.height, layout);
    if plan
        .planes
        .iter()
        .map(|p| p.blocks)
        .ne(c.planes.iter().map(|p| p.blocks))
    {
        return Err(Error::invalid("the blocks are not those of this layout"));
    }
    let tables = code_tables();
    let mut w = BitWriter {
        words: Vec::new(),
        bits: 0,
    };
    let coef = |block: u64, i: usize| c.data[block as usize * 64 + i] as i32;
    let symbol = |w: &mut BitWriter, e: u32| w.put(e & 0xffff, e >> 16);
    for n in 0..plan.units {
        let (block, prev, table) = scan_unit(&plan, n);
        let base = table as usize * TABLE_WORDS;
        let diff = match (block, prev) {
            (Some(b), Some(p)) => coef(b, 0) - coef(p, 0),
            (Some(b), None) => coef(b, 0),
            (None, _) => 0,
        };
        let s = 32 - diff.unsigned_abs().leading_zeros();
        if s > 11 {
            return Err(Error::invalid("a DC difference out of 8-bit JPEG's range"));
        }
        symbol(&mut w, tables[base + s as usize]);
        let value = |v: i32, s: u32| (if v < 0 { v - 1 } else { v }) as u32 & ((1u32 << s) - 1);
        w.put(value(diff, s), s);
        let Some(b) = block else {
            symbol(&mut w, tables[base + 12]);
            continue;
        };
        let mut run = 0u32;
        for &k in &ZIGZAG[1..] {
            let v = coef(b, k);
            if v == 0 {
                run += 1;
                continue;
            }
            while run > 15 {
                symbol(&mut w, tables[base + 12 + 0xf0]);
                run -= 16;
            }
            let sz = 32 - v.unsigned_abs().leading_zeros();
            if sz > 10 {
                return Err(Error::invalid(
                    "an AC coefficient out of 8-bit JPEG's range",
                ));
            }
            symbol(&mut w, tables[base + 12 + (run << 4 | sz) as usize]);
            w.put(value(v, sz), sz);
            run = 0;
        }
        if run > 0 {
            symbol(&mut w, tables[base + 12]);
        }
    }
    Ok((
        w.words.iter().flat_map(|x| x.to_le_bytes()).collect(),
        w.bits,
    ))
}

/// Whether an image would be written as one component (grey and opaque: bit 0 clear) and
/// whether it has transparency (bit 1), as `jpeg_classify.wgsl` finds.
fn classify(image: &Image) -> u32 {
    if image.format() == PixelFormat::Gray8 {
        return 0;
    }
    image.as_u8().chunks_exact(4).fold(0, |f, p| {
        f | ((p[0] != p[1] || p[1] != p[2]) as u32) | ((p[3] != 255) as u32) << 1
    })
}

static FILE_DEF: crate::extend::FilterDef = crate::extend::FilterDef {
    name: "jpeg_file",
    family: crate::extend::Family::Convert,
    summary: "an image to its JPEG's entropy-coded data on the device (not in the catalogue)",
    doc: "",
    gpuimage: "",
    params: &[],
    inputs: crate::extend::IMAGE,
    outputs: &[
        crate::filters::registry::PortDef {
            name: "jpeg",
            kind: crate::filters::registry::PortKind::Data(DataKind::Bytes { capacity: 0 }),
        },
        crate::filters::registry::PortDef {
            name: "blocks",
            kind: crate::filters::registry::PortKind::Image,
        },
    ],
    tolerance: crate::extend::EXACT_ENOUGH,
    build: |_| {
        Err(Error::invalid(
            "jpeg_file is made by io::jpeg_file::JpegFile::new",
        ))
    },
    uniforms: &[],
    test_inputs: None,
    schedules: &[],
};

/// The GPU half of a whole JPEG encode as a graph node: an RGBA8 or Gray8 image in, its
/// entropy-coded data out (`DataKind::Bytes`; words: `[0]` the stream's bits, `[1]` bit 0:
/// coded as three components, bit 1: the image has transparency, so the stream is not to be
/// used, `[2]` the image's width | height << 16), and the quantised blocks it coded (an RGBA8
/// "image" 32 pixels wide with a row per block, as `JpegEncode`'s: an output, so that the run
/// planner sees its size). Baseline, standard tables, `quality`; an RGBA8 image that is grey and opaque is
/// coded as one component, as the host encoder does, else in YCbCr at `subsampling`.
/// [`file_bytes`] makes the file.
#[derive(Clone, Debug)]
pub struct JpegFile {
    quality: u8,
    subsampling: Subsampling,
}

impl JpegFile {
    /// A node coding at `quality` (1-100), colour images at `subsampling`.
    pub fn new(quality: u8, subsampling: Subsampling) -> Result<Self> {
        if !(1..=100).contains(&quality) {
            return Err(Error::invalid(format!(
                "JPEG quality {quality} is out of range [1, 100]"
            )));
        }
        Ok(Self {
            quality,
            subsampling,
        })
    }

    fn plans(&self, width: u32, height: u32, format: PixelFormat) -> [Option<ScanPlan>; 2] {
        let colour = (format == PixelFormat::Rgba8)
            .then(|| scan_plan(width, height, Layout::Colour(self.subsampling)));
        [Some(scan_plan(width, height, Layout::Grey)), colour]
    }

    /// Blocks of the larger layout (the blocks buffer's rows).
    fn max_blocks(&self, width: u32, height: u32, format: PixelFormat) -> u64 {
        self.plans(width, height, format)
            .iter()
            .flatten()
            .map(|p| {
                p.planes
                    .iter()
                    .map(|q| q.blocks.0 as u64 * q.blocks.1 as u64)
                    .sum::<u64>()
            })
            .max()
            .unwrap_or(0)
    }

    /// The stream's capacity for an image of `width x height` in `format`: the most bits any
    /// block codes to, for every unit of the larger layout. `None` past what one stream holds
    /// (2^32 bits) or outside JPEG's 65500 a side.
    pub fn capacity(&self, width: u32, height: u32, format: PixelFormat) -> Option<u32> {
        if !(1..=65500).contains(&width) || !(1..=65500).contains(&height) {
            return None;
        }
        let units = self
            .plans(width, height, format)
            .iter()
            .flatten()
            .map(|p| p.units)
            .max()?;
        let bits = units.checked_mul(MAX_BLOCK_BITS)?;
        (bits < 1 << 32).then(|| (bits.div_ceil(32) * 4) as u32)
    }
}

impl crate::extend::Filter for JpegFile {
    fn def(&self) -> &'static crate::extend::FilterDef {
        &FILE_DEF
    }
    fn output_descs(&self, inputs: &[crate::ValueDesc]) -> Result<Vec<crate::ValueDesc>> {
        let Some(d) = inputs.first().and_then(|d| d.image()) else {
            return Err(Error::invalid("jpeg_file takes an image"));
        };
        if !matches!(d.format, PixelFormat::Rgba8 | PixelFormat::Gray8) {
            return Err(Error::invalid(format!(
                "jpeg_file takes RGBA8 or Gray8, not {}",
                d.format.name()
            )));
        }
        let capacity = self.capacity(d.width, d.height, d.format).ok_or_else(|| {
            Error::invalid(format!(
                "{}x{} is too large for one JPEG stream on the device",
                d.width, d.height
            ))
        })?;
        let blocks = self.max_blocks(d.width, d.height, d.format);
        let blocks = u32::try_from(blocks).map_err(|_| Error::invalid("too many blocks"))?;
        Ok(vec![
            crate::ValueDesc::Data(DataKind::Bytes { capacity }),
            crate::ValueDesc::Image(crate::ImageDesc::new(32, blocks, PixelFormat::Rgba8)),
        ])
    }
    fn run_cpu(
        &self,
        inputs: &[&crate::Value],
        outputs: &[crate::ValueDesc],
    ) -> Result<Vec<crate::Value>> {
        let image = inputs
            .first()
            .and_then(|v| v.as_image())
            .ok_or_else(|| Error::invalid("jpeg_file takes an image"))?;
        let flags = classify(image);
        let colour = flags & 1 != 0;
        let layout = if colour {
            Layout::Colour(self.subsampling)
        } else {
            Layout::Grey
        };
        let c = forward_blocks(image, &EncodeOptions::new(self.quality, layout))?;
        let (bytes, bits) = huffman_twin(&c)?;
        let bits = u32::try_from(bits).map_err(|_| Error::invalid("a stream past 2^32 bits"))?;
        let d = outputs
            .get(1)
            .and_then(|d| d.image())
            .ok_or_else(|| Error::internal("jpeg_file's second output is its blocks"))?;
        let mut blocks: Vec<u8> = c.data.iter().flat_map(|v| v.to_le_bytes()).collect();
        blocks.resize(d.width as usize * d.height as usize * 4, 0);
        Ok(vec![
            crate::Value::Data(Data::Bytes(Bytes {
                words: [
                    bits,
                    colour as u32 | (flags & 2),
                    image.width() | image.height() << 16,
                ],
                bytes,
            })),
            crate::Value::Image(Image::from_u8(
                d.width,
                d.height,
                PixelFormat::Rgba8,
                blocks,
            )?),
        ])
    }
    fn record_gpu(
        &self,
        rec: &mut crate::extend::NodeRecorder<'_>,
        inputs: &[crate::extend::GpuSlot],
        outputs: &[crate::extend::GpuSlot],
    ) -> Result<()> {
        let d = inputs[0]
            .desc
            .image()
            .ok_or_else(|| Error::invalid("jpeg_file takes an image"))?;
        let grey_src = d.format == PixelFormat::Gray8;
        let plans = self.plans(d.width, d.height, d.format);
        let flag = rec.temp(16);
        rec.clear(&flag);
        if !grey_src {
            let n = d.width as u64 * d.height as u64;
            let kernel = crate::extend::Kernel::new(
                "jpeg.classify",
                &[include_str!("jpeg_classify.wgsl")],
                "classify",
            );
            let u: Vec<u8> = [n as u32, 0, 0, 0]
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .collect();
            rec.dispatch(
                &kernel,
                &[&inputs[0].buffer, &flag],
                &u,
                crate::extend::groups_1d(n.div_ceil(4), 256),
            )?;
        }
        let max_units = plans.iter().flatten().map(|p| p.units).max().unwrap_or(0);
        let blocks = outputs[1].buffer.clone();
        let src = [&*inputs[0].buffer, &*flag, &*blocks];
        if grey_src {
            record_fdct(rec, src, d, self.quality, Layout::Grey, 0)?;
        } else {
            record_fdct(rec, src, d, self.quality, Layout::Grey, 1)?;
            record_fdct(
                rec,
                src,
                d,
                self.quality,
                Layout::Colour(self.subsampling),
                2,
            )?;
        }
        let tables: Vec<u8> = code_tables().iter().flat_map(|w| w.to_le_bytes()).collect();
        let tables = rec.upload("jpeg huffman tables", &tables)?;
        let groups = crate::extend::groups_1d(max_units, 256);
        let n_groups = groups[0] as u64 * groups[1] as u64 * groups[2] as u64;
        let offs = rec.temp(max_units.max(1) * 4);
        let sums = rec.temp(n_groups.max(1) * 4);
        let mut u = [0u32; 2 * 16 + 4];
        for (k, p) in plans.iter().enumerate() {
            let Some(p) = p else { continue };
            let at = k * 16;
            u[at..at + 4].copy_from_slice(&[
                p.units as u32,
                p.mcus_per_row,
                p.planes.len() as u32,
                p.blocks_per_mcu,
            ]);
            for (i, q) in p.planes.iter().enumerate() {
                u[at + 4 + 4 * i..][..4].copy_from_slice(&[
                    q.first,
                    q.blocks.0,
                    q.blocks.1,
                    q.sampling.0 | q.sampling.1 << 4 | q.table << 8,
                ]);
            }
        }
        u[32] = n_groups as u32;
        u[33] = if grey_src { 1 } else { 0 };
        u[34] = d.width | d.height << 16;
        let uniform: Vec<u8> = u.iter().flat_map(|w| w.to_le_bytes()).collect();
        let shared = include_str!("jpeg_huffman.wgsl");
        let count = crate::extend::Kernel::new(
            "jpeg.huffman_count",
            &[shared, include_str!("jpeg_huffman_count.wgsl")],
            "count",
        );
        let pack = crate::extend::Kernel::new(
            "jpeg.huffman_pack",
            &[shared, include_str!("jpeg_huffman_pack.wgsl")],
            "pack",
        );
        rec.dispatch(
            &count,
            &[&blocks, &tables, &flag, &offs, &sums],
            &uniform,
            groups,
        )?;
        rec.clear(&outputs[0].buffer);
        rec.dispatch(
            &pack,
            &[&blocks, &tables, &flag, &offs, &sums, &outputs[0].buffer],
            &uniform,
            groups,
        )
    }
    fn footprint(&self, _: &[crate::ValueDesc]) -> crate::extend::Footprint {
        crate::extend::Footprint::WholeImage
    }
    fn depends_on_position(&self) -> bool {
        true
    }
    fn box_clone(&self) -> Box<dyn crate::extend::Filter> {
        Box::new(self.clone())
    }
}

use crate::io::jpeg_encode::record_fdct;

/// Appends a marker segment: the marker, the length (two bytes, itself included), `body`.
fn segment(out: &mut Vec<u8>, marker: u8, body: &[u8]) {
    out.extend_from_slice(&[0xff, marker]);
    out.extend_from_slice(&((body.len() + 2) as u16).to_be_bytes());
    out.extend_from_slice(body);
}

/// The markers libjpeg-turbo writes before a baseline scan with the standard tables
/// (jcmarker.c): SOI, the JFIF APP0 (version 1.01, no density), each quantisation table
/// (zigzag order, 8-bit), SOF0, each Huffman table (DC then AC per component's tables), SOS.
fn headers(width: u32, height: u32, quality: u8, layout: Layout) -> Vec<u8> {
    let n = layout.sampling().len();
    let tables = quant_tables(quality);
    let mut out = vec![0xff, 0xd8];
    segment(
        &mut out,
        0xe0,
        b"JFIF\0\x01\x01\x00\x00\x01\x00\x01\x00\x00",
    );
    for (t, q) in tables.iter().enumerate().take(if n == 1 { 1 } else { 2 }) {
        let mut body = vec![t as u8];
        body.extend(ZIGZAG.iter().map(|&k| q[k].min(255) as u8));
        segment(&mut out, 0xdb, &body);
    }
    let mut sof = vec![8];
    sof.extend_from_slice(&(height as u16).to_be_bytes());
    sof.extend_from_slice(&(width as u16).to_be_bytes());
    sof.push(n as u8);
    for (i, &(h, v)) in layout.sampling().iter().enumerate() {
        sof.extend_from_slice(&[i as u8 + 1, (h << 4 | v) as u8, (i > 0) as u8]);
    }
    segment(&mut out, 0xc0, &sof);
    for (k, t) in STD_TABLES
        .iter()
        .enumerate()
        .take(if n == 1 { 2 } else { 4 })
    {
        let mut body = vec![(((k % 2) << 4) | (k / 2)) as u8];
        body.extend_from_slice(&t.bits);
        body.extend_from_slice(t.values);
        segment(&mut out, 0xc4, &body);
    }
    let mut sos = vec![n as u8];
    for i in 0..n {
        let t = (i > 0) as u8;
        sos.extend_from_slice(&[i as u8 + 1, t << 4 | t]);
    }
    sos.extend_from_slice(&[0, 63, 0]);
    segment(&mut out, 0xda, &sos);
    out
}

/// The JPEG file of a [`JpegFile`] stream coded at `quality` (colour at `subsampling`): the
/// markers, the entropy-coded data (last byte padded with ones, a zero stuffed after each
/// 0xFF), EOI. `None` where the image had transparency (the caller encodes it on the host,
/// over its background).
pub fn file_bytes(
    stream: &Bytes,
    quality: u8,
    subsampling: Subsampling,
) -> Result<Option<Vec<u8>>> {
    let [bits, flags, size] = stream.words;
    if flags & 2 != 0 {
        return Ok(None);
    }
    let (width, height) = (size & 0xffff, size >> 16);
    let layout = if flags & 1 != 0 {
        Layout::Colour(subsampling)
    } else {
        Layout::Grey
    };
    let len = (bits as usize).div_ceil(8);
    if stream.bytes.len() < len || !stream.bytes.len().is_multiple_of(4) || width == 0 {
        return Err(Error::invalid("the stream is not a JpegFile stream"));
    }
    let mut out = headers(width, height, quality, layout);
    out.reserve(len + len / 64 + 2);
    for (i, word) in stream.bytes.chunks_exact(4).enumerate() {
        let be = u32::from_le_bytes([word[0], word[1], word[2], word[3]]).to_be_bytes();
        for (k, &b) in be.iter().enumerate() {
            let at = 4 * i + k;
            if at >= len {
                break;
            }
            let b = if at + 1 == len && bits % 8 != 0 {
                b | ((1u8 << (8 - bits % 8)) - 1)
            } else {
                b
            };
            out.push(b);
            if b == 0xff {
                out.push(0);
            }
        }
    }
    out.extend_from_slice(&[0xff, 0xd9]);
    Ok(Some(out))
}

/// The node for a JPEG saved with `options` (quality, subsampling), as [`save`] writes it.
pub fn for_save(options: &crate::SaveOptions) -> Result<JpegFile> {
    JpegFile::new(options.jpeg_quality, subsampling(options))
}

fn subsampling(options: &crate::SaveOptions) -> Subsampling {
    options
        .jpeg_subsampling
        .unwrap_or(Subsampling::for_quality(options.jpeg_quality))
}

/// Writes the file of a [`JpegFile`] stream (made by [`for_save`]'s node) to `path` as
/// `Image::save_with` writes a JPEG: `options`' ICC profile and EXIF embedded, written beside
/// the destination and renamed over it (only a regular file is replaced; `options.no_clobber`).
/// `Ok(false)`, nothing written, where the image had transparency: the caller saves the image
/// itself (over `options.background`).
pub fn save(path: &std::path::Path, stream: &Bytes, options: &crate::SaveOptions) -> Result<bool> {
    let Some(jpeg) = file_bytes(stream, options.jpeg_quality, subsampling(options))? else {
        return Ok(false);
    };
    let jpeg = crate::io::codec::with_metadata(
        jpeg,
        options.icc_profile.as_deref(),
        options.exif.as_deref(),
    );
    let file = crate::io::rows::image_output(path, options)?;
    let tmp = file.write_path().unwrap_or(path).to_path_buf();
    std::fs::write(&tmp, jpeg).map_err(|e| Error::ImageIo {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    file.commit()?;
    Ok(true)
}
