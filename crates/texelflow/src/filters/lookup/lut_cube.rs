//! Colour grading through an Adobe/Resolve `.cube` LUT file: a 3D LUT (an N^3 cube,
//! interpolated trilinearly) or a 1D LUT (N entries per channel, interpolated linearly).
//! GPUImage has no `.cube` reader; the nearest filter is `GPUImageLookupFilter` (`lookup`,
//! a 64^3 cube stored in a 512x512 image), whose `intensity` mix with the original this keeps.
//!
//! The file: `TITLE "name"`, `LUT_3D_SIZE N` (2..=65) or `LUT_1D_SIZE N` (2..=65536),
//! optional `DOMAIN_MIN r g b` / `DOMAIN_MAX r g b` (default 0 and 1; Resolve's
//! `LUT_1D_INPUT_RANGE lo hi` / `LUT_3D_INPUT_RANGE lo hi` set all three channels), `#`
//! comment lines and blank lines, then the data: one `r g b` line per entry, red varying
//! fastest. An input colour is mapped from the domain to [0, N-1] per channel (clamped)
//! before the lookup; output values are clamped to [0, 1] when stored as 8 bits.

use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_image, input_image, one_to_one, Family, Filter, FilterDef, EXACT_ENOUGH, IMAGE,
};
use crate::graph::params::{check_float, ParamDef};
use crate::image::{unorm8, Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

const WGSL: &str = include_str!("lut_cube.wgsl");
/// Workgroup size. Schedule choice, not algorithm; mirrors `LUT_CUBE_WG` in lut_cube.wgsl.
const LUT_CUBE_WG: u32 = 256;
/// Sizes the format allows (Adobe's specification).
const SIZES_3D: std::ops::RangeInclusive<u64> = 2..=65;
const SIZES_1D: std::ops::RangeInclusive<u64> = 2..=65536;

/// Whether a `.cube` table is a cube or one curve per channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CubeKind {
    /// `LUT_1D_SIZE`: entry k holds each channel's output at input k / (N-1).
    OneD,
    /// `LUT_3D_SIZE`: entry r + N (g + N b) holds the output at grid point (r, g, b).
    ThreeD,
}

/// A parsed `.cube` file.
#[derive(Clone, Debug, PartialEq)]
pub struct CubeLut {
    /// The `TITLE` line, if any.
    pub title: Option<String>,
    /// Cube or per-channel curves.
    pub kind: CubeKind,
    /// Entries per axis (N).
    pub size: u32,
    /// Input value of the first entry per channel (`DOMAIN_MIN`).
    pub domain_min: [f32; 3],
    /// Input value of the last entry per channel (`DOMAIN_MAX`).
    pub domain_max: [f32; 3],
    /// Output colours, red index fastest: N^3 entries (3D) or N (1D).
    pub table: Vec<[f32; 3]>,
}

/// The largest `.cube` file read: the largest table (65³ entries of three numbers) takes about
/// 8 MB as text; 64 MiB leaves room for comments and long numbers, and bounds what a path to
/// something else (`/dev/urandom` is refused anyway: not a regular file) can cost.
const MAX_CUBE_FILE: u64 = 64 << 20;

impl CubeLut {
    /// Reads and parses a `.cube` file.
    pub fn open(path: impl AsRef<Path>) -> Result<CubeLut> {
        let path = path.as_ref();
        let bytes = crate::input::read_capped(path, MAX_CUBE_FILE, "the largest .cube file read")
            .map_err(|why| Error::BadFile {
            path: path.to_path_buf(),
            message: format!("cannot read: {why}"),
        })?;
        let text = String::from_utf8(bytes).map_err(|e| Error::BadFile {
            path: path.to_path_buf(),
            message: format!(
                "not a .cube file: invalid UTF-8 text at byte {}",
                e.utf8_error().valid_up_to()
            ),
        })?;
        Self::parse(&text, path)
    }

    /// Parses `.cube` text; `source` names it in errors, which are one line naming the
    /// problem and, where there is one, its line number.
    pub fn parse(text: &str, source: &Path) -> Result<CubeLut> {
        parse_cube(text).map_err(|message| Error::BadFile {
            path: source.to_path_buf(),
            message,
        })
    }

    /// What the lookup relies on (a LUT built by hand may break it): the size in range for
    /// its kind, that many entries, and a domain of positive width in every channel.
    fn check(&self) -> std::result::Result<(), String> {
        let (keyword, sizes, want) = match self.kind {
            CubeKind::ThreeD => ("LUT_3D_SIZE", SIZES_3D, (self.size as usize).pow(3)),
            CubeKind::OneD => ("LUT_1D_SIZE", SIZES_1D, self.size as usize),
        };
        let n = self.size;
        if !sizes.contains(&(n as u64)) {
            return Err(format!(
                "{keyword} {n} is out of range {}..={}",
                sizes.start(),
                sizes.end()
            ));
        }
        // written so that a NaN bound fails too
        if let Some(c) = (0..3).find(|&c| {
            self.domain_max[c].partial_cmp(&self.domain_min[c]) != Some(std::cmp::Ordering::Greater)
        }) {
            return Err(format!(
                "DOMAIN_MAX must exceed DOMAIN_MIN in every channel; {} does not",
                ["red", "green", "blue"][c],
            ));
        }
        if self.table.len() != want {
            return Err(format!(
                "{keyword} {n} needs {want} data lines, found {}",
                self.table.len()
            ));
        }
        Ok(())
    }
}

/// The keywords a `.cube` file may hold, for messages.
const KEYWORDS: &str = "TITLE, LUT_3D_SIZE, LUT_1D_SIZE, DOMAIN_MIN, DOMAIN_MAX, \
                        LUT_1D_INPUT_RANGE, LUT_3D_INPUT_RANGE, `#` comments or `r g b` data";

/// 1-based character column of `part` (a sub-slice of `line`) in `line`.
fn column(line: &str, part: &str) -> usize {
    let at = (part.as_ptr() as usize)
        .saturating_sub(line.as_ptr() as usize)
        .min(line.len());
    line.get(..at).map_or(at, |s| s.chars().count()) + 1
}

/// Parses `.cube` text. Messages name a line, a column and what was expected, never the
/// file's text (a spec may name any file: issue 29 item 14).
fn parse_cube(text: &str) -> std::result::Result<CubeLut, String> {
    let mut title = None;
    let mut size: Option<(CubeKind, u32)> = None;
    let mut domain_min = [0.0f32; 3];
    let mut domain_max = [1.0f32; 3];
    let mut table: Vec<[f32; 3]> = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = raw.trim_start_matches('\u{feff}').trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |message: String| match message.starts_with("column ") {
            true => format!("line {}, {message}", k + 1),
            false => format!("line {}: {message}", k + 1),
        };
        let at_col = |part: &str, message: String| {
            format!("line {}, column {}: {message}", k + 1, column(raw, part))
        };
        if line.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '-' | '+' | '.')) {
            table.push(numbers::<3>(raw, line).map_err(at)?);
            continue;
        }
        let (keyword, rest) = line
            .split_once(char::is_whitespace)
            .map_or((line, ""), |(a, b)| (a, b.trim()));
        if !table.is_empty() {
            return Err(at_col(
                keyword,
                "a keyword line after the table data (keywords come first, then `r g b` lines)"
                    .into(),
            ));
        }
        match keyword {
            "TITLE" => title = Some(rest.trim_matches('"').to_string()),
            "LUT_3D_SIZE" | "LUT_1D_SIZE" => {
                let (kind, range) = if keyword == "LUT_3D_SIZE" {
                    (CubeKind::ThreeD, SIZES_3D)
                } else {
                    (CubeKind::OneD, SIZES_1D)
                };
                if let Some((given, _)) = size {
                    return Err(at(if given == kind {
                        format!("{keyword} given twice")
                    } else {
                        "both LUT_1D_SIZE and LUT_3D_SIZE given".into()
                    }));
                }
                let wrong = || {
                    at(format!(
                        "{keyword} needs a whole number in {}..={}",
                        range.start(),
                        range.end()
                    ))
                };
                let n: u64 = rest.parse().map_err(|_| wrong())?;
                if !range.contains(&n) {
                    return Err(wrong());
                }
                size = Some((kind, n as u32));
            }
            "DOMAIN_MIN" => domain_min = numbers::<3>(raw, rest).map_err(at)?,
            "DOMAIN_MAX" => domain_max = numbers::<3>(raw, rest).map_err(at)?,
            "LUT_1D_INPUT_RANGE" | "LUT_3D_INPUT_RANGE" => {
                let [lo, hi] = numbers::<2>(raw, rest).map_err(at)?;
                (domain_min, domain_max) = ([lo; 3], [hi; 3]);
            }
            _ => {
                return Err(at_col(
                    keyword,
                    format!("not a .cube line: expected {KEYWORDS}"),
                ))
            }
        }
    }
    let Some((kind, size)) = size else {
        return Err("no LUT_3D_SIZE or LUT_1D_SIZE line: not a .cube file".into());
    };
    let lut = CubeLut {
        title,
        kind,
        size,
        domain_min,
        domain_max,
        table,
    };
    lut.check()?;
    Ok(lut)
}

/// Exactly `N` finite numbers separated by whitespace in `text`, a part of `line`; errors
/// name the column of the bad word, not the word.
fn numbers<const N: usize>(line: &str, text: &str) -> std::result::Result<[f32; N], String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() != N {
        return Err(format!("expected {N} numbers, got {}", words.len()));
    }
    let mut out = [0.0f32; N];
    for (o, w) in out.iter_mut().zip(&words) {
        *o = w
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("column {}: expected a finite number", column(line, w)))?;
    }
    Ok(out)
}

/// Maps colours through a `.cube` LUT, mixed with the original by `intensity`.
#[derive(Clone, Debug)]
pub struct LutCube {
    lut: Arc<CubeLut>,
    /// Mix of the mapped colour with the original, 0 to 1.
    pub intensity: f32,
}

impl LutCube {
    /// Fails when `intensity` is outside [0, 1] or the LUT is inconsistent (size out of
    /// range, wrong number of entries, empty domain).
    pub fn new(lut: CubeLut, intensity: f32) -> Result<Self> {
        lut.check().map_err(|message| Error::BadParam {
            filter: DEF.name.into(),
            param: "file".into(),
            message,
        })?;
        Ok(Self {
            lut: Arc::new(lut),
            intensity: check_float(&DEF, "intensity", intensity)?,
        })
    }

    /// A LUT already checked and shared (the built-in looks): no copy of its table.
    pub fn shared(lut: Arc<CubeLut>, intensity: f32) -> Result<Self> {
        lut.check().map_err(|message| Error::BadParam {
            filter: DEF.name.into(),
            param: "file".into(),
            message,
        })?;
        Ok(Self {
            lut,
            intensity: check_float(&DEF, "intensity", intensity)?,
        })
    }

    /// The LUT it applies.
    pub fn lut(&self) -> &CubeLut {
        &self.lut
    }

    /// The LUT of the `.cube` file at `path`.
    pub fn open(path: impl AsRef<Path>, intensity: f32) -> Result<Self> {
        Self::new(CubeLut::open(path)?, intensity)
    }

    fn params(&self, count: u32) -> LutCubeParams {
        let l = &self.lut;
        LutCubeParams {
            domain_min: l.domain_min,
            count,
            inv_span: std::array::from_fn(|c| 1.0 / (l.domain_max[c] - l.domain_min[c])),
            size: l.size,
            intensity: self.intensity,
            ..Default::default()
        }
    }

    /// CPU twin of `look3d` / `look1d` in lut_cube.wgsl for one RGBA8 pixel; `u` is
    /// `self.params(..)`.
    fn pixel(&self, p: [u8; 4], u: &LutCubeParams) -> [u8; 4] {
        let c = p.map(|v| v as f32 / 255.0);
        let n = u.size as usize;
        let last = (u.size - 1) as f32;
        let mut index = [0usize; 3];
        let mut frac = [0.0f32; 3];
        for k in 0..3 {
            let t = ((c[k] - u.domain_min[k]) * u.inv_span[k]).clamp(0.0, 1.0) * last;
            index[k] = (t as usize).min(n - 2);
            frac[k] = t - index[k] as f32;
        }
        // the table as the GPU holds it: each value rounded to f16
        let f16 = |v: f32| half::f16::from_f32(v).to_f32();
        let at = |i: usize| self.lut.table[i].map(f16);
        let looked: [f32; 3] = match self.lut.kind {
            CubeKind::ThreeD => {
                let i = index[0] + n * (index[1] + n * index[2]);
                let (dg, db) = (n, n * n);
                let c00 = lerp3(at(i), at(i + 1), frac[0]);
                let c10 = lerp3(at(i + dg), at(i + dg + 1), frac[0]);
                let c01 = lerp3(at(i + db), at(i + db + 1), frac[0]);
                let c11 = lerp3(at(i + dg + db), at(i + dg + db + 1), frac[0]);
                lerp3(lerp3(c00, c10, frac[1]), lerp3(c01, c11, frac[1]), frac[2])
            }
            CubeKind::OneD => std::array::from_fn(|k| {
                let (lo, hi) = (at(index[k])[k], at(index[k] + 1)[k]);
                lo + (hi - lo) * frac[k]
            }),
        };
        let out = lerp3([c[0], c[1], c[2]], looked, u.intensity);
        [unorm8(out[0]), unorm8(out[1]), unorm8(out[2]), p[3]]
    }
}

fn lerp3(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    std::array::from_fn(|k| a[k] + (b[k] - a[k]) * t)
}

uniform_struct! {
    /// Uniform of lut_cube.wgsl.
    pub struct LutCubeParams {
        pub domain_min: [f32; 3],
        pub count: u32,
        /// `1 / (domain_max - domain_min)`, computed once for both sides.
        pub inv_span: [f32; 3],
        pub size: u32,
        pub intensity: f32,
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "lut_cube",
    family: Family::Lookup,
    summary: "Colour grading through an Adobe/Resolve .cube LUT file: 3D (trilinear) or 1D (per channel).",
    doc: "Reads the .cube file when the filter is built: TITLE, LUT_3D_SIZE (2-65) or LUT_1D_SIZE (2-65536), DOMAIN_MIN / \
DOMAIN_MAX (or Resolve's LUT_3D_INPUT_RANGE / LUT_1D_INPUT_RANGE), # comments, then one `r g b` line per entry with red \
varying fastest. Each input colour is mapped from the domain to the grid (clamped), interpolated trilinearly in the cube \
(3D) or linearly per channel (1D) in f32, mixed with the original by `intensity`, clamped to [0, 1]; alpha is kept. A \
malformed file is an error naming the problem and its line. GPU: the table is uploaded to a storage buffer, one kernel \
invocation per four pixels.",
    gpuimage: "",
    params: &[
        ParamDef::path("file", true, "cube", "the .cube LUT file"),
        ParamDef::float("intensity", 1.0, 0.0, 1.0, "mix between the original (0) and the looked-up colour (1)"),
    ],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| {
        let path = a.path("file")?.ok_or_else(|| Error::BadParam { filter: "lut_cube".into(), param: "file".into(), message: "is required: a .cube file path".into() })?;
        Ok(Box::new(LutCube::open(path, a.f32("intensity")?)?))
    },
    uniforms: &[LutCubeParams::layout(WGSL)],
    test_inputs: None,
    schedules: &[],
};

impl Filter for LutCube {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::Pixel
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        Ok(vec![ValueDesc::Image(expect_image(
            &DEF,
            inputs,
            0,
            &[PixelFormat::Rgba8],
        )?)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        let u = self.params(img.desc().pixels() as u32);
        let mut out = img.as_u8().to_vec();
        out.par_chunks_mut(4 * 1024).for_each(|chunk| {
            for p in chunk.chunks_exact_mut(4) {
                let q = self.pixel([p[0], p[1], p[2], p[3]], &u);
                p.copy_from_slice(&q);
            }
        });
        Ok(vec![Value::Image(Image::from_u8(
            img.width(),
            img.height(),
            PixelFormat::Rgba8,
            out,
        )?)])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let (src, dst, d) = one_to_one(&DEF, inputs, outputs)?;
        let count = d.pixels() as u32;
        let u = self.params(count);
        // uploaded once per LUT and device, kept across runs (a video, a preset)
        // entries as f16 (r, g | b, 0): 8 bytes a gather instead of 16 (H200 s9-b5: the f32
        // table took 0.36 ms at 4K for a 64^3 cube); the twin reads the same f16 values
        let table = rec.upload_cached(&self.lut, "lut_cube.table", || {
            let h = |v: f32| half::f16::from_f32(v).to_bits() as u32;
            let entries: Vec<[u32; 2]> = self
                .lut
                .table
                .iter()
                .map(|&[r, g, b]| [h(r) | (h(g) << 16), h(b)])
                .collect();
            bytemuck::cast_slice(&entries).to_vec()
        })?;
        let kernel = match self.lut.kind {
            CubeKind::ThreeD => Kernel::new("lut_cube.3d", &[LutCubeParams::WGSL, WGSL], "cube3d"),
            CubeKind::OneD => Kernel::new("lut_cube.1d", &[LutCubeParams::WGSL, WGSL], "cube1d"),
        };
        rec.dispatch(
            &kernel,
            &[&src.buffer, &table, &dst.buffer],
            bytemuck::bytes_of(&u),
            groups_1d((count as u64).div_ceil(4), LUT_CUBE_WG),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> std::result::Result<CubeLut, String> {
        CubeLut::parse(text, Path::new("t.cube")).map_err(|e| e.to_string())
    }

    /// The identity cube of size `n` as `.cube` text, after `header`.
    fn identity_3d(n: usize, header: &str) -> String {
        let mut s = format!("{header}LUT_3D_SIZE {n}\n");
        for b in 0..n {
            for g in 0..n {
                for r in 0..n {
                    let v = |i: usize| i as f32 / (n - 1) as f32;
                    s += &format!("{} {} {}\n", v(r), v(g), v(b));
                }
            }
        }
        s
    }

    #[test]
    fn parses_a_good_file() {
        let text = "\u{feff}# written by hand\r\nTITLE \"warm\"\r\n\r\nDOMAIN_MIN 0 0 0\r\nDOMAIN_MAX 1 2 1\r\nLUT_3D_SIZE 2\r\n\
                    0 0 0\r\n1 0 0\r\n0 1 0\r\n1 1 0\r\n# mid-table comment\r\n0 0 1\r\n1 0 1\r\n0 1 1\r\n1.0e0 1 .5\r\n";
        let l = parse(text).unwrap();
        assert_eq!(l.title.as_deref(), Some("warm"));
        assert_eq!(
            (l.kind, l.size, l.domain_max),
            (CubeKind::ThreeD, 2, [1.0, 2.0, 1.0])
        );
        assert_eq!(l.table.len(), 8);
        assert_eq!(l.table[1], [1.0, 0.0, 0.0]);
        assert_eq!(l.table[7], [1.0, 1.0, 0.5]);
        let l = parse("LUT_1D_SIZE 3\nLUT_1D_INPUT_RANGE 0.1 0.9\n0 0 0\n0.5 0.4 0.3\n1 1 -0.25\n")
            .unwrap();
        assert_eq!((l.kind, l.size, l.title.clone()), (CubeKind::OneD, 3, None));
        assert_eq!((l.domain_min, l.domain_max), ([0.1; 3], [0.9; 3]));
        assert_eq!(l.table[2], [1.0, 1.0, -0.25]);
    }

    #[test]
    fn malformed_files_are_one_line_errors() {
        let cases: &[(&str, &str)] = &[
            (
                "LUT_3D_SIZE 2\nLUT_4D_SIZE 3\n",
                "line 2, column 1: not a .cube line: expected TITLE, LUT_3D_SIZE",
            ),
            (
                "LUT_3D_SIZE 2\n0 0 0\n1 0 0\n",
                "LUT_3D_SIZE 2 needs 8 data lines, found 2",
            ),
            (
                "LUT_1D_SIZE 2\n0 0 0\n0.5 0.5 0.5\n1 1 1\n",
                "LUT_1D_SIZE 2 needs 2 data lines, found 3",
            ),
            (
                "LUT_3D_SIZE 66\n",
                "line 1: LUT_3D_SIZE needs a whole number in 2..=65",
            ),
            ("LUT_3D_SIZE 1\n", "LUT_3D_SIZE needs a whole number"),
            (
                "LUT_1D_SIZE 65537\n",
                "LUT_1D_SIZE needs a whole number in 2..=65536",
            ),
            (
                "LUT_3D_SIZE 2.5\n",
                "line 1: LUT_3D_SIZE needs a whole number in 2..=65",
            ),
            (
                "LUT_1D_SIZE 2\n0 0 0\n1 x 1\n",
                "line 3, column 3: expected a finite number",
            ),
            (
                "LUT_1D_SIZE 2\n0 0 0\n1 1\n",
                "line 3: expected 3 numbers, got 2",
            ),
            (
                "LUT_1D_SIZE 2\n0 0 0\n1 1 1 1\n",
                "expected 3 numbers, got 4",
            ),
            (
                "LUT_1D_SIZE 2\n0 0 0\n1 1 1e999\n",
                "line 3, column 5: expected a finite number",
            ),
            (
                "LUT_3D_SIZE 2\nLUT_1D_SIZE 2\n",
                "line 2: both LUT_1D_SIZE and LUT_3D_SIZE given",
            ),
            (
                "LUT_3D_SIZE 2\nLUT_3D_SIZE 3\n",
                "line 2: LUT_3D_SIZE given twice",
            ),
            (
                "DOMAIN_MAX 1 0 1\nLUT_1D_SIZE 2\n0 0 0\n1 1 1\n",
                "DOMAIN_MAX must exceed DOMAIN_MIN in every channel; green does not",
            ),
            ("DOMAIN_MIN 0 0\n", "line 1: expected 3 numbers, got 2"),
            (
                "LUT_1D_SIZE 2\n0 0 0\nTITLE \"late\"\n1 1 1\n",
                "line 3, column 1: a keyword line after the table data",
            ),
            ("TITLE \"no size\"\n", "no LUT_3D_SIZE or LUT_1D_SIZE line"),
            ("", "no LUT_3D_SIZE or LUT_1D_SIZE line"),
        ];
        for (text, want) in cases {
            let e = parse(text).unwrap_err();
            for word in [
                "LUT_4D_SIZE",
                "66",
                "65537",
                "2.5",
                "`x`",
                "1e999",
                "`TITLE`",
                "late",
            ] {
                assert!(!e.contains(word), "{text:?}: `{e}` quotes the file");
            }
            assert!(e.contains(want), "{text:?}: got `{e}`, want `{want}`");
            assert!(e.starts_with("file `t.cube`: ") && !e.contains('\n'), "{e}");
        }
        let e = CubeLut::open("/nonexistent/grade.cube")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("file `/nonexistent/grade.cube`: cannot read"),
            "{e}"
        );
    }

    #[test]
    fn identity_luts_keep_colours_and_intensity_mixes() {
        let identity = |text: &str| LutCube::new(parse(text).unwrap(), 1.0).unwrap();
        let one_d = identity("LUT_1D_SIZE 2\n0 0 0\n1 1 1\n");
        for f in [
            identity(&identity_3d(2, "")),
            identity(&identity_3d(17, "TITLE \"id\"\n")),
            one_d,
        ] {
            let u = f.params(1);
            for v in [0u8, 1, 77, 128, 254, 255] {
                let p = [v, 255 - v, v / 3, 9];
                assert_eq!(f.pixel(p, &u), p, "{:?} size {}", f.lut.kind, f.lut.size);
            }
        }
        // all-black cube at intensity 0.25: three quarters of the original
        let black = format!("LUT_3D_SIZE 2\n{}", "0 0 0\n".repeat(8));
        let f = LutCube::new(parse(&black).unwrap(), 0.25).unwrap();
        // a LUT built by hand is checked as a parsed one is
        let mut short = parse(&black).unwrap();
        short.table.pop();
        assert!(LutCube::new(short, 1.0)
            .unwrap_err()
            .to_string()
            .contains("needs 8 data lines, found 7"));
        assert_eq!(f.pixel([200, 100, 0, 50], &f.params(1)), [150, 75, 0, 50]);
        // a domain of [0, 0.5] saturates the upper half
        let f = identity(&identity_3d(3, "DOMAIN_MAX 0.5 0.5 0.5\n"));
        assert_eq!(
            f.pixel([64, 128, 255, 255], &f.params(1)),
            [128, 255, 255, 255]
        );
    }
}
