//! Photo-like test images for the assessment (library and CLI tests): textured scenes
//! (gradient ground, shapes, stripes, light noise) and their defects: blurred, under- and
//! over-exposed, and near-duplicates (brightness moved a few levels, fresh noise). Standalone
//! (only `texelflow::Image`), so the CLI tests can include it with `#[path]`.
#![allow(dead_code)]

use texelflow::{Image, PixelFormat};

/// xorshift, seeded.
struct Rng(u64);
impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u32) -> u32 {
        (self.next() % n as u64) as u32
    }
    fn colour(&mut self) -> [f64; 3] {
        [
            self.below(256) as f64,
            self.below(256) as f64,
            self.below(256) as f64,
        ]
    }
}

fn to_image(w: u32, h: u32, rgb: &[[f64; 3]]) -> Image {
    let data = rgb
        .iter()
        .flat_map(|c| {
            [
                c[0].round().clamp(0.0, 255.0) as u8,
                c[1].round().clamp(0.0, 255.0) as u8,
                c[2].round().clamp(0.0, 255.0) as u8,
                255,
            ]
        })
        .collect();
    Image::from_u8(w, h, PixelFormat::Rgba8, data).expect("valid photo")
}

fn from_image(img: &Image) -> Vec<[f64; 3]> {
    img.as_u8()
        .chunks_exact(4)
        .map(|p| [p[0] as f64, p[1] as f64, p[2] as f64])
        .collect()
}

/// A scene: a two-colour gradient ground, 4 to 7 shapes (rectangles, discs) of their own
/// colours, one striped patch, and uniform noise of ±3 levels. Seeds give unrelated palettes.
pub fn scene(w: u32, h: u32, seed: u64) -> Image {
    let mut r = Rng::new(seed);
    let (c0, c1) = (r.colour(), r.colour());
    let mut px: Vec<[f64; 3]> = (0..w * h)
        .map(|i| {
            let (x, y) = ((i % w) as f64 / w as f64, (i / w) as f64 / h as f64);
            let t = (x + y) / 2.0;
            [
                c0[0] * (1.0 - t) + c1[0] * t,
                c0[1] * (1.0 - t) + c1[1] * t,
                c0[2] * (1.0 - t) + c1[2] * t,
            ]
        })
        .collect();
    for _ in 0..4 + r.below(4) {
        let c = r.colour();
        let (cx, cy) = (r.below(w) as i64, r.below(h) as i64);
        let (rx, ry) = (4 + r.below(w / 4) as i64, 4 + r.below(h / 4) as i64);
        let disc = r.below(2) == 0;
        for y in 0..h as i64 {
            for x in 0..w as i64 {
                let (dx, dy) = (x - cx, y - cy);
                let inside = if disc {
                    dx * dx * ry * ry + dy * dy * rx * rx <= rx * rx * ry * ry
                } else {
                    dx.abs() <= rx && dy.abs() <= ry
                };
                if inside {
                    px[(y * w as i64 + x) as usize] = c;
                }
            }
        }
    }
    // stripes: fine detail for the sharpness measures
    let (sc, period) = (r.colour(), 2 + r.below(3));
    let (sx, sy) = (r.below(w / 2), r.below(h / 2));
    for y in sy..(sy + h / 3).min(h) {
        for x in sx..(sx + w / 3).min(w) {
            if (x / period) % 2 == 0 {
                px[(y * w + x) as usize] = sc;
            }
        }
    }
    for p in px.iter_mut() {
        for c in p.iter_mut() {
            *c += r.below(7) as f64 - 3.0;
        }
    }
    to_image(w, h, &px)
}

/// Box blur of radius `radius`, applied twice (replicated borders).
pub fn blurred(img: &Image, radius: i64) -> Image {
    let (w, h) = (img.width() as i64, img.height() as i64);
    let mut px = from_image(img);
    for _ in 0..2 {
        let src = px.clone();
        for y in 0..h {
            for x in 0..w {
                let mut s = [0.0; 3];
                for dy in -radius..=radius {
                    for dx in -radius..=radius {
                        let p =
                            src[((y + dy).clamp(0, h - 1) * w + (x + dx).clamp(0, w - 1)) as usize];
                        for c in 0..3 {
                            s[c] += p[c];
                        }
                    }
                }
                let n = ((2 * radius + 1) * (2 * radius + 1)) as f64;
                px[(y * w + x) as usize] = [s[0] / n, s[1] / n, s[2] / n];
            }
        }
    }
    to_image(w as u32, h as u32, &px)
}

/// Every channel mapped through v * gain + offset (clipped).
pub fn exposed(img: &Image, gain: f64, offset: f64) -> Image {
    let px: Vec<[f64; 3]> = from_image(img)
        .iter()
        .map(|p| {
            [
                p[0] * gain + offset,
                p[1] * gain + offset,
                p[2] * gain + offset,
            ]
        })
        .collect();
    to_image(img.width(), img.height(), &px)
}

/// Brightness moved by `delta` levels and uniform noise of ±`amp` added.
pub fn near_copy(img: &Image, delta: f64, amp: u32, seed: u64) -> Image {
    let mut r = Rng::new(seed);
    let px: Vec<[f64; 3]> = from_image(img)
        .iter()
        .map(|p| p.map(|c| c + delta + r.below(2 * amp + 1) as f64 - amp as f64))
        .collect();
    to_image(img.width(), img.height(), &px)
}

/// What a photo of `photo_set` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Good,
    Blurred,
    Underexposed,
    Overexposed,
    /// A near-copy of the photo at this index.
    DuplicateOf(usize),
}

impl Kind {
    /// Blurred or badly exposed: should rank last.
    pub fn is_bad(self) -> bool {
        matches!(self, Kind::Blurred | Kind::Underexposed | Kind::Overexposed)
    }
}

/// 57 photos of `w` x `h`: 30 good scenes, 7 blurred, 6 under-exposed, 6 over-exposed (each a
/// scene of its own) and 8 near-copies of the first 8 good ones (brightness +3, noise ±2).
/// Names are `NN_kind`.
pub fn photo_set(w: u32, h: u32) -> Vec<(String, Image, Kind)> {
    let mut v = Vec::new();
    for i in 0..30 {
        v.push(("good".to_string(), scene(w, h, 1 + i), Kind::Good));
    }
    for i in 0..7 {
        v.push((
            "blurred".to_string(),
            blurred(&scene(w, h, 101 + i), 3),
            Kind::Blurred,
        ));
    }
    for i in 0..6 {
        v.push((
            "under".to_string(),
            exposed(&scene(w, h, 201 + i), 0.15, 0.0),
            Kind::Underexposed,
        ));
    }
    for i in 0..6 {
        v.push((
            "over".to_string(),
            exposed(&scene(w, h, 301 + i), 1.6, 150.0),
            Kind::Overexposed,
        ));
    }
    for i in 0..8 {
        let copy = near_copy(&v[i].1, 3.0, 2, 401 + i as u64);
        v.push((format!("dup_of_{i:02}"), copy, Kind::DuplicateOf(i)));
    }
    v.into_iter()
        .enumerate()
        .map(|(k, (n, img, kind))| (format!("{k:02}_{n}"), img, kind))
        .collect()
}
