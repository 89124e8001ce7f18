//! Issue 30's first measurement (exploratory, not a claim): for a photo-like 3840x2160 JPEG
//! (quality 92, 4:2:0), the CPU time of libjpeg-turbo's whole decode against its entropy
//! decoding alone (`io::jpeg_coef::read_coefficients`), and the GPU time of the decode's
//! kernels (`JpegDecode`: IDCT, upsampling and colour) with a copy of the same RGBA image
//! beside it. `cargo run --release --example jpeg_decode_timing`.
use std::time::Instant;
use texelflow::io::jpeg_coef::{read_coefficients, JpegDecode};
use texelflow::{Backend, Gpu, GpuOptions, Graph, RunOptions, Value};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (w, h) = (3840usize, 2160usize);
    let mut seed = 1u64;
    let pixels: Vec<u8> = (0..w * h * 3)
        .map(|i| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (x, y, c) = ((i / 3) % w, (i / 3) / w, i % 3);
            let smooth = ((x as f64 / 97.0).sin() * 60.0
                + (y as f64 / 53.0).cos() * 50.0
                + 120.0
                + c as f64 * 20.0) as i64;
            (smooth + (seed >> 60) as i64 - 8).clamp(0, 255) as u8
        })
        .collect();
    let mut comp = turbojpeg::Compressor::new()?;
    comp.set_quality(92)?;
    comp.set_subsamp(turbojpeg::Subsamp::Sub2x2)?;
    let jpeg = comp.compress_to_vec(turbojpeg::Image {
        pixels: pixels.as_slice(),
        width: w,
        pitch: w * 3,
        height: h,
        format: turbojpeg::PixelFormat::RGB,
    })?;
    println!("jpeg {} bytes", jpeg.len());
    let mut full = Vec::new();
    let mut entropy = Vec::new();
    let mut rgba = vec![0u8; w * h * 4];
    for _ in 0..15 {
        let t = Instant::now();
        let mut d = turbojpeg::Decompressor::new()?;
        d.decompress(
            &jpeg,
            turbojpeg::Image {
                pixels: rgba.as_mut_slice(),
                width: w,
                pitch: w * 4,
                height: h,
                format: turbojpeg::PixelFormat::RGBA,
            },
        )?;
        full.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let c = read_coefficients(&jpeg, 1 << 30).map_err(|e| format!("{e:?}"))?;
        entropy.push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(c);
    }
    println!(
        "cpu one core: libjpeg-turbo full decode to RGBA {:.2} ms, entropy decode only {:.2} ms",
        median(full),
        median(entropy)
    );
    let c = read_coefficients(&jpeg, 1 << 30).map_err(|e| format!("{e:?}"))?;
    let twin = texelflow::io::jpeg_coef::decode_rgba(&c).ok_or("unsupported")?;
    let same = twin == rgba;
    let node = JpegDecode::new(c, 1).ok_or("unsupported")?;
    let gpu = Gpu::new(&GpuOptions::default())?;
    println!("gpu: {:?}", gpu.info());
    let be = Backend::Gpu(gpu);
    let mut g = Graph::new();
    let out = g.add_boxed(Box::new(node), &[])?;
    g.output("out", out[0])?;
    let opts = RunOptions {
        timings: true,
        ..Default::default()
    };
    let mut kernel = Vec::new();
    let mut wall = Vec::new();
    let mut gpu_out = None;
    for _ in 0..15 {
        let t = Instant::now();
        let r = be.run(&g, &[], &opts)?;
        wall.push(t.elapsed().as_secs_f64() * 1e3);
        kernel.push(r.timings.iter().map(|t| t.ms).sum::<f64>());
        gpu_out = r.outputs.into_iter().next();
    }
    let gpu_same = matches!(&gpu_out, Some((_, Value::Image(i))) if i.as_u8() == rgba.as_slice());
    println!(
        "gpu decode kernels {:.4} ms (median of 15; the run with upload and readback {:.2} ms)",
        median(kernel),
        median(wall)
    );
    println!("twin == libjpeg-turbo: {same}; gpu == libjpeg-turbo: {gpu_same}");
    Ok(())
}
