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

use bytemuck::Zeroable;

use crate::error::Result;
use crate::filters::registry::{
    expect_image, input_image, Family, Filter, FilterDef, EXACT_ENOUGH, IMAGE,
};
use crate::graph::params::{check_float, check_int, ParamDef};
use crate::image::{unorm8, Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{GpuSlot, NodeRecorder};
use crate::value::{Value, ValueDesc};

pub mod schedules;

use schedules::{TILE_WGSL, WGSL};

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
        schedules::record(self, rec, inputs, outputs)
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
