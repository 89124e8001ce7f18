//! The shared engine of dilation and erosion: a separable max (or min) over a square
//! window, one horizontal and one vertical pass, each a van Herk / Gil-Werman sweep in
//! workgroup memory (see `morphology.wgsl`), and the CPU twin.
//!
//! Max over a (2r+1)x(2r+1) square with clamped coordinates equals a row max followed by a
//! column max, because clamping acts on each axis separately. Erosion is dilation of the
//! inverted samples, so both share one kernel (`flip` uniform).

use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::image::{Image, ImageDesc, PixelFormat};
use crate::params::ParamDef;
use crate::registry::{expect_image, FilterDef, Tolerance, UniformLayout};
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

pub(crate) const WGSL: &str = include_str!("morphology.wgsl");

/// The radius parameter shared by the whole family.
pub(crate) const RADIUS: ParamDef = ParamDef::int("radius", 1, 1, 32, "window half-size: the square window is (2r+1)x(2r+1) pixels");

/// Max and min of 8-bit samples are exact, so the GPU and the CPU agree bit for bit.
pub(crate) const EXACT: Tolerance = Tolerance { max_diff: 0, why: "" };

/// Formats the family accepts (and produces unchanged).
pub(crate) const FORMATS: &[PixelFormat] = &[PixelFormat::Rgba8, PixelFormat::Gray8];

pub(crate) const UNIFORMS: &[UniformLayout] = &[UniformLayout { wgsl: WGSL, wgsl_struct: "MorphParams", rust_size: std::mem::size_of::<MorphParams>() }];

/// Uniform of both passes; mirrors `MorphParams` in `morphology.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct MorphParams {
    /// Samples along a row: pixels for the horizontal passes, words for the vertical one.
    pub width: u32,
    pub height: u32,
    /// Row pitch of both buffers in u32 words.
    pub words_per_row: u32,
    /// 0 for dilation (max); all ones for erosion (max of inverted samples).
    pub flip: u32,
}

/// Max or min.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    Max,
    Min,
}

/// Preferred tiles: lines per workgroup (= invocations, one line each) and output positions
/// per line. Schedule choices, not algorithm; to be measured on H100. Tiles shrink (segment
/// first, then lines) until they fit the device's workgroup memory at the given radius.
const H_LINES: u32 = 64;
const H_SEG: u32 = 64;
const V_LINES: u32 = 64;
const V_SEG: u32 = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dir {
    Horizontal,
    Vertical,
}

/// A specialisation of `morphology.wgsl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tile {
    dir: Dir,
    radius: u32,
    seg: u32,
    lines: u32,
    in_stride: u32,
    out_stride: u32,
    in_size: u32,
    out_size: u32,
}

impl Tile {
    fn new(dir: Dir, radius: u32, seg: u32, lines: u32) -> Tile {
        let ext = seg + 2 * radius;
        match dir {
            // One row per invocation, rows laid out one after another: odd strides keep
            // neighbouring invocations in different banks.
            Dir::Horizontal => {
                let (in_stride, out_stride) = (ext | 1, seg | 1);
                Tile { dir, radius, seg, lines, in_stride, out_stride, in_size: lines * in_stride, out_size: lines * out_stride }
            }
            // Columns interleaved (element i of column t at i * lines + t).
            Dir::Vertical => Tile { dir, radius, seg, lines, in_stride: lines, out_stride: lines, in_size: ext * lines, out_size: seg * lines },
        }
    }

    /// The largest tile not above the preferred one that fits `budget` bytes of workgroup memory.
    fn fit(dir: Dir, radius: u32, budget: u64) -> Result<Tile> {
        let (mut lines, mut seg) = match dir {
            Dir::Horizontal => (H_LINES, H_SEG),
            Dir::Vertical => (V_LINES, V_SEG),
        };
        loop {
            let t = Tile::new(dir, radius, seg, lines);
            if (t.in_size as u64 + t.out_size as u64) * 4 <= budget {
                return Ok(t);
            }
            // segments stay multiples of 4 (Gray8 horizontal pass writes whole words)
            if seg > 16 {
                seg /= 2;
            } else if lines > 8 {
                lines /= 2;
            } else {
                return Err(Error::Gpu(format!("morphology radius {radius} needs more workgroup memory than the device's {budget} bytes")));
            }
        }
    }

    fn kernel(&self, entry: &'static str) -> Result<Kernel> {
        let begin = WGSL.find("// BEGIN SPECIALISATION").ok_or_else(|| Error::Gpu("morphology.wgsl lost its specialisation block".into()))?;
        let end_marker = "// END SPECIALISATION";
        let end = WGSL.find(end_marker).ok_or_else(|| Error::Gpu("morphology.wgsl lost its specialisation block".into()))? + end_marker.len();
        let consts = format!(
            "const R: u32 = {}u;\nconst SEG: u32 = {}u;\nconst LINES: u32 = {}u;\nconst IN_STRIDE: u32 = {}u;\nconst OUT_STRIDE: u32 = {}u;\nconst IN_SIZE: u32 = {}u;\nconst OUT_SIZE: u32 = {}u;",
            self.radius, self.seg, self.lines, self.in_stride, self.out_stride, self.in_size, self.out_size
        );
        let source = format!("{}{}{}", &WGSL[..begin], consts, &WGSL[end..]);
        let key = format!("morphology/{:?}/r{}/s{}/l{}", self.dir, self.radius, self.seg, self.lines);
        Ok(Kernel { key, sources: Vec::new(), entry, generated: Some(source), checks: None, zero_init_workgroup: true })
    }
}

/// Output descriptions: the input's, for RGBA8 or Gray8.
pub(crate) fn output_descs(def: &FilterDef, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
    let d = expect_image(def, inputs, 0, FORMATS)?;
    Ok(vec![ValueDesc::Image(d)])
}

/// Records the two passes: input -> temp (rows), temp -> output (columns).
pub(crate) fn record(rec: &mut NodeRecorder<'_>, input: &GpuSlot, output: &GpuSlot, radius: u32, op: Op) -> Result<()> {
    let d: ImageDesc = input.desc.image().ok_or_else(|| Error::Graph("morphology input must be an image".into()))?;
    let gray = match d.format {
        PixelFormat::Rgba8 => false,
        PixelFormat::Gray8 => true,
        f => return Err(Error::Graph(format!("morphology needs rgba8 or gray8, got {}", f.name()))),
    };
    let budget = rec.gpu().limits.max_compute_workgroup_storage_size as u64;
    let words_per_row = (d.format.gpu_row_bytes(d.width) / 4) as u32;
    let flip = if op == Op::Min { u32::MAX } else { 0 };
    let tmp = rec.temp(d.format.gpu_bytes(d.width, d.height));

    let th = Tile::fit(Dir::Horizontal, radius, budget)?;
    let ph = MorphParams { width: d.width, height: d.height, words_per_row, flip };
    let kh = th.kernel(if gray { "h_gray" } else { "h_rgba" })?;
    rec.dispatch(&kh, &[&input.buffer, &tmp], bytemuck::bytes_of(&ph), groups_2d(d.width, d.height, th.seg, th.lines))?;

    let tv = Tile::fit(Dir::Vertical, radius, budget)?;
    let pv = MorphParams { width: words_per_row, height: d.height, words_per_row, flip };
    let kv = tv.kernel("v_words")?;
    rec.dispatch(&kv, &[&tmp, &output.buffer], bytemuck::bytes_of(&pv), groups_2d(words_per_row, d.height, tv.lines, tv.seg))
}

/// CPU twin: a direct row max (or min) over the clamped window, then a column one.
/// Deliberately the plain O(r) loop rather than van Herk, so the oracle shares no algorithm
/// with the kernel.
pub(crate) fn run_cpu(inputs: &[&Value], radius: u32, op: Op) -> Result<Vec<Value>> {
    let img = inputs.first().and_then(|v| v.as_image()).ok_or_else(|| Error::Graph("morphology input must be an image".into()))?;
    if !FORMATS.contains(&img.format()) {
        return Err(Error::Graph(format!("morphology needs rgba8 or gray8, got {}", img.format().name())));
    }
    Ok(vec![Value::Image(cpu_morph(img, radius, op)?)])
}

fn pick(op: Op) -> fn(u8, u8) -> u8 {
    match op {
        Op::Max => |a, b| a.max(b),
        Op::Min => |a, b| a.min(b),
    }
}

fn cpu_morph(img: &Image, radius: u32, op: Op) -> Result<Image> {
    let (w, h, ch) = (img.width() as usize, img.height() as usize, img.format().channels());
    let r = radius as usize;
    let f = pick(op);
    let src = img.as_u8();
    let row = w * ch;

    let mut tmp = vec![0u8; src.len()];
    tmp.par_chunks_mut(row).zip(src.par_chunks(row)).for_each(|(o, s)| {
        for x in 0..w {
            let (lo, hi) = (x.saturating_sub(r), (x + r).min(w - 1));
            for c in 0..ch {
                let mut m = s[x * ch + c];
                for xx in lo..=hi {
                    m = f(m, s[xx * ch + c]);
                }
                o[x * ch + c] = m;
            }
        }
    });

    let mut out = vec![0u8; src.len()];
    out.par_chunks_mut(row).enumerate().for_each(|(y, o)| {
        o.copy_from_slice(&tmp[y * row..(y + 1) * row]);
        for yy in y.saturating_sub(r)..=(y + r).min(h - 1) {
            for (a, &b) in o.iter_mut().zip(&tmp[yy * row..(yy + 1) * row]) {
                *a = f(*a, b);
            }
        }
    });
    Image::from_u8(img.width(), img.height(), img.format(), out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_fit_the_webgpu_minimum_at_every_radius() {
        for r in 1..=32 {
            for dir in [Dir::Horizontal, Dir::Vertical] {
                let t = Tile::fit(dir, r, 16384).unwrap();
                assert!((t.in_size + t.out_size) * 4 <= 16384);
                assert_eq!(t.seg % 4, 0);
                t.kernel("v_words").unwrap();
            }
        }
    }

    #[test]
    fn specialised_source_replaces_the_defaults() {
        let k = Tile::fit(Dir::Vertical, 7, 49152).unwrap().kernel("v_words").unwrap();
        let src = k.generated.unwrap();
        assert!(src.contains("const R: u32 = 7u;"));
        assert!(!src.contains("BEGIN SPECIALISATION"));
    }

    #[test]
    fn cpu_is_a_square_window_with_replicated_edges() {
        let img = Image::from_u8(5, 3, PixelFormat::Gray8, vec![0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0]).unwrap();
        let v = Value::Image(img);
        let d = cpu_morph(v.as_image().unwrap(), 1, Op::Max).unwrap();
        assert_eq!(d.as_u8(), &[0, 0, 0, 9, 9, 5, 5, 5, 9, 9, 5, 5, 5, 0, 0]);
        let e = cpu_morph(&d, 1, Op::Min).unwrap();
        // closing: never below the input
        assert_eq!(e.as_u8(), &[0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 5, 5, 0, 0, 0]);
    }
}
