//! Sobel edge detection. Matches GPUImage's `GPUImageSobelEdgeDetectionFilter`: the 3x3
//! Sobel gradient of luminance (GPUImage weights 0.2125, 0.7154, 0.0721), output
//! `(m, m, m, 1)` with `m = length(h, v) * edge_strength`.
//!
//! Borders replicate the edge pixel. Unlike GPUImage, whose first pass stores luminance in
//! an 8-bit texture, luminance stays f32 between the two steps.

use rayon::prelude::*;

use crate::error::Result;
use crate::image::{luminance, unorm8, Image, PixelFormat};
use crate::graph::params::{check_float, ParamDef};
use crate::filters::registry::{EXACT_ENOUGH, Family, Filter, FilterDef, IMAGE, expect_image, input_image, one_to_one};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

const WGSL: &str = include_str!("sobel_edge_detection.wgsl");
const ROWS4_WGSL: &str = include_str!("sobel_rows4.wgsl");
/// `rows4` shape (mirrors SW and RY in sobel_rows4.wgsl): invocations per workgroup, rows.
const ROWS4_SW: u32 = 64;
const ROWS4_RY: u32 = 16;

/// Output tile of one workgroup (`TX` x `TY * RY` in the WGSL). Schedule choice, not
/// algorithm; to be measured on H100.
const TILE_W: u32 = 32;
const TILE_H: u32 = 32;

/// Sobel gradient magnitude of luminance, scaled by `edge_strength`.
#[derive(Clone, Debug)]
pub struct SobelEdgeDetection {
    /// Gradient magnitude multiplier.
    pub edge_strength: f32,
}

impl SobelEdgeDetection {
    /// Fails when `edge_strength` is outside [0, 10].
    pub fn new(edge_strength: f32) -> Result<Self> {
        Ok(Self { edge_strength: check_float(&DEF, "edge_strength", edge_strength)? })
    }
}

impl Default for SobelEdgeDetection {
    fn default() -> Self {
        Self { edge_strength: 1.0 }
    }
}

uniform_struct! {
    /// Uniform of `sobel_edge_detection.wgsl` and `sobel_rows4.wgsl`.
    pub struct SobelEdgeDetectionParams {
        pub width: u32,
        pub height: u32,
        pub edge_strength: f32,
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "sobel_edge_detection",
    family: Family::Neighborhood,
    summary: "Sobel gradient magnitude of luminance, as grey (replicate-edge borders).",
    doc: "Luminance with GPUImage's weights (0.2125, 0.7154, 0.0721), kept in f32; h = -tl - 2l - bl + tr + 2r + br, v = -bl - 2b - br + tl + 2t + tr; \
          output (m, m, m, 1) with m = length(h, v) * edge_strength, clamped. Borders replicate the edge pixel. \
          GPU: widths that are multiples of 4 walk 256-column strips down with 16-byte loads and stores and the 3-row window in \
          registers (`rows4`); other widths use a 32x32 tile with a one-pixel halo of luminance in workgroup memory (`tile`).",
    gpuimage: "GPUImageSobelEdgeDetectionFilter",
    params: &[ParamDef::float("edge_strength", 1.0, 0.0, 10.0, "gradient magnitude multiplier")],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |a| Ok(Box::new(SobelEdgeDetection::new(a.f32("edge_strength")?)?)),
    uniforms: &[
        SobelEdgeDetectionParams::layout(WGSL),
        SobelEdgeDetectionParams::layout(ROWS4_WGSL),
    ],
    test_inputs: None,
    schedules: &["tile"],
};

/// CPU twin: same luminance, same operation order as the WGSL.
pub fn sobel_cpu(img: &Image, strength: f32) -> Result<Image> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let src = img.as_u8();
    let lum: Vec<f32> = src.chunks_exact(4).map(|p| luminance(&[p[0] as f32 / 255.0, p[1] as f32 / 255.0, p[2] as f32 / 255.0])).collect();
    let at = |x: i64, y: i64| lum[y.clamp(0, h as i64 - 1) as usize * w + x.clamp(0, w as i64 - 1) as usize];
    let mut out = vec![0u8; w * h * 4];
    out.par_chunks_mut(w * 4).enumerate().for_each(|(y, row)| {
        let y = y as i64;
        for x in 0..w {
            let xi = x as i64;
            let (t0, t1, t2) = (at(xi - 1, y - 1), at(xi, y - 1), at(xi + 1, y - 1));
            let (m0, m2) = (at(xi - 1, y), at(xi + 1, y));
            let (b0, b1, b2) = (at(xi - 1, y + 1), at(xi, y + 1), at(xi + 1, y + 1));
            let hh = -t0 - 2.0 * m0 - b0 + t2 + 2.0 * m2 + b2;
            let vv = -b0 - 2.0 * b1 - b2 + t0 + 2.0 * t1 + t2;
            let m = unorm8((hh * hh + vv * vv).sqrt() * strength);
            row[x * 4..x * 4 + 4].copy_from_slice(&[m, m, m, 255]);
        }
    });
    Image::from_u8(img.width(), img.height(), PixelFormat::Rgba8, out)
}

impl Filter for SobelEdgeDetection {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::Radius(1)
    }
    fn def(&self) -> &'static FilterDef {
        &DEF
    }
    fn output_descs(&self, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
        let d = expect_image(&DEF, inputs, 0, &[PixelFormat::Rgba8])?;
        Ok(vec![ValueDesc::Image(d)])
    }
    fn run_cpu(&self, inputs: &[&Value], _: &[ValueDesc]) -> Result<Vec<Value>> {
        let img = input_image(&DEF, inputs, 0)?;
        Ok(vec![Value::Image(sobel_cpu(img, self.edge_strength)?)])
    }
    fn record_gpu(&self, rec: &mut NodeRecorder<'_>, inputs: &[GpuSlot], outputs: &[GpuSlot]) -> Result<()> {
        let (input, output, d) = one_to_one(&DEF, inputs, outputs)?;
        let params = SobelEdgeDetectionParams { width: d.width, height: d.height, edge_strength: self.edge_strength, ..Default::default()};
        // Schedules: `tile` (32x32 tile with a luminance halo in workgroup memory, 4-byte
        // accesses) and `rows4` (16-byte loads and stores, a strip walked down in registers),
        // which needs rows starting on 16-byte boundaries, so a width that is a multiple of 4;
        // other widths take `tile`.
        let variant = crate::runtime::schedule::get(DEF.name);
        // Default `rows4`: 1.46x copy against `tile`'s 1.62x on the H200 (run 9).
        let rows4 = match variant.as_deref() {
            Some("tile") => false,
            None | Some("rows4") => true,
            Some(other) => return Err(crate::runtime::schedule::unknown(DEF.name, other, &["tile", "rows4"])),
        };
        if rows4 && d.width % 4 == 0 {
            return rec.dispatch(
                &Kernel::new("sobel_edge_detection.rows4", &[SobelEdgeDetectionParams::WGSL, ROWS4_WGSL], "main"),
                &[&input.buffer, &output.buffer, &input.buffer],
                bytemuck::bytes_of(&params),
                [(d.width / 4).div_ceil(ROWS4_SW), d.height.div_ceil(ROWS4_RY), 1],
            );
        }
        rec.dispatch(
            &Kernel::new("sobel_edge_detection", &[SobelEdgeDetectionParams::WGSL, WGSL], "main"),
            &[&input.buffer, &output.buffer],
            bytemuck::bytes_of(&params),
            groups_2d(d.width, d.height, TILE_W, TILE_H),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
