//! The frames of the `live_filter` example, apart from any window: each frame draws an animated
//! pattern into a source texture, runs a texelflow pipeline from it into a filtered texture
//! (`io::texture::encode_textures`, recorded into the frame's own command encoder) and draws
//! that onto a target (a window's surface texture, or an offscreen one), all in one encoder.
//! `tests/live_filter.rs` includes this file (`#[path]`) to run the same frames offscreen.

use std::sync::Arc;

use texelflow::{Gpu, Pipeline};

/// The pattern (a fullscreen triangle; rings that wander and a checkerboard that blinks) and
/// the draw of the filtered texture onto the target (the same triangle, sampled).
const SHADERS: &str = r#"
struct Frame {
    t: f32,
    width: f32,
    height: f32,
    _pad: f32,
}

@group(0) @binding(0) var<uniform> frame: Frame;

struct Corner {
    @builtin(position) position: vec4<f32>,
    @location(0) uv: vec2<f32>,
}

// the triangle (-1,-1) (3,-1) (-1,3): the whole target, uv 0..1 from top left
@vertex
fn fullscreen(@builtin(vertex_index) i: u32) -> Corner {
    let c = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return Corner(vec4<f32>(c * 2.0 - 1.0, 0.0, 1.0), vec2<f32>(c.x, 1.0 - c.y));
}

@fragment
fn pattern(in: Corner) -> @location(0) vec4<f32> {
    let t = frame.t;
    let aspect = frame.width / frame.height;
    let centre = vec2<f32>(0.5 + 0.3 * cos(t), 0.5 + 0.3 * sin(1.3 * t));
    let d = (in.uv - centre) * vec2<f32>(aspect, 1.0);
    let rings = 0.5 + 0.5 * sin(40.0 * length(d) - 4.0 * t);
    let cell = vec2<u32>(in.position.xy) / 32u;
    let checker = f32((cell.x + cell.y + u32(t * 2.0)) % 2u);
    return vec4<f32>(rings, 0.4 * checker + 0.6 * in.uv.x, in.uv.y, 1.0);
}

@group(0) @binding(1) var shown: texture_2d<f32>;
@group(0) @binding(2) var linear: sampler;

@fragment
fn draw(in: Corner) -> @location(0) vec4<f32> {
    return textureSample(shown, linear, in.uv);
}
"#;

/// A filter chain shown live: the source and filtered textures, and the two render pipelines.
pub struct LiveFilter {
    device: wgpu::Device,
    gpu: Arc<Gpu>,
    pipeline: Pipeline,
    /// The frame's source image (rgba8unorm), drawn anew each frame.
    pub source: wgpu::Texture,
    /// The filter chain's result (rgba8unorm), written by texelflow each frame and drawn.
    pub filtered: wgpu::Texture,
    pattern: wgpu::RenderPipeline,
    draw: wgpu::RenderPipeline,
    sampler: wgpu::Sampler,
}

/// A render pipeline of `SHADERS`' fullscreen triangle and fragment entry `fragment`.
fn render_pipeline(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    fragment: &str,
    format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(fragment),
        layout: None,
        vertex: wgpu::VertexState {
            module,
            entry_point: Some("fullscreen"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: Default::default(),
        depth_stencil: None,
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some(fragment),
            compilation_options: Default::default(),
            targets: &[Some(format.into())],
        }),
        multiview_mask: None,
        cache: None,
    })
}

impl LiveFilter {
    /// The filter chain `spec` on `gpu` (texelflow on the application's `device`) for frames
    /// of `width` x `height`, drawn onto targets of `target_format`.
    pub fn new(
        gpu: &Arc<Gpu>,
        device: &wgpu::Device,
        spec: &str,
        (width, height): (u32, u32),
        target_format: wgpu::TextureFormat,
    ) -> Result<LiveFilter, Box<dyn std::error::Error>> {
        let pipeline = Pipeline::parse(spec, &mut |p: &str| texelflow::Image::open(p))?;
        let texture = |label, usage| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba8Unorm,
                usage: usage | wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            })
        };
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("live_filter"),
            source: wgpu::ShaderSource::Wgsl(SHADERS.into()),
        });
        Ok(LiveFilter {
            device: device.clone(),
            gpu: gpu.clone(),
            pipeline,
            source: texture("source", wgpu::TextureUsages::RENDER_ATTACHMENT),
            filtered: texture("filtered", wgpu::TextureUsages::STORAGE_BINDING),
            pattern: render_pipeline(device, &module, "pattern", wgpu::TextureFormat::Rgba8Unorm),
            draw: render_pipeline(device, &module, "draw", target_format),
            sampler: device.create_sampler(&wgpu::SamplerDescriptor {
                mag_filter: wgpu::FilterMode::Linear,
                min_filter: wgpu::FilterMode::Linear,
                ..Default::default()
            }),
        })
    }

    /// The frame's uniform (its time, the source's size) in a buffer of its own, so that
    /// frames recorded before any is submitted keep theirs.
    fn frame_uniform(&self, frame: u32) -> Result<wgpu::Buffer, Box<dyn std::error::Error>> {
        let values = [
            frame as f32 / 60.0,
            self.source.width() as f32,
            self.source.height() as f32,
            0.0,
        ];
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("frame"),
            size: bytes.len() as u64,
            usage: wgpu::BufferUsages::UNIFORM,
            mapped_at_creation: true,
        });
        buffer
            .slice(..)
            .get_mapped_range_mut()?
            .copy_from_slice(&bytes);
        buffer.unmap();
        Ok(buffer)
    }

    /// Records frame `frame` into `encoder`: the pattern into `source`, the filter chain from
    /// `source` into `filtered` (texelflow, nothing submitted), `filtered` drawn onto `target`.
    pub fn record(
        &self,
        frame: u32,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
    ) -> Result<(), Box<dyn std::error::Error>> {
        let uniform = self.frame_uniform(frame)?;
        let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("pattern"),
            layout: &self.pattern.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniform.as_entire_binding(),
            }],
        });
        let source = self.source.create_view(&Default::default());
        pass(encoder, &source, &self.pattern, &group);
        texelflow::io::texture::encode_textures(
            &self.pipeline,
            &self.gpu,
            &self.source,
            &self.filtered,
            encoder,
            &Default::default(),
        )?;
        let shown = self.filtered.create_view(&Default::default());
        let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("draw"),
            layout: &self.draw.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(&shown),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::Sampler(&self.sampler),
                },
            ],
        });
        pass(encoder, target, &self.draw, &group);
        Ok(())
    }
}

/// A render pass drawing `pipeline`'s fullscreen triangle onto `target`.
fn pass(
    encoder: &mut wgpu::CommandEncoder,
    target: &wgpu::TextureView,
    pipeline: &wgpu::RenderPipeline,
    group: &wgpu::BindGroup,
) {
    let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("live_filter"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: target,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    });
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, group, &[]);
    pass.draw(0..3, 0..1);
}

/// Reads texture `t` back (waits for the device): its rows packed, `bpp` bytes a texel.
pub fn read_texture(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    t: &wgpu::Texture,
    bpp: u32,
) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let (w, h) = (t.width(), t.height());
    let row =
        (w * bpp).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("read back"),
        size: u64::from(row * h),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        t.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: Some(h),
            },
        },
        t.size(),
    );
    queue.submit([encoder.finish()]);
    buffer.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    device.poll(wgpu::PollType::wait_indefinitely())?;
    let data = buffer.slice(..).get_mapped_range()?;
    Ok(data
        .chunks(row as usize)
        .flat_map(|r| r[..(w * bpp) as usize].to_vec())
        .collect())
}
