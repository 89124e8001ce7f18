//! Images that already live on the GPU as a caller's wgpu textures (issue 31): a pipeline reads
//! one in place, on the device the caller opened (`Gpu::from_wgpu`), with no trip through host
//! memory. `TextureSource` is a graph node with no inputs (as `jpeg_coef::JpegDecode` is) whose
//! kernel copies the texture into the graph's source buffer in the layout of its format.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::graph::{Backend, Pipeline, RunOptions, RunResult};
use crate::image::{ImageDesc, PixelFormat};
use crate::runtime::Gpu;

static SOURCE_DEF: crate::extend::FilterDef = crate::extend::FilterDef {
    name: "texture_source",
    family: crate::extend::Family::Convert,
    summary: "a caller's wgpu texture as a graph's input (not in the catalogue)",
    doc: "",
    gpuimage: "",
    params: &[],
    inputs: &[],
    outputs: crate::extend::IMAGE,
    tolerance: crate::extend::EXACT_ENOUGH,
    build: |_| Err(Error::invalid("texture_source is made from a wgpu texture")),
    uniforms: &[],
    test_inputs: None,
    schedules: &[],
};

/// A caller's 2-D texture (its first mip level, first layer) as a graph's input image:
/// `Rgba8Unorm` (and its sRGB form, read as stored) as RGBA8, `R8Unorm` as Gray8,
/// `Rgba16Float` as RGBA16 (clamped to 0..1 and rounded to 1/65535: the pipelines' 16-bit
/// format; an HDR texture's values past 1 are lost). The texture needs `TEXTURE_BINDING` usage and must belong to the
/// device the run is on.
#[derive(Debug, Clone)]
pub struct TextureSource {
    view: wgpu::TextureView,
    desc: ImageDesc,
}

impl TextureSource {
    /// The source for `texture`; an error names a format or usage it cannot read.
    pub fn new(texture: &wgpu::Texture) -> Result<TextureSource> {
        let format = match texture.format() {
            wgpu::TextureFormat::Rgba8Unorm | wgpu::TextureFormat::Rgba8UnormSrgb => {
                PixelFormat::Rgba8
            }
            wgpu::TextureFormat::R8Unorm => PixelFormat::Gray8,
            wgpu::TextureFormat::Rgba16Float => PixelFormat::Rgba16,
            f => {
                return Err(Error::unsupported(format!(
                    "a {f:?} texture (texelflow reads rgba8unorm, r8unorm and rgba16float)"
                )))
            }
        };
        if !texture
            .usage()
            .contains(wgpu::TextureUsages::TEXTURE_BINDING)
        {
            return Err(Error::invalid(
                "the texture needs TEXTURE_BINDING usage for texelflow to read it",
            ));
        }
        if texture.dimension() != wgpu::TextureDimension::D2 {
            return Err(Error::invalid("texelflow reads 2-D textures"));
        }
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("texelflow.texture_source"),
            // read as stored: an sRGB texture's bytes, not decoded to linear
            format: Some(match texture.format() {
                wgpu::TextureFormat::Rgba8UnormSrgb => wgpu::TextureFormat::Rgba8Unorm,
                f => f,
            }),
            dimension: Some(wgpu::TextureViewDimension::D2),
            base_mip_level: 0,
            mip_level_count: Some(1),
            base_array_layer: 0,
            array_layer_count: Some(1),
            ..Default::default()
        });
        let size = texture.size();
        Ok(TextureSource {
            view,
            desc: ImageDesc::new(size.width, size.height, format),
        })
    }

    /// The image it gives.
    pub fn desc(&self) -> ImageDesc {
        self.desc
    }
}

impl crate::extend::Filter for TextureSource {
    fn def(&self) -> &'static crate::extend::FilterDef {
        &SOURCE_DEF
    }
    fn output_descs(&self, _: &[crate::ValueDesc]) -> Result<Vec<crate::ValueDesc>> {
        Ok(vec![crate::ValueDesc::Image(self.desc)])
    }
    fn run_cpu(&self, _: &[&crate::Value], _: &[crate::ValueDesc]) -> Result<Vec<crate::Value>> {
        Err(Error::unsupported(
            "a texture input runs on the GPU that owns it, not on the CPU reference",
        ))
    }
    fn record_gpu(
        &self,
        rec: &mut crate::extend::NodeRecorder<'_>,
        _: &[crate::extend::GpuSlot],
        outputs: &[crate::extend::GpuSlot],
    ) -> Result<()> {
        let d = self.desc;
        let (mode, row_words) = match d.format {
            PixelFormat::Rgba8 => (0, 0),
            PixelFormat::Gray8 => (1, d.width.div_ceil(4)),
            _ => (2, 0),
        };
        let kernel = crate::extend::Kernel::new(
            "io.texture_source",
            &[include_str!("texture_source.wgsl")],
            "texture_source",
        );
        let u: [u32; 4] = [d.width, d.height, mode, row_words];
        let across = if mode == 1 { row_words } else { d.width };
        rec.dispatch_binds(
            &kernel,
            &[
                crate::runtime::Bind::Texture(&self.view),
                crate::runtime::Bind::Buffer(&outputs[0].buffer),
            ],
            bytemuck::cast_slice(&u),
            crate::extend::groups_2d(across, d.height, 16, 16),
        )
    }
    fn footprint(&self, _: &[crate::ValueDesc]) -> crate::extend::Footprint {
        crate::extend::Footprint::Pixel
    }
    fn box_clone(&self) -> Box<dyn crate::extend::Filter> {
        Box::new(self.clone())
    }
}

/// Runs `pipeline` on the image in `texture` on `gpu` (the device the texture belongs to,
/// usually from `Gpu::from_wgpu`): the texture is read in place, and the result comes back as
/// from `Pipeline::run_with`. An error where the run would not go whole on the device (an
/// image past its binding limit: tiles of a texture are not read yet).
///
/// # Examples
///
/// ```no_run
/// # fn main() -> texelflow::Result<()> {
/// # let (adapter, device, queue, texture): (wgpu::Adapter, wgpu::Device, wgpu::Queue, wgpu::Texture) = todo!();
/// let gpu = texelflow::Gpu::from_wgpu(&adapter, device, queue, &Default::default());
/// let pipe = texelflow::Pipeline::parse("gaussian_blur(sigma=2)", &mut |p: &str| texelflow::Image::open(p))?;
/// let result = texelflow::io::texture::run_texture(&pipe, &gpu, &texture, &Default::default())?;
/// # Ok(())
/// # }
/// ```
pub fn run_texture(
    pipeline: &Pipeline,
    gpu: &Arc<Gpu>,
    texture: &wgpu::Texture,
    opts: &RunOptions,
) -> Result<RunResult> {
    let source = TextureSource::new(texture)?;
    let d = source.desc();
    pipeline
        .try_run_produced(&Backend::Gpu(gpu.clone()), Box::new(source), opts)?
        .ok_or_else(|| {
            Error::unsupported(format!(
                "a {}x{} texture's run does not fit the device whole (texture inputs do not run in tiles yet)",
                d.width, d.height
            ))
        })
}
