//! The sampling stage of ColourFAST features: GPUImage's `GPUImageColourFASTSamplingOperation`
//! (Seth Hall's ColourFAST descriptors). Eight samples on a ring around the pixel, at (±3, ±1)
//! and (±1, ±3); RGB out is the mean of the ring minus the centre, mapped from [-1, 1] to
//! [0, 1] (GPUImage's iOS shader; its desktop shader scales the difference by 3 first); alpha
//! out is the direction of the colour difference, atan2 of GPUImage's avgY, avgX, mapped from
//! [-pi, pi] to [0, 1]. Used by `colour_fast_feature_detector` after a box blur.
//!
//! Differences from GPUImage, by design: its direction weights 0.94868 and 0.316227 are taken
//! as exactly 3/sqrt(10) and 1/sqrt(10) (the same to 5 digits), so everything up to the angle
//! is integer arithmetic on the 8-bit samples (identical on GPU and CPU); where the colour
//! difference is zero GPUImage divides 0 by 0 (NaN), here the angle is 0 (alpha 0.5).
//! Borders replicate the edge pixels (GPUImage's clamp-to-edge).

use rayon::prelude::*;

use crate::error::Result;
use crate::filters::registry::{
    expect_image, input_image, one_to_one, Family, Filter, FilterDef, EXACT_ENOUGH, IMAGE,
};
use crate::image::{unorm8, Image, PixelFormat};
use crate::runtime::uniform::uniform_struct;
use crate::runtime::{groups_2d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};

const WGSL: &str = include_str!("colour_fast_sampling.wgsl");

/// The ring of eight samples, GPUImage's points A to H, as (dx, dy) with +y down.
pub const RING: [(i32, i32); 8] = [
    (3, 1),
    (1, 3),
    (-1, 3),
    (-3, 1),
    (-3, -1),
    (-1, -3),
    (1, -3),
    (3, -1),
];

/// ColourFAST descriptor of each pixel (GPUImage's `GPUImageColourFASTSamplingOperation`).
#[derive(Clone, Debug, Default)]
pub struct ColourFastSampling;

impl ColourFastSampling {
    /// The filter (no parameters).
    pub fn new() -> Self {
        Self
    }
}

uniform_struct! {
    /// Uniform of colour_fast_sampling.wgsl.
    pub struct ColourFastParams {
        pub width: u32,
        pub height: u32,
    }
}

/// The filter's registry entry.
pub static DEF: FilterDef = FilterDef {
    name: "colour_fast_sampling",
    family: Family::Neighborhood,
    summary: "ColourFAST descriptor of each pixel: ring-minus-centre colour as RGB, its direction as alpha.",
    doc: "Eight samples at (±3, ±1) and (±1, ±3) (replicate borders). RGB = (mean of the ring - centre + 1) / 2; \
alpha = (atan2(Y, X) + pi) / 2pi with X, Y GPUImage's avgX, avgY: the absolute colour difference dotted with the ring's \
direction-weighted sums (weights 3/sqrt(10) and 1/sqrt(10), GPUImage's 0.94868 and 0.316227); alpha 0.5 where the \
difference is zero (GPUImage: NaN). GPUImage's iOS shader (its desktop one scales the difference by 3). The stage of \
colour_fast_feature_detector after its box blur.",
    gpuimage: "GPUImageColourFASTSamplingOperation",
    params: &[],
    inputs: IMAGE,
    outputs: IMAGE,
    tolerance: EXACT_ENOUGH,
    build: |_| Ok(Box::new(ColourFastSampling)),
    uniforms: &[ColourFastParams::layout(WGSL)],
    test_inputs: None,
    schedules: &[],
};

/// CPU twin of colour_fast_sampling.wgsl.
pub fn colour_fast_cpu(img: &Image) -> Result<Image> {
    let (w, h) = (img.width() as i32, img.height() as i32);
    let src = img.as_u8();
    let rgb = |x: i32, y: i32| -> [i32; 3] {
        let i = 4 * (y.clamp(0, h - 1) * w + x.clamp(0, w - 1)) as usize;
        [src[i] as i32, src[i + 1] as i32, src[i + 2] as i32]
    };
    let mut out = vec![0u8; src.len()];
    out.par_chunks_mut((4 * w as usize).max(1))
        .enumerate()
        .for_each(|(y, row)| {
            let y = y as i32;
            for x in 0..w {
                let c = rgb(x, y);
                let s: Vec<[i32; 3]> = RING.iter().map(|&(dx, dy)| rgb(x + dx, y + dy)).collect();
                let mut px = [0u8; 4];
                let (mut sx, mut sy) = (0i32, 0i32);
                for k in 0..3 {
                    let diff = s.iter().map(|p| p[k]).sum::<i32>() - 8 * c[k];
                    // weights of A..H: GPUImage's dirX and dirY times sqrt(10)
                    let dir_x = 3 * (s[0][k] - s[3][k] - s[4][k] + s[7][k])
                        + (s[1][k] - s[2][k] - s[5][k] + s[6][k]);
                    let dir_y = (s[0][k] + s[3][k] - s[4][k] - s[7][k])
                        + 3 * (s[1][k] + s[2][k] - s[5][k] - s[6][k]);
                    sx += diff.abs() * dir_x;
                    sy += diff.abs() * dir_y;
                    px[k] = unorm8((diff as f32 / 2040.0 + 1.0) * 0.5);
                }
                let angle = if sx != 0 || sy != 0 {
                    (sy as f32).atan2(sx as f32)
                } else {
                    0.0
                };
                #[allow(
                    clippy::approx_constant,
                    reason = "GPUImage's 3.1416 and 6.2832, as in the WGSL, not pi and tau"
                )]
                let turn = (angle + 3.1416) / 6.2832;
                px[3] = unorm8(turn);
                row[4 * x as usize..4 * x as usize + 4].copy_from_slice(&px);
            }
        });
    Image::from_u8(img.width(), img.height(), PixelFormat::Rgba8, out)
}

impl Filter for ColourFastSampling {
    fn footprint(&self, _inputs: &[ValueDesc]) -> crate::filters::registry::Footprint {
        crate::filters::registry::Footprint::Radius(3)
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
        Ok(vec![Value::Image(colour_fast_cpu(input_image(
            &DEF, inputs, 0,
        )?)?)])
    }
    fn record_gpu(
        &self,
        rec: &mut NodeRecorder<'_>,
        inputs: &[GpuSlot],
        outputs: &[GpuSlot],
    ) -> Result<()> {
        let (input, output, d) = one_to_one(&DEF, inputs, outputs)?;
        let u = ColourFastParams {
            width: d.width,
            height: d.height,
            ..Default::default()
        };
        let kernel = Kernel::new(
            "neighborhood.colour_fast_sampling",
            &[ColourFastParams::WGSL, WGSL],
            "colour_fast",
        );
        rec.dispatch(
            &kernel,
            &[&input.buffer, &output.buffer],
            bytemuck::bytes_of(&u),
            groups_2d(d.width, d.height, 16, 16),
        )
    }
    fn box_clone(&self) -> Box<dyn Filter> {
        Box::new(self.clone())
    }
}
