//! Images streamed in bands of rows (`Pipeline::run_streamed`): the result equals the whole
//! run byte for byte for every band height and tile width, on the GPU and the CPU; rows are
//! read once, in order, and never more than a band plus its halo are held; PNG and TIFF files
//! read by rows decode to what `Image::open` gives.

mod common;

use common::*;
use texelflow::io::rows::{self, ImageRows, RowSink, RowSource};
use texelflow::{Backend, Image, ImageDesc, Pipeline, PixelFormat, TilePolicy, Value};

fn pipe(spec: &str) -> Pipeline {
    Pipeline::parse(spec, &mut |p| Image::open(p)).unwrap()
}

/// Collects bands into an image, checking they come in order and fill it exactly.
struct Collect {
    rows: Vec<u8>,
    desc: Option<ImageDesc>,
    bands: Vec<u32>,
}

impl RowSink for Collect {
    fn write_rows(&mut self, band: &Image) -> texelflow::Result<()> {
        let d = *self.desc.get_or_insert(band.desc());
        assert_eq!(
            (d.width, d.format),
            (band.width(), band.format()),
            "bands differ in width or format"
        );
        match band.data() {
            texelflow::image::ImageData::U8(v) => self.rows.extend_from_slice(v),
            texelflow::image::ImageData::U16(v) => {
                self.rows.extend(v.iter().flat_map(|s| s.to_ne_bytes()))
            }
            texelflow::image::ImageData::F32(v) => {
                self.rows.extend(v.iter().flat_map(|s| s.to_ne_bytes()))
            }
        }
        self.bands.push(band.height());
        Ok(())
    }
    fn finish(self: Box<Self>) -> texelflow::Result<Vec<String>> {
        Ok(Vec::new())
    }
    fn streams(&self) -> bool {
        true
    }
}

/// Counts the rows asked of an image source, to check each is read once.
struct Counted {
    inner: ImageRows<'static>,
    rows_read: u32,
    row_bytes: usize,
}

impl RowSource for Counted {
    fn desc(&self) -> ImageDesc {
        self.inner.desc()
    }
    fn read_rows(&mut self, dst: &mut [u8]) -> texelflow::Result<()> {
        self.rows_read += (dst.len() / self.row_bytes) as u32;
        self.inner.read_rows(dst)
    }
    fn streams(&self) -> bool {
        true
    }
}

fn streamed(
    p: &Pipeline,
    b: &Backend,
    img: &Image,
    band: u32,
    tile: Option<u32>,
) -> texelflow::Result<(Image, texelflow::StreamReport)> {
    let mut src = Counted {
        inner: ImageRows::new(img.clone()),
        rows_read: 0,
        row_bytes: rows::row_bytes(img.desc()),
    };
    let mut sink = Collect {
        rows: Vec::new(),
        desc: None,
        bands: Vec::new(),
    };
    let report = p.run_streamed(
        b,
        &mut src,
        &mut sink,
        &TilePolicy {
            band_rows: Some(band),
            tile_width: tile,
            in_flight: 3,
            ..Default::default()
        },
    )?;
    assert_eq!(src.rows_read, img.height(), "every row read once");
    assert!(
        report.max_rows_held <= band + 2 * report.halo + 3,
        "held {} rows for bands of {band} with a halo of {}",
        report.max_rows_held,
        report.halo
    );
    assert_eq!(sink.bands.iter().sum::<u32>(), img.height());
    assert!(sink.bands.iter().all(|&r| r <= band));
    let d = sink.desc.expect("no bands");
    let out = rows_image(ImageDesc::new(d.width, img.height(), d.format), &sink.rows);
    Ok((out, report))
}

fn rows_image(d: ImageDesc, bytes: &[u8]) -> Image {
    match d.format {
        PixelFormat::Rgba8 | PixelFormat::Gray8 => {
            Image::from_u8(d.width, d.height, d.format, bytes.to_vec()).unwrap()
        }
        PixelFormat::Rgba16 => Image::from_u16(
            d.width,
            d.height,
            bytes
                .chunks_exact(2)
                .map(|b| u16::from_ne_bytes([b[0], b[1]]))
                .collect(),
        )
        .unwrap(),
        _ => Image::from_f32(
            d.width,
            d.height,
            d.format,
            bytes
                .chunks_exact(4)
                .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
        )
        .unwrap(),
    }
}

fn whole(p: &Pipeline, b: &Backend, img: &Image) -> Image {
    match p.run(b, img).unwrap() {
        Value::Image(i) => i,
        Value::Data(_) => panic!("data"),
    }
}

fn same(a: &Image, b: &Image) -> bool {
    a.desc() == b.desc() && a.data() == b.data()
}

#[test]
fn bands_equal_the_whole_run_for_every_band_height_and_tile_width() {
    let dir = std::env::temp_dir().join(format!("texelflow-bands-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let with = dir.join("with.png");
    random_image(67, 43, PixelFormat::Rgba8, 9)
        .save(&with)
        .unwrap();
    let specs = [
        "gaussian_blur(sigma=8) | sobel_edge_detection".to_string(),
        "gaussian_blur(sigma=3)".into(),
        "brightness(0.2) | contrast(1.5)".into(),
        "median(radius=2) | dilation(radius=1)".into(),
        "bilateral".into(),
        "unsharp_mask".into(),
        format!("multiply_blend(with={})", with.display()),
    ];
    let gpu = gpu_backend();
    let mut failures = Vec::new();
    for (k, spec) in specs.iter().enumerate() {
        let p = pipe(spec);
        for (w, h) in [(67, 43), (1, 29), (29, 1), (1, 1)] {
            if spec.contains("with=") && (w, h) != (67, 43) {
                continue;
            }
            let img = random_image(w, h, PixelFormat::Rgba8, k as u64 + 1);
            for (b, name) in [(&gpu, "gpu"), (&Backend::Cpu, "cpu")] {
                let expect = whole(&p, b, &img);
                for (band, tile) in [(7, Some(16)), (1, Some(5)), (43, None), (10, None)] {
                    match streamed(&p, b, &img, band, tile) {
                        Ok((got, _)) if same(&got, &expect) => {}
                        Ok(_) => failures.push(format!("{spec} {w}x{h} {name} bands of {band}, tiles {tile:?}: differs from the whole run")),
                        Err(e) => failures.push(format!("{spec} {w}x{h} {name} bands of {band}: {e}")),
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn sixteen_bit_and_grey_images_stream_in_their_formats() {
    let gpu = gpu_backend();
    for format in [PixelFormat::Rgba16, PixelFormat::Gray8] {
        let img = random_image(45, 38, format, 3);
        for spec in ["gaussian_blur(sigma=2)", "brightness(0.1)"] {
            let p = pipe(spec);
            let expect = whole(&p, &gpu, &img);
            let (got, _) = streamed(&p, &gpu, &img, 6, Some(9)).unwrap();
            assert!(same(&got, &expect), "{spec} on {format:?}");
        }
    }
}

#[test]
fn pipelines_that_cannot_run_in_bands_say_why() {
    let img = random_image(40, 30, PixelFormat::Rgba8, 4);
    for (spec, why) in [
        ("histogram", "data"),
        ("ios_blur", "change of size"),
        ("swirl", "whole image"),
    ] {
        let p = pipe(spec);
        let mut src = ImageRows::new(img.clone());
        let mut sink = Collect {
            rows: Vec::new(),
            desc: None,
            bands: Vec::new(),
        };
        let e = p
            .run_streamed(&Backend::Cpu, &mut src, &mut sink, &TilePolicy::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("cannot run in bands") && e.contains(why),
            "{spec}: {e}"
        );
    }
}

#[test]
fn the_memory_estimate_follows_the_formula() {
    let p = pipe("gaussian_blur(sigma=8) | sobel_edge_detection");
    let desc = ImageDesc::new(20000, 20000, PixelFormat::Rgba8);
    for (b, t) in [(gpu_backend(), 8), (Backend::Cpu, 4 + 4 + 4 + 4 + 16)] {
        let r = p
            .plan_stream(
                &b,
                desc,
                &TilePolicy {
                    band_rows: Some(1024),
                    tile_width: None,
                    in_flight: 3,
                    ..Default::default()
                },
            )
            .unwrap();
        let window = 1024 + 2 * r.halo as u64 + 3;
        let at_once = 3.min(20000u64.div_ceil(r.tile_width as u64));
        let expect = 20000 * (window * 4 + 2 * 1024 * 4 + 3 * 1024 * 4)
            + at_once * (r.tile_width as u64 + 2 * r.halo as u64 + 3).min(20000) * window * t;
        assert_eq!(r.host_bytes, expect);
        // under one whole image (1.6 GB), let alone the whole image times its intermediates
        assert!(r.host_bytes < 20000 * 20000 * 4, "{}", r.host_bytes);
    }
}

#[test]
fn png_and_tiff_read_by_rows_decode_as_open_does() {
    let dir = std::env::temp_dir().join(format!("texelflow-rows-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rgba = random_image(37, 23, PixelFormat::Rgba8, 5);
    let dynimg = rgba.to_dynamic();
    let cases: Vec<(&str, image::DynamicImage)> = vec![
        ("rgba8", dynimg.clone()),
        ("rgb8", image::DynamicImage::ImageRgb8(dynimg.to_rgb8())),
        ("l8", image::DynamicImage::ImageLuma8(dynimg.to_luma8())),
        (
            "la8",
            image::DynamicImage::ImageLumaA8(dynimg.to_luma_alpha8()),
        ),
        (
            "rgba16",
            image::DynamicImage::ImageRgba16(dynimg.to_rgba16()),
        ),
        ("rgb16", image::DynamicImage::ImageRgb16(dynimg.to_rgb16())),
        ("l16", image::DynamicImage::ImageLuma16(dynimg.to_luma16())),
    ];
    for (name, img) in cases {
        for ext in ["png", "tif"] {
            if (name, ext) == ("la8", "tif") {
                continue; // the `image` crate writes no grey-with-alpha TIFF
            }
            let path = dir.join(format!("{name}.{ext}"));
            img.save(&path).unwrap();
            let expect = Image::open(&path).unwrap();
            let (mut src, _) = rows::open_rows(&path, &Default::default()).unwrap();
            assert!(src.streams(), "{name}.{ext} should be read by rows");
            assert_eq!(src.desc(), expect.desc(), "{name}.{ext}");
            let mut bytes = vec![0u8; rows::row_bytes(src.desc()) * 23];
            // in uneven pieces: 5 rows, then 1, then the rest
            let rb = rows::row_bytes(src.desc());
            src.read_rows(&mut bytes[..5 * rb]).unwrap();
            src.read_rows(&mut bytes[5 * rb..6 * rb]).unwrap();
            src.read_rows(&mut bytes[6 * rb..]).unwrap();
            assert!(
                same(&rows_image(src.desc(), &bytes), &expect),
                "{name}.{ext} decodes differently by rows"
            );
            // and written back by rows
            let out = dir.join(format!("{name}.out.{ext}"));
            let mut sink = rows::create_rows(&out, expect.desc(), &Default::default()).unwrap();
            sink.write_rows(&texelflow::graph::crop_image(&expect, 0, 0, 37, 10).unwrap())
                .unwrap();
            sink.write_rows(&texelflow::graph::crop_image(&expect, 0, 10, 37, 13).unwrap())
                .unwrap();
            assert!(!out.exists(), "written in place before finish");
            sink.finish().unwrap();
            assert!(
                same(&Image::open(&out).unwrap(), &expect),
                "{name}.{ext} written by rows reads back differently"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
