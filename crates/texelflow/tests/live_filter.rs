//! Issue 31: the `live_filter` example's frames (`examples/live_filter/frames.rs`, included
//! here) run offscreen on a device the test opens: several frames recorded into encoders of
//! their own run without a device error, and the last frame's filtered texture equals the
//! host path on that frame's source image, byte for byte.

#[allow(dead_code)]
#[path = "../examples/live_filter/frames.rs"]
mod frames;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use texelflow::{Backend, Image, Pipeline, PixelFormat};

#[test]
fn the_live_filter_frames_equal_the_host_path() {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN;
    desc.flags = wgpu::InstanceFlags::empty();
    let instance = wgpu::Instance::new(desc);
    let adapter = pollster::block_on(instance.request_adapter(&Default::default()))
        .expect("a Vulkan adapter (lavapipe in CI)");
    let features = adapter.features() & (wgpu::Features::SUBGROUP | wgpu::Features::SHADER_F16);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: adapter.limits(),
        required_features: features,
        ..Default::default()
    }))
    .expect("device");
    let errors = Arc::new(AtomicUsize::new(0));
    let seen = errors.clone();
    device.on_uncaptured_error(Arc::new(move |e| {
        eprintln!("device error: {e}");
        seen.fetch_add(1, Ordering::Relaxed);
    }));
    let gpu =
        texelflow::Gpu::from_wgpu(&adapter, device.clone(), queue.clone(), &Default::default());
    // an awkward size: rows of neither texture a multiple of 256 bytes
    let (w, h) = (203, 117);
    let spec = "gaussian_blur(sigma=2) | sobel_edge_detection";
    let format = wgpu::TextureFormat::Bgra8Unorm;
    let live = frames::LiveFilter::new(&gpu, &device, spec, (w, h), format).unwrap();
    let target = device.create_texture(&wgpu::TextureDescriptor {
        label: None,
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
    // four frames, each in an encoder of its own, all recorded before any is submitted
    let encoders: Vec<wgpu::CommandBuffer> = (0..4)
        .map(|frame| {
            let mut encoder = device.create_command_encoder(&Default::default());
            live.record(frame * 7, &mut encoder, &view).unwrap();
            encoder.finish()
        })
        .collect();
    queue.submit(encoders);
    let source = frames::read_texture(&device, &queue, &live.source, 4).unwrap();
    let filtered = frames::read_texture(&device, &queue, &live.filtered, 4).unwrap();
    let shown = frames::read_texture(&device, &queue, &target, 4).unwrap();
    assert_eq!(errors.load(Ordering::Relaxed), 0, "device errors");
    let image = Image::from_u8(w, h, PixelFormat::Rgba8, source.clone()).unwrap();
    let pipe = Pipeline::parse(spec, &mut |p: &str| Image::open(p)).unwrap();
    let host = pipe.run(&Backend::Gpu(gpu.clone()), &image).unwrap();
    let host = host.as_image().unwrap();
    // the chain's result as an rgba8unorm texture: RGBA8 as it is, Gray8 as grey, alpha 1
    let want: Vec<u8> = match host.format() {
        PixelFormat::Gray8 => host.as_u8().iter().flat_map(|&g| [g, g, g, 255]).collect(),
        _ => host.as_u8().to_vec(),
    };
    assert!(filtered == want, "the last frame's filtered texture");
    // the frames moved: the pattern is not flat, the last differs from the first, and
    // something was drawn onto the target
    let first = {
        let mut encoder = device.create_command_encoder(&Default::default());
        live.record(0, &mut encoder, &view).unwrap();
        queue.submit([encoder.finish()]);
        frames::read_texture(&device, &queue, &live.source, 4).unwrap()
    };
    assert!(first != source, "frame 0 and frame 21 are the same");
    assert!(
        source.chunks_exact(4).any(|p| p != &source[..4]),
        "a flat pattern"
    );
    assert!(
        shown.chunks_exact(4).any(|p| p[..3] != [0, 0, 0]),
        "nothing drawn"
    );
    assert_eq!(errors.load(Ordering::Relaxed), 0, "device errors");
}
