//! Bilateral filter (edge-preserving smoothing), as OpenCV's `bilateralFilter` on 8-bit colour:
//! the window is the disc of `radius` pixels, the spatial weight exp(-d² / 2σs²), the range
//! weight exp(-D² / 2σc²) with D the L1 distance of the colours in 8-bit levels (OpenCV's
//! choice for 3 channels). GPUImage's `GPUImageBilateralFilter` approximates this with two
//! separable 9-tap passes; this is the full 2D filter. Borders replicate the edge pixel
//! (OpenCV's `BORDER_REPLICATE`), or with `border=reflect` reflect as OpenCV's default
//! (BORDER_REFLECT_101, through pad and crop: `shape::border`); alpha is kept.
//!
//! Kernels (schedules, `Schedule`): `direct` (one output per invocation, the disc walked by a
//! loop, buffer loads and one `exp` per tap) and the tile kernels of `bilateral_tile*.wgsl`
//! (the input in workgroup memory, a block of outputs per invocation, the walk generated for the
//! radius by `tile_source`).

use std::fmt::Write as _;

use bytemuck::Zeroable;

use crate::error::{Error, Result};
use crate::filters::registry::{
    expect_image, input_image, slot_image, Family, Filter, FilterDef, EXACT_ENOUGH, IMAGE,
};
use crate::graph::params::{check_float, check_int, ParamDef};
use crate::image::{unorm8, Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::wgsl_template::{replace_block, specialize};
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

const WGSL: &str = include_str!("bilateral.wgsl");
const TILE_WGSL: &str = include_str!("bilateral_tile.wgsl");
const TILE_RGBA_WGSL: &str = include_str!("bilateral_tile_rgba.wgsl");
const TILE_GRAY_WGSL: &str = include_str!("bilateral_tile_gray.wgsl");
/// Invocations per workgroup of the tile kernels (WX x WY in bilateral_tile.wgsl).
const TILE_WX: u32 = 32;
const TILE_WY: u32 = 8;
/// Largest radius of the tile kernels: the uniform's spatial tables hold d2 <= 127.
const TILE_MAX_RADIUS: u32 = 11;
/// Entries of the range table (L1 distances 0..=765, padded to whole vec4s).
const RANGE_ENTRIES: usize = 768;

/// Bilateral filter: a mean over a disc weighted by distance and colour difference (OpenCV's `bilateralFilter`).
#[derive(Clone, Debug)]
pub struct Bilateral {
    /// Window radius in pixels.
    pub radius: u32,
    /// Range sigma, in 8-bit levels of the summed channel differences.
    pub sigma_color: f32,
    /// Spatial sigma in pixels.
    pub sigma_space: f32,
}

impl Bilateral {
    /// Fails when a parameter is outside its declared range.
    pub fn new(radius: u32, sigma_color: f32, sigma_space: f32) -> Result<Self> {
        Ok(Self {
            radius: check_int(&DEF, "radius", radius)?,
            sigma_color: check_float(&DEF, "sigma_color", sigma_color)?,
            sigma_space: check_float(&DEF, "sigma_space", sigma_space)?,
        })
    }
    fn params(&self, width: u32, height: u32) -> BilateralParams {
        BilateralParams {
            width,
            height,
            radius: self.radius as i32,
            space_coeff: -0.5 / (self.sigma_space * self.sigma_space),
            color_coeff: -0.5 / (self.sigma_color * self.sigma_color),
            ..Default::default()
        }
    }
}

/// OpenCV's two weight tables (bilateralFilter's `space_weight` and `color_weight`), in f32:
/// the spatial weight of each squared distance 0..=radius², the range weight of each L1 colour
/// distance 0..RANGE_ENTRIES. The twin weighs a tap by their product; the `tile_lut` kernel
/// reads the same numbers from its uniform.
pub struct Weights {
    /// Spatial weight per squared distance 0..=radius².
    pub space: Vec<f32>,
    /// Range weight per L1 colour distance.
    pub color: Vec<f32>,
}

impl Bilateral {
    /// This filter's weight tables.
    pub fn weights(&self) -> Weights {
        let p = self.params(0, 0);
        let r2 = self.radius * self.radius;
        Weights {
            space: (0..=r2)
                .map(|d2| (d2 as f32 * p.space_coeff).exp())
                .collect(),
            color: (0..RANGE_ENTRIES as u32)
                .map(|d| ((d * d) as f32 * p.color_coeff).exp())
                .collect(),
        }
    }

    /// The tile kernels' uniform (spatial tables to d2 = 127, so radius <= TILE_MAX_RADIUS).
    fn tile_params(&self, width: u32, height: u32) -> BilateralTileParams {
        let p = self.params(width, height);
        let w = self.weights();
        let mut u = BilateralTileParams::zeroed();
        (u.width, u.height, u.words) = (width, height, width.div_ceil(4));
        u.color_log2 = p.color_coeff * std::f32::consts::LOG2_E;
        for (d2, &sw) in w.space.iter().enumerate().take(4 * u.space_w.len()) {
            u.space_log2[d2 / 4][d2 % 4] = d2 as f32 * (p.space_coeff * std::f32::consts::LOG2_E);
            u.space_w[d2 / 4][d2 % 4] = sw;
        }
        for (d, &cw) in w.color.iter().enumerate() {
            u.color_w[d / 4][d % 4] = cw;
        }
        u
    }
}

impl Default for Bilateral {
    fn default() -> Self {
        Self {
            radius: 5,
            sigma_color: 30.0,
            sigma_space: 3.0,
        }
    }
}

uniform_struct! {
    /// Uniform of the direct kernels (bilateral.wgsl).
    pub struct BilateralParams {
        pub width: u32,
        pub height: u32,
        pub radius: i32,
        /// -1 / (2 sigma_space^2), per squared pixel.
        pub space_coeff: f32,
        /// -1 / (2 sigma_color^2), per squared level of the L1 colour distance.
        pub color_coeff: f32,
    }
}

uniform_struct! {
    /// Uniform of the tile kernels (bilateral_tile.wgsl).
    pub struct BilateralTileParams {
        pub width: u32,
        pub height: u32,
        /// Gray8: words per row (4 pixels a word).
        pub words: u32,
        /// -log2(e) / (2 sigma_color^2): the range term's log2 per squared level.
        pub color_log2: f32,
        /// [d2 / 4][d2 % 4]: d2 * -log2(e) / (2 sigma_space^2), d2 <= 127.
        pub space_log2: [[f32; 4]; 32],
        /// [d2 / 4][d2 % 4]: exp(-d2 / (2 sigma_space^2)).
        pub space_w: [[f32; 4]; 32],
        /// [D / 4][D % 4]: exp(-D^2 / (2 sigma_color^2)), D <= 767.
        pub color_w: [[f32; 4]; RANGE_ENTRIES / 4],
    }
}

/// Kernel shape (schedule, not algorithm): the math is the same in every one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    /// One output per invocation, the disc walked by a loop, buffer loads, one `exp` per tap.
    Direct,
    /// The tile kernels: `rows` output rows per invocation on RGBA8 (one column; on Gray8 a
    /// word of 4 outputs and half as many rows, at least one); `lut`: the range weight from a
    /// table in workgroup memory times the spatial weight, else exp2 of the summed log2 terms.
    Tile {
        /// Output rows per invocation on RGBA8.
        rows: u32,
        /// The range weight from a table in workgroup memory.
        lut: bool,
    },
}

impl Schedule {
    /// The default, for a radius and whether its tile fits the device's workgroup memory.
    pub fn choose(radius: u32, tile_fits: bool) -> Schedule {
        match (radius, tile_fits) {
            // the tile's spatial tables hold d2 <= 127 / the device's workgroup memory is too small
            (r, fits) if r > TILE_MAX_RADIUS || !fits => Schedule::Direct,
            // H200 4K r=5 (session 13): 2 rows per invocation 0.418 ms (gray8 0.240), 4 rows
            // 0.492 (0.406), the range table 0.606 (0.273), direct 0.940 (0.755)
            _ => Schedule::Tile {
                rows: 2,
                lut: false,
            },
        }
    }

    /// A schedule by its variant name (`DEF.schedules`).
    pub fn parse(v: &str) -> Result<Schedule> {
        match v {
            "direct" => Ok(Schedule::Direct),
            "tile" => Ok(Schedule::Tile {
                rows: 4,
                lut: false,
            }),
            "tile_bh2" => Ok(Schedule::Tile {
                rows: 2,
                lut: false,
            }),
            "tile_lut" => Ok(Schedule::Tile { rows: 4, lut: true }),
            other => Err(crate::runtime::schedule::unknown(
                DEF.name,
                other,
                DEF.schedules,
            )),
        }
    }
}

/// Shape of a tile kernel: output rows per invocation, tile size in pixels, left halo.
#[derive(Clone, Copy, Debug)]
struct TileShape {
    gray: bool,
    radius: u32,
    /// output rows per invocation
    bh: u32,
    /// outputs per row per invocation: 4 on Gray8 (a word), else 1
    bw: u32,
    /// tile width and height (input pixels) and the left halo (Gray8: the radius in whole words)
    iw: u32,
    ih: u32,
    rl: u32,
    lut: bool,
}

impl TileShape {
    fn new(gray: bool, radius: u32, rows: u32, lut: bool) -> TileShape {
        let (bw, bh, rl) = if gray {
            (4, (rows / 2).max(1), radius.next_multiple_of(4))
        } else {
            (1, rows, radius)
        };
        TileShape {
            gray,
            radius,
            bh,
            bw,
            iw: TILE_WX * bw + 2 * rl,
            ih: TILE_WY * bh + 2 * radius,
            rl,
            lut,
        }
    }
    /// Workgroup memory of the kernel in bytes.
    fn bytes(&self) -> u64 {
        let texel = if self.gray { 4 } else { 16 };
        (self.iw * self.ih) as u64 * texel
            + if self.lut {
                RANGE_ENTRIES as u64 * 4
            } else {
                0
            }
    }
}

/// The tile kernel's source: the preamble and the format's entry, specialised, with the window
/// walk generated for the radius.
fn tile_source(t: TileShape) -> Result<String> {
    let entry = if t.gray {
        TILE_GRAY_WGSL
    } else {
        TILE_RGBA_WGSL
    };
    let mut consts = vec![("R", t.radius), ("BH", t.bh), ("IW", t.iw), ("IH", t.ih)];
    if t.gray {
        consts.push(("RL", t.rl));
    }
    let s = specialize(
        &format!("{}{TILE_WGSL}\n{entry}", BilateralTileParams::WGSL),
        &consts,
    )?;
    let (table, fill) = if t.lut {
        (
            format!(
                "var<workgroup> range_w: array<f32, {RANGE_ENTRIES}>;
"
            ),
            format!(
                "    for (var i = lid.y * WX + lid.x; i < {RANGE_ENTRIES}u; i += WX * WY) {{
        range_w[i] = bp.color_w[i / 4u][i % 4u];
    }}
"
            ),
        )
    } else {
        (String::new(), String::new())
    };
    let s = replace_block(&s, "range_table", &table)?;
    let s = replace_block(&s, "range_fill", &fill)?;
    replace_block(&s, "window", &tile_window(t))
}

/// The generated walk: each output's centre and sums, then every tile pixel some output of the
/// block uses (read once) with the terms of each output whose disc holds it, then the stores.
fn tile_window(t: TileShape) -> String {
    let (r, bw, bh, iw) = (t.radius as i32, t.bw as i32, t.bh as i32, t.iw as i32);
    let outputs: Vec<(i32, i32)> = (0..bh).flat_map(|v| (0..bw).map(move |b| (v, b))).collect();
    // tile offset from `base` of the pixel at row j and column i relative to the block's first output
    let offset = |j: i32, i: i32| -> i32 {
        if t.gray {
            let col = t.rl as i32 + i;
            (j + r) * iw + (col & 3) * (iw / 4) + col / 4
        } else {
            (j + r) * iw + r + i
        }
    };
    let mut s = String::new();
    for (o, &(v, b)) in outputs.iter().enumerate() {
        let zero = if t.gray { "0.0" } else { "vec3<f32>(0.0)" };
        let _ = writeln!(
            s,
            "    let c{o} = tile[base + {}u];
    var s{o} = {zero};
    var n{o} = 0.0;",
            offset(v, b)
        );
    }
    for j in -r..bh + r {
        for i in -r..bw + r {
            let users: Vec<(usize, i32)> = outputs
                .iter()
                .enumerate()
                .map(|(o, &(v, b))| (o, (j - v) * (j - v) + (i - b) * (i - b)))
                .filter(|&(_, d2)| d2 <= r * r)
                .collect();
            if users.is_empty() {
                continue;
            }
            let _ = writeln!(
                s,
                "    {{
        let q = tile[base + {}u]{};",
                offset(j, i),
                if t.gray { "" } else { ".xyz" }
            );
            for (o, d2) in users {
                let (k, c) = (d2 / 4, d2 % 4);
                // the L1 distance (Gray8: its signed difference, squared alike) and the weight
                let (dist, d, vq, vw) = if t.gray {
                    (format!("let e = q - c{o};"), ("e * e", "abs(e)"), "q", "w")
                } else {
                    (
                        format!("let e = abs(q - c{o}.xyz); let d = e.x + e.y + e.z;"),
                        ("d * d", "d"),
                        "q",
                        "vec3<f32>(w)",
                    )
                };
                let weight = if t.lut {
                    format!("bp.space_w[{k}][{c}] * range_w[range_index({})]", d.1)
                } else {
                    format!("exp2(fma({}, bp.color_log2, bp.space_log2[{k}][{c}]))", d.0)
                };
                let _ = writeln!(s, "        {{ {dist} let w = {weight}; s{o} = fma({vq}, {vw}, s{o}); n{o} += w; }}");
            }
            s.push_str(
                "    }
",
            );
        }
    }
    if t.gray {
        s.push_str(
            "    if (xw < bp.words) {
",
        );
        for v in 0..bh {
            let _ = writeln!(
                s,
                "        if (y + {v}u < bp.height) {{
            var packed = 0u;"
            );
            for b in 0..bw {
                let o = (v * bw + b) as usize;
                let _ = writeln!(s, "            if (xw * 4u + {b}u < bp.width) {{ packed |= (unorm_pack(vec4<f32>(s{o} / n{o} / 255.0)) & 255u) << {}u; }}", 8 * b);
            }
            let _ = writeln!(
                s,
                "            dst[(y + {v}u) * bp.words + xw] = packed;
        }}"
            );
        }
        s.push_str(
            "    }
",
        );
    } else {
        s.push_str(
            "    if (x < bp.width) {
",
        );
        for v in 0..bh {
            let _ = writeln!(s, "        if (y + {v}u < bp.height) {{ dst[(y + {v}u) * bp.width + x] = unorm_pack(vec4<f32>(s{v} / n{v}, c{v}.w) / 255.0); }}");
        }
        s.push_str(
            "    }
",
        );
    }
    s
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "bilateral",
    family: Family::Neighborhood,
    summary: "Edge-preserving smoothing: a mean over a disc weighted by distance and colour difference; alpha kept.",
    doc: "OpenCV's bilateralFilter for 8-bit colour: the disc of `radius` pixels (OpenCV's d = 2 radius + 1), spatial \
          weight exp(-d² / 2 sigma_space²), range weight exp(-D² / 2 sigma_color²) with D = |ΔR| + |ΔG| + |ΔB| in levels \
          (0-255; on Gray8 the one channel's |Δ|, as OpenCV's one-channel filter); result rounded to 8 bits. Borders replicate the edge pixel; border=reflect reflects as OpenCV's default \
          (BORDER_REFLECT_101; runs as pad, the filter, crop: two extra copies). GPUImage's GPUImageBilateralFilter is a \
          separable approximation of this. A tap's weight is OpenCV's product of the spatial weight and the range weight of \
          the integer distance, from its two tables (in f32). GPU: up to radius 11 (where the tile fits the device's \
          workgroup memory) the input in workgroup memory and a block of outputs per invocation, the walk generated for \
          the radius (`tile`; `tile_bh2`, `tile_lut`); else one output per invocation (`direct`).",
    gpuimage: "GPUImageBilateralFilter",
    params: &[
        ParamDef::int("radius", 5, 1, 16, "window radius in pixels (OpenCV's d = 2 radius + 1)"),
        ParamDef::float("sigma_color", 30.0, 0.1, 1000.0, "range sigma, in 8-bit levels of the summed channel differences"),
        ParamDef::float("sigma_space", 3.0, 0.1, 100.0, "spatial sigma, in pixels"),
        crate::filters::shape::border::BORDER_PARAM,
    ],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| crate::filters::shape::border::from_args(Box::new(Bilateral::new(a.u32("radius")?, a.f32("sigma_color")?, a.f32("sigma_space")?)?), a),
    uniforms: &[BilateralParams::layout(WGSL), BilateralTileParams::layout(TILE_WGSL)],
    test_inputs: None,
    // tile_bh2 is the default's shape (`Schedule::choose`)
    schedules: &["direct", "tile", "tile_lut"],
};

impl Filter for Bilateral {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::Radius(self.radius)
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        Ok(vec![ValueDesc::Image(expect_image(
            &DEF,
            inputs,
            0,
            &[PixelFormat::Rgba8, PixelFormat::Gray8],
        )?)])
    }
    /// OpenCV's formulation, on the bytes: a tap's weight is the product of the spatial weight of
    /// its squared distance and the range weight of its integer L1 colour distance (`weights`).
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        let (w, h) = (img.width() as i32, img.height() as i32);
        let wt = self.weights();
        let src = img.as_u8();
        // RGBA8: R, G, B filtered, the range distance their L1 sum, alpha kept; Gray8: one channel
        let ch = if img.format() == PixelFormat::Gray8 {
            1
        } else {
            4
        };
        let colours = ch.min(3);
        let r = self.radius as i32;
        let texel = |x: i32, y: i32| -> &[u8] {
            let i = (y.clamp(0, h - 1) * w + x.clamp(0, w - 1)) as usize * ch;
            &src[i..i + colours]
        };
        let mut out = vec![0u8; src.len()];
        for y in 0..h {
            for x in 0..w {
                let c = texel(x, y);
                let (mut sum, mut wsum) = ([0f32; 3], 0f32);
                for dy in -r..=r {
                    for dx in -r..=r {
                        let d2 = dx * dx + dy * dy;
                        if d2 > r * r {
                            continue;
                        }
                        let q = texel(x + dx, y + dy);
                        let l1: usize =
                            q.iter().zip(c).map(|(&a, &b)| a.abs_diff(b) as usize).sum();
                        let weight = wt.space[d2 as usize] * wt.color[l1];
                        for k in 0..colours {
                            sum[k] += q[k] as f32 * weight;
                        }
                        wsum += weight;
                    }
                }
                let i = (y * w + x) as usize * ch;
                for k in 0..colours {
                    out[i + k] = unorm8(sum[k] / wsum / 255.0);
                }
                if ch == 4 {
                    out[i + 3] = src[i + 3];
                }
            }
        }
        Ok(vec![Value::Image(Image::from_u8(
            img.width(),
            img.height(),
            img.format(),
            out,
        )?)])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let d = slot_image(&DEF, inputs, 0)?;
        let gray = d.format == PixelFormat::Gray8;
        let limit = rec.gpu().limits.max_compute_workgroup_storage_size as u64;
        let fits = |s: Schedule| match s {
            Schedule::Tile { rows, lut } => {
                self.radius <= TILE_MAX_RADIUS
                    && TileShape::new(gray, self.radius, rows, lut).bytes() <= limit
            }
            Schedule::Direct => true,
        };
        let default = Schedule::choose(
            self.radius,
            fits(Schedule::Tile {
                rows: 4,
                lut: false,
            }),
        );
        let schedule = match crate::runtime::schedule::get(DEF.name) {
            Some(v) => Schedule::parse(&v)?,
            None => default,
        };
        // a tile schedule named where its tile does not fit runs the default (as a named
        // 16-byte-row schedule runs the other on widths it cannot take)
        let schedule = if fits(schedule) { schedule } else { default };
        if let Schedule::Tile { rows, lut } = schedule {
            let t = TileShape::new(gray, self.radius, rows, lut);
            let (entry, fmt) = if gray {
                ("bilateral_tile_gray", "gray8")
            } else {
                ("bilateral_tile", "rgba8")
            };
            let mut kernel = Kernel::new(
                &format!(
                    "neighborhood.bilateral_tile.{fmt}.r{}.bh{}.{}",
                    t.radius,
                    t.bh,
                    if lut { "lut" } else { "exp" }
                ),
                &[],
                entry,
            );
            kernel.generated = Some(tile_source(t)?);
            let u = self.tile_params(d.width, d.height);
            let columns = if gray { d.width.div_ceil(4) } else { d.width };
            let groups = [
                columns.div_ceil(TILE_WX),
                d.height.div_ceil(TILE_WY * t.bh),
                1,
            ];
            if groups[1] > rec.gpu().limits.max_compute_workgroups_per_dimension {
                return Err(Error::schedule_unsupported(
                    "bilateral",
                    format!(
                        "an image {} pixels high needs more workgroups than the device allows",
                        d.height
                    ),
                ));
            }
            // every tile and table entry is written before it is read
            return rec.dispatch_uninit(
                &kernel,
                &[&inputs[0].buffer, &outputs[0].buffer],
                bytemuck::bytes_of(&u),
                groups,
            );
        }
        let u = self.params(d.width, d.height);
        if gray {
            // one invocation per packed word of 4 pixels (a row padded to whole words)
            let kernel = Kernel::new(
                "neighborhood.bilateral_gray",
                &[BilateralParams::WGSL, WGSL],
                "bilateral_gray",
            );
            return rec.dispatch(
                &kernel,
                &[&inputs[0].buffer, &outputs[0].buffer],
                bytemuck::bytes_of(&u),
                groups_2d(d.width.div_ceil(4), d.height, 16, 16),
            );
        }
        let kernel = Kernel::new(
            "neighborhood.bilateral",
            &[BilateralParams::WGSL, WGSL],
            "bilateral",
        );
        rec.dispatch(
            &kernel,
            &[&inputs[0].buffer, &outputs[0].buffer],
            bytemuck::bytes_of(&u),
            groups_2d(d.width, d.height, 16, 16),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every tile kernel the schedules can make (both formats, radii 1..=TILE_MAX_RADIUS, every
    /// block height, both weights) has one weight term per output and disc pixel; those of a few
    /// radii also parse and validate in naga (all of them take minutes in a debug build; the
    /// equivalence tests compile the others they meet on the device).
    #[test]
    fn tile_kernels_validate_and_cover_the_disc() {
        for gray in [false, true] {
            for radius in 1..=TILE_MAX_RADIUS {
                let disc = (-(radius as i32)..=radius as i32)
                    .flat_map(|y| (-(radius as i32)..=radius as i32).map(move |x| x * x + y * y))
                    .filter(|&d2| d2 <= (radius * radius) as i32)
                    .count();
                for (rows, lut) in [(4, false), (2, false), (4, true)] {
                    let t = TileShape::new(gray, radius, rows, lut);
                    let src = tile_source(t).unwrap_or_else(|e| panic!("{t:?}: {e}"));
                    if [1, 2, 5].contains(&radius) {
                        let full = format!(
                            "{}\n{}\n{}",
                            crate::runtime::COMMON_WGSL,
                            crate::runtime::CONV_WGSL,
                            src
                        );
                        let module = naga::front::wgsl::parse_str(&full)
                            .unwrap_or_else(|e| panic!("{t:?}:\n{}", e.emit_to_string(&full)));
                        naga::valid::Validator::new(
                            naga::valid::ValidationFlags::all(),
                            naga::valid::Capabilities::all(),
                        )
                        .validate(&module)
                        .unwrap_or_else(|e| panic!("{t:?}: {e:?}"));
                    }
                    let terms = src.matches("n0 += w").count();
                    assert_eq!(
                        terms, disc,
                        "{t:?}: output 0 has {terms} terms, the disc {disc} pixels"
                    );
                    let all = src.matches(" += w;").count();
                    assert_eq!(all, disc * (t.bw * t.bh) as usize, "{t:?}");
                }
            }
        }
    }

    /// The twin's tables are OpenCV's: weight 1 at the centre, and the range table reaches
    /// the largest L1 distance of three 8-bit channels.
    #[test]
    fn weight_tables() {
        let w = Bilateral::default().weights();
        assert_eq!((w.space[0], w.color[0]), (1.0, 1.0));
        assert_eq!(w.space.len(), 26);
        assert!(w.color.len() > 765);
    }
}
