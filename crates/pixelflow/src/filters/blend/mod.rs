//! Blends (GPUImage's "Blending modes"): two RGBA8 images of the same size, combined per
//! pixel. The second image arrives as the `with` input (`alpha_blend(with=top.png)`).

include!(concat!(env!("OUT_DIR"), "/filters_blend.rs"));


use crate::error::{Error, Result};
use crate::image::{unorm8, Image, PixelFormat};
use crate::registry::{FilterDef, expect_image, slot_image};
use crate::runtime::{groups_1d, GpuSlot, Kernel, NodeRecorder};
use crate::value::{Value, ValueDesc};
use rayon::prelude::*;


const WGSL: &str = include_str!("blend.wgsl");
/// Workgroup size; schedule choice, not algorithm.
const WG: u32 = 256;

/// Both inputs RGBA8 of the same size.
pub(crate) fn blend_outputs(def: &FilterDef, inputs: &[ValueDesc]) -> Result<Vec<ValueDesc>> {
    let a = expect_image(def, inputs, 0, &[PixelFormat::Rgba8])?;
    let b = expect_image(def, inputs, 1, &[PixelFormat::Rgba8])?;
    if (a.width, a.height) != (b.width, b.height) {
        return Err(Error::Graph(format!("`{}` needs both images the same size: {}x{} vs {}x{} (resize one first)", def.name, a.width, a.height, b.width, b.height)));
    }
    Ok(vec![ValueDesc::Image(a)])
}

/// CPU twin of a blend entry point.
pub(crate) fn blend_cpu(inputs: &[&Value], f: impl Fn([f32; 4], [f32; 4]) -> [f32; 4] + Sync) -> Result<Vec<Value>> {
    let (Some(a), Some(b)) = (inputs[0].as_image(), inputs[1].as_image()) else {
        return Err(Error::Graph("blend inputs must be images".into()));
    };
    let mut out = vec![0u8; a.as_u8().len()];
    out.par_chunks_mut(4).zip(a.as_u8().par_chunks(4).zip(b.as_u8().par_chunks(4))).for_each(|(o, (p, q))| {
        let n = |s: &[u8]| [s[0] as f32 / 255.0, s[1] as f32 / 255.0, s[2] as f32 / 255.0, s[3] as f32 / 255.0];
        let c = f(n(p), n(q));
        for k in 0..4 {
            o[k] = unorm8(c[k]);
        }
    });
    Ok(vec![Value::Image(Image::from_u8(a.width(), a.height(), PixelFormat::Rgba8, out)?)])
}

/// Uniform of blend.wgsl (`BlendParams`).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BlendParams {
    pub count: u32,
    pub mix: f32,
    pub _pad: [u32; 2],
}

pub(crate) fn blend_gpu(rec: &mut NodeRecorder<'_>, def: &FilterDef, entry: &'static str, mix: f32, inputs: &[GpuSlot], outputs: &[GpuSlot]) -> Result<()> {
    let d = slot_image(def, inputs, 0)?;
    let p = BlendParams { count: d.pixels() as u32, mix, _pad: [0; 2] };
    rec.dispatch(&Kernel::new("blend", &[WGSL], entry), &[&inputs[0].buffer, &inputs[1].buffer, &outputs[0].buffer], bytemuck::bytes_of(&p), groups_1d((d.pixels() as u64).div_ceil(4), WG))
}

pub(crate) const BLEND_UNIFORM: crate::registry::UniformLayout = crate::registry::UniformLayout { wgsl: WGSL, wgsl_struct: "BlendParams", rust_size: std::mem::size_of::<BlendParams>(), fields: &[("count", std::mem::offset_of!(BlendParams, count)), ("mix", std::mem::offset_of!(BlendParams, mix))] };
