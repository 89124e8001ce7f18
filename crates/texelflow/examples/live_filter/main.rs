//! A filter chain in a render loop (issue 31): texelflow on the application's own wgpu device
//! (`Gpu::from_wgpu`), each frame's pipeline recorded into the frame's command encoder
//! (`io::texture::encode_textures`) between the application's own passes: an animated pattern
//! drawn into a source texture, the chain from it into a filtered texture, that texture drawn
//! onto the window's surface. One encoder, one submission, no pixel through host memory.
//!
//! `cargo run --release -p texelflow --features live-window --example live_filter [-- --spec
//! SPEC] [--size WxH]` opens a window (winit; the feature keeps it out of other builds) and
//! prints the time a frame every 60 frames.
//! `--offscreen N --out PATH` draws N frames onto an offscreen texture
//! of a surface's usual format instead (no window, no event loop), one line of timings a
//! frame, and writes the last frame to the PNG at PATH: the form CI runs
//! (`tests/live_filter.rs` runs the same frames, `frames.rs`, and checks them).

mod frames;

use std::sync::Arc;
use std::time::Instant;

use frames::LiveFilter;

/// What the command line asks for.
struct Args {
    spec: String,
    size: (u32, u32),
    offscreen: Option<u32>,
    out: Option<String>,
}

fn parse_args() -> Result<Args, Box<dyn std::error::Error>> {
    let mut args = Args {
        spec: "gaussian_blur(sigma=2) | sobel_edge_detection".into(),
        size: (640, 360),
        offscreen: None,
        out: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a} takes a value"));
        match a.as_str() {
            "--spec" => args.spec = value()?,
            "--size" => {
                let v = value()?;
                let (w, h) = v.split_once('x').ok_or("--size takes WxH")?;
                args.size = (w.parse()?, h.parse()?);
            }
            "--offscreen" => args.offscreen = Some(value()?.parse()?),
            "--out" => args.out = Some(value()?),
            _ => {
                return Err(format!(
                    "unknown argument {a} (--spec SPEC, --size WxH, --offscreen N, --out PATH)"
                )
                .into())
            }
        }
    }
    Ok(args)
}

/// An opened device: its adapter, itself, its queue, and texelflow on it.
type Opened = (
    wgpu::Adapter,
    wgpu::Device,
    wgpu::Queue,
    Arc<texelflow::Gpu>,
);

/// The application's device (its adapter compatible with `surface` where there is one), and
/// texelflow on it.
fn open(
    instance: &wgpu::Instance,
    surface: Option<&wgpu::Surface<'_>>,
) -> Result<Opened, Box<dyn std::error::Error>> {
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        compatible_surface: surface,
        ..Default::default()
    }))?;
    // the features texelflow's kernels make use of, where the adapter has them
    let features = adapter.features()
        & (wgpu::Features::SUBGROUP | wgpu::Features::SHADER_F16 | wgpu::Features::TIMESTAMP_QUERY);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: adapter.limits(),
        required_features: features,
        ..Default::default()
    }))?;
    let gpu =
        texelflow::Gpu::from_wgpu(&adapter, device.clone(), queue.clone(), &Default::default());
    Ok((adapter, device, queue, gpu))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse_args()?;
    match args.offscreen {
        Some(n) => offscreen(&args, n),
        #[cfg(feature = "live-window")]
        None => window::run(args),
        #[cfg(not(feature = "live-window"))]
        None => Err("this build has no window (cargo's --features live-window): --offscreen N --out PATH draws offscreen".into()),
    }
}

/// `n` frames onto an offscreen texture of a surface's usual format (bgra8unorm), each
/// submitted and waited for (timed), the last one written to `--out`.
fn offscreen(args: &Args, n: u32) -> Result<(), Box<dyn std::error::Error>> {
    let out = args.out.as_deref().ok_or("--offscreen takes --out PATH")?;
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.flags = wgpu::InstanceFlags::empty();
    let instance = wgpu::Instance::new(desc);
    let (_adapter, device, queue, gpu) = open(&instance, None)?;
    let format = wgpu::TextureFormat::Bgra8Unorm;
    let (w, h) = args.size;
    let target = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("offscreen surface"),
        size: wgpu::Extent3d {
            width: w,
            height: h,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = target.create_view(&Default::default());
    let live = LiveFilter::new(&gpu, &device, &args.spec, args.size, format)?;
    for frame in 0..n {
        let t = Instant::now();
        let mut encoder = device.create_command_encoder(&Default::default());
        live.record(frame, &mut encoder, &view)?;
        let recorded = t.elapsed();
        queue.submit([encoder.finish()]);
        device.poll(wgpu::PollType::wait_indefinitely())?;
        println!(
            "frame {frame}: recorded in {:.2} ms, drawn in {:.2} ms",
            recorded.as_secs_f64() * 1e3,
            t.elapsed().as_secs_f64() * 1e3
        );
    }
    let mut pixels = frames::read_texture(&device, &queue, &target, 4)?;
    // bgra to rgba
    for p in pixels.chunks_exact_mut(4) {
        p.swap(0, 2);
    }
    texelflow::Image::from_u8(w, h, texelflow::PixelFormat::Rgba8, pixels)?.save(out)?;
    println!("wrote {out}");
    Ok(())
}

/// The window: winit's event loop, a frame drawn on every redraw.
#[cfg(feature = "live-window")]
mod window {
    use std::sync::Arc;

    use winit::application::ApplicationHandler;
    use winit::event::WindowEvent;
    use winit::event_loop::{ActiveEventLoop, EventLoop};
    use winit::window::{Window, WindowId};

    use super::{open, Args, LiveFilter};

    /// What is made once the window exists.
    struct Shown {
        window: Arc<Window>,
        surface: wgpu::Surface<'static>,
        config: wgpu::SurfaceConfiguration,
        device: wgpu::Device,
        queue: wgpu::Queue,
        live: LiveFilter,
        frame: u32,
        /// When the last 60 frames began (their time is printed).
        since: std::time::Instant,
    }

    struct App {
        args: Args,
        instance: wgpu::Instance,
        shown: Option<Shown>,
        error: Option<Box<dyn std::error::Error>>,
    }

    impl App {
        fn start(
            &mut self,
            event_loop: &ActiveEventLoop,
        ) -> Result<(), Box<dyn std::error::Error>> {
            let (w, h) = self.args.size;
            let window = Arc::new(
                event_loop.create_window(
                    Window::default_attributes()
                        .with_title(format!("texelflow: {}", self.args.spec))
                        .with_inner_size(winit::dpi::PhysicalSize::new(w, h)),
                )?,
            );
            let surface = self.instance.create_surface(window.clone())?;
            let (adapter, device, queue, gpu) = open(&self.instance, Some(&surface))?;
            let size = window.inner_size();
            let config = surface
                .get_default_config(&adapter, size.width.max(1), size.height.max(1))
                .ok_or("the adapter cannot present to this window")?;
            surface.configure(&device, &config);
            let live = LiveFilter::new(
                &gpu,
                &device,
                &self.args.spec,
                self.args.size,
                config.format,
            )?;
            window.request_redraw();
            self.shown = Some(Shown {
                window,
                surface,
                config,
                device,
                queue,
                live,
                frame: 0,
                since: std::time::Instant::now(),
            });
            Ok(())
        }
    }

    impl Shown {
        fn redraw(&mut self) -> Result<(), Box<dyn std::error::Error>> {
            let texture = match self.surface.get_current_texture() {
                wgpu::CurrentSurfaceTexture::Success(t)
                | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
                wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                    self.surface.configure(&self.device, &self.config);
                    self.window.request_redraw();
                    return Ok(());
                }
                _ => {
                    // timeout, occluded: try again later
                    self.window.request_redraw();
                    return Ok(());
                }
            };
            let view = texture.texture.create_view(&Default::default());
            let mut encoder = self.device.create_command_encoder(&Default::default());
            self.live.record(self.frame, &mut encoder, &view)?;
            self.queue.submit([encoder.finish()]);
            self.window.pre_present_notify();
            self.queue.present(texture);
            self.frame += 1;
            if self.frame.is_multiple_of(60) {
                println!(
                    "frames {}..{}: {:.2} ms a frame",
                    self.frame - 60,
                    self.frame,
                    self.since.elapsed().as_secs_f64() * 1e3 / 60.0
                );
                self.since = std::time::Instant::now();
            }
            self.window.request_redraw();
            Ok(())
        }
    }

    impl ApplicationHandler for App {
        fn resumed(&mut self, event_loop: &ActiveEventLoop) {
            if self.shown.is_none() {
                if let Err(e) = self.start(event_loop) {
                    self.error = Some(e);
                    event_loop.exit();
                }
            }
        }

        fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
            let Some(shown) = self.shown.as_mut() else {
                return;
            };
            match event {
                WindowEvent::CloseRequested => event_loop.exit(),
                WindowEvent::Resized(size) if size.width > 0 && size.height > 0 => {
                    shown.config.width = size.width;
                    shown.config.height = size.height;
                    shown.surface.configure(&shown.device, &shown.config);
                }
                WindowEvent::RedrawRequested => {
                    if let Err(e) = shown.redraw() {
                        self.error = Some(e);
                        event_loop.exit();
                    }
                }
                _ => {}
            }
        }
    }

    /// Opens the window and draws frames until it is closed.
    pub fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
        let event_loop = EventLoop::new()?;
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle(
            Box::new(event_loop.owned_display_handle()),
        ));
        let mut app = App {
            args,
            instance,
            shown: None,
            error: None,
        };
        event_loop.run_app(&mut app)?;
        match app.error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
