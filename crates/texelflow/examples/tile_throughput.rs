//! Tiled against untiled throughput on the GPU (issue 20): the same pipeline on one large
//! in-memory image, whole and in tiles with halos, median of a few runs each (upload, kernels
//! and read-back included; no codec), and a check that both give the same bytes.
//!
//!     cargo run --release --example tile_throughput -- 16384 4096 "gaussian_blur(sigma=8) | sobel_edge_detection" 3 1024
//!
//! (side, tile, spec, tiles in flight, band rows of the streamed run)

use std::time::Instant;

use texelflow::{Backend, GpuOptions, Image, ImageDesc, Pipeline, PixelFormat, RunOptions};

fn main() -> texelflow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let side: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(16384);
    let tile: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(4096);
    let spec = args
        .get(3)
        .cloned()
        .unwrap_or_else(|| "gaussian_blur(sigma=8) | sobel_edge_detection".into());
    let in_flight: usize = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(3);
    let backend = Backend::gpu(&GpuOptions::default())?;
    // a deterministic pattern with edges everywhere (content does not change the kernels' cost)
    let mut img = Image::zeroed(ImageDesc::new(side, side, PixelFormat::Rgba8));
    for (i, p) in img.as_u8_mut().chunks_exact_mut(4).enumerate() {
        let (x, y) = ((i % side as usize) as u32, (i / side as usize) as u32);
        p.copy_from_slice(&[
            (x ^ y) as u8,
            (x.wrapping_mul(7) >> 3) as u8,
            (y.wrapping_mul(5) >> 2) as u8,
            255,
        ]);
    }
    let pipe = Pipeline::parse(&spec, &mut |p| Image::open(p))?;
    // (0, 1): no halo alone, tiles cut through the pipeline's geometry (a resize, crop or turn)
    let (halo, align) = pipe.tile_halo(&img).unwrap_or((0, 1));
    let median = |mut v: Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    let time = |f: &dyn Fn() -> texelflow::Result<Image>| -> texelflow::Result<(f64, Image)> {
        let mut out = f()?; // warm-up: kernels compiled, buffers pooled
        let mut t = Vec::new();
        for _ in 0..3 {
            let c = Instant::now();
            out = f()?;
            t.push(c.elapsed().as_secs_f64() * 1e3);
        }
        Ok((median(t), out))
    };
    let (whole_ms, whole) = time(&|| {
        pipe.run_with(&backend, &img, &RunOptions::default())?
            .take("output")
            .and_then(|v| v.into_image())
            .ok_or_else(|| texelflow::Error::invalid("no image"))
    })?;
    // the whole image the way tiles go: written into staging, read from mapped memory into
    // an image (one host copy each way)
    let (whole_host_ms, _) = time(&|| {
        let mut r = pipe.run_host(&backend, &img, &RunOptions::default())?;
        match r.take("output") {
            Some(texelflow::HostValue::Mapped(m)) => m.to_image(),
            Some(texelflow::HostValue::Value(v)) => v
                .into_image()
                .ok_or_else(|| texelflow::Error::invalid("no image")),
            None => Err(texelflow::Error::invalid("no image")),
        }
    })?;
    let (tiled_ms, tiled) = time(&|| pipe.run_tiled(&backend, &img, tile, in_flight))?;
    let (_, times) = pipe.run_tiled_timed(&backend, &img, tile, in_flight)?;
    // in bands of `band` rows from an in-memory source into an in-memory sink (no codec): the
    // streamed path's own cost
    let band: u32 = args.get(5).and_then(|s| s.parse().ok()).unwrap_or(1024);
    let stream_opts = texelflow::TilePolicy {
        band_rows: Some(band),
        tile_width: None,
        in_flight,
        ..Default::default()
    };
    let (streamed_ms, streamed) = time(&|| {
        let mut src = texelflow::io::rows::ImageRows::borrowed(&img);
        let mut sink = texelflow::io::rows::MemorySink::new(pipe.output_desc(img.desc())?);
        pipe.run_streamed(&backend, &mut src, &mut sink, &stream_opts)?;
        sink.into_image()
    })?;
    let plan = pipe.plan_stream(&backend, img.desc(), &stream_opts)?;
    println!(
        "{{\"device\": {:?}, \"size\": {side}, \"tile\": {tile}, \"halo\": {halo}, \"align\": {align}, \"in_flight\": {in_flight}, \"spec\": {spec:?}, \"whole_ms\": {whole_ms:.1}, \"whole_host_ms\": {whole_host_ms:.1}, \"tiled_ms\": {tiled_ms:.1}, \"tiled_throughput_fraction\": {:.3}, \"fraction_of_whole_host\": {:.3}, \"identical\": {}, \"tile_sums_ms\": {{\"tiles\": {}, \"upload\": {:.1}, \"record\": {:.1}, \"wait\": {:.1}, \"readback\": {:.1}, \"paste\": {:.1}}}, \"band\": {band}, \"band_tile_width\": {}, \"streamed_ms\": {streamed_ms:.1}, \"streamed_fraction\": {:.3}, \"streamed_identical\": {}}}",
        backend.describe(),
        whole_ms / tiled_ms,
        whole_host_ms / tiled_ms,
        whole.as_u8() == tiled.as_u8(),
        times.tiles,
        times.upload_ms,
        times.record_ms,
        times.wait_ms,
        times.readback_ms,
        times.paste_ms,
        plan.tile_width,
        whole_ms / streamed_ms,
        whole.as_u8() == streamed.as_u8()
    );
    Ok(())
}
