//! The quantised DCT coefficients of a JPEG, entropy-decoded by libjpeg-turbo
//! (its decoder with the IDCT replaced by a copy of each block, through the C shim
//! `jpeg_coef.c`): the CPU half of the
//! GPU-assisted decode (issue 30), where dequantisation, the IDCT, upsampling and colour
//! conversion run on the GPU. Only 8-bit files with at most 4 components take this path; the
//! rest (and any file libjpeg warns about) go to the CPU decoder, which has the policy for
//! damaged files.

use std::ffi::{c_char, c_int, c_ulong, c_void};

const MAX_COMPONENTS: usize = 4;

/// Mirrors `tf_coef_info` in `jpeg_coef.c` (plain C ints, no libjpeg struct).
#[repr(C)]
struct CoefInfo {
    width: c_int,
    height: c_int,
    components: c_int,
    progressive: c_int,
    color_space: c_int,
    precision: c_int,
    max_h: c_int,
    max_v: c_int,
    h: [c_int; MAX_COMPONENTS],
    v: [c_int; MAX_COMPONENTS],
    blocks_w: [c_int; MAX_COMPONENTS],
    blocks_h: [c_int; MAX_COMPONENTS],
    quant: [[u16; 64]; MAX_COMPONENTS],
}

type AllocFn = unsafe extern "C" fn(ctx: *mut c_void, count: usize) -> *mut i16;

extern "C" {
    fn tf_read_coefficients(
        data: *const u8,
        len: c_ulong,
        info: *mut CoefInfo,
        alloc: AllocFn,
        ctx: *mut c_void,
        message: *mut c_char,
        message_len: usize,
    ) -> c_int;
}

/// One component's plane of 8x8 blocks.
#[derive(Debug, Clone, PartialEq)]
pub struct Plane {
    /// Horizontal and vertical sampling factors.
    pub sampling: (u32, u32),
    /// Blocks per row and rows of blocks (libjpeg's `width_in_blocks`, `height_in_blocks`).
    pub blocks: (u32, u32),
    /// The quantisation table, natural (row-major) order.
    pub quant: [u16; 64],
    /// Offset of the plane's first block in [`Coefficients::data`] (in coefficients).
    pub offset: usize,
}

/// A JPEG's quantised coefficients: blocks of 64 in natural order, plane after plane.
#[derive(Debug, Clone, PartialEq)]
pub struct Coefficients {
    /// The image's size in pixels.
    pub width: u32,
    /// The image's height in pixels.
    pub height: u32,
    /// Whether the file was progressive.
    pub progressive: bool,
    /// libjpeg's `J_COLOR_SPACE` of the file (1 grey, 3 YCbCr, 2 RGB, 4 CMYK, 5 YCCK).
    pub color_space: i32,
    /// The largest sampling factors.
    pub max_sampling: (u32, u32),
    /// The components.
    pub planes: Vec<Plane>,
    /// Every plane's blocks.
    pub data: Vec<i16>,
}

/// Why a file does not take the coefficient path.
#[derive(Debug, Clone, PartialEq)]
pub enum CoefError {
    /// libjpeg stopped, or warned about damage (its message, which never holds file content).
    Libjpeg(String),
    /// Not a file this path takes (12-bit, lossless, more than 4 components).
    Unsupported,
    /// The coefficients would take more than the cap (bytes).
    TooLarge(u64),
}

struct Storage {
    data: Vec<i16>,
    cap_bytes: u64,
    refused: Option<u64>,
}

unsafe extern "C" fn alloc(ctx: *mut c_void, count: usize) -> *mut i16 {
    // SAFETY: `ctx` is the `Storage` that `read_coefficients` passed, alive for the call.
    let storage = unsafe { &mut *(ctx as *mut Storage) };
    let bytes = (count as u64).saturating_mul(2);
    match (bytes <= storage.cap_bytes)
        .then(|| zeroed(count))
        .flatten()
    {
        Some(v) => {
            storage.data = v;
            storage.data.as_mut_ptr()
        }
        None => {
            storage.refused = Some(bytes);
            std::ptr::null_mut()
        }
    }
}

/// `count` zeroed coefficients, or `None` where the allocator refuses. Zeroed by the
/// allocator (fresh pages for large sizes), not written: a 4K photo's 24 MB memset was a
/// tenth of the entropy decode's time.
fn zeroed(count: usize) -> Option<Vec<i16>> {
    if count == 0 {
        return Some(Vec::new());
    }
    let layout = std::alloc::Layout::array::<i16>(count).ok()?;
    // SAFETY: the layout has a non-zero size; a null return is handled.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut i16;
    if ptr.is_null() {
        return None;
    }
    // SAFETY: `ptr` was allocated by the global allocator with `layout` (capacity `count`
    // i16s) and all of it is initialised (zeroed).
    Some(unsafe { Vec::from_raw_parts(ptr, count, count) })
}

/// Entropy-decodes `bytes` into coefficients, refusing more than `cap_bytes` of them.
pub fn read_coefficients(bytes: &[u8], cap_bytes: u64) -> Result<Coefficients, CoefError> {
    let mut storage = Storage {
        data: Vec::new(),
        cap_bytes,
        refused: None,
    };
    // SAFETY: all-zero is a valid `CoefInfo` (plain integers)
    let mut info: CoefInfo = unsafe { std::mem::zeroed() };
    let mut message = [0 as c_char; 200];
    // SAFETY: `bytes` outlives the call; `info`, `storage` and `message` are valid for writes
    // of their sizes; the shim writes only within `count` shorts of what `alloc` returns.
    let status = unsafe {
        tf_read_coefficients(
            bytes.as_ptr(),
            bytes.len() as c_ulong,
            &mut info,
            alloc,
            &mut storage as *mut Storage as *mut c_void,
            message.as_mut_ptr(),
            message.len(),
        )
    };
    match status {
        0 => {}
        2 => return Err(CoefError::Unsupported),
        3 => return Err(CoefError::TooLarge(storage.refused.unwrap_or(u64::MAX))),
        _ => {
            // SAFETY: the shim NUL-terminates what it writes; the buffer started zeroed
            let text = unsafe { std::ffi::CStr::from_ptr(message.as_ptr()) };
            return Err(CoefError::Libjpeg(text.to_string_lossy().into_owned()));
        }
    }
    let mut planes = Vec::new();
    let mut offset = 0usize;
    for c in 0..(info.components.clamp(0, MAX_COMPONENTS as c_int) as usize) {
        let blocks = (
            info.blocks_w[c].max(0) as u32,
            info.blocks_h[c].max(0) as u32,
        );
        planes.push(Plane {
            sampling: (info.h[c].max(0) as u32, info.v[c].max(0) as u32),
            blocks,
            quant: info.quant[c],
            offset,
        });
        offset += blocks.0 as usize * blocks.1 as usize * 64;
    }
    if offset != storage.data.len() {
        return Err(CoefError::Libjpeg("coefficient count mismatch".into()));
    }
    Ok(Coefficients {
        width: info.width.max(0) as u32,
        height: info.height.max(0) as u32,
        progressive: info.progressive != 0,
        color_space: info.color_space,
        max_sampling: (info.max_h.max(0) as u32, info.max_v.max(0) as u32),
        planes,
        data: storage.data,
    })
}

/// libjpeg's accurate integer IDCT (`jpeg_idct_islow`, jidctint.c: 13-bit constants, two
/// passes with 2 extra bits between them) of one dequantised block, with its range limit
/// (the output wraps modulo 1024 before clamping, as libjpeg's table does): the CPU twin of
/// the GPU decode's IDCT, bit-exact with libjpeg-turbo (whose SIMD versions equal the C).
pub fn idct_islow(block: &[i16], quant: &[u16; 64], out: &mut [u8; 64]) {
    const CONST_BITS: u32 = 13;
    const PASS1_BITS: u32 = 2;
    const F0_298: i32 = 2446;
    const F0_390: i32 = 3196;
    const F0_541: i32 = 4433;
    const F0_765: i32 = 6270;
    const F0_899: i32 = 7373;
    const F1_175: i32 = 9633;
    const F1_501: i32 = 12299;
    const F1_847: i32 = 15137;
    const F1_961: i32 = 16069;
    const F2_053: i32 = 16819;
    const F2_562: i32 = 20995;
    const F3_072: i32 = 25172;
    fn descale(x: i32, n: u32) -> i32 {
        x.wrapping_add(1 << (n - 1)) >> n
    }
    // the odd and even parts shared by both passes: inputs 0..8 of a column or a row
    fn butterfly(v: [i32; 8]) -> [i32; 8] {
        let (z2, z3) = (v[2], v[6]);
        let z1 = z2.wrapping_add(z3).wrapping_mul(F0_541);
        let tmp2 = z1.wrapping_sub(z3.wrapping_mul(F1_847));
        let tmp3 = z1.wrapping_add(z2.wrapping_mul(F0_765));
        let tmp0 = v[0].wrapping_add(v[4]).wrapping_shl(CONST_BITS);
        let tmp1 = v[0].wrapping_sub(v[4]).wrapping_shl(CONST_BITS);
        let (tmp10, tmp13) = (tmp0.wrapping_add(tmp3), tmp0.wrapping_sub(tmp3));
        let (tmp11, tmp12) = (tmp1.wrapping_add(tmp2), tmp1.wrapping_sub(tmp2));
        let (t0, t1, t2, t3) = (v[7], v[5], v[3], v[1]);
        let (z1, z2) = (t0.wrapping_add(t3), t1.wrapping_add(t2));
        let (z3, z4) = (t0.wrapping_add(t2), t1.wrapping_add(t3));
        let z5 = z3.wrapping_add(z4).wrapping_mul(F1_175);
        let (t0, t1) = (t0.wrapping_mul(F0_298), t1.wrapping_mul(F2_053));
        let (t2, t3) = (t2.wrapping_mul(F3_072), t3.wrapping_mul(F1_501));
        let (z1, z2) = (z1.wrapping_mul(-F0_899), z2.wrapping_mul(-F2_562));
        let (z3, z4) = (
            z3.wrapping_mul(-F1_961).wrapping_add(z5),
            z4.wrapping_mul(-F0_390).wrapping_add(z5),
        );
        let t0 = t0.wrapping_add(z1).wrapping_add(z3);
        let t1 = t1.wrapping_add(z2).wrapping_add(z4);
        let t2 = t2.wrapping_add(z2).wrapping_add(z3);
        let t3 = t3.wrapping_add(z1).wrapping_add(z4);
        [
            tmp10.wrapping_add(t3),
            tmp11.wrapping_add(t2),
            tmp12.wrapping_add(t1),
            tmp13.wrapping_add(t0),
            tmp13.wrapping_sub(t0),
            tmp12.wrapping_sub(t1),
            tmp11.wrapping_sub(t2),
            tmp10.wrapping_sub(t3),
        ]
    }
    let mut ws = [0i32; 64];
    for col in 0..8 {
        let v: [i32; 8] = std::array::from_fn(|k| {
            (block[k * 8 + col] as i32).wrapping_mul(quant[k * 8 + col] as i32)
        });
        let r = butterfly(v);
        for k in 0..8 {
            ws[k * 8 + col] = descale(r[k], CONST_BITS - PASS1_BITS);
        }
    }
    for row in 0..8 {
        let v: [i32; 8] = std::array::from_fn(|k| ws[row * 8 + k]);
        let r = butterfly(v);
        for k in 0..8 {
            let x = descale(r[k], CONST_BITS + PASS1_BITS + 3);
            out[row * 8 + k] = range_limit(x);
        }
    }
}

/// libjpeg's post-IDCT range limit: the value modulo 1024, then 0..127 -> +128, 128..511 ->
/// 255, 512..895 -> 0 and 896..1023 -> the negative values -128..-1 + 128.
fn range_limit(x: i32) -> u8 {
    match x & 1023 {
        i @ 0..=127 => (i + 128) as u8,
        128..=511 => 255,
        512..=895 => 0,
        i => (i - 896) as u8,
    }
}

/// One component's samples after the IDCT: `blocks.0 * 8` wide (the padding of the last
/// block included, as libjpeg's buffers), `rows` real rows (`downsampled_height`), and the
/// real width (`downsampled_width`).
struct Samples {
    stride: usize,
    width: usize,
    rows: usize,
    data: Vec<u8>,
}

impl Samples {
    /// Row `r`, with libjpeg's context rows: above the first row is the first, below the last
    /// real row the last.
    fn row(&self, r: isize) -> &[u8] {
        let r = r.clamp(0, self.rows as isize - 1) as usize;
        &self.data[r * self.stride..][..self.stride]
    }
}

fn idct_plane(c: &Coefficients, p: &Plane) -> Samples {
    let (bw, bh) = (p.blocks.0 as usize, p.blocks.1 as usize);
    let stride = bw * 8;
    let mut data = vec![0u8; stride * bh * 8];
    let mut out = [0u8; 64];
    for by in 0..bh {
        for bx in 0..bw {
            let b = &c.data[p.offset + (by * bw + bx) * 64..][..64];
            idct_islow(b, &p.quant, &mut out);
            for y in 0..8 {
                data[(by * 8 + y) * stride + bx * 8..][..8].copy_from_slice(&out[y * 8..][..8]);
            }
        }
    }
    let (mh, mv) = (c.max_sampling.0 as usize, c.max_sampling.1 as usize);
    let width = (c.width as usize * p.sampling.0 as usize).div_ceil(mh);
    let rows = (c.height as usize * p.sampling.1 as usize).div_ceil(mv);
    Samples {
        stride,
        width,
        rows,
        data,
    }
}

/// libjpeg-turbo's fancy (triangle) upsampling of one output row `y` at full resolution
/// (jdsample.c: h2v1, h1v2 and h2v2), or a copy where the component is not subsampled.
fn upsample_row(s: &Samples, (fh, fv): (usize, usize), y: usize, out: &mut [u8]) {
    let w = s.width;
    let inrow = (y / fv) as isize;
    // jdsample.c upsamples horizontally by 2 with the triangle filter only where the
    // component is more than 2 samples wide; narrower, each sample is repeated (both ways)
    if fh == 2 && w <= 2 {
        let r = s.row(inrow);
        for (x, o) in out.iter_mut().enumerate() {
            *o = r[x / 2];
        }
        return;
    }
    match (fh, fv) {
        (1, 1) => out.copy_from_slice(&s.row(inrow)[..out.len()]),
        (2, 1) => {
            let r = s.row(inrow);
            h2v1(r, w, |i, v| {
                if i < out.len() {
                    out[i] = v
                }
            });
        }
        (1, 2) => {
            let (r0, r1, bias) = if y.is_multiple_of(2) {
                (s.row(inrow), s.row(inrow - 1), 1)
            } else {
                (s.row(inrow), s.row(inrow + 1), 2)
            };
            for (x, o) in out.iter_mut().enumerate() {
                *o = ((r0[x] as u32 * 3 + r1[x] as u32 + bias) >> 2) as u8;
            }
        }
        _ => {
            let (r0, r1) = if y.is_multiple_of(2) {
                (s.row(inrow), s.row(inrow - 1))
            } else {
                (s.row(inrow), s.row(inrow + 1))
            };
            let col = |x: usize| r0[x] as u32 * 3 + r1[x] as u32;
            let mut put = |i: usize, v: u32| {
                if i < out.len() {
                    out[i] = v as u8
                }
            };
            let mut this = col(0);
            // libjpeg-turbo's SIMD upsamplers replicate the last real column into the padding
            let next = col(1.min(w - 1));
            put(0, (this * 4 + 8) >> 4);
            put(1, (this * 3 + next + 7) >> 4);
            let mut last = this;
            this = next;
            for x in 1..w.saturating_sub(1) {
                let next = col(x + 1);
                put(2 * x, (this * 3 + last + 8) >> 4);
                put(2 * x + 1, (this * 3 + next + 7) >> 4);
                last = this;
                this = next;
            }
            if w >= 2 {
                put(2 * (w - 1), (this * 3 + last + 8) >> 4);
                put(2 * (w - 1) + 1, (this * 4 + 7) >> 4);
            }
        }
    }
}

fn h2v1(r: &[u8], w: usize, mut put: impl FnMut(usize, u8)) {
    let v = |x: usize| r[x] as u32;
    put(0, r[0]);
    // the padding column is the last real one (libjpeg-turbo's SIMD expands the right edge)
    put(1, ((v(0) * 3 + v(1.min(w - 1)) + 2) >> 2) as u8);
    for x in 1..w.saturating_sub(1) {
        put(2 * x, ((v(x) * 3 + v(x - 1) + 1) >> 2) as u8);
        put(2 * x + 1, ((v(x) * 3 + v(x + 1) + 2) >> 2) as u8);
    }
    if w >= 2 {
        put(2 * (w - 1), ((v(w - 1) * 3 + v(w - 2) + 1) >> 2) as u8);
        put(2 * (w - 1) + 1, r[w - 1]);
    }
}

/// The CPU twin of the GPU-assisted decode: the coefficients to RGBA as libjpeg-turbo decodes
/// them (ISLOW IDCT, fancy upsampling, jdcolor.c's fixed-point YCbCr -> RGB). `None` for what
/// it does not take (CMYK, YCCK, RGB-coded files, sampling ratios other than 1 and 2).
pub fn decode_rgba(c: &Coefficients) -> Option<Vec<u8>> {
    let (w, h) = (c.width as usize, c.height as usize);
    let (mh, mv) = (c.max_sampling.0 as usize, c.max_sampling.1 as usize);
    let factors: Vec<(usize, usize)> = c
        .planes
        .iter()
        .map(|p| {
            (
                mh / p.sampling.0.max(1) as usize,
                mv / p.sampling.1.max(1) as usize,
            )
        })
        .collect();
    let supported = factors.iter().zip(&c.planes).all(|(&(fh, fv), p)| {
        fh * p.sampling.0 as usize == mh && fv * p.sampling.1 as usize == mv && fh <= 2 && fv <= 2
    });
    if !supported || !matches!((c.color_space, c.planes.len()), (1, 1) | (3, 3)) {
        return None;
    }
    let samples: Vec<Samples> = c.planes.iter().map(|p| idct_plane(c, p)).collect();
    let mut rgba = vec![255u8; w * h * 4];
    let mut rows = vec![vec![0u8; w]; samples.len()];
    const SCALEBITS: u32 = 16;
    let fix = |x: f64| (x * (1u64 << SCALEBITS) as f64 + 0.5) as i64;
    let half = 1i64 << (SCALEBITS - 1);
    let clamp = |x: i64| x.clamp(0, 255) as u8;
    for y in 0..h {
        for (k, s) in samples.iter().enumerate() {
            upsample_row(s, factors[k], y, &mut rows[k]);
        }
        let out = &mut rgba[y * w * 4..][..w * 4];
        for x in 0..w {
            let px = &mut out[x * 4..][..4];
            if samples.len() == 1 {
                let g = rows[0][x];
                px[..3].copy_from_slice(&[g, g, g]);
                continue;
            }
            let (yy, cb, cr) = (
                rows[0][x] as i64,
                rows[1][x] as i64 - 128,
                rows[2][x] as i64 - 128,
            );
            let r = yy + ((fix(1.40200) * cr + half) >> SCALEBITS);
            let g = yy + ((-fix(0.34414) * cb + half - fix(0.71414) * cr) >> SCALEBITS);
            let b = yy + ((fix(1.77200) * cb + half) >> SCALEBITS);
            px[..3].copy_from_slice(&[clamp(r), clamp(g), clamp(b)]);
        }
    }
    Some(rgba)
}

/// Bits of the damage the device's entropy decode found (`JpegDecode`'s status, word 1):
/// a Huffman code longer than 16 bits (libjpeg's "Corrupt JPEG data: bad Huffman code").
pub const DAMAGE_BAD_CODE: u32 = 1;
/// A restart interval's blocks need more bits than its data holds (libjpeg's "premature end
/// of data segment").
pub const DAMAGE_SHORT: u32 = 2;
/// A whole byte or more left after a restart interval's blocks (libjpeg's "extraneous bytes
/// before marker").
pub const DAMAGE_EXTRA: u32 = 4;

/// What `status` (`DAMAGE_*` bits) says, for a note.
pub fn damage_why(status: u32) -> String {
    let said: Vec<&str> = [
        (DAMAGE_BAD_CODE, "a bad Huffman code"),
        (DAMAGE_SHORT, "a restart interval shorter than its blocks"),
        (
            DAMAGE_EXTRA,
            "extraneous bytes after a restart interval's blocks",
        ),
    ]
    .into_iter()
    .filter(|&(bit, _)| status & bit != 0)
    .map(|(_, why)| why)
    .collect();
    if said.is_empty() {
        format!("damage {status:#x}")
    } else {
        said.join(", ")
    }
}

/// The status output of `JpegDecode` and `JpegCoefficients`: an empty `DataKind::Bytes`
/// whose word 1 holds the `DAMAGE_*` bits (what `Pipeline::try_run_produced` reads back).
pub(crate) const STATUS_DESC: crate::ValueDesc =
    crate::ValueDesc::Data(crate::value::DataKind::Bytes { capacity: 0 });

/// The status of a decode that found no damage (the CPU twins: libjpeg-turbo's own errors).
pub(crate) fn undamaged() -> crate::Value {
    crate::Value::Data(crate::value::Data::Bytes(crate::value::Bytes {
        words: [0; 3],
        bytes: Vec::new(),
    }))
}

static DECODE_DEF: crate::extend::FilterDef = crate::extend::FilterDef {
    name: "jpeg_decode",
    family: crate::extend::Family::Convert,
    summary: "the GPU half of the GPU-assisted JPEG decode (not in the catalogue)",
    doc: "",
    gpuimage: "",
    params: &[],
    inputs: &[],
    outputs: &[
        crate::filters::registry::PortDef {
            name: "image",
            kind: crate::filters::registry::PortKind::Image,
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
            "jpeg_decode is made from a file's coefficients",
        ))
    },
    uniforms: &[],
    test_inputs: None,
    schedules: &[],
};

/// The GPU half of the decode as a graph node with no inputs: `record_gpu` uploads the
/// coefficients and runs `idct` and `colour` (`jpeg_decode.wgsl`, `jpeg_colour.wgsl`) into
/// the image the rest of the graph reads, turned upright by the EXIF orientation; `run_cpu`
/// is the twin ([`decode_rgba`], then the `image` crate's orientation). A grey file gives
/// Gray8 and a colour one RGBA8, as the CPU decoder does. A second output, its status (an
/// empty `DataKind::Bytes`), holds in word 1 the damage the device's entropy decode found
/// (`DAMAGE_*`; always 0 where the coefficients came from the host): where it is not 0 the
/// image is not to be used (`Pipeline::try_run_produced` gives `Error::ProducerRejected`).
#[derive(Clone, Debug)]
pub struct JpegDecode {
    /// The coefficients, or where `file` is set only their geometry (no data).
    coefficients: std::sync::Arc<Coefficients>,
    /// The file whose entropy-coded data the device decodes (`from_file`).
    file: Option<std::sync::Arc<FileSource>>,
    orientation: u8,
}

/// A file for the device's entropy decode and its bytes for the CPU twin.
#[derive(Debug)]
struct FileSource {
    scan: crate::io::jpeg_huffdec::HuffScan,
    bytes: Vec<u8>,
}

impl JpegDecode {
    /// A node decoding `c` turned upright by EXIF `orientation` (1-8; other values read as
    /// 1), or `None` where [`decode_rgba`] does not take the file.
    pub fn new(c: Coefficients, orientation: u8) -> Option<Self> {
        let supported = decode_rgba_supported(&c);
        supported.then(|| Self {
            coefficients: std::sync::Arc::new(c),
            file: None,
            orientation: if (1..=8).contains(&orientation) {
                orientation
            } else {
                1
            },
        })
    }

    /// A node decoding the JPEG file `bytes` whole on the device: only the entropy-coded data
    /// and the tables are uploaded, and the device decodes the coefficients
    /// (`io::jpeg_huffdec`) before the IDCT; the CPU twin entropy-decodes with libjpeg-turbo
    /// ([`read_coefficients`]). `None` where the device decode does not take the file
    /// (progressive, arithmetic, 12-bit, several scans, damage the parse sees: a truncated
    /// file, restart markers missing or out of order, an empty interval; what
    /// [`JpegDecode::new`] does not take) or its coefficients would pass `cap_bytes`: the
    /// caller decodes as before. Damage within the entropy-coded data is flagged by the device
    /// in the node's status (`DAMAGE_*`).
    pub fn from_file(bytes: Vec<u8>, orientation: u8, cap_bytes: u64) -> Option<Self> {
        Self::from_file_tuned(bytes, orientation, cap_bytes, Default::default())
    }

    /// [`JpegDecode::from_file`] with the device decode cut up as `tuning` says (tests).
    pub fn from_file_tuned(
        bytes: Vec<u8>,
        orientation: u8,
        cap_bytes: u64,
        tuning: crate::io::jpeg_huffdec::Tuning,
    ) -> Option<Self> {
        let scan = crate::io::jpeg_huffdec::HuffScan::parse_tuned(&bytes, cap_bytes, tuning)?;
        let mut node = Self::new(scan.geometry(), orientation)?;
        node.file = Some(std::sync::Arc::new(FileSource { scan, bytes }));
        Some(node)
    }

    /// A 16x16 mid-grey image (4:2:0 colour, or grey), made of zero coefficients: run once
    /// through a pipeline, it compiles the decode's kernels before the first file arrives.
    pub fn blank(grey: bool) -> Self {
        let planes: Vec<Plane> = (0..if grey { 1 } else { 3 })
            .map(|k| {
                // luma: 2x2 blocks (sampled 2x2 in colour); chroma: one block, half size
                let (s, b) = match (k, grey) {
                    (0, true) => (1, 2),
                    (0, false) => (2, 2),
                    _ => (1, 1),
                };
                Plane {
                    sampling: (s, s),
                    blocks: (b, b),
                    quant: [1; 64],
                    offset: if k == 0 { 0 } else { 256 + (k - 1) * 64 },
                }
            })
            .collect();
        let len = planes
            .iter()
            .map(|p| (p.blocks.0 * p.blocks.1) as usize * 64)
            .sum();
        let c = Coefficients {
            width: 16,
            height: 16,
            progressive: false,
            color_space: if grey { 1 } else { 3 },
            max_sampling: if grey { (1, 1) } else { (2, 2) },
            planes,
            data: vec![0; len],
        };
        Self {
            coefficients: std::sync::Arc::new(c),
            file: None,
            orientation: 1,
        }
    }

    /// Whether the device decodes the entropy-coded data too (`from_file`), not only the
    /// coefficients the host decoded.
    pub fn entropy_on_device(&self) -> bool {
        self.file.is_some()
    }

    /// The decoded image's description: upright size, Gray8 or RGBA8.
    pub fn desc(&self) -> crate::ImageDesc {
        let c = &self.coefficients;
        let (w, h) = if self.orientation >= 5 {
            (c.height, c.width)
        } else {
            (c.width, c.height)
        };
        let format = if c.planes.len() == 1 {
            crate::PixelFormat::Gray8
        } else {
            crate::PixelFormat::Rgba8
        };
        crate::ImageDesc::new(w, h, format)
    }

    /// The CPU twin's image (what `run_cpu` gives).
    pub fn decode_cpu(&self) -> crate::Result<crate::Image> {
        let read;
        let c = match &self.file {
            Some(f) => {
                let cap = (f.scan.blocks() * 128).max(1);
                read = read_coefficients(&f.bytes, cap).map_err(|e| {
                    crate::Error::invalid(format!("the JPEG's host entropy decode: {e:?}"))
                })?;
                &read
            }
            None => &*self.coefficients,
        };
        let rgba =
            decode_rgba(c).ok_or_else(|| crate::Error::unsupported("this JPEG's sampling"))?;
        let bad = || crate::Error::internal("decoded size does not match the header");
        let mut dynamic = if c.planes.len() == 1 {
            let grey: Vec<u8> = rgba.chunks_exact(4).map(|p| p[0]).collect();
            image::DynamicImage::ImageLuma8(
                image::GrayImage::from_raw(c.width, c.height, grey).ok_or_else(bad)?,
            )
        } else {
            image::DynamicImage::ImageRgba8(
                image::RgbaImage::from_raw(c.width, c.height, rgba).ok_or_else(bad)?,
            )
        };
        if let Some(o) = image::metadata::Orientation::from_exif(self.orientation) {
            dynamic.apply_orientation(o);
        }
        Ok(crate::Image::from(dynamic))
    }
}

fn decode_rgba_supported(c: &Coefficients) -> bool {
    let (mh, mv) = (c.max_sampling.0 as usize, c.max_sampling.1 as usize);
    let shapes = c.planes.iter().all(|p| {
        let (h, v) = (p.sampling.0.max(1) as usize, p.sampling.1.max(1) as usize);
        mh % h == 0 && mv % v == 0 && mh / h <= 2 && mv / v <= 2
    });
    shapes && matches!((c.color_space, c.planes.len()), (1, 1) | (3, 3))
}

impl crate::extend::Filter for JpegDecode {
    fn def(&self) -> &'static crate::extend::FilterDef {
        &DECODE_DEF
    }
    fn output_descs(&self, _: &[crate::ValueDesc]) -> crate::Result<Vec<crate::ValueDesc>> {
        Ok(vec![crate::ValueDesc::Image(self.desc()), STATUS_DESC])
    }
    fn run_cpu(
        &self,
        _: &[&crate::Value],
        _: &[crate::ValueDesc],
    ) -> crate::Result<Vec<crate::Value>> {
        Ok(vec![crate::Value::Image(self.decode_cpu()?), undamaged()])
    }
    fn record_gpu(
        &self,
        rec: &mut crate::extend::NodeRecorder<'_>,
        _: &[crate::extend::GpuSlot],
        outputs: &[crate::extend::GpuSlot],
    ) -> crate::Result<()> {
        let c = &self.coefficients;
        rec.clear(&outputs[1].buffer);
        let coef = match &self.file {
            Some(f) => {
                let coef = rec.temp((f.scan.blocks() * 128).max(4));
                rec.clear(&coef);
                f.scan.record(rec, &coef, 0, &outputs[1].buffer)?;
                coef
            }
            // little-endian i16s, as the kernel reads them: the coefficients' own bytes (a
            // byte-wise copy of a 4K photo's 24 MB took a third of the batch's per-image time
            // on the H200)
            None => rec.upload_staged("jpeg coefficients", bytemuck::cast_slice(&c.data))?,
        };
        let quant: Vec<u8> = c
            .planes
            .iter()
            .flat_map(|p| p.quant.iter().flat_map(|&q| (q as u32).to_le_bytes()))
            .collect();
        let quant = rec.upload("jpeg quantisation", &quant)?;
        let (mut idct_u, mut colour_u) = (vec![0u32; 4 + 16], vec![0u32; 4 + 32]);
        let (mut word, mut total) = (0u32, 0u32);
        let (mh, mv) = c.max_sampling;
        for (i, p) in c.planes.iter().enumerate() {
            let stride_words = p.blocks.0 * 2;
            idct_u[4 + i * 4..][..4].copy_from_slice(&[total, p.blocks.0, word, stride_words]);
            let (h, v) = (p.sampling.0.max(1), p.sampling.1.max(1));
            let w = (c.width * h).div_ceil(mh);
            let rows = (c.height * v).div_ceil(mv);
            colour_u[4 + i * 4..][..4].copy_from_slice(&[mh / h, mv / v, w, rows]);
            colour_u[20 + i * 4..][..2].copy_from_slice(&[word, stride_words * 4]);
            total += p.blocks.0 * p.blocks.1;
            word += stride_words * p.blocks.1 * 8;
        }
        idct_u[..2].copy_from_slice(&[total, c.planes.len() as u32]);
        colour_u[..4].copy_from_slice(&[
            c.width,
            c.height,
            c.planes.len() as u32,
            self.orientation as u32,
        ]);
        let samples = rec.temp(word as u64 * 4);
        let as_bytes = |v: &[u32]| -> Vec<u8> { v.iter().flat_map(|w| w.to_le_bytes()).collect() };
        let idct =
            crate::extend::Kernel::new("jpeg.idct", &[include_str!("jpeg_decode.wgsl")], "idct");
        rec.dispatch(
            &idct,
            &[&coef, &quant, &samples],
            &as_bytes(&idct_u),
            crate::extend::groups_1d(total as u64, 64),
        )?;
        let grey = c.planes.len() == 1;
        let (name, entry) = if grey {
            ("jpeg.grey", "grey")
        } else {
            ("jpeg.colour", "colour")
        };
        let colour = crate::extend::Kernel::new(name, &[include_str!("jpeg_colour.wgsl")], entry);
        let d = self.desc();
        let invocations = if grey {
            d.width.div_ceil(4) as u64 * d.height as u64
        } else {
            d.width as u64 * d.height as u64
        };
        rec.dispatch(
            &colour,
            &[&samples, &outputs[0].buffer],
            &as_bytes(&colour_u),
            crate::extend::groups_1d(invocations, 64),
        )
    }
    fn footprint(&self, _: &[crate::ValueDesc]) -> crate::extend::Footprint {
        crate::extend::Footprint::WholeImage
    }
    fn box_clone(&self) -> Box<dyn crate::extend::Filter> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode_grey(pixels: &[u8], w: usize, h: usize, quality: i32, progressive: bool) -> Vec<u8> {
        let mut c = turbojpeg::Compressor::new().expect("compressor");
        c.set_quality(quality).expect("quality");
        c.set_subsamp(turbojpeg::Subsamp::Gray).expect("subsamp");
        c.set_progressive(progressive).expect("progressive");
        let image = turbojpeg::Image {
            pixels,
            width: w,
            pitch: w,
            height: h,
            format: turbojpeg::PixelFormat::GRAY,
        };
        c.compress_to_vec(image).expect("compress")
    }

    /// libjpeg-turbo's own decode of a grey file.
    fn decode_grey(jpeg: &[u8], w: usize, h: usize) -> Vec<u8> {
        let mut d = turbojpeg::Decompressor::new().expect("decompressor");
        let mut decoded = vec![0u8; w * h];
        d.decompress(
            jpeg,
            turbojpeg::Image {
                pixels: decoded.as_mut_slice(),
                width: w,
                pitch: w,
                height: h,
                format: turbojpeg::PixelFormat::GRAY,
            },
        )
        .expect("decode");
        decoded
    }

    /// A flat block's only coefficient is its DC, 8 * (value - 128) / quant[0].
    #[test]
    fn a_flat_image_has_only_dc() {
        let (w, h) = (24, 16);
        let jpeg = encode_grey(&vec![160u8; w * h], w, h, 100, false);
        let c = read_coefficients(&jpeg, 1 << 20).expect("coefficients");
        assert_eq!((c.width, c.height, c.planes.len()), (24, 16, 1));
        assert_eq!(c.planes[0].blocks, (3, 2));
        let q = c.planes[0].quant[0] as i16;
        for block in c.data.chunks(64) {
            assert_eq!(block[0] * q, 8 * (160 - 128));
            assert!(block[1..].iter().all(|&v| v == 0), "{block:?}");
        }
    }

    /// Dequantised and inverse-transformed (a float IDCT here), the coefficients give back
    /// libjpeg-turbo's own decode within a level: layout, natural order and tables are right.
    #[test]
    fn the_coefficients_reconstruct_the_decode() {
        let (w, h) = (40, 24);
        let pixels: Vec<u8> = (0..w * h)
            .map(|i| ((i % w) * 5 + (i / w) * 3 + (i * 7919 % 13)) as u8)
            .collect();
        let jpeg = encode_grey(&pixels, w, h, 90, false);
        let c = read_coefficients(&jpeg, 1 << 20).expect("coefficients");
        let decoded = decode_grey(&jpeg, w, h);
        let p = &c.planes[0];
        let mut worst = 0i32;
        for by in 0..p.blocks.1 as usize {
            for bx in 0..p.blocks.0 as usize {
                let b = &c.data[(by * p.blocks.0 as usize + bx) * 64..][..64];
                for y in 0..8 {
                    for x in 0..8 {
                        let (px, py) = (bx * 8 + x, by * 8 + y);
                        if px >= w || py >= h {
                            continue;
                        }
                        let mut s = 0.0f64;
                        for v in 0..8 {
                            for u in 0..8 {
                                let cu = if u == 0 { 1.0 / 2f64.sqrt() } else { 1.0 };
                                let cv = if v == 0 { 1.0 / 2f64.sqrt() } else { 1.0 };
                                let coef = b[v * 8 + u] as f64 * p.quant[v * 8 + u] as f64;
                                s += cu
                                    * cv
                                    * coef
                                    * (((2 * x + 1) as f64 * u as f64 * std::f64::consts::PI)
                                        / 16.0)
                                        .cos()
                                    * (((2 * y + 1) as f64 * v as f64 * std::f64::consts::PI)
                                        / 16.0)
                                        .cos();
                            }
                        }
                        let value = (s / 4.0 + 128.0).round().clamp(0.0, 255.0) as i32;
                        worst = worst.max((value - decoded[py * w + px] as i32).abs());
                    }
                }
            }
        }
        assert!(
            worst <= 1,
            "float IDCT differs from libjpeg-turbo by {worst}"
        );
    }

    #[test]
    fn progressive_files_read_like_baseline_ones() {
        let (w, h) = (33, 17);
        let pixels: Vec<u8> = (0..w * h).map(|i| (i * 37 % 251) as u8).collect();
        let base =
            read_coefficients(&encode_grey(&pixels, w, h, 85, false), 1 << 20).expect("baseline");
        let prog =
            read_coefficients(&encode_grey(&pixels, w, h, 85, true), 1 << 20).expect("progressive");
        assert!(prog.progressive && !base.progressive);
        assert_eq!(prog.data, base.data);
    }

    #[test]
    fn damage_caps_and_garbage_are_errors_not_panics() {
        let (w, h) = (64, 64);
        let jpeg = encode_grey(&vec![90u8; w * h], w, h, 90, false);
        assert!(matches!(
            read_coefficients(&jpeg, 100),
            Err(CoefError::TooLarge(_))
        ));
        assert!(matches!(
            read_coefficients(b"not a jpeg", 1 << 20),
            Err(CoefError::Libjpeg(_))
        ));
        assert!(read_coefficients(&jpeg[..jpeg.len() / 2], 1 << 20).is_err());
    }

    /// The integer IDCT is libjpeg-turbo's own, bit for bit, on grey files at several
    /// qualities and odd sizes (no upsampling or colour conversion in between).
    #[test]
    fn the_integer_idct_equals_libjpeg_turbo_exactly() {
        for (w, h, quality) in [
            (8, 8, 100),
            (17, 9, 90),
            (40, 24, 50),
            (13, 31, 10),
            (64, 8, 75),
        ] {
            let pixels: Vec<u8> = (0..w * h)
                .map(|i| ((i % w) * 9 + (i / w) * 5 + (i * 7919 % 61)) as u8)
                .collect();
            let jpeg = encode_grey(&pixels, w, h, quality, false);
            let c = read_coefficients(&jpeg, 1 << 20).expect("coefficients");
            let decoded = decode_grey(&jpeg, w, h);
            let p = &c.planes[0];
            let mut out = [0u8; 64];
            for by in 0..p.blocks.1 as usize {
                for bx in 0..p.blocks.0 as usize {
                    let b = &c.data[(by * p.blocks.0 as usize + bx) * 64..][..64];
                    idct_islow(b, &p.quant, &mut out);
                    for y in 0..8 {
                        for x in 0..8 {
                            let (px, py) = (bx * 8 + x, by * 8 + y);
                            if px < w && py < h {
                                assert_eq!(
                                    out[y * 8 + x],
                                    decoded[py * w + px],
                                    "{w}x{h} q{quality} at ({px}, {py})"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn the_range_limit_wraps_as_libjpegs_table() {
        assert_eq!(
            [
                range_limit(-129),
                range_limit(-128),
                range_limit(0),
                range_limit(127)
            ],
            [0, 0, 128, 255]
        );
        assert_eq!(
            [
                range_limit(128),
                range_limit(511),
                range_limit(512),
                range_limit(-513)
            ],
            [255, 255, 0, 255]
        );
    }

    /// The whole CPU twin (IDCT, fancy upsampling, colour) against libjpeg-turbo's RGBA decode
    /// for every sampling it takes, at odd sizes.
    #[test]
    fn the_twin_decodes_colour_files_as_libjpeg_turbo() {
        use turbojpeg::Subsamp::*;
        let mut failures = 0;
        for sub in [None, Sub2x1, Sub1x2, Sub2x2] {
            for (w, h) in [
                (1, 1),
                (2, 3),
                (3, 2),
                (4, 5),
                (5, 4),
                (17, 9),
                (40, 24),
                (33, 17),
            ] {
                let pixels: Vec<u8> = (0..w * h * 3)
                    .map(|i| ((i % (w * 3)) * 7 + (i / (w * 3)) * 11 + (i * 7919 % 97)) as u8)
                    .collect();
                let mut comp = turbojpeg::Compressor::new().expect("compressor");
                comp.set_quality(90).expect("quality");
                comp.set_subsamp(sub).expect("subsamp");
                let image = turbojpeg::Image {
                    pixels: pixels.as_slice(),
                    width: w,
                    pitch: w * 3,
                    height: h,
                    format: turbojpeg::PixelFormat::RGB,
                };
                let jpeg = comp.compress_to_vec(image).expect("compress");
                let mut d = turbojpeg::Decompressor::new().expect("decompressor");
                let mut want = vec![0u8; w * h * 4];
                d.decompress(
                    &jpeg,
                    turbojpeg::Image {
                        pixels: want.as_mut_slice(),
                        width: w,
                        pitch: w * 4,
                        height: h,
                        format: turbojpeg::PixelFormat::RGBA,
                    },
                )
                .expect("decode");
                let c = read_coefficients(&jpeg, 1 << 20).expect("coefficients");
                let got = decode_rgba(&c).expect("supported");
                let worst = got
                    .iter()
                    .zip(&want)
                    .map(|(a, b)| (*a as i32 - *b as i32).abs())
                    .max()
                    .unwrap_or(0);
                let wrong = got.iter().zip(&want).filter(|(a, b)| a != b).count();
                if worst != 0 {
                    eprintln!("{sub:?} {w}x{h}: {wrong} samples differ, by up to {worst}\n got {got:?}\nwant {want:?}");
                    failures += 1;
                }
            }
        }
        assert_eq!(failures, 0);
    }
}
