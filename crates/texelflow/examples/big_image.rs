//! Large images without holding them (issue 20's measurements): `make W H out.png` writes a
//! photo-like RGBA8 PNG by rows; `compare a.png b.png` reads two images by rows and prints the
//! largest and mean difference of their samples and how many pixels differ, as JSON.
//!
//!     cargo run --release --example big_image -- make 20000 20000 big.png
//!     cargo run --release --example big_image -- compare gpu.png cpu.png

use texelflow::io::rows;
use texelflow::{Image, ImageDesc, PixelFormat};

fn main() -> texelflow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let usage = || texelflow::Error::invalid("usage: big_image make W H OUT.png | compare A B");
    match args.get(1).map(String::as_str) {
        Some("make") => {
            let (w, h): (u32, u32) = (
                args.get(2).and_then(|s| s.parse().ok()).ok_or_else(usage)?,
                args.get(3).and_then(|s| s.parse().ok()).ok_or_else(usage)?,
            );
            let out = std::path::Path::new(args.get(4).ok_or_else(usage)?);
            let mut sink = rows::create_rows(
                out,
                ImageDesc::new(w, h, PixelFormat::Rgba8),
                &Default::default(),
            )?;
            let band = 256;
            let mut seed = 0x9e3779b9u32;
            for y0 in (0..h).step_by(band) {
                let rows = (band as u32).min(h - y0);
                let mut img = Image::zeroed(ImageDesc::new(w, rows, PixelFormat::Rgba8));
                for (i, p) in img.as_u8_mut().chunks_exact_mut(4).enumerate() {
                    let (x, y) = ((i % w as usize) as u32, y0 + (i / w as usize) as u32);
                    seed ^= seed << 13;
                    seed ^= seed >> 17;
                    seed ^= seed << 5;
                    let noise = (seed >> 29) as u8;
                    // gradients, blocks with edges, fine texture and a little noise
                    let block = if (x / 97 + y / 61) % 3 == 0 { 70 } else { 0 };
                    let texture = (((x * 13) ^ (y * 7)) % 32) as u8;
                    p.copy_from_slice(&[
                        ((x as u64 * 150) / w as u64) as u8 + block / 2 + noise,
                        ((y as u64 * 150) / h as u64) as u8 + texture + noise,
                        100u8.wrapping_add(block) + texture / 2,
                        255,
                    ]);
                }
                sink.write_rows(&img)?;
            }
            sink.finish()?;
        }
        Some("compare") => {
            let (mut a, _) = rows::open_rows(
                std::path::Path::new(args.get(2).ok_or_else(usage)?),
                &Default::default(),
            )?;
            let (mut b, _) = rows::open_rows(
                std::path::Path::new(args.get(3).ok_or_else(usage)?),
                &Default::default(),
            )?;
            let (da, db) = (a.desc(), b.desc());
            if da != db {
                return Err(texelflow::Error::invalid(format!(
                    "the images differ in size or format: {da} against {db}"
                )));
            }
            let rb = rows::row_bytes(da);
            let bpp = rows::sample_bytes_per_pixel(da.format);
            let band = 256u32;
            let (mut max, mut sum, mut differing) = (0u32, 0u64, 0u64);
            let (mut ra, mut rb_) = (vec![0u8; rb * band as usize], vec![0u8; rb * band as usize]);
            for y0 in (0..da.height).step_by(band as usize) {
                let n = band.min(da.height - y0) as usize * rb;
                a.read_rows(&mut ra[..n])?;
                b.read_rows(&mut rb_[..n])?;
                for (pa, pb) in ra[..n].chunks_exact(bpp).zip(rb_[..n].chunks_exact(bpp)) {
                    let d = pa
                        .iter()
                        .zip(pb)
                        .map(|(x, y)| x.abs_diff(*y) as u32)
                        .max()
                        .unwrap_or(0);
                    max = max.max(d);
                    sum += pa
                        .iter()
                        .zip(pb)
                        .map(|(x, y)| x.abs_diff(*y) as u64)
                        .sum::<u64>();
                    differing += (d > 0) as u64;
                }
            }
            let samples = da.pixels() as u64 * bpp as u64;
            println!("{{\"size\": \"{}x{}\", \"max_diff\": {max}, \"mean_diff\": {:.5}, \"pixels_differing\": {differing}, \"pixels\": {}}}", da.width, da.height, sum as f64 / samples.max(1) as f64, da.pixels());
        }
        _ => return Err(usage()),
    }
    Ok(())
}
