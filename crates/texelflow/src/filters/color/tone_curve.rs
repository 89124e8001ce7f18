//! Per-channel tone curves from control points, or from a Photoshop `.acv` file. Matches
//! GPUImage's `GPUImageToneCurveFilter`: each curve is a natural cubic spline through its
//! points on the 0..255 scale (second derivative 0 at both ends), evaluated at the 256 byte
//! values and clamped to 0..255; a channel's output is the composite (RGB) curve applied to
//! that channel's curve: out = rgb(red(in)) for red, and so on. Alpha is kept.
//!
//! Where this differs from GPUImage, on purpose: values are rounded to the nearest byte
//! (GPUImage truncates, a half-level darkening); below the first and above the last control
//! point the curve holds that point's y (Photoshop's rule; GPUImage pads with 0 below and
//! 255 above, the same thing when the end points sit at y = 0 and y = 1); GPUImage's
//! off-by-one shift of the whole curve when the first point has x > 0 is not reproduced;
//! each byte reads its own table entry (GPUImage samples its 256x1 texture at u = c with
//! linear filtering, half a texel off).
//!
//! GPU: the three curves are one 256-entry table (entry b holds the R, G and B outputs for
//! input byte b in its low three bytes), uploaded as the filter's uniform block; the WGSL
//! looks each channel up, reading the table in place (`PixelOp::body_by_reference`). The CPU
//! twin evaluates the splines instead.

use std::path::Path;
use std::sync::OnceLock;

use crate::error::{Error, Result};
use crate::filters::registry::{Family, FilterDef, EXACT_ENOUGH, IMAGE};
use crate::filters::shape::pixel::{PixelAt, PixelOp};
use crate::graph::params::{check_points, check_value, points_raw, ParamDef};
use crate::runtime::uniform::UniformBlock;

/// Most control points per curve (Photoshop's curves dialog allows 16).
pub const MAX_POINTS: usize = 32;
/// The default curve, GPUImage's: the identity through (0.5, 0.5).
const IDENTITY: &[f64] = &[0.0, 0.0, 0.5, 0.5, 1.0, 1.0];
/// Curve names in `.acv` order, which is also the order of `ToneCurve::curves`.
const CURVE_NAMES: [&str; 4] = ["rgb", "red", "green", "blue"];

/// Per-channel tone curves: red, green and blue, then the composite `rgb` curve on each.
#[derive(Clone, Debug)]
pub struct ToneCurve {
    /// Composite, red, green, blue.
    curves: [Spline; 4],
}

impl ToneCurve {
    /// Curves from control points `[x, y]` in [0, 1], 2 to `MAX_POINTS` per curve with x
    /// strictly increasing; fails with the parameter's name otherwise.
    pub fn new(
        rgb: &[[f64; 2]],
        red: &[[f64; 2]],
        green: &[[f64; 2]],
        blue: &[[f64; 2]],
    ) -> Result<Self> {
        let points = [rgb, red, green, blue];
        for (name, p) in CURVE_NAMES.iter().zip(points) {
            check_value(&DEF, name, points_raw(p))?;
        }
        Ok(Self {
            curves: points.map(Spline::new),
        })
    }

    /// Curves from a Photoshop `.acv` file (`parse_acv`).
    pub fn from_acv_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        // a Photoshop curve file is 5 curves of at most 19 points: well under a kilobyte
        let bytes = crate::input::read_capped(path, 64 << 10, "the largest .acv file read")
            .map_err(|why| Error::BadFile {
                path: path.to_path_buf(),
                message: format!("cannot read: {why}"),
            })?;
        let curves = parse_acv(&bytes, path)?;
        Ok(Self {
            curves: curves.each_ref().map(|p| Spline::new(p)),
        })
    }

    /// Output byte of `channel` (0 red, 1 green, 2 blue) for input byte `v`: the channel's
    /// curve, rounded, then the composite curve at that byte, rounded.
    pub fn curve_byte(&self, channel: usize, v: u8) -> u8 {
        let c = to_byte(self.curves[1 + channel].eval(v as f64));
        to_byte(self.curves[0].eval(c as f64))
    }

    /// The GPU table: entry b (vector b / 4, component b % 4) holds the red, green and blue
    /// outputs for input byte b in bits 0-7, 8-15 and 16-23.
    pub fn packed_table(&self) -> [[u32; 4]; 64] {
        let mut table = [[0u32; 4]; 64];
        for b in 0..=255u8 {
            let [r, g, bl] = [0, 1, 2].map(|k| self.curve_byte(k, b) as u32);
            table[b as usize / 4][b as usize % 4] = r | (g << 8) | (bl << 16);
        }
        table
    }
}

impl Default for ToneCurve {
    fn default() -> Self {
        let identity: Vec<[f64; 2]> = IDENTITY.chunks_exact(2).map(|p| [p[0], p[1]]).collect();
        Self {
            curves: std::array::from_fn(|_| Spline::new(&identity)),
        }
    }
}

/// The nearest byte of a curve value, clamped to 0..255.
fn to_byte(y: f64) -> u8 {
    (y.clamp(0.0, 255.0) + 0.5).floor() as u8
}

/// A natural cubic spline through control points on the 0..255 scale.
#[derive(Clone, Debug)]
struct Spline {
    /// `[x, y]`, x strictly increasing.
    points: Vec<[f64; 2]>,
    /// The second derivative at each point; 0 at both ends.
    second: Vec<f64>,
}

impl Spline {
    /// The spline through `points` (in [0, 1], at least 2, x strictly increasing: checked
    /// by the callers), scaled to 0..255 as GPUImage does before fitting.
    fn new(points: &[[f64; 2]]) -> Self {
        let p: Vec<[f64; 2]> = points
            .iter()
            .map(|&[x, y]| [x * 255.0, y * 255.0])
            .collect();
        let n = p.len();
        // Tridiagonal system for the interior second derivatives (sub, diag, super, rhs),
        // solved by forward elimination and back substitution; the end rows are M = 0.
        let mut diag = vec![1.0; n];
        let mut sup = vec![0.0; n];
        let mut rhs = vec![0.0; n];
        for i in 1..n.saturating_sub(1) {
            let (h0, h1) = (p[i][0] - p[i - 1][0], p[i + 1][0] - p[i][0]);
            let sub = h0 / 6.0;
            diag[i] = (h0 + h1) / 3.0;
            sup[i] = h1 / 6.0;
            rhs[i] = (p[i + 1][1] - p[i][1]) / h1 - (p[i][1] - p[i - 1][1]) / h0;
            // eliminate the sub-diagonal with the previous row
            let k = sub / diag[i - 1];
            diag[i] -= k * sup[i - 1];
            rhs[i] -= k * rhs[i - 1];
        }
        let mut second = vec![0.0; n];
        for i in (1..n.saturating_sub(1)).rev() {
            second[i] = (rhs[i] - sup[i] * second[i + 1]) / diag[i];
        }
        Self { points: p, second }
    }

    /// The curve at `x` (0..255); outside the control points, the nearest end point's y.
    fn eval(&self, x: f64) -> f64 {
        let p = &self.points;
        let (first, last) = (p[0], p[p.len() - 1]);
        if x <= first[0] {
            return first[1];
        }
        if x >= last[0] {
            return last[1];
        }
        // the segment [p[k], p[k + 1]] holding x
        let k = p.partition_point(|q| q[0] <= x) - 1;
        let h = p[k + 1][0] - p[k][0];
        let b = (x - p[k][0]) / h;
        let a = 1.0 - b;
        a * p[k][1]
            + b * p[k + 1][1]
            + h * h / 6.0
                * ((a * a * a - a) * self.second[k] + (b * b * b - b) * self.second[k + 1])
    }
}

/// The four curves of a Photoshop `.acv` file (composite, red, green, blue) as control
/// points in [0, 1]. The file is big-endian u16s: a version, the curve count, then per
/// curve a point count and (output, input) pairs in 0..255. Curves past the fourth are
/// read and ignored; a file with fewer than four leaves the rest the identity. `path`
/// names the file in errors.
pub fn parse_acv(bytes: &[u8], path: &Path) -> Result<[Vec<[f64; 2]>; 4]> {
    // Messages give byte offsets and what was expected, never values read from the file: a
    // spec may name any file (issue 29 item 14).
    let bad = |message: String| Error::BadFile {
        path: path.to_path_buf(),
        message,
    };
    let len = bytes.len();
    let mut words = bytes
        .chunks_exact(2)
        .map(|w| u16::from_be_bytes([w[0], w[1]]))
        .enumerate();
    let mut next = |what: &dyn Fn() -> String| {
        words.next().map(|(k, w)| (2 * k, w)).ok_or_else(|| {
            bad(format!(
                "truncated .acv file: it ends at byte {len}, before {}",
                what()
            ))
        })
    };
    let _version = next(&|| "the version".into())?;
    let (_, count) = next(&|| "the curve count".into())?;
    if count == 0 {
        return Err(bad(
            "the .acv file holds no curves (curve count 0 at byte 2)".into(),
        ));
    }
    let identity: Vec<[f64; 2]> = IDENTITY.chunks_exact(2).map(|p| [p[0], p[1]]).collect();
    let mut curves: [Vec<[f64; 2]>; 4] = std::array::from_fn(|_| identity.clone());
    for c in 0..count as usize {
        let name = CURVE_NAMES.get(c).map_or_else(
            || format!("curve {}", c + 1),
            |n| format!("curve {} ({n})", c + 1),
        );
        let (at, n) = next(&|| format!("the point count of {name}"))?;
        let n = n as usize;
        if !(2..=MAX_POINTS).contains(&n) {
            return Err(bad(format!(
                "{name}: the point count at byte {at} is outside 2..={MAX_POINTS}: not a \
                 Photoshop .acv curve file"
            )));
        }
        let mut flat: Vec<f64> = Vec::with_capacity(2 * n);
        for k in 0..n {
            let (at, y) = next(&|| format!("point {} of {name} ({n} points)", k + 1))?;
            let (_, x) = next(&|| format!("point {} of {name} ({n} points)", k + 1))?;
            if x > 255 || y > 255 {
                return Err(bad(format!(
                    "{name}: point {} (bytes {at}..{}) is outside 0..255",
                    k + 1,
                    at + 4
                )));
            }
            let x = x as f64 / 255.0;
            if flat.len() >= 2 && x <= flat[flat.len() - 2] {
                return Err(bad(format!(
                    "{name}: point {} (bytes {at}..{}): x must increase strictly",
                    k + 1,
                    at + 4
                )));
            }
            flat.extend([x, y as f64 / 255.0]);
        }
        let points = check_points(&flat, MAX_POINTS)
            .map_err(|_| bad(format!("{name}: not a valid curve")))?;
        if let Some(slot) = curves.get_mut(c) {
            *slot = points;
        }
    }
    Ok(curves)
}

const WGSL_BODY: &str = "    // the byte each channel holds (c is on the 8-bit grid), then its table entry
    let i = vec3<u32>(round(clamp(c.rgb, vec3<f32>(0.0), vec3<f32>(1.0)) * 255.0));
    // from the storage copy of the block (word pw + v is entry v), not the uniform: every
    // invocation reads another entry (H200 s9-b2/b3: from the uniform 2.71x copy tabulated, 7.9x per pixel)
    let r = chain_words[pw + i.r] & 0xffu;
    let g = (chain_words[pw + i.g] >> 8u) & 0xffu;
    let b = (chain_words[pw + i.b] >> 16u) & 0xffu;
    return vec4<f32>(vec3<f32>(f32(r), f32(g), f32(b)) / 255.0, c.a);";

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "tone_curve",
    family: Family::Color,
    summary: "Per-channel tone curves through control points (natural cubic splines), or a Photoshop .acv file.",
    doc: "Each curve is a natural cubic spline through its control points, written flat as x0,y0, x1,y1, ... in [0, 1] \
          with x increasing, e.g. tone_curve(rgb=[0,0, 0.25,0.15, 0.75,0.85, 1,1], blue=[0,0.1, 1,0.9]). Per channel: \
          out = rgb(channel(in)), each curve evaluated at the byte, clamped to 0..255 and rounded; outside its first and \
          last points a curve holds their y. file=curves.acv reads Photoshop's curves file (composite, red, green, blue) \
          instead of the point parameters. GPU: one 256-entry table looked up per channel (schedule `table`, by \
          default, tabulates the chain per workgroup; `pixel` looks up per pixel).",
    gpuimage: "GPUImageToneCurveFilter",
    params: &[
        ParamDef::points("rgb", IDENTITY, MAX_POINTS, "composite curve, applied after each channel's own"),
        ParamDef::points("red", IDENTITY, MAX_POINTS, "red curve"),
        ParamDef::points("green", IDENTITY, MAX_POINTS, "green curve"),
        ParamDef::points("blue", IDENTITY, MAX_POINTS, "blue curve"),
        ParamDef::path("file", false, "acv", "Photoshop curves file; when given, replaces the point parameters"),
    ],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| {
        let f = match a.path("file")? {
            Some(path) => ToneCurve::from_acv_file(path)?,
            None => ToneCurve::new(&a.points("rgb")?, &a.points("red")?, &a.points("green")?, &a.points("blue")?)?,
        };
        Ok(Box::new(f))
    },
    uniforms: &[],
    test_inputs: None,
    schedules: &["pixel"],
};

impl PixelOp for ToneCurve {
    const DEF: &'static FilterDef = &DEF;
    const FN_NAME: &'static str = "tone_curve";
    const PARAMS_STRUCT: &'static str = "ToneCurveParams";
    const PER_CHANNEL: bool = true;
    // Looked up per pixel, the 1 KiB parameter table is indexed dynamically; tabulated, the
    // chain runs once per byte value per workgroup.
    const TABLE_BY_DEFAULT: bool = true;
    fn uniform(&self) -> UniformBlock {
        UniformBlock::new().field("curves", &self.packed_table())
    }
    fn wgsl() -> &'static str {
        static SRC: OnceLock<String> = OnceLock::new();
        SRC.get_or_init(|| Self::default().uniform().wgsl_struct(Self::PARAMS_STRUCT))
    }
    // The table is indexed by the pixel's bytes: read in place, not copied per call.
    fn body_by_reference() -> Option<&'static str> {
        Some(WGSL_BODY)
    }
    fn apply(&self, c: [f32; 4], _at: PixelAt) -> [f32; 4] {
        let out = |k: usize| {
            self.curve_byte(k, (c[k].clamp(0.0, 1.0) * 255.0).round() as u8) as f32 / 255.0
        };
        [out(0), out(1), out(2), c[3]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acv(curves: &[&[(u16, u16)]]) -> Vec<u8> {
        let mut words = vec![4u16, curves.len() as u16];
        for c in curves {
            words.push(c.len() as u16);
            for &(x, y) in c.iter() {
                words.extend([y, x]);
            }
        }
        words.iter().flat_map(|w| w.to_be_bytes()).collect()
    }

    #[test]
    fn identity_curves_change_nothing() {
        let f = ToneCurve::default();
        for b in 0..=255u8 {
            assert_eq!([0, 1, 2].map(|k| f.curve_byte(k, b)), [b; 3]);
        }
        let t = f.packed_table();
        assert_eq!(t[0][1], 0x01_01_01);
        assert_eq!(t[63][3], 0xff_ff_ff);
    }

    #[test]
    fn spline_matches_gpuimage() {
        // GPUImage's showcase blue curve gives 0, 69, 127, 165, 191 at these bytes, truncating
        // the spline; the same spline here (rounded in the table).
        let pts = [[0.0, 0.0], [0.5, 0.5], [1.0, 0.75]];
        let s = Spline::new(&pts);
        assert_eq!(
            [0.0, 64.0, 128.0, 192.0, 255.0].map(|x| s.eval(x).floor()),
            [0.0, 69.0, 127.0, 165.0, 191.0]
        );
        let id = [[0.0, 0.0], [0.5, 0.5], [1.0, 1.0]];
        let f = ToneCurve::new(&id, &id, &id, &pts).unwrap();
        assert_eq!(
            [0u8, 64, 128, 192, 255].map(|b| f.curve_byte(2, b)),
            [0, 70, 128, 166, 191]
        );
        // the spline passes through its points and holds the end values outside them
        let s = Spline::new(&[[0.2, 0.1], [0.4, 0.6], [0.7, 0.3], [0.9, 0.8]]);
        for [x, y] in s.points.clone() {
            assert!((s.eval(x) - y).abs() < 1e-9);
        }
        assert_eq!((s.eval(0.0), s.eval(255.0)), (0.1 * 255.0, 0.8 * 255.0));
    }

    #[test]
    fn composite_applies_after_the_channel() {
        // red halves, composite inverts: out = 255 - round(b / 2)
        let id = [[0.0, 0.0], [1.0, 1.0]];
        let f = ToneCurve::new(
            &[[0.0, 1.0], [1.0, 0.0]],
            &[[0.0, 0.0], [1.0, 0.5]],
            &id,
            &id,
        )
        .unwrap();
        assert_eq!(f.curve_byte(0, 200), 155);
        assert_eq!(f.curve_byte(1, 200), 55);
    }

    #[test]
    fn bad_points_name_the_parameter() {
        let id = [[0.0, 0.0], [1.0, 1.0]];
        let e = ToneCurve::new(&id, &[[0.5, 0.0], [0.5, 1.0]], &id, &id)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`red`") && e.contains("x must increase strictly"),
            "{e}"
        );
        let many: Vec<[f64; 2]> = (0..33).map(|k| [k as f64 / 32.0, 0.5]).collect();
        let e = ToneCurve::new(&many, &id, &id, &id)
            .unwrap_err()
            .to_string();
        assert!(e.contains("too many points: 33 (at most 32)"), "{e}");
    }

    #[test]
    /// Issue 29 item 14 too: messages give byte offsets, never values from the file.
    fn acv_files_parse_and_malformed_ones_are_errors() {
        let p = Path::new("c.acv");
        let file = acv(&[
            &[(0, 0), (128, 160), (255, 255)],
            &[(0, 20), (255, 255)],
            &[(0, 0), (255, 255)],
            &[(0, 0), (255, 230)],
            &[(0, 0), (255, 255)],
        ]);
        let c = parse_acv(&file, p).unwrap();
        assert_eq!(
            c[0],
            vec![[0.0, 0.0], [128.0 / 255.0, 160.0 / 255.0], [1.0, 1.0]]
        );
        assert_eq!(c[1][0], [0.0, 20.0 / 255.0]);
        assert_eq!(c[3][1], [1.0, 230.0 / 255.0]);
        // one curve only: the channels stay the identity
        let c = parse_acv(&acv(&[&[(0, 0), (255, 200)]]), p).unwrap();
        assert_eq!(c[2], vec![[0.0, 0.0], [0.5, 0.5], [1.0, 1.0]]);

        let err = |bytes: &[u8]| parse_acv(bytes, p).unwrap_err().to_string();
        assert!(err(&[]).contains("ends at byte 0, before the version"));
        assert!(err(&[0, 4, 0]).contains("ends at byte 3, before the curve count"));
        assert!(err(&acv(&[])).contains("no curves"));
        let truncated = &file[..file.len() - 3];
        assert!(
            err(truncated).contains("ends at byte 55, before point 2 of curve 5 (2 points)"),
            "{}",
            err(truncated)
        );
        assert!(err(&acv(&[&[(0, 0), (300, 255)]]))
            .contains("curve 1 (rgb): point 2 (bytes 10..14) is outside 0..255"));
        assert!(!err(&acv(&[&[(0, 0), (300, 255)]])).contains("300"));
        assert!(err(&acv(&[&[(0, 0), (100, 50), (100, 60)]]))
            .contains("curve 1 (rgb): point 3 (bytes 14..18): x must increase strictly"));
        assert!(err(&acv(&[&[(0, 0)]])).contains("point count at byte 4 is outside 2..=32"));
        let many: Vec<(u16, u16)> = (0..40).map(|k| (k * 6, k)).collect();
        assert!(!err(&acv(&[&many])).contains("40"));
        assert!(err(&acv(&[&many])).contains("point count at byte 4 is outside 2..=32"));
        let e = ToneCurve::from_acv_file("/nonexistent/curve.acv")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("file `/nonexistent/curve.acv`: cannot read"),
            "{e}"
        );
    }
}
