//! Where a device's start-up goes (issue 30: ~0.2 s of a 64-image batch on the H200 machine):
//! wgpu's instance, the adapters' enumeration, the device's creation, then `Gpu::new` whole and a
//! first pipeline's kernels (compiled in the driver, or found in its cache), each timed.
//!
//! `cargo run --release -p texelflow --example device_open_timing [SPEC]`

use std::time::Instant;

use texelflow::{Backend, Gpu, GpuOptions, Image, Pipeline, PixelFormat, RunOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let spec = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "gaussian_blur(sigma=2) | sobel_edge_detection".into());
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::PRIMARY;
    desc.flags = wgpu::InstanceFlags::empty();
    let instance = wgpu::Instance::new(desc);
    let t_instance = ms(t);
    let t = Instant::now();
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::PRIMARY));
    let t_enumerate = ms(t);
    let adapter = adapters.into_iter().next().ok_or("no adapter")?;
    let t = Instant::now();
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_limits: adapter.limits(),
        ..Default::default()
    }))?;
    let t_device = ms(t);
    let t = Instant::now();
    drop((device, queue, adapter, instance));
    let t_drop = ms(t);
    let t = Instant::now();
    let gpu = Gpu::new(&GpuOptions::default())?;
    let t_gpu = ms(t);
    let pipe = Pipeline::parse(&spec, &mut |p: &str| Image::open(p))?;
    let img = Image::from_u8(64, 64, PixelFormat::Rgba8, vec![128; 64 * 64 * 4])?;
    let be = Backend::Gpu(gpu);
    let t = Instant::now();
    pipe.run_with(&be, &img, &RunOptions::default())?;
    let t_first = ms(t);
    let t = Instant::now();
    pipe.run_with(&be, &img, &RunOptions::default())?;
    let t_second = ms(t);
    println!(
        "device start (ms): instance {t_instance:.1}, enumerate {t_enumerate:.1}, request_device {t_device:.1}, its drop {t_drop:.1}; Gpu::new {t_gpu:.1}; `{spec}` on 64x64: first run {t_first:.1}, second {t_second:.1}"
    );
    std::mem::forget(be);
    Ok(())
}
