//! The GPU-assisted JPEG encode (issue 30): colour conversion, chroma downsampling, the
//! forward DCT and quantisation make the quantised blocks (on the GPU: [`JpegEncode`],
//! `jpeg_encode.wgsl`; on the CPU: [`forward_blocks`], its twin), and libjpeg-turbo's entropy
//! encoder writes the file from them ([`write_jpeg`], through the C shim `jpeg_enc.c` over
//! `jpeg_write_coefficients`): Huffman coding with the standard or optimised tables, baseline or
//! progressive, the markers of a normal libjpeg-turbo encode.
//!
//! The arithmetic is libjpeg-turbo's own (3.1, which its SIMD versions equal): jccolor.c's
//! fixed-point RGB -> YCbCr, jcsample.c's h2v1 and h2v2 downsampling with its edge
//! replication and alternating bias, jcprepct.c's bottom-edge replication, jfdctint.c's
//! accurate integer DCT and jcdctmgr.c's reciprocal quantisation, the tables of
//! jcparam.c's `jpeg_set_quality`. So the file is the one libjpeg-turbo writes for the same
//! pixels, quality and subsampling, byte for byte (the tests compare with TurboJPEG).
//!
//! Entry points: [`encode`] (the CPU twin and the shim) and [`encode_gpu`] (a backend: the
//! GPU kernels, or the twin on [`crate::Backend::Cpu`]).

use std::ffi::{c_char, c_int, c_void};

use crate::error::{Error, Result};
use crate::image::{Image, PixelFormat};
use crate::io::codec::Subsampling;
use crate::io::jpeg_coef::{Coefficients, Plane};

/// The components of an encode and the sampling of its chroma.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One component: luma (from RGB by jccolor.c's weights, or a Gray8 image's samples).
    Grey,
    /// YCbCr, the chroma at this sampling (4:4:4: 1x1, 4:2:2: Y 2x1, 4:2:0: Y 2x2).
    Colour(Subsampling),
}

impl Layout {
    /// TurboJPEG's name for the layout.
    pub(crate) fn turbo(self) -> turbojpeg::Subsamp {
        match self {
            Layout::Grey => turbojpeg::Subsamp::Gray,
            Layout::Colour(Subsampling::S444) => turbojpeg::Subsamp::None,
            Layout::Colour(Subsampling::S422) => turbojpeg::Subsamp::Sub2x1,
            Layout::Colour(Subsampling::S420) => turbojpeg::Subsamp::Sub2x2,
        }
    }

    /// Each component's sampling factors (h, v), Y first.
    pub fn sampling(self) -> &'static [(u32, u32)] {
        match self {
            Layout::Grey => &[(1, 1)],
            Layout::Colour(Subsampling::S444) => &[(1, 1), (1, 1), (1, 1)],
            Layout::Colour(Subsampling::S422) => &[(2, 1), (1, 1), (1, 1)],
            Layout::Colour(Subsampling::S420) => &[(2, 2), (1, 1), (1, 1)],
        }
    }
}

/// What an encode makes: libjpeg's quality (1-100), the layout, and how the entropy coder
/// works (optimised Huffman tables: two passes over the blocks, a smaller file; progressive:
/// libjpeg's `jpeg_simple_progression` script, which always optimises).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EncodeOptions {
    /// libjpeg's quality scale, 1-100.
    pub quality: u8,
    /// Components and chroma sampling.
    pub layout: Layout,
    /// Optimised Huffman tables (libjpeg's `optimize_coding`).
    pub optimise: bool,
    /// A progressive file (libjpeg's `jpeg_simple_progression`).
    pub progressive: bool,
}

impl EncodeOptions {
    /// Baseline with the standard Huffman tables, as TurboJPEG encodes by default.
    pub fn new(quality: u8, layout: Layout) -> Self {
        Self {
            quality,
            layout,
            optimise: false,
            progressive: false,
        }
    }
}

const STD_LUMINANCE: [u16; 64] = [
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113,
    92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];

const STD_CHROMINANCE: [u16; 64] = [
    17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99,
    47, 66, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
    99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
];

/// The quantisation tables (luma, chroma; natural order) that libjpeg's
/// `jpeg_set_quality(quality, force_baseline = TRUE)` makes: jcparam.c's quality scaling
/// (5000 / q below 50, 200 - 2q from 50) of the standard tables, rounded, limited to 1..255.
pub fn quant_tables(quality: u8) -> [[u16; 64]; 2] {
    let q = (quality as i64).clamp(1, 100);
    let scale = if q < 50 { 5000 / q } else { 200 - q * 2 };
    let table = |basic: &[u16; 64]| -> [u16; 64] {
        std::array::from_fn(|i| ((basic[i] as i64 * scale + 50) / 100).clamp(1, 255) as u16)
    };
    [table(&STD_LUMINANCE), table(&STD_CHROMINANCE)]
}

/// jcdctmgr.c's `compute_reciprocal` for the ISLOW DCT's divisor `8 * q` (libjpeg-turbo
/// built with SIMD, as turbojpeg-sys builds it): the reciprocal, the correction (rounding)
/// and the whole right shift, so that `quantise` divides without dividing.
pub fn reciprocal(q: u16) -> [u32; 3] {
    // UINT16 in C: a table entry above 8191 would wrap; the tables here are at most 255
    let divisor = (q as u32).wrapping_shl(3) & 0xffff;
    if divisor <= 1 {
        // unquantised: the identity (shift -16 + 16)
        return [1, 0, 0];
    }
    let b = 31 - divisor.leading_zeros();
    let mut r = 16 + b;
    let mut fq = (1u64 << r) / divisor as u64;
    let fr = (1u64 << r) % divisor as u64;
    let mut c = divisor / 2;
    if fr == 0 {
        // a power of two: one bit too many for 16 bits
        fq >>= 1;
        r -= 1;
    } else if fr <= (divisor / 2) as u64 {
        c += 1;
    } else {
        fq += 1;
    }
    [fq as u32, c & 0xffff, r]
}

/// jcdctmgr.c's `quantize` of one DCT output by its [`reciprocal`] (the C version, which the
/// SIMD one equals: two 16-bit high multiplies are the one shift by `r`).
pub fn quantise(t: i32, [recip, corr, shift]: [u32; 3]) -> i16 {
    let a = t.unsigned_abs();
    let q = (a.wrapping_add(corr).wrapping_mul(recip) >> shift) as i16;
    if t < 0 {
        q.wrapping_neg()
    } else {
        q
    }
}

const CONST_BITS: u32 = 13;
const PASS1_BITS: u32 = 2;

/// One row (pass 1) or column (pass 2) of jfdctint.c's `jpeg_fdct_islow`.
fn fdct_pass(v: [i32; 8], pass2: bool) -> [i32; 8] {
    fn descale(x: i32, n: u32) -> i32 {
        x.wrapping_add(1 << (n - 1)) >> n
    }
    let tmp0 = v[0] + v[7];
    let tmp7 = v[0] - v[7];
    let tmp1 = v[1] + v[6];
    let tmp6 = v[1] - v[6];
    let tmp2 = v[2] + v[5];
    let tmp5 = v[2] - v[5];
    let tmp3 = v[3] + v[4];
    let tmp4 = v[3] - v[4];
    let tmp10 = tmp0 + tmp3;
    let tmp13 = tmp0 - tmp3;
    let tmp11 = tmp1 + tmp2;
    let tmp12 = tmp1 - tmp2;
    let mut out = [0i32; 8];
    // pass 1 keeps PASS1_BITS more bits; pass 2 takes them off
    let n = if pass2 {
        CONST_BITS + PASS1_BITS
    } else {
        CONST_BITS - PASS1_BITS
    };
    if pass2 {
        out[0] = descale(tmp10 + tmp11, PASS1_BITS);
        out[4] = descale(tmp10 - tmp11, PASS1_BITS);
    } else {
        out[0] = (tmp10 + tmp11) << PASS1_BITS;
        out[4] = (tmp10 - tmp11) << PASS1_BITS;
    }
    let z1 = (tmp12 + tmp13) * 4433;
    out[2] = descale(z1 + tmp13 * 6270, n);
    out[6] = descale(z1 + tmp12 * -15137, n);
    let z1 = tmp4 + tmp7;
    let z2 = tmp5 + tmp6;
    let z3 = tmp4 + tmp6;
    let z4 = tmp5 + tmp7;
    let z5 = (z3 + z4) * 9633;
    let tmp4 = tmp4 * 2446;
    let tmp5 = tmp5 * 16819;
    let tmp6 = tmp6 * 25172;
    let tmp7 = tmp7 * 12299;
    let z1 = z1 * -7373;
    let z2 = z2 * -20995;
    let z3 = z3 * -16069 + z5;
    let z4 = z4 * -3196 + z5;
    out[7] = descale(tmp4 + z1 + z3, n);
    out[5] = descale(tmp5 + z2 + z4, n);
    out[3] = descale(tmp6 + z2 + z3, n);
    out[1] = descale(tmp7 + z1 + z4, n);
    out
}

/// jfdctint.c's accurate integer forward DCT (`jpeg_fdct_islow`: 13-bit constants, 2 extra
/// bits between the passes, the output 8 times the orthonormal DCT) of one block of samples
/// less 128, in place, natural order. Every value fits 16 bits (libjpeg-turbo's DCTELEM with
/// SIMD) and every product 32, so i32 is exact.
pub fn fdct_islow(data: &mut [i32; 64]) {
    for row in 0..8 {
        let v: [i32; 8] = std::array::from_fn(|k| data[row * 8 + k]);
        data[row * 8..][..8].copy_from_slice(&fdct_pass(v, false));
    }
    for col in 0..8 {
        let v: [i32; 8] = std::array::from_fn(|k| data[k * 8 + col]);
        let r = fdct_pass(v, true);
        for k in 0..8 {
            data[k * 8 + col] = r[k];
        }
    }
}

/// jccolor.c's fixed-point RGB -> Y, Cb, Cr (16 fraction bits, `FIX(x)` = x * 65536 rounded;
/// Cb and Cr round by 0.5 - epsilon so that they never exceed 255). Its table form and the
/// SIMD form (which splits 0.587 into 0.337 + 0.250) are these integers exactly.
pub fn rgb_to_ycc(r: u8, g: u8, b: u8) -> [u8; 3] {
    let (r, g, b) = (r as i32, g as i32, b as i32);
    const HALF: i32 = 1 << 15;
    const CBCR_OFFSET: i32 = 128 << 16;
    let y = (19595 * r + 38470 * g + 7471 * b + HALF) >> 16;
    let cb = (-11059 * r - 21709 * g + 32768 * b + CBCR_OFFSET + HALF - 1) >> 16;
    let cr = (32768 * r - 27439 * g - 5329 * b + CBCR_OFFSET + HALF - 1) >> 16;
    [y as u8, cb as u8, cr as u8]
}

/// One component's block geometry: its sampling factors, libjpeg's `width_in_blocks` and
/// `height_in_blocks` (jcmaster.c), and the rows of downsampled samples jcprepct.c makes
/// before it replicates the last one (`ceil(height / max_v) * v`).
pub(crate) struct Geometry {
    pub(crate) sampling: (u32, u32),
    pub(crate) blocks: (u32, u32),
    pub(crate) rows: u32,
}

pub(crate) fn geometry(width: u32, height: u32, layout: Layout) -> Vec<Geometry> {
    let s = layout.sampling();
    let mh = s.iter().map(|f| f.0).max().unwrap_or(1);
    let mv = s.iter().map(|f| f.1).max().unwrap_or(1);
    s.iter()
        .map(|&(h, v)| Geometry {
            sampling: (h, v),
            blocks: (
                (width as u64 * h as u64).div_ceil(mh as u64 * 8) as u32,
                (height as u64 * v as u64).div_ceil(mv as u64 * 8) as u32,
            ),
            rows: height.div_ceil(mv) * v,
        })
        .collect()
}

/// The coefficients' shape for an encode of `width x height` (blocks zeroed): planes with
/// their sampling, libjpeg's block counts, the quality's tables (luma for Y, chroma for Cb
/// and Cr).
pub fn plan(width: u32, height: u32, options: &EncodeOptions) -> Coefficients {
    let tables = quant_tables(options.quality);
    let mut planes = Vec::new();
    let mut offset = 0usize;
    for (i, g) in geometry(width, height, options.layout)
        .into_iter()
        .enumerate()
    {
        let blocks = g.blocks;
        planes.push(Plane {
            sampling: g.sampling,
            blocks,
            quant: tables[(i > 0) as usize],
            offset,
        });
        offset += blocks.0 as usize * blocks.1 as usize * 64;
    }
    let s = options.layout.sampling();
    Coefficients {
        width,
        height,
        progressive: options.progressive,
        color_space: if s.len() == 1 { 1 } else { 3 },
        max_sampling: (
            s.iter().map(|f| f.0).max().unwrap_or(1),
            s.iter().map(|f| f.1).max().unwrap_or(1),
        ),
        planes,
        data: vec![0; offset],
    }
}

fn check(image: &Image, options: &EncodeOptions) -> Result<()> {
    let d = image.desc();
    let fits = (1..=65500).contains(&d.width) && (1..=65500).contains(&d.height);
    if !fits {
        return Err(Error::invalid(format!(
            "{}x{} is outside what a JPEG holds (1..65500 a side)",
            d.width, d.height
        )));
    }
    if !(1..=100).contains(&options.quality) {
        return Err(Error::invalid(format!(
            "JPEG quality {} is out of range [1, 100]",
            options.quality
        )));
    }
    match (d.format, options.layout) {
        (PixelFormat::Rgba8, _) | (PixelFormat::Gray8, Layout::Grey) => Ok(()),
        (PixelFormat::Gray8, _) => Err(Error::invalid(
            "a Gray8 image encodes as one component (Layout::Grey)",
        )),
        (f, _) => Err(Error::invalid(format!(
            "the JPEG encode takes RGBA8 or Gray8, not {}",
            f.name()
        ))),
    }
}

/// The CPU twin of the GPU half of the encode: an RGBA8 image (alpha ignored, as TurboJPEG's
/// RGBA input) or a Gray8 one (with [`Layout::Grey`]) to quantised blocks exactly as
/// libjpeg-turbo makes them: colour conversion, edge replication to whole blocks, h2v1 or h2v2
/// downsampling with jcsample.c's bias (0, 1, 0, 1, ... and 1, 2, 1, 2, ... along a row),
/// the ISLOW DCT, reciprocal quantisation.
pub fn forward_blocks(image: &Image, options: &EncodeOptions) -> Result<Coefficients> {
    use rayon::prelude::*;
    check(image, options)?;
    let (w, h) = (image.width() as usize, image.height() as usize);
    let mut c = plan(image.width(), image.height(), options);
    let ncomp = c.planes.len();
    // the full-resolution samples of each component
    let full: Vec<Vec<u8>> = match image.format() {
        PixelFormat::Gray8 => vec![image.as_u8().to_vec()],
        _ => {
            let px = image.as_u8().chunks_exact(4);
            if ncomp == 1 {
                vec![px.map(|p| rgb_to_ycc(p[0], p[1], p[2])[0]).collect()]
            } else {
                let ycc: Vec<[u8; 3]> = px.map(|p| rgb_to_ycc(p[0], p[1], p[2])).collect();
                (0..3).map(|k| ycc.iter().map(|s| s[k]).collect()).collect()
            }
        }
    };
    let geo = geometry(image.width(), image.height(), options.layout);
    let (mh, mv) = c.max_sampling;
    for (k, plane) in c.planes.clone().iter().enumerate() {
        let (fh, fv) = (
            (mh / plane.sampling.0) as usize,
            (mv / plane.sampling.1) as usize,
        );
        let rows = geo[k].rows as usize;
        let src = &full[k];
        // a sample beyond the image is the last column's or row's (expand_right_edge,
        // expand_bottom_edge)
        let at = |x: usize, y: usize| src[y.min(h - 1) * w + x.min(w - 1)] as i32;
        let sample = |x: usize, y: usize| -> i32 {
            let y = y.min(rows - 1);
            match (fh, fv) {
                (1, 1) => at(x, y),
                (2, 1) => (at(2 * x, y) + at(2 * x + 1, y) + (x & 1) as i32) >> 1,
                _ => {
                    (at(2 * x, 2 * y)
                        + at(2 * x + 1, 2 * y)
                        + at(2 * x, 2 * y + 1)
                        + at(2 * x + 1, 2 * y + 1)
                        + 1
                        + (x & 1) as i32)
                        >> 2
                }
            }
        };
        let divisors: Vec<[u32; 3]> = plane.quant.iter().map(|&q| reciprocal(q)).collect();
        let bw = plane.blocks.0 as usize;
        let n = bw * plane.blocks.1 as usize * 64;
        c.data[plane.offset..][..n]
            .par_chunks_mut(bw * 64)
            .enumerate()
            .for_each(|(by, row)| {
                for (bx, out) in row.chunks_exact_mut(64).enumerate() {
                    let mut d = [0i32; 64];
                    for (i, v) in d.iter_mut().enumerate() {
                        *v = sample(bx * 8 + i % 8, by * 8 + i / 8) - 128;
                    }
                    fdct_islow(&mut d);
                    for i in 0..64 {
                        out[i] = quantise(d[i], divisors[i]);
                    }
                }
            });
    }
    Ok(c)
}

/// Mirrors `tf_enc_info` in `jpeg_enc.c` (plain C ints, no libjpeg struct).
#[repr(C)]
struct EncInfo {
    width: c_int,
    height: c_int,
    components: c_int,
    h: [c_int; 3],
    v: [c_int; 3],
    blocks_w: [c_int; 3],
    blocks_h: [c_int; 3],
    quant_index: [c_int; 3],
    quant: [[u16; 64]; 2],
    optimize: c_int,
    progressive: c_int,
}

type OutFn = unsafe extern "C" fn(ctx: *mut c_void, len: usize) -> *mut u8;

extern "C" {
    fn tf_write_coefficients(
        info: *const EncInfo,
        blocks: *const i16,
        out: OutFn,
        ctx: *mut c_void,
        message: *mut c_char,
        message_len: usize,
    ) -> c_int;
}

unsafe extern "C" fn out_alloc(ctx: *mut c_void, len: usize) -> *mut u8 {
    // SAFETY: `ctx` is the `Vec<u8>` that `write_jpeg` passed, alive for the call.
    let out = unsafe { &mut *(ctx as *mut Vec<u8>) };
    if out.try_reserve_exact(len).is_err() {
        return std::ptr::null_mut();
    }
    out.resize(len, 0);
    out.as_mut_ptr()
}

/// A JPEG file from quantised blocks (as [`forward_blocks`] or the GPU makes them) by
/// libjpeg-turbo's entropy encoder, with the markers of its normal encode (SOI, JFIF, DQT,
/// SOF0 or SOF2, DHT, SOS): one or three components, at most two tables (component 0 uses
/// the first plane's table, the others the second plane's), `optimise`d Huffman tables or
/// the standard ones, progressive where `c.progressive`.
pub fn write_jpeg(c: &Coefficients, optimise: bool) -> Result<Vec<u8>> {
    let io = |message: String| Error::ImageIo {
        path: "<memory>".into(),
        message: format!("JPEG encoder: {message}"),
    };
    let n = c.planes.len();
    if n != 1 && n != 3 {
        return Err(io(format!("{n} components (1 or 3 are written)")));
    }
    if n == 3 && (c.planes[1].quant != c.planes[2].quant) {
        return Err(io("the chroma planes' tables differ".into()));
    }
    let mut info = EncInfo {
        width: c.width as c_int,
        height: c.height as c_int,
        components: n as c_int,
        h: [1; 3],
        v: [1; 3],
        blocks_w: [0; 3],
        blocks_h: [0; 3],
        quant_index: [0; 3],
        quant: [c.planes[0].quant, c.planes[n - 1].quant],
        optimize: optimise as c_int,
        progressive: c.progressive as c_int,
    };
    let mut offset = 0usize;
    for (i, p) in c.planes.iter().enumerate() {
        info.h[i] = p.sampling.0 as c_int;
        info.v[i] = p.sampling.1 as c_int;
        info.blocks_w[i] = p.blocks.0 as c_int;
        info.blocks_h[i] = p.blocks.1 as c_int;
        info.quant_index[i] = (i > 0) as c_int;
        if p.offset != offset {
            return Err(io("planes are not stored one after another".into()));
        }
        offset += p.blocks.0 as usize * p.blocks.1 as usize * 64;
    }
    if offset != c.data.len() {
        return Err(io(format!(
            "{} coefficients for {offset} places",
            c.data.len()
        )));
    }
    let mut out: Vec<u8> = Vec::new();
    let mut message = [0 as c_char; 200];
    // SAFETY: `info` and `c.data` (checked above to hold every plane's blocks) outlive the
    // call; `out` and `message` are valid for writes; the shim writes only within `len` bytes
    // of what `out_alloc` returns and NUL-terminates the message within its length.
    let status = unsafe {
        tf_write_coefficients(
            &info,
            c.data.as_ptr(),
            out_alloc,
            &mut out as *mut Vec<u8> as *mut c_void,
            message.as_mut_ptr(),
            message.len(),
        )
    };
    match status {
        0 => Ok(out),
        3 => Err(io("no memory for the output".into())),
        _ => {
            // SAFETY: the shim NUL-terminates what it writes; the buffer started zeroed
            let text = unsafe { std::ffi::CStr::from_ptr(message.as_ptr()) };
            Err(io(text.to_string_lossy().into_owned()))
        }
    }
}

/// Encodes an RGBA8 image (alpha ignored: composite it first, as `Image::to_jpeg_bytes`
/// does) or a Gray8 one ([`Layout::Grey`]) to JPEG bytes on the CPU: [`forward_blocks`] and
/// [`write_jpeg`]. The same file libjpeg-turbo's own encode makes.
pub fn encode(image: &Image, options: &EncodeOptions) -> Result<Vec<u8>> {
    let mut c = forward_blocks(image, options)?;
    c.progressive = options.progressive;
    write_jpeg(&c, options.optimise)
}

static ENCODE_DEF: crate::extend::FilterDef = crate::extend::FilterDef {
    name: "jpeg_encode",
    family: crate::extend::Family::Convert,
    summary: "the GPU half of the GPU-assisted JPEG encode (not in the catalogue)",
    doc: "",
    gpuimage: "",
    params: &[],
    inputs: crate::extend::IMAGE,
    outputs: crate::extend::IMAGE,
    tolerance: crate::extend::EXACT_ENOUGH,
    build: |_| {
        Err(Error::invalid(
            "jpeg_encode is made by io::jpeg_encode::JpegEncode::new",
        ))
    },
    uniforms: &[],
    test_inputs: None,
    schedules: &[],
};

/// The GPU half of the encode as a graph node: its input is the image (RGBA8, or Gray8 with
/// [`Layout::Grey`]), its output the quantised blocks, carried as an RGBA8 "image" 32 pixels
/// wide with a row per block (128 bytes: the block's 64 coefficients as little-endian i16,
/// natural order), the blocks plane after plane in raster order ([`JpegEncode::coefficients`]
/// reads them back). `record_gpu` runs `fdct` (`jpeg_encode.wgsl`), `run_cpu` is
/// [`forward_blocks`]. [`encode_gpu`] builds the graph and writes the file.
#[derive(Clone, Debug)]
pub struct JpegEncode {
    options: EncodeOptions,
}

impl JpegEncode {
    /// A node making the blocks of an encode with `options` (only quality and layout matter
    /// here; the entropy coder's options are [`write_jpeg`]'s).
    pub fn new(options: EncodeOptions) -> Self {
        Self { options }
    }

    /// The output's description for an input of `width x height`: 32 x the blocks of every
    /// plane.
    pub fn blocks_desc(&self, width: u32, height: u32) -> crate::ImageDesc {
        let total: u64 = geometry(width, height, self.options.layout)
            .iter()
            .map(|g| g.blocks.0 as u64 * g.blocks.1 as u64)
            .sum();
        crate::ImageDesc::new(32, total.min(u32::MAX as u64) as u32, PixelFormat::Rgba8)
    }

    /// The coefficients of an image of `width x height` from this node's output `blocks`.
    pub fn coefficients(&self, width: u32, height: u32, blocks: &Image) -> Result<Coefficients> {
        let mut c = plan(width, height, &self.options);
        if blocks.desc() != self.blocks_desc(width, height)
            || blocks.as_u8().len() != 2 * c.data.len()
        {
            return Err(Error::invalid(
                "the blocks are not those of an image of this size and layout",
            ));
        }
        for (v, b) in c.data.iter_mut().zip(blocks.as_u8().chunks_exact(2)) {
            *v = i16::from_le_bytes([b[0], b[1]]);
        }
        Ok(c)
    }
}

impl crate::extend::Filter for JpegEncode {
    fn def(&self) -> &'static crate::extend::FilterDef {
        &ENCODE_DEF
    }
    fn output_descs(&self, inputs: &[crate::ValueDesc]) -> Result<Vec<crate::ValueDesc>> {
        let Some(d) = inputs.first().and_then(|d| d.image()) else {
            return Err(Error::invalid("jpeg_encode takes an image"));
        };
        check(
            &Image::zeroed(crate::ImageDesc::new(1, 1, d.format)),
            &self.options,
        )?;
        if !(1..=65500).contains(&d.width) || !(1..=65500).contains(&d.height) {
            return Err(Error::invalid(format!(
                "{}x{} is outside what a JPEG holds (1..65500 a side)",
                d.width, d.height
            )));
        }
        Ok(vec![crate::ValueDesc::Image(
            self.blocks_desc(d.width, d.height),
        )])
    }
    fn run_cpu(
        &self,
        inputs: &[&crate::Value],
        outputs: &[crate::ValueDesc],
    ) -> Result<Vec<crate::Value>> {
        let image = inputs
            .first()
            .and_then(|v| v.as_image())
            .ok_or_else(|| Error::invalid("jpeg_encode takes an image"))?;
        let c = forward_blocks(image, &self.options)?;
        let bytes: Vec<u8> = c.data.iter().flat_map(|v| v.to_le_bytes()).collect();
        let d = outputs
            .first()
            .and_then(|d| d.image())
            .ok_or_else(|| Error::internal("jpeg_encode's output is an image"))?;
        let image = Image::from_u8(d.width, d.height, PixelFormat::Rgba8, bytes)?;
        Ok(vec![crate::Value::Image(image)])
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
            .ok_or_else(|| Error::invalid("jpeg_encode takes an image"))?;
        // `fdct` reads the flag only when told to (`when` 0: always runs)
        let flag = rec.temp(16);
        record_fdct(
            rec,
            [&inputs[0].buffer, &flag, &outputs[0].buffer],
            d,
            self.options.quality,
            self.options.layout,
            0,
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

/// Records `fdct` (`jpeg_encode.wgsl`): the quantised blocks of an image `d` (`[source, flag,
/// blocks]` buffers) at `quality` in `layout`; `when` 0 always, 1 only where the flag (bit 0,
/// `jpeg_classify.wgsl`) says the image is grey, 2 only where it is not.
pub(crate) fn record_fdct(
    rec: &mut crate::extend::NodeRecorder<'_>,
    [src, flag, dst]: [&wgpu::Buffer; 3],
    d: crate::ImageDesc,
    quality: u8,
    layout: Layout,
    when: u32,
) -> Result<()> {
    let tables = quant_tables(quality);
    let divisors: Vec<u8> = tables
        .iter()
        .flatten()
        .flat_map(|&q| {
            let [recip, corr, shift] = reciprocal(q);
            [recip, corr | shift << 16]
        })
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let divisors = rec.upload("jpeg divisors", &divisors)?;
    let geo = geometry(d.width, d.height, layout);
    let (mh, mv) = (
        geo.iter().map(|g| g.sampling.0).max().unwrap_or(1),
        geo.iter().map(|g| g.sampling.1).max().unwrap_or(1),
    );
    let mut u = [0u32; 8 + 12];
    let mut total = 0u32;
    for (i, g) in geo.iter().enumerate() {
        let (fh, fv) = (mh / g.sampling.0, mv / g.sampling.1);
        let table = (i > 0) as u32;
        u[8 + i * 4..][..4].copy_from_slice(&[
            total,
            g.blocks.0,
            fh | fv << 4 | (i as u32) << 8 | table << 12,
            g.rows,
        ]);
        total += g.blocks.0 * g.blocks.1;
    }
    u[..7].copy_from_slice(&[
        d.width,
        d.height,
        geo.len() as u32,
        (d.format == PixelFormat::Gray8) as u32,
        total,
        d.width.div_ceil(4),
        when,
    ]);
    let uniform: Vec<u8> = u.iter().flat_map(|w| w.to_le_bytes()).collect();
    let kernel =
        crate::extend::Kernel::new("jpeg.fdct", &[include_str!("jpeg_encode.wgsl")], "fdct");
    rec.dispatch(
        &kernel,
        &[src, &divisors, dst, flag],
        &uniform,
        crate::extend::groups_1d(total as u64, 64),
    )
}

/// Encodes an RGBA8 image (alpha ignored: composite it first) or a Gray8 one
/// ([`Layout::Grey`]) to JPEG bytes with the blocks made on `backend`: on a GPU, colour
/// conversion, downsampling, the DCT and quantisation run in `jpeg_encode.wgsl` and the host
/// reads the blocks back; on [`crate::Backend::Cpu`], the twin makes them. Then libjpeg-turbo's
/// entropy coder writes the file on the calling thread ([`write_jpeg`]; `options.optimise`,
/// `options.progressive`). The bytes are [`encode`]'s, and libjpeg-turbo's own encode's.
///
/// For a batch: one backend for all images (`Backend::auto`), one call per image, the calls
/// on threads of their own (rayon) so that one image's Huffman coding overlaps the next
/// image's GPU work:
///
/// ```no_run
/// # use texelflow::io::jpeg_encode::{encode_gpu, EncodeOptions, Layout};
/// # use texelflow::io::codec::Subsampling;
/// # fn f(backend: &texelflow::Backend, image: &texelflow::Image) -> texelflow::Result<()> {
/// let options = EncodeOptions::new(90, Layout::Colour(Subsampling::S420));
/// let bytes = encode_gpu(backend, image, &options)?;
/// assert!(bytes.starts_with(&[0xff, 0xd8]));
/// # Ok(()) }
/// ```
pub fn encode_gpu(
    backend: &crate::Backend,
    image: &Image,
    options: &EncodeOptions,
) -> Result<Vec<u8>> {
    check(image, options)?;
    let node = JpegEncode::new(*options);
    let mut g = crate::Graph::new();
    g.set_straight_alpha(true);
    let s = g.source("image", image.desc())?;
    let out = g.add_boxed(Box::new(node.clone()), &[s])?;
    g.output("blocks", out[0])?;
    let r = backend.run(&g, &[("image", image)], &crate::RunOptions::default())?;
    let blocks = match r.outputs.into_iter().next() {
        Some((_, crate::Value::Image(i))) => i,
        _ => return Err(Error::internal("jpeg_encode gave no blocks")),
    };
    let mut c = node.coefficients(image.width(), image.height(), &blocks)?;
    c.progressive = options.progressive;
    write_jpeg(&c, options.optimise)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::jpeg_coef::read_coefficients;

    /// The fixed-point constants are jccolor.c's `FIX(x)`.
    #[test]
    fn the_colour_constants_are_libjpegs_fix() {
        let fix = |x: f64| (x * 65536.0 + 0.5) as i32;
        assert_eq!([fix(0.299), fix(0.587), fix(0.114)], [19595, 38470, 7471]);
        assert_eq!(
            [fix(0.16874), fix(0.33126), fix(0.5)],
            [11059, 21709, 32768]
        );
        assert_eq!([fix(0.41869), fix(0.08131)], [27439, 5329]);
        // a grey pixel is its own luma and neutral chroma
        for v in [0u8, 1, 127, 128, 254, 255] {
            assert_eq!(rgb_to_ycc(v, v, v), [v, 128, 128]);
        }
    }

    /// The twin's reciprocal quantisation is the rounded division libjpeg's C code describes
    /// (divide by 8q, round half away from zero) for every table entry and DCT output.
    #[test]
    fn reciprocal_quantisation_is_a_rounded_division() {
        for q in 1..=255u16 {
            let r = reciprocal(q);
            let d = 8 * q as i32;
            for t in -8300i32..=8300 {
                let want = (t.abs() + d / 2) / d * t.signum();
                assert_eq!(quantise(t, r) as i32, want, "q {q} t {t}");
            }
        }
    }

    pub(super) fn turbo(
        pixels: &[u8],
        w: usize,
        h: usize,
        quality: u8,
        layout: Layout,
        optimise: bool,
        progressive: bool,
    ) -> Vec<u8> {
        let mut c = turbojpeg::Compressor::new().expect("compressor");
        c.set_quality(quality as i32).expect("quality");
        c.set_subsamp(layout.turbo()).expect("subsamp");
        c.set_optimize(optimise).expect("optimise");
        c.set_progressive(progressive).expect("progressive");
        let grey = pixels.len() == w * h;
        c.compress_to_vec(turbojpeg::Image {
            pixels,
            width: w,
            pitch: if grey { w } else { w * 4 },
            height: h,
            format: if grey {
                turbojpeg::PixelFormat::GRAY
            } else {
                turbojpeg::PixelFormat::RGBA
            },
        })
        .expect("compress")
    }

    /// Noise, or something like a photo: smooth gradients, a hard edge, a little noise; alpha
    /// random (ignored).
    pub(super) fn pixels(w: usize, h: usize, photo: bool, seed: u64) -> Vec<u8> {
        let mut s = seed | 1;
        let mut rnd = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut out = Vec::with_capacity(w * h * 4);
        for y in 0..h {
            for x in 0..w {
                let n = rnd();
                if !photo {
                    out.extend_from_slice(&n.to_le_bytes()[..4]);
                    continue;
                }
                let (fx, fy) = (x as f64 / w as f64, y as f64 / h.max(2) as f64);
                let edge = if (x as f64 - 0.4 * w as f64) > (y as f64 * 0.7) {
                    60.0
                } else {
                    0.0
                };
                let noise = (n % 9) as f64 - 4.0;
                let r = 40.0 + 150.0 * fx + edge + noise;
                let g = 90.0 + 80.0 * (fy * 6.0).sin() + noise;
                let b = 200.0 - 120.0 * fx * fy - edge + noise;
                out.extend_from_slice(&[
                    r.clamp(0.0, 255.0) as u8,
                    g.clamp(0.0, 255.0) as u8,
                    b.clamp(0.0, 255.0) as u8,
                    (n >> 40) as u8,
                ]);
            }
        }
        out
    }

    pub(super) const LAYOUTS: [Layout; 4] = [
        Layout::Grey,
        Layout::Colour(Subsampling::S444),
        Layout::Colour(Subsampling::S422),
        Layout::Colour(Subsampling::S420),
    ];

    /// The tables equal those libjpeg-turbo writes at every quality.
    #[test]
    fn the_tables_are_libjpegs() {
        let px = pixels(8, 8, true, 1);
        for q in 1..=100u8 {
            let jpeg = turbo(
                &px,
                8,
                8,
                q,
                Layout::Colour(Subsampling::S444),
                false,
                false,
            );
            let c = read_coefficients(&jpeg, 1 << 20).expect("reads");
            let t = quant_tables(q);
            assert_eq!(c.planes[0].quant, t[0], "q{q}");
            assert_eq!(c.planes[1].quant, t[1], "q{q}");
        }
    }

    /// The strongest test: for noise and photo-like images at awkward sizes, qualities 50, 90
    /// and 100, grey, 4:4:4, 4:2:2 and 4:2:0, the twin's blocks are libjpeg-turbo's (read back
    /// from its file) and the file written from them is TurboJPEG's, byte for byte.
    #[test]
    fn the_twin_and_shim_write_libjpeg_turbos_file_byte_for_byte() {
        let mut failures = Vec::new();
        for (w, h) in [
            (1, 1),
            (2, 3),
            (17, 9),
            (9, 17),
            (61, 35),
            (16, 16),
            (33, 2),
            (4001, 3),
            (3, 403),
        ] {
            for photo in [false, true] {
                let px = pixels(w, h, photo, (w * 31 + h) as u64);
                let image =
                    Image::from_u8(w as u32, h as u32, PixelFormat::Rgba8, px.clone()).unwrap();
                for q in [50u8, 90, 100] {
                    for layout in LAYOUTS {
                        let what = format!("{w}x{h} photo {photo} q{q} {layout:?}");
                        let want = turbo(&px, w, h, q, layout, false, false);
                        let theirs = read_coefficients(&want, 1 << 26).expect("reads");
                        let ours = forward_blocks(&image, &EncodeOptions::new(q, layout))
                            .expect("encodes");
                        let wrong = ours
                            .data
                            .iter()
                            .zip(&theirs.data)
                            .filter(|(a, b)| a != b)
                            .count();
                        if ours.planes != theirs.planes || wrong != 0 {
                            failures.push(format!("{what}: {wrong} coefficients differ"));
                            continue;
                        }
                        let got = write_jpeg(&ours, false).expect("writes");
                        if got != want {
                            failures.push(format!(
                                "{what}: bytes differ ({} vs {})",
                                got.len(),
                                want.len()
                            ));
                        }
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
    }

    /// Gray8 images encode as TurboJPEG's GRAY input does.
    #[test]
    fn gray8_images_encode_as_libjpeg_turbo() {
        for (w, h) in [(1, 1), (17, 9), (61, 35)] {
            let px: Vec<u8> = pixels(w, h, true, 7).chunks(4).map(|p| p[1]).collect();
            let image = Image::from_u8(w as u32, h as u32, PixelFormat::Gray8, px.clone()).unwrap();
            for q in [50u8, 90, 100] {
                let got = encode(&image, &EncodeOptions::new(q, Layout::Grey)).expect("encodes");
                assert_eq!(
                    got,
                    turbo(&px, w, h, q, Layout::Grey, false, false),
                    "{w}x{h} q{q}"
                );
            }
        }
    }

    /// Optimised Huffman tables and progressive files are TurboJPEG's too.
    #[test]
    fn optimised_and_progressive_files_are_libjpeg_turbos() {
        let (w, h) = (61, 35);
        let px = pixels(w, h, true, 5);
        let image = Image::from_u8(w as u32, h as u32, PixelFormat::Rgba8, px.clone()).unwrap();
        for layout in LAYOUTS {
            for (optimise, progressive) in [(true, false), (false, true), (true, true)] {
                let options = EncodeOptions {
                    optimise,
                    progressive,
                    ..EncodeOptions::new(85, layout)
                };
                let got = encode(&image, &options).expect("encodes");
                let want = turbo(&px, w, h, 85, layout, optimise, progressive);
                assert_eq!(
                    got, want,
                    "{layout:?} optimise {optimise} progressive {progressive}"
                );
            }
        }
    }

    /// The files decode with other decoders (zune-jpeg, through the `image` crate too), to
    /// within a level or two of the source where nothing is lost (q100 4:4:4 photo-like).
    #[test]
    fn the_files_decode_with_other_decoders() {
        let (w, h) = (61, 35);
        let px = pixels(w, h, true, 9);
        let image = Image::from_u8(w as u32, h as u32, PixelFormat::Rgba8, px.clone()).unwrap();
        for layout in LAYOUTS {
            for progressive in [false, true] {
                let options = EncodeOptions {
                    progressive,
                    ..EncodeOptions::new(100, layout)
                };
                let jpeg = encode(&image, &options).expect("encodes");
                let mut d = zune_jpeg::JpegDecoder::new(zune_core::bytestream::ZCursor::new(
                    jpeg.as_slice(),
                ));
                let decoded = d.decode().expect("zune-jpeg decodes");
                let info = d.info().expect("info");
                assert_eq!((info.width as usize, info.height as usize), (w, h));
                let via_image = image::load_from_memory(&jpeg).expect("image decodes");
                assert_eq!(
                    (via_image.width(), via_image.height()),
                    (w as u32, h as u32)
                );
                if layout == Layout::Colour(Subsampling::S444) {
                    let worst = decoded
                        .chunks(3)
                        .zip(px.chunks(4))
                        .flat_map(|(a, b)| (0..3).map(move |k| (a[k] as i32 - b[k] as i32).abs()))
                        .max()
                        .unwrap_or(0);
                    assert!(worst <= 3, "q100 4:4:4 differs from the source by {worst}");
                }
            }
        }
    }

    /// Bad arguments are errors, not panics.
    #[test]
    fn bad_arguments_are_errors() {
        let grey = Image::from_u8(2, 2, PixelFormat::Gray8, vec![0; 4]).unwrap();
        let colour = EncodeOptions::new(90, Layout::Colour(Subsampling::S420));
        assert!(encode(&grey, &colour).is_err());
        let rgba = Image::from_u8(2, 2, PixelFormat::Rgba8, vec![0; 16]).unwrap();
        assert!(encode(&rgba, &EncodeOptions::new(0, Layout::Grey)).is_err());
        assert!(encode(&rgba, &EncodeOptions::new(101, Layout::Grey)).is_err());
        let mut c = forward_blocks(&rgba, &colour).unwrap();
        c.data.pop();
        assert!(write_jpeg(&c, false).is_err());
        let mut c = forward_blocks(&rgba, &colour).unwrap();
        c.planes[0].blocks.0 += 1;
        c.data.extend([0; 64]);
        assert!(write_jpeg(&c, false).is_err());
        // libjpeg's own refusal (an MCU of 4x4 + 2 blocks, above its 10) comes back as its
        // message through the longjmp
        let mut c = plan(16, 16, &colour);
        c.planes[0].sampling = (4, 4);
        c.max_sampling = (4, 4);
        c.planes[0].blocks = (2, 2);
        c.planes[1].offset = 4 * 64;
        c.planes[2].offset = 5 * 64;
        c.data = vec![0; 6 * 64];
        match write_jpeg(&c, false) {
            Err(Error::ImageIo { message, .. }) => {
                assert!(message.contains("Sampling factors"), "{message}")
            }
            other => panic!("{other:?}"),
        }
    }
}
