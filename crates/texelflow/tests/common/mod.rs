//! Shared test helpers: the lavapipe/Vulkan device, random images, comparisons.
#![allow(dead_code)]

use std::sync::{Arc, OnceLock};

#[cfg(feature = "turbojpeg")]
pub mod turbo;

use texelflow::{Backend, Gpu, GpuOptions, Image, PixelFormat, Value};

/// The GPU all tests use: Vulkan unless `TEXELFLOW_TEST_BACKEND` says otherwise. Tests
/// fail (not skip) when there is none: a silently skipped GPU test cannot fail.
pub fn gpu() -> Arc<Gpu> {
    static GPU: OnceLock<Arc<Gpu>> = OnceLock::new();
    GPU.get_or_init(|| {
        let backend = std::env::var("TEXELFLOW_TEST_BACKEND").unwrap_or_else(|_| "vulkan".into());
        match Gpu::new(&GpuOptions { backend: Some(backend.clone()), adapter: None, ..Default::default() }) {
            Ok(g) => g,
            Err(e) => panic!("GPU tests need a {backend} adapter (install mesa-vulkan-drivers for lavapipe): {e}"),
        }
    })
    .clone()
}

/// A GPU of its own, for tests that count what the device has compiled: on the shared one,
/// tests running beside them compile kernels too.
pub fn private_gpu() -> Arc<Gpu> {
    let backend = std::env::var("TEXELFLOW_TEST_BACKEND").unwrap_or_else(|_| "vulkan".into());
    Gpu::new(&GpuOptions {
        backend: Some(backend.clone()),
        adapter: None,
        ..Default::default()
    })
    .unwrap_or_else(|e| panic!("GPU tests need a {backend} adapter: {e}"))
}

pub fn gpu_backend() -> Backend {
    Backend::Gpu(gpu())
}

/// Deterministic xorshift generator.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn byte(&mut self) -> u8 {
        (self.next() >> 24) as u8
    }
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Random RGBA8 / Gray8 / RGBA16 image: half noise, half smooth gradient, so both edges and
/// flat regions are exercised. RGBA16 samples use all 16 bits (most are not multiples of 257).
pub fn random_image(w: u32, h: u32, format: PixelFormat, seed: u64) -> Image {
    if format == PixelFormat::Rgba16 {
        let mut rng = Rng(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1);
        let mut data = Vec::with_capacity((w * h) as usize * 4);
        for y in 0..h {
            for x in 0..w {
                for c in 0..4u32 {
                    let smooth = ((x * 65535 / w.max(1)) as u16)
                        .wrapping_add((y * 24999 / h.max(1)) as u16)
                        .wrapping_add(c as u16 * 15361);
                    data.push(if (x / 8 + y / 8) % 2 == 0 {
                        (rng.next() >> 24) as u16
                    } else {
                        smooth
                    });
                }
            }
        }
        return Image::from_u16(w, h, data).expect("valid test image");
    }
    let mut rng = Rng(seed.wrapping_mul(0x9E3779B97F4A7C15) | 1);
    let ch = format.channels();
    let mut data = Vec::with_capacity((w * h) as usize * ch);
    for y in 0..h {
        for x in 0..w {
            for c in 0..ch {
                let smooth = ((x * 255 / w.max(1)) as u8)
                    .wrapping_add((y * 97 / h.max(1)) as u8)
                    .wrapping_add(c as u8 * 60);
                let v = if (x / 8 + y / 8) % 2 == 0 {
                    rng.byte()
                } else {
                    smooth
                };
                data.push(v);
            }
        }
    }
    Image::from_u8(w, h, format, data).expect("valid test image")
}

/// Max abs difference between two values of the same kind; `Err` on shape mismatch.
pub fn max_diff(a: &Value, b: &Value) -> Result<f64, String> {
    match (a, b) {
        (Value::Image(x), Value::Image(y)) => {
            if x.desc() != y.desc() {
                return Err(format!("descs differ: {} vs {}", x.desc(), y.desc()));
            }
            if x.format() == PixelFormat::Rgba16 {
                Ok(x.as_u16()
                    .iter()
                    .zip(y.as_u16())
                    .map(|(p, q)| (*p as i32 - *q as i32).unsigned_abs())
                    .max()
                    .unwrap_or(0) as f64)
            } else if x.format().is_8bit() {
                Ok(x.as_u8()
                    .iter()
                    .zip(y.as_u8())
                    .map(|(p, q)| (*p as i32 - *q as i32).unsigned_abs())
                    .max()
                    .unwrap_or(0) as f64)
            } else {
                Ok(x.as_f32()
                    .iter()
                    .zip(y.as_f32())
                    .map(|(p, q)| (p - q).abs() as f64)
                    .fold(0.0, f64::max))
            }
        }
        (Value::Data(x), Value::Data(y)) => {
            if x == y {
                Ok(0.0)
            } else {
                Err(format!("data differ:\n gpu {x:?}\n cpu {y:?}"))
            }
        }
        _ => Err("kinds differ".into()),
    }
}

/// Runs `filters` in a chain on `img` (outputs poisoned on the GPU); the last output.
pub fn run_chain(
    backend: &Backend,
    filters: Vec<Box<dyn texelflow::Filter>>,
    img: &Image,
) -> Value {
    let mut g = texelflow::Graph::new();
    let mut port = g.source("in", img.desc()).unwrap();
    for f in filters {
        port = g.add_boxed(f, &[port]).unwrap()[0];
    }
    g.output("out", port).unwrap();
    let mut r = backend
        .run(
            &g,
            &[("in", img)],
            &texelflow::RunOptions {
                poison: true,
                ..Default::default()
            },
        )
        .unwrap();
    r.take("out").unwrap()
}
