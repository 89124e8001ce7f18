//! Live frames (the camera): each frame is copied into a texture on the GPU
//! (`copyExternalImageToTexture`), the chain's recorded run (`PreparedRun`) reads it and writes
//! a texture of the result, and that is copied into a WebGPU canvas. Nothing goes through the
//! page's memory. Without a canvas the result stays in its texture for `Live::read`, which
//! reads it back: the path tests take, since a headless browser on SwiftShader cannot show
//! WebGPU canvases (docs/web.md).

use std::sync::Arc;

use texelflow::{Gpu, ImageDesc, PixelFormat, PreparedRun, RunOptions};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::{js, parse, Engine};

#[wasm_bindgen]
impl Engine {
    /// Prepares `spec` for live frames of `width`x`height` (a camera's video, or any image the
    /// page can draw). With `canvas`, each `Live::frame` shows its result there (the canvas is
    /// configured for WebGPU and sized to the result); without, the result waits for
    /// `Live::read`. Needs WebGPU; the chain must end in an image and keep no state between
    /// runs (no temporal filters).
    pub fn live(
        &self,
        spec: &str,
        width: u32,
        height: u32,
        canvas: Option<web_sys::HtmlCanvasElement>,
    ) -> Result<Live, JsError> {
        let gpu = self.need_gpu("live frames")?;
        let pipe = parse(spec, &self.images).map_err(js)?;
        let out = pipe
            .output_desc(ImageDesc::new(width, height, PixelFormat::Rgba8))
            .map_err(js)?;
        let device = gpu.device();
        let texture = |label, (w, h), usage| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: wgpu::Extent3d {
                    width: w,
                    height: h,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wgpu::TextureFormat::Rgba8Unorm,
                usage,
                view_formats: &[],
            })
        };
        // copyExternalImageToTexture needs RENDER_ATTACHMENT and COPY_DST on its target
        let source = texture(
            "texelflow-web.live_source",
            (width, height),
            wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_DST
                | wgpu::TextureUsages::RENDER_ATTACHMENT,
        );
        let sink = texture(
            "texelflow-web.live_sink",
            (out.width, out.height),
            wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC,
        );
        let run = texelflow::io::texture::prepare_textures(
            &pipe,
            &gpu,
            &source,
            &sink,
            &RunOptions::default(),
        )
        .map_err(js)?;
        let shown = match canvas {
            Some(canvas) => Some(Shown::new(&gpu, canvas, (out.width, out.height))?),
            None => None,
        };
        Ok(Live {
            gpu,
            run,
            source,
            sink,
            shown,
        })
    }
}

/// A chain prepared for live frames (`Engine::live`): its textures, its recorded run and the
/// canvas it shows them in.
#[wasm_bindgen]
pub struct Live {
    gpu: Arc<Gpu>,
    run: PreparedRun,
    source: wgpu::Texture,
    sink: wgpu::Texture,
    shown: Option<Shown>,
}

/// A WebGPU canvas showing the results.
struct Shown {
    surface: wgpu::Surface<'static>,
    // the canvas is configured for the page's one WebGPU device whichever wgpu instance wraps
    // it; the instance must outlive the surface
    _instance: wgpu::Instance,
}

impl Shown {
    fn new(
        gpu: &Gpu,
        canvas: web_sys::HtmlCanvasElement,
        (width, height): (u32, u32),
    ) -> Result<Shown, JsError> {
        canvas.set_width(width);
        canvas.set_height(height);
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::BROWSER_WEBGPU;
        let instance = wgpu::Instance::new(desc);
        let surface = instance
            .create_surface(wgpu::SurfaceTarget::Canvas(canvas))
            .map_err(|e| JsError::new(&format!("the canvas cannot show WebGPU frames: {e}")))?;
        surface.configure(
            gpu.device(),
            &wgpu::SurfaceConfiguration {
                usage: wgpu::TextureUsages::COPY_DST,
                format: wgpu::TextureFormat::Rgba8Unorm,
                color_space: wgpu::SurfaceColorSpace::Auto,
                width,
                height,
                present_mode: wgpu::PresentMode::Fifo,
                desired_maximum_frame_latency: 2,
                alpha_mode: wgpu::CompositeAlphaMode::Opaque,
                view_formats: Vec::new(),
            },
        );
        Ok(Shown {
            surface,
            _instance: instance,
        })
    }
}

#[wasm_bindgen]
impl Live {
    /// Runs the chain on `frame` (a video element's current frame, a canvas or an image
    /// bitmap of the size `live` was given) and shows the result in the canvas, if any.
    /// Returns at once: the copy in, the chain and the copy out are queued on the GPU, in
    /// that order. A frame of another size is refused (prepare again).
    pub fn frame(&self, frame: JsValue) -> Result<(), JsError> {
        let source = if let Some(v) = frame.dyn_ref::<web_sys::HtmlVideoElement>() {
            wgpu::ExternalImageSource::HTMLVideoElement(v.clone())
        } else if let Some(c) = frame.dyn_ref::<web_sys::HtmlCanvasElement>() {
            wgpu::ExternalImageSource::HTMLCanvasElement(c.clone())
        } else if let Some(b) = frame.dyn_ref::<web_sys::ImageBitmap>() {
            wgpu::ExternalImageSource::ImageBitmap(b.clone())
        } else {
            return Err(JsError::new(
                "a live frame is a video element, a canvas or an ImageBitmap",
            ));
        };
        let size = self.source.size();
        if (source.width(), source.height()) != (size.width, size.height) {
            return Err(JsError::new(&format!(
                "a {}x{} frame for a chain prepared for {}x{}",
                source.width(),
                source.height(),
                size.width,
                size.height
            )));
        }
        let queue = self.gpu.queue();
        queue.copy_external_image_to_texture(
            &wgpu::CopyExternalImageSourceInfo {
                source,
                origin: wgpu::Origin2d::ZERO,
                flip_y: false,
            },
            wgpu::CopyExternalImageDestInfo {
                texture: &self.source,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
                color_space: wgpu::PredefinedColorSpace::Srgb,
                premultiplied_alpha: false,
            },
            size,
        );
        let mut encoder =
            self.gpu
                .device()
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("texelflow-web.live_frame"),
                });
        self.run.encode(&mut encoder);
        let Some(shown) = &self.shown else {
            queue.submit([encoder.finish()]);
            return Ok(());
        };
        let target = match shown.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            _ => return Err(JsError::new("the canvas gave no texture to draw into")),
        };
        encoder.copy_texture_to_texture(
            self.sink.as_image_copy(),
            target.texture.as_image_copy(),
            self.sink.size(),
        );
        queue.submit([encoder.finish()]);
        queue.present(target);
        Ok(())
    }

    /// The last frame's result, read back: a promise of its RGBA8 bytes (`width` x `height`
    /// x 4), after the frames queued before it.
    pub fn read(&self) -> js_sys::Promise {
        let gpu = self.gpu.clone();
        let sink = self.sink.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let (w, h) = (sink.width(), sink.height());
            let row = (w * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
                * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
            let buffer = gpu.device().create_buffer(&wgpu::BufferDescriptor {
                label: Some("texelflow-web.live_read"),
                size: u64::from(row) * u64::from(h),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut encoder =
                gpu.device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("texelflow-web.live_read"),
                    });
            encoder.copy_texture_to_buffer(
                sink.as_image_copy(),
                wgpu::TexelCopyBufferInfo {
                    buffer: &buffer,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(row),
                        rows_per_image: Some(h),
                    },
                },
                sink.size(),
            );
            gpu.queue().submit([encoder.finish()]);
            let mapped = js_sys::Promise::new(&mut |resolve, reject| {
                buffer.slice(..).map_async(wgpu::MapMode::Read, move |r| {
                    let _ = match r {
                        Ok(()) => resolve.call0(&JsValue::NULL),
                        Err(e) => reject.call1(&JsValue::NULL, &JsValue::from(e.to_string())),
                    };
                });
            });
            wasm_bindgen_futures::JsFuture::from(mapped).await?;
            let bytes = {
                let view = buffer
                    .slice(..)
                    .get_mapped_range()
                    .map_err(|e| JsError::new(&format!("the result could not be read: {e}")))?;
                let mut out = Vec::with_capacity((w * h * 4) as usize);
                for r in view.chunks(row as usize) {
                    out.extend_from_slice(&r[..(w * 4) as usize]);
                }
                out
            };
            buffer.unmap();
            Ok(js_sys::Uint8Array::from(&bytes[..]).into())
        })
    }

    /// The result's width (the canvas's).
    #[wasm_bindgen(getter)]
    pub fn width(&self) -> u32 {
        self.sink.width()
    }

    /// The result's height.
    #[wasm_bindgen(getter)]
    pub fn height(&self) -> u32 {
        self.sink.height()
    }
}
