//! Images that already live on the GPU as a caller's wgpu textures (issue 31): a pipeline reads
//! one in place, on the device the caller opened (`Gpu::from_wgpu`), with no trip through host
//! memory. `TextureSource` is a graph node with no inputs (as `jpeg_coef::JpegDecode` is) whose
//! kernel copies the texture into the graph's source buffer in the layout of its format;
//! `TextureSink` is a last node (as `jpeg_file::JpegFile` is) that writes the result into the
//! caller's storage texture (an r8unorm one, no storage format, by a copy from a buffer
//! recorded in the same run), so that nothing but a 16-byte status comes back. `BufferSource`
//! and `BufferSink` do the same for a caller's storage buffers holding an image in texelflow's
//! layout of its format (the table in `image.rs`).

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::graph::{Backend, Pipeline, PreparedRun, RunOptions, RunResult};
use crate::image::{ImageDesc, PixelFormat};
use crate::runtime::Gpu;

/// The registry entry of a node made from a caller's GPU resource (not in the catalogue: made
/// by its `new`, never from a spec).
const fn resource_def(
    name: &'static str,
    summary: &'static str,
    inputs: &'static [crate::filters::registry::PortDef],
    outputs: &'static [crate::filters::registry::PortDef],
    build: fn(&crate::params::Args) -> Result<Box<dyn crate::extend::Filter>>,
) -> crate::extend::FilterDef {
    crate::extend::FilterDef {
        name,
        family: crate::extend::Family::Convert,
        summary,
        doc: "",
        gpuimage: "",
        params: &[],
        inputs,
        outputs,
        tolerance: crate::extend::EXACT_ENOUGH,
        build,
        uniforms: &[],
        test_inputs: None,
        schedules: &[],
    }
}

/// A sink's output: an empty byte stream (the image is in the caller's resource).
const STATUS: &[crate::filters::registry::PortDef] = &[crate::filters::registry::PortDef {
    name: "done",
    kind: crate::filters::registry::PortKind::Data(crate::value::DataKind::Bytes { capacity: 0 }),
}];

static SOURCE_DEF: crate::extend::FilterDef = resource_def(
    "texture_source",
    "a caller's wgpu texture as a graph's input (not in the catalogue)",
    &[],
    crate::extend::IMAGE,
    |_| Err(Error::invalid("texture_source is made from a wgpu texture")),
);

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
        .ok_or_else(|| too_large(d))
}

static SINK_DEF: crate::extend::FilterDef = resource_def(
    "texture_sink",
    "a graph's result into a caller's wgpu texture (not in the catalogue)",
    crate::extend::IMAGE,
    STATUS,
    |_| Err(Error::invalid("texture_sink is made from a wgpu texture")),
);

/// How a `TextureSink` writes its texture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// A kernel stores to an rgba8unorm storage texture.
    Rgba8,
    /// A kernel stores to an rgba16float storage texture.
    Rgba16f,
    /// An r8unorm texture (no storage-texture format): the Gray8 rows are copied in from a
    /// buffer (`NodeRecorder::copy_buffer_to_texture`).
    R8,
}

/// A caller's 2-D texture (its first mip level, first layer) as where a graph's last image
/// goes, the size of that image: `Rgba8Unorm` or `Rgba16Float` with `STORAGE_BINDING` usage,
/// where RGBA8 and RGBA16 results are stored as they are (unorm) and a Gray8 result as grey
/// with alpha 1; or `R8Unorm` with `COPY_DST` usage, which takes a Gray8 result byte for byte
/// (r8unorm is no storage-texture format: the rows are copied in from a buffer). The node's
/// own output is an empty byte stream: the image is in the texture.
#[derive(Debug, Clone)]
pub struct TextureSink {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    size: (u32, u32),
    target: Target,
}

impl TextureSink {
    /// The sink for `texture`; an error names a format or usage it cannot write.
    pub fn new(texture: &wgpu::Texture) -> Result<TextureSink> {
        let target = match texture.format() {
            wgpu::TextureFormat::Rgba8Unorm => Target::Rgba8,
            wgpu::TextureFormat::Rgba16Float => Target::Rgba16f,
            wgpu::TextureFormat::R8Unorm => Target::R8,
            f => {
                return Err(Error::unsupported(format!(
                    "a {f:?} texture as an output (texelflow writes rgba8unorm, rgba16float and r8unorm)"
                )))
            }
        };
        let (usage, why) = match target {
            Target::R8 => (
                wgpu::TextureUsages::COPY_DST,
                "the r8unorm output texture needs COPY_DST usage for texelflow to copy into it",
            ),
            _ => (
                wgpu::TextureUsages::STORAGE_BINDING,
                "the output texture needs STORAGE_BINDING usage for texelflow to write it",
            ),
        };
        if !texture.usage().contains(usage) {
            return Err(Error::invalid(why));
        }
        if texture.dimension() != wgpu::TextureDimension::D2 {
            return Err(Error::invalid("texelflow writes 2-D textures"));
        }
        let view = texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some("texelflow.texture_sink"),
            dimension: Some(wgpu::TextureViewDimension::D2),
            base_mip_level: 0,
            mip_level_count: Some(1),
            base_array_layer: 0,
            array_layer_count: Some(1),
            ..Default::default()
        });
        let size = texture.size();
        Ok(TextureSink {
            texture: texture.clone(),
            view,
            size: (size.width, size.height),
            target,
        })
    }

    /// Records the copy of the Gray8 image `d` in `src` into the r8unorm texture: its rows
    /// re-laid at a stride of a multiple of 256 bytes first, unless they already are.
    fn record_r8(
        &self,
        rec: &mut crate::extend::NodeRecorder<'_>,
        src: &Arc<wgpu::Buffer>,
        d: ImageDesc,
    ) -> Result<()> {
        let align = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let bytes_per_row = d.width.div_ceil(align) * align;
        let row_words = d.width.div_ceil(4);
        if bytes_per_row == 4 * row_words {
            return rec.copy_buffer_to_texture(src, bytes_per_row, &self.texture);
        }
        let rows = rec.temp(u64::from(bytes_per_row) * u64::from(d.height));
        let kernel = crate::extend::Kernel::new(
            "io.texture_sink.r8",
            &[include_str!("texture_sink_r8.wgsl")],
            "texture_sink_r8",
        );
        let u: [u32; 4] = [row_words, d.height, bytes_per_row / 4, 0];
        rec.dispatch(
            &kernel,
            &[src.as_ref(), rows.as_ref()],
            bytemuck::cast_slice(&u),
            crate::extend::groups_2d(row_words, d.height, 16, 16),
        )?;
        rec.copy_buffer_to_texture(&rows, bytes_per_row, &self.texture)
    }
}

impl crate::extend::Filter for TextureSink {
    fn def(&self) -> &'static crate::extend::FilterDef {
        &SINK_DEF
    }
    fn output_descs(&self, inputs: &[crate::ValueDesc]) -> Result<Vec<crate::ValueDesc>> {
        let Some(d) = inputs.first().and_then(|d| d.image()) else {
            return Err(Error::invalid("texture_sink takes an image"));
        };
        if !matches!(
            d.format,
            PixelFormat::Rgba8 | PixelFormat::Gray8 | PixelFormat::Rgba16
        ) {
            return Err(Error::invalid(format!(
                "texture_sink takes RGBA8, Gray8 or RGBA16, not {}",
                d.format.name()
            )));
        }
        if self.target == Target::R8 && d.format != PixelFormat::Gray8 {
            return Err(Error::invalid(format!(
                "an r8unorm output texture takes a Gray8 result, not {} (end the pipeline with to_gray, or write an rgba8unorm texture)",
                d.format.name()
            )));
        }
        if (d.width, d.height) != self.size {
            return Err(Error::invalid(format!(
                "the result is {}x{}, the output texture {}x{}",
                d.width, d.height, self.size.0, self.size.1
            )));
        }
        Ok(vec![crate::ValueDesc::Data(
            crate::value::DataKind::Bytes { capacity: 0 },
        )])
    }
    fn run_cpu(&self, _: &[&crate::Value], _: &[crate::ValueDesc]) -> Result<Vec<crate::Value>> {
        Err(Error::unsupported(
            "a texture output is written on the GPU that owns it, not by the CPU reference",
        ))
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
            .ok_or_else(|| Error::invalid("texture_sink takes an image"))?;
        // the status: an empty stream
        rec.clear(&outputs[0].buffer);
        if self.target == Target::R8 {
            return self.record_r8(rec, &inputs[0].buffer, d);
        }
        let mode = match d.format {
            PixelFormat::Rgba8 => 0,
            PixelFormat::Gray8 => 1,
            _ => 2,
        };
        let (key, target) = if self.target == Target::Rgba16f {
            (
                "io.texture_sink.rgba16f",
                include_str!("texture_sink_rgba16f.wgsl"),
            )
        } else {
            (
                "io.texture_sink.rgba8",
                include_str!("texture_sink_rgba8.wgsl"),
            )
        };
        let kernel = crate::extend::Kernel::new(
            key,
            &[target, include_str!("texture_sink.wgsl")],
            "texture_sink",
        );
        let u: [u32; 4] = [d.width, d.height, mode, d.width.div_ceil(4)];
        rec.dispatch_binds(
            &kernel,
            &[
                crate::runtime::Bind::Buffer(&inputs[0].buffer),
                crate::runtime::Bind::Texture(&self.view),
            ],
            bytemuck::cast_slice(&u),
            crate::extend::groups_2d(d.width, d.height, 16, 16),
        )
    }
    fn footprint(&self, _: &[crate::ValueDesc]) -> crate::extend::Footprint {
        crate::extend::Footprint::Pixel
    }
    fn box_clone(&self) -> Box<dyn crate::extend::Filter> {
        Box::new(self.clone())
    }
}

/// Runs `pipeline` from the image in texture `input` into texture `output` on `gpu` (the
/// device both belong to, usually from `Gpu::from_wgpu`): no pixel leaves the device, and the
/// run waits for the GPU (a 16-byte status comes back). `output` is a `TextureSink`'s: rgba8unorm
/// or rgba16float with `STORAGE_BINDING` usage, or r8unorm with `COPY_DST` usage for a Gray8
/// result, the result's size. An error where the result
/// does not fit `output`, or the run would not go whole on the device.
pub fn run_textures(
    pipeline: &Pipeline,
    gpu: &Arc<Gpu>,
    input: &wgpu::Texture,
    output: &wgpu::Texture,
    opts: &RunOptions,
) -> Result<()> {
    let (source, sink, d) = checked_pair(pipeline, input, output)?;
    pipeline
        .try_run_produced_then(
            &Backend::Gpu(gpu.clone()),
            Box::new(source),
            Box::new(sink),
            opts,
        )?
        .map(|_| ())
        .ok_or_else(|| too_large(d))
}

/// `run_textures`, recorded into the caller's `encoder` instead of run: nothing is submitted,
/// waited for or read back, so a filter chain fits in an application's frame (its commands
/// before the ones the application records after, e.g. drawing `output`). The run's buffers
/// live until the caller's commands are done. An error where the result does not fit `output`,
/// the run would not go whole on the device, or the pipeline has images of its own.
///
/// # Examples
///
/// ```no_run
/// # fn main() -> texelflow::Result<()> {
/// # let (gpu, device, camera, shown, pipe): (std::sync::Arc<texelflow::Gpu>, wgpu::Device, wgpu::Texture, wgpu::Texture, texelflow::Pipeline) = todo!();
/// let mut encoder = device.create_command_encoder(&Default::default());
/// texelflow::io::texture::encode_textures(&pipe, &gpu, &camera, &shown, &mut encoder, &Default::default())?;
/// // ... the application draws `shown` with the same encoder, then submits it
/// # Ok(())
/// # }
/// ```
pub fn encode_textures(
    pipeline: &Pipeline,
    gpu: &Arc<Gpu>,
    input: &wgpu::Texture,
    output: &wgpu::Texture,
    encoder: &mut wgpu::CommandEncoder,
    opts: &RunOptions,
) -> Result<()> {
    let (source, sink, d) = checked_pair(pipeline, input, output)?;
    pipeline
        .encode_produced_then(gpu, Box::new(source), Box::new(sink), encoder, opts)?
        .ok_or_else(|| too_large(d))
}

/// `run_textures` recorded once, to run again and again (`PreparedRun`): each frame of a
/// camera or a render loop replays the same commands from `input` into `output` (`run`, or
/// `encode` into the application's encoder), with nothing of the graph rebuilt. The texture
/// contents may change between runs; the textures themselves stay. An error where
/// `run_textures` would fail, or where the pipeline keeps state between runs or sends data
/// of its own each run.
///
/// # Examples
///
/// ```no_run
/// # fn main() -> texelflow::Result<()> {
/// # let (gpu, device, camera, shown, pipe): (std::sync::Arc<texelflow::Gpu>, wgpu::Device, wgpu::Texture, wgpu::Texture, texelflow::Pipeline) = todo!();
/// let frame = texelflow::io::texture::prepare_textures(&pipe, &gpu, &camera, &shown, &Default::default())?;
/// loop {
///     // ... the camera's new frame is in `camera`
///     let mut encoder = device.create_command_encoder(&Default::default());
///     frame.encode(&mut encoder);
///     // ... the application draws `shown`, then submits
/// #   break;
/// }
/// # Ok(())
/// # }
/// ```
pub fn prepare_textures(
    pipeline: &Pipeline,
    gpu: &Arc<Gpu>,
    input: &wgpu::Texture,
    output: &wgpu::Texture,
    opts: &RunOptions,
) -> Result<PreparedRun> {
    let (source, sink, d) = checked_pair(pipeline, input, output)?;
    pipeline
        .prepare_produced_then(gpu, Box::new(source), Box::new(sink), opts)?
        .ok_or_else(|| too_large(d))
}

/// The source and sink of `input` and `output` for `pipeline`, the result's size checked
/// against `output` first (for the sink's message).
fn checked_pair(
    pipeline: &Pipeline,
    input: &wgpu::Texture,
    output: &wgpu::Texture,
) -> Result<(TextureSource, TextureSink, ImageDesc)> {
    let source = TextureSource::new(input)?;
    let sink = TextureSink::new(output)?;
    let d = source.desc();
    let last = crate::value::ValueDesc::Image(pipeline.output_desc(d)?);
    crate::extend::Filter::output_descs(&sink, &[last])?;
    Ok((source, sink, d))
}

/// The error of a texture run that would not go whole on the device.
fn too_large(d: ImageDesc) -> Error {
    Error::unsupported(format!(
        "a {}x{} texture's run does not fit the device whole (texture inputs do not run in tiles yet)",
        d.width, d.height
    ))
}

static BUFFER_SOURCE_DEF: crate::extend::FilterDef = resource_def(
    "buffer_source",
    "a caller's wgpu buffer as a graph's input (not in the catalogue)",
    &[],
    crate::extend::IMAGE,
    |_| Err(Error::invalid("buffer_source is made from a wgpu buffer")),
);

static BUFFER_SINK_DEF: crate::extend::FilterDef = resource_def(
    "buffer_sink",
    "a graph's result into a caller's wgpu buffer (not in the catalogue)",
    crate::extend::IMAGE,
    STATUS,
    |_| Err(Error::invalid("buffer_sink is made from a wgpu buffer")),
);

/// Records the copy of `words` words from `src` (from word `src_at`) into `dst` (from word
/// `dst_at`).
fn copy_words(
    rec: &mut crate::extend::NodeRecorder<'_>,
    (src, src_at): (&wgpu::Buffer, u64),
    (dst, dst_at): (&wgpu::Buffer, u64),
    words: u64,
) -> Result<()> {
    let kernel = crate::extend::Kernel::new(
        "io.buffer_copy",
        &[include_str!("buffer_copy.wgsl")],
        "copy_words",
    );
    let word = |v: u64| u32::try_from(v).map_err(|_| Error::invalid("a buffer past 2^32 words"));
    let u: [u32; 4] = [word(words)?, word(src_at)?, word(dst_at)?, 0];
    rec.dispatch_binds(
        &kernel,
        &[
            crate::runtime::Bind::Buffer(src),
            crate::runtime::Bind::Buffer(dst),
        ],
        bytemuck::cast_slice(&u),
        crate::extend::groups_1d(words, 256),
    )
}

/// Checks that `buffer` can be bound as storage and holds `bytes`.
fn check_buffer(buffer: &wgpu::Buffer, bytes: u64, what: &str) -> Result<()> {
    if !buffer.usage().contains(wgpu::BufferUsages::STORAGE) {
        return Err(Error::invalid(format!(
            "the {what} buffer needs STORAGE usage for texelflow to bind it"
        )));
    }
    if buffer.size() < bytes {
        return Err(Error::invalid(format!(
            "the {what} buffer holds {} bytes, the image needs {bytes}",
            buffer.size()
        )));
    }
    Ok(())
}

/// A caller's storage buffer holding an image of `desc` in texelflow's layout of its format
/// (`image.rs`: RGBA8 one word a pixel, Gray8 four pixels a word with rows padded to a word,
/// RGBA16 two words a pixel) as a graph's input.
#[derive(Debug, Clone)]
pub struct BufferSource {
    buffer: wgpu::Buffer,
    desc: ImageDesc,
    /// Where the image starts in `buffer`, bytes (a multiple of 4).
    offset: u64,
}

impl BufferSource {
    /// The source for `buffer` holding an image of `desc`; an error where it cannot be bound
    /// as storage or is too small.
    pub fn new(buffer: &wgpu::Buffer, desc: ImageDesc) -> Result<BufferSource> {
        Self::at(buffer, desc, 0)
    }

    /// `new` for an image starting `offset` bytes into `buffer` (a multiple of 4): one of a
    /// batch of images in one buffer.
    pub fn at(buffer: &wgpu::Buffer, desc: ImageDesc, offset: u64) -> Result<BufferSource> {
        check_offset(offset)?;
        check_buffer(
            buffer,
            offset.saturating_add(desc.format.gpu_bytes(desc.width, desc.height)),
            "input",
        )?;
        Ok(BufferSource {
            buffer: buffer.clone(),
            desc,
            offset,
        })
    }
}

/// An error unless `offset` is a whole number of words.
fn check_offset(offset: u64) -> Result<()> {
    if !offset.is_multiple_of(4) {
        return Err(Error::invalid(format!(
            "an image {offset} bytes into a buffer: images start on a multiple of 4 bytes"
        )));
    }
    Ok(())
}

impl crate::extend::Filter for BufferSource {
    fn def(&self) -> &'static crate::extend::FilterDef {
        &BUFFER_SOURCE_DEF
    }
    fn output_descs(&self, _: &[crate::ValueDesc]) -> Result<Vec<crate::ValueDesc>> {
        Ok(vec![crate::ValueDesc::Image(self.desc)])
    }
    fn run_cpu(&self, _: &[&crate::Value], _: &[crate::ValueDesc]) -> Result<Vec<crate::Value>> {
        Err(Error::unsupported(
            "a buffer input runs on the GPU that owns it, not on the CPU reference",
        ))
    }
    fn record_gpu(
        &self,
        rec: &mut crate::extend::NodeRecorder<'_>,
        _: &[crate::extend::GpuSlot],
        outputs: &[crate::extend::GpuSlot],
    ) -> Result<()> {
        copy_words(
            rec,
            (&self.buffer, self.offset / 4),
            (&outputs[0].buffer, 0),
            self.desc
                .format
                .gpu_bytes(self.desc.width, self.desc.height)
                / 4,
        )
    }
    fn footprint(&self, _: &[crate::ValueDesc]) -> crate::extend::Footprint {
        crate::extend::Footprint::Pixel
    }
    fn output_buffer(&self) -> Option<&wgpu::Buffer> {
        // an image at the buffer's start is laid out as a slot: bound as it is
        (self.offset == 0).then_some(&self.buffer)
    }
    fn box_clone(&self) -> Box<dyn crate::extend::Filter> {
        Box::new(self.clone())
    }
}

/// A caller's storage buffer as where a graph's last image goes, in texelflow's layout of its
/// format (`BufferSource`'s); it must hold that image. The node's own output is an empty
/// byte stream: the image is in the buffer.
#[derive(Debug, Clone)]
pub struct BufferSink {
    buffer: wgpu::Buffer,
    /// Where the image goes in `buffer`, bytes (a multiple of 4).
    offset: u64,
    /// Bytes from `offset` the run may write (`with_room`); `None`: the image's only.
    room: Option<u64>,
}

impl BufferSink {
    /// The sink for `buffer`; an error where it cannot be bound as storage.
    pub fn new(buffer: &wgpu::Buffer) -> Result<BufferSink> {
        Self::at(buffer, 0)
    }

    /// `new` for an image written `offset` bytes into `buffer` (a multiple of 4).
    pub fn at(buffer: &wgpu::Buffer, offset: u64) -> Result<BufferSink> {
        check_offset(offset)?;
        check_buffer(buffer, offset, "output")?;
        Ok(BufferSink {
            buffer: buffer.clone(),
            offset,
            room: None,
        })
    }

    /// This sink, where the run may also write past the image, up to `bytes` from its start
    /// (scratch of the caller's, e.g. the rest of a slot): an image at the buffer's start is
    /// then made there directly by the node before, with no copy, where `bytes` cover a slot
    /// of its size. `bytes` are cut to the buffer's end.
    pub fn with_room(mut self, bytes: u64) -> BufferSink {
        self.room = Some(bytes.min(self.buffer.size().saturating_sub(self.offset)));
        self
    }
}

impl crate::extend::Filter for BufferSink {
    fn def(&self) -> &'static crate::extend::FilterDef {
        &BUFFER_SINK_DEF
    }
    fn output_descs(&self, inputs: &[crate::ValueDesc]) -> Result<Vec<crate::ValueDesc>> {
        let Some(d) = inputs.first().and_then(|d| d.image()) else {
            return Err(Error::invalid("buffer_sink takes an image"));
        };
        check_buffer(
            &self.buffer,
            self.offset
                .saturating_add(d.format.gpu_bytes(d.width, d.height)),
            "output",
        )?;
        Ok(vec![crate::ValueDesc::Data(
            crate::value::DataKind::Bytes { capacity: 0 },
        )])
    }
    fn run_cpu(&self, _: &[&crate::Value], _: &[crate::ValueDesc]) -> Result<Vec<crate::Value>> {
        Err(Error::unsupported(
            "a buffer output is written on the GPU that owns it, not by the CPU reference",
        ))
    }
    fn record_gpu(
        &self,
        rec: &mut crate::extend::NodeRecorder<'_>,
        inputs: &[crate::extend::GpuSlot],
        outputs: &[crate::extend::GpuSlot],
    ) -> Result<()> {
        // the node before wrote the image here already (`input_buffer`)
        if self.offset != 0 || *inputs[0].buffer != self.buffer {
            let bytes = inputs[0].desc.gpu_bytes();
            copy_words(
                rec,
                (&inputs[0].buffer, 0),
                (&self.buffer, self.offset / 4),
                bytes / 4,
            )?;
        }
        rec.clear(&outputs[0].buffer);
        Ok(())
    }
    fn footprint(&self, _: &[crate::ValueDesc]) -> crate::extend::Footprint {
        crate::extend::Footprint::Pixel
    }
    fn input_buffer(&self) -> Option<(&wgpu::Buffer, u64)> {
        match self.room {
            Some(room) if self.offset == 0 => Some((&self.buffer, room)),
            _ => None,
        }
    }
    fn box_clone(&self) -> Box<dyn crate::extend::Filter> {
        Box::new(self.clone())
    }
}

/// Runs `pipeline` from the image of `desc` in buffer `input` into buffer `output` on `gpu`
/// (the device both belong to), in texelflow's layouts (`BufferSource`); returns the result's
/// description (its layout in `output`). No pixel leaves the device; the run waits for the GPU.
/// With `encoder`, the run is recorded there instead and nothing is submitted or waited for
/// (`encode_textures`' form). An error where `output` is too small for the result or the run
/// would not go whole on the device.
pub fn run_buffers(
    pipeline: &Pipeline,
    gpu: &Arc<Gpu>,
    input: &wgpu::Buffer,
    desc: ImageDesc,
    output: &wgpu::Buffer,
    encoder: Option<&mut wgpu::CommandEncoder>,
    opts: &RunOptions,
) -> Result<ImageDesc> {
    let source = BufferSource::new(input, desc)?;
    let sink = BufferSink::new(output)?;
    let last = crate::value::ValueDesc::Image(pipeline.output_desc(desc)?);
    crate::extend::Filter::output_descs(&sink, &[last])?;
    let out = last
        .image()
        .ok_or_else(|| Error::invalid("the pipeline ends in data, not an image"))?;
    let done = match encoder {
        Some(e) => pipeline.encode_produced_then(gpu, Box::new(source), Box::new(sink), e, opts)?,
        None => pipeline
            .try_run_produced_then(
                &Backend::Gpu(gpu.clone()),
                Box::new(source),
                Box::new(sink),
                opts,
            )?
            .map(|_| ()),
    };
    done.map(|_| out).ok_or_else(|| too_large(desc))
}

/// `run_buffer_batch` recorded once, to run again and again (`PreparedRun::run`): each run
/// takes the `count` images that lie in `input` then, and writes their results into `output`,
/// with nothing of the graph rebuilt (a stream of tensors through the same shared buffers).
/// Unlike `run_buffer_batch`, the bytes from each result to the next (after the last, to the
/// buffer's end) are the run's scratch: a result at the buffer's start is made there directly
/// where they hold a slot of its size, and an input at the start is read where it lies (no
/// copies). Returns the run and the results' description. An error where `run_buffer_batch` would fail, or where the
/// pipeline keeps state between runs or sends data of its own each run.
#[allow(clippy::too_many_arguments)]
pub fn prepare_buffer_batch(
    pipeline: &Pipeline,
    gpu: &Arc<Gpu>,
    (input, in_step): (&wgpu::Buffer, u64),
    desc: ImageDesc,
    (output, out_step): (&wgpu::Buffer, u64),
    count: u32,
    opts: &RunOptions,
) -> Result<(PreparedRun, ImageDesc)> {
    let out = batch_output(pipeline, desc, out_step, count)?;
    let mut all: Option<PreparedRun> = None;
    for (source, sink) in batch_ends((input, in_step), desc, (output, out_step), count, out, true)?
    {
        let run = pipeline
            .prepare_produced_then(gpu, Box::new(source), Box::new(sink), opts)?
            .ok_or_else(|| too_large(desc))?;
        match &mut all {
            Some(a) => a.append(run),
            None => all = Some(run),
        }
    }
    let all = all.ok_or_else(|| Error::invalid("a batch of no images"))?;
    Ok((all, out))
}

/// Each image's source and sink of a batch (`run_buffer_batch`), the sinks checked to hold
/// results of `out`; with `room`, each sink may write up to the next result (the last to the
/// buffer's end: `prepare_buffer_batch`).
fn batch_ends(
    (input, in_step): (&wgpu::Buffer, u64),
    desc: ImageDesc,
    (output, out_step): (&wgpu::Buffer, u64),
    count: u32,
    out: ImageDesc,
    room: bool,
) -> Result<Vec<(BufferSource, BufferSink)>> {
    (0..u64::from(count))
        .map(|i| {
            let source = BufferSource::at(input, desc, i * in_step)?;
            let mut sink = BufferSink::at(output, i * out_step)?;
            if room {
                let last = i + 1 == u64::from(count);
                sink = sink.with_room(if last { u64::MAX } else { out_step });
            }
            crate::extend::Filter::output_descs(&sink, &[crate::value::ValueDesc::Image(out)])?;
            Ok((source, sink))
        })
        .collect()
}

/// The results' description of a batch of `count` images of `desc`, checked to fit `out_step`.
fn batch_output(
    pipeline: &Pipeline,
    desc: ImageDesc,
    out_step: u64,
    count: u32,
) -> Result<ImageDesc> {
    let out = pipeline.output_desc(desc)?;
    if count > 1 && out.format.gpu_bytes(out.width, out.height) > out_step {
        return Err(Error::invalid(format!(
            "results of {} bytes lie {out_step} bytes apart",
            out.format.gpu_bytes(out.width, out.height)
        )));
    }
    Ok(out)
}

/// `run_buffers` on `count` images of `desc` lying `in_step` bytes apart in `input` (the first
/// at 0), their results `out_step` apart in `output`: every run recorded into one command
/// buffer, submitted once and waited for once (a batch pays one submission and one wait, not
/// one each). Steps are multiples of 4. Returns the results' description. An error where a
/// result does not fit its place in `output`, or the pipeline would not run whole on the device.
#[allow(clippy::too_many_arguments)]
pub fn run_buffer_batch(
    pipeline: &Pipeline,
    gpu: &Arc<Gpu>,
    (input, in_step): (&wgpu::Buffer, u64),
    desc: ImageDesc,
    (output, out_step): (&wgpu::Buffer, u64),
    count: u32,
    opts: &RunOptions,
) -> Result<ImageDesc> {
    let out = batch_output(pipeline, desc, out_step, count)?;
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let mut used = Vec::new();
    for (source, sink) in batch_ends(
        (input, in_step),
        desc,
        (output, out_step),
        count,
        out,
        false,
    )? {
        used.extend(
            pipeline
                .encode_produced_then_keeping(
                    gpu,
                    Box::new(source),
                    Box::new(sink),
                    &mut encoder,
                    opts,
                )?
                .ok_or_else(|| too_large(desc))?,
        );
    }
    let index = gpu.submit([encoder.finish()])?;
    gpu.wait_for(Some(index))?;
    gpu.give_back(used);
    Ok(out)
}
