//! Tiles and bands through a change of geometry (issue 20, `graph/chain.rs`): resize (every
//! method, shrinking and enlarging, align_corners), crop, pad (every border mode), canvas, flips, turns,
//! transposes and warps (affine, rotations, perspective, parts wholly outside the input), alone
//! and between filters that keep the size, give the untiled result bit for bit at any tile
//! size, on the GPU and the CPU reference; streamed in bands where the rows move down the image.

mod common;

use common::*;
use texelflow::io::rows::{ImageRows, MemorySink};
use texelflow::{Backend, Image, Pipeline, PixelFormat, TilePolicy};

fn pipe(spec: &str) -> Pipeline {
    Pipeline::parse(spec, &mut |p| Image::open(p)).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn whole(p: &Pipeline, b: &Backend, img: &Image) -> Image {
    p.run(b, img).unwrap().into_image().unwrap()
}

/// Where two images differ first, for the message.
fn first_difference(a: &Image, b: &Image) -> String {
    if a.desc() != b.desc() {
        return format!("{:?} against {:?}", a.desc(), b.desc());
    }
    let n = a.format().channels();
    match a.as_u8().iter().zip(b.as_u8()).position(|(x, y)| x != y) {
        Some(i) => format!(
            "pixel ({}, {}) channel {}: {} against {}",
            (i / n) as u32 % a.width(),
            (i / n) as u32 / a.width(),
            i % n,
            a.as_u8()[i],
            b.as_u8()[i]
        ),
        None => "equal".into(),
    }
}

const GEOMETRY: &[&str] = &[
    "resize(scale=0.5)",
    "resize(scale=0.37)",
    "resize(scale=2.3)",
    "resize(width=50, height=90)",
    "resize(scale=0.6, method=nearest)",
    "resize(scale=1.7, method=nearest, align_corners=true)",
    "resize(scale=0.45, method=bicubic)",
    "resize(scale=1.6, method=lanczos3)",
    "resize(scale=0.4, method=area)",
    "resize(scale=0.7, method=area)",
    "resize(scale=1.5, method=area)",
    "resize(scale=0.55, align_corners=true)",
    "crop(x=5, y=7, width=40, height=20, units=px)",
    "crop(x=0.1, y=0.2, width=0.5, height=0.7)",
    "flip(mode=horizontal)",
    "flip(mode=vertical)",
    "flip(mode=both)",
    "rotate90",
    "rotate180",
    "rotate270",
    "transpose",
    "pad(left=5, top=3, right=9, bottom=2)",
    "pad(left=4, top=6, right=2, bottom=5, mode=replicate, color=[0.2, 0.4, 0.6, 1])",
    "pad(left=70, right=3, top=1, mode=reflect)",
    "pad(top=50, bottom=60, left=2, mode=reflect101)",
    "pad(left=100, bottom=7, mode=wrap)",
    "canvas(width=90, height=30, x=10, y=-5)",
    "canvas(width=40, height=60, x=-20, y=25)",
    "canvas(width=20, height=20, x=30, y=30)",
    "transform(rotate=30)",
    "transform(rotate=-17, expand=true, background=[0.2, 0.3, 0.4, 1])",
    "transform(matrix=[1.2, 0.3, -5, -0.2, 0.9, 8], width=80, height=30)",
    "transform(matrix=[0.5, 0, 200, 0, 0.5, 0])",
    "transform(src=[0,0, 66,0, 66,42, 0,42], dst=[5,3, 60,-4, 70,45, -3,38])",
    "transform(src=[0,0, 66,0, 66,42, 0,42], dst=[20,10, 45,10, 66,42, 0,42])",
];

#[test]
fn geometry_filters_tile_bit_identically_at_any_tile_size() {
    // single-pixel tiles on a small image (every tile's part at its smallest), then larger ones
    let (small, img) = (
        random_image(13, 9, PixelFormat::Rgba8, 10),
        random_image(67, 43, PixelFormat::Rgba8, 11),
    );
    let b = gpu_backend();
    let mut failures = Vec::new();
    for spec in GEOMETRY {
        let p = pipe(spec);
        for (input, tiles) in [(&small, &[1u32][..]), (&img, &[5, 16, 200][..])] {
            let expect = whole(&p, &b, input);
            for &tile in tiles {
                match p.run_tiled(&b, input, tile, 3) {
                    Ok(got) if got == expect => {}
                    Ok(got) => failures.push(format!(
                        "{spec}, tiles of {tile}: {}",
                        first_difference(&got, &expect)
                    )),
                    Err(e) => failures.push(format!("{spec}, tiles of {tile}: {e}")),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn chains_through_geometry_tile_on_the_gpu_and_the_cpu() {
    let img = random_image(91, 58, PixelFormat::Rgba8, 12);
    let specs = [
        "gaussian_blur(sigma=3) | resize(scale=0.41) | sobel_edge_detection",
        "sobel_edge_detection | resize(scale=1.9, method=bicubic) | box_blur(radius=2)",
        "gaussian_blur(sigma=8) | resize(scale=0.5) | gaussian_blur(sigma=2) | resize(scale=0.5, method=area)",
        "dilation(radius=2) | crop(x=10, y=3, width=60, height=40, units=px) | rotate90 | median",
        "contrast(1.4) | flip(mode=vertical) | resize(width=40, height=70, method=lanczos3) | sharpen",
        "transpose | unsharp_mask | resize(scale=0.8)",
        "gaussian_blur(sigma=2) | transform(rotate=12, expand=true) | sobel_edge_detection",
    ];
    for (name, b) in [("GPU", gpu_backend()), ("CPU", Backend::Cpu)] {
        for spec in specs {
            let p = pipe(spec);
            let expect = whole(&p, &b, &img);
            for tile in [3, 17, 64] {
                let got = p
                    .run_tiled(&b, &img, tile, 2)
                    .unwrap_or_else(|e| panic!("{name} {spec}: {e}"));
                assert!(
                    got == expect,
                    "{name} {spec}, tiles of {tile}: {}",
                    first_difference(&got, &expect)
                );
            }
        }
    }
}

#[test]
fn sixteen_bit_grey_and_transparent_images_tile_through_geometry() {
    let b = gpu_backend();
    for format in [PixelFormat::Rgba16, PixelFormat::Gray8] {
        let img = random_image(45, 38, format, 3);
        // a 16-bit image is narrowed before resize (which takes RGBA8), as in the whole run
        for spec in [
            "crop(x=3, y=4, width=30, height=20, units=px) | rotate270",
            "gaussian_blur(sigma=2) | resize(scale=0.6)",
            "pad(left=20, bottom=9, top=3, mode=reflect) | rotate90",
            "pad(left=50, right=7, mode=wrap) | box_blur(radius=2)",
        ] {
            let p = pipe(spec);
            let expect = whole(&p, &b, &img);
            let got = p
                .run_tiled(&b, &img, 7, 2)
                .unwrap_or_else(|e| panic!("{spec} on {format:?}: {e}"));
            assert!(
                got == expect,
                "{spec} on {format:?}: {}",
                first_difference(&got, &expect)
            );
        }
    }
    // premultiplied alpha around the resize, per tile as on the whole image
    let mut clear = random_image(50, 40, PixelFormat::Rgba8, 4);
    for (i, px) in clear.as_u8_mut().chunks_exact_mut(4).enumerate() {
        px[3] = if i % 7 < 3 { 0 } else { px[3] };
    }
    let p = pipe("resize(scale=0.7, method=bicubic) | gaussian_blur(sigma=1.5)");
    let expect = whole(&p, &b, &clear);
    assert!(p.run_tiled(&b, &clear, 9, 2).unwrap() == expect);
}

#[test]
fn geometry_streams_in_bands_where_rows_move_down() {
    let img = random_image(120, 97, PixelFormat::Rgba8, 5);
    for (name, b) in [("GPU", gpu_backend()), ("CPU", Backend::Cpu)] {
        for spec in [
            "gaussian_blur(sigma=2) | resize(scale=0.5) | sobel_edge_detection",
            "resize(scale=2.2, method=lanczos3)",
            "crop(x=7, y=30, width=90, height=50, units=px) | box_blur(radius=3)",
            "flip(mode=horizontal) | resize(width=77, height=31, method=area)",
            "rotate90 | emboss",
            "transform(rotate=8) | box_blur(radius=2)",
            "pad(top=30, bottom=12, left=5, mode=replicate) | sharpen",
        ] {
            let p = pipe(spec);
            let expect = whole(&p, &b, &img);
            let out = p.output_desc(img.desc()).unwrap();
            for rows in [1, 7, 40] {
                let mut src = ImageRows::new(img.clone());
                let mut sink = MemorySink::new(out);
                let r = p
                    .run_streamed(
                        &b,
                        &mut src,
                        &mut sink,
                        &TilePolicy {
                            band_rows: Some(rows),
                            tile_width: Some(33),
                            in_flight: 2,
                            ..Default::default()
                        },
                    )
                    .unwrap_or_else(|e| panic!("{name} {spec}: {e}"));
                assert!(
                    r.through_geometry && r.bands == out.height.div_ceil(rows),
                    "{name} {spec}: {r:?}"
                );
                let got = sink.into_image().unwrap();
                assert!(
                    got == expect,
                    "{name} {spec}, bands of {rows}: {}",
                    first_difference(&got, &expect)
                );
            }
        }
        // a vertical flip reads rows bottom up: no bands (but one), a clear reason
        let p = pipe("flip(mode=vertical)");
        assert!(
            p.plan_stream(&b, img.desc(), &TilePolicy::default())
                .is_ok(),
            "one band of the whole image"
        );
        let e = p
            .plan_stream(
                &b,
                img.desc(),
                &TilePolicy {
                    band_rows: Some(10),
                    ..Default::default()
                },
            )
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("cannot run in bands") && e.contains("bottom to top"),
            "{e}"
        );
    }
}

#[test]
fn beyond_the_binding_limit_geometry_runs_in_tiles_by_itself() {
    // bindings of 64 KiB: a 200x150 RGBA8 image (120 KB) does not fit one
    let gpu = texelflow::Gpu::new_with_binding_limit(
        &texelflow::GpuOptions {
            backend: Some("vulkan".into()),
            adapter: None,
            ..Default::default()
        },
        64 * 1024,
    )
    .unwrap();
    let small = Backend::Gpu(gpu);
    let input = random_image(200, 150, PixelFormat::Rgba8, 8);
    for spec in [
        "gaussian_blur(sigma=2) | resize(scale=0.5)",
        "resize(scale=1.5, method=bicubic) | sobel_edge_detection",
        "flip(mode=vertical) | crop(x=0.1, y=0.1, width=0.8, height=0.8)",
        "rotate90",
        "transform(rotate=25, expand=true)",
    ] {
        let p = pipe(spec);
        let r = p
            .run_with(&small, &input, &texelflow::RunOptions::default())
            .unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert!(
            r.notes
                .iter()
                .any(|n| n.contains("tiles") && n.contains("geometry")),
            "{spec}: {:?}",
            r.notes
        );
        let expect = whole(&p, &gpu_backend(), &input);
        assert!(
            r.get("output").and_then(|v| v.as_image()) == Some(&expect),
            "{spec}"
        );
    }
    // what does not window keeps the clear limit error
    let e = pipe("ios_blur")
        .run(&small, &input)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("binding") && e.contains("cannot run in tiles"),
        "{e}"
    );
}

/// Per-pixel filters that read their position (vignette, haze, the masks and generators, and
/// the composites built on them) see the whole image's coordinates in a tile (`PixelWindow`),
/// the coordinates of the image at their stage after a change of geometry.
#[test]
fn position_dependent_filters_tile_in_the_whole_image_coordinates() {
    let img = random_image(67, 43, PixelFormat::Rgba8, 21);
    let wide = random_image(40, 29, PixelFormat::Rgba16, 22);
    let specs = [
        "vignette",
        "haze(distance=0.25, slope=0.2)",
        "tilt_shift",
        "gaussian_selective_blur",
        "radial_mask",
        "band_mask",
        "linear_gradient",
        "round_corner",
        "crosshatch",
        "dot_screen",
        "gaussian_blur(sigma=2) | vignette | sobel_edge_detection",
        "vignette | resize(scale=0.6) | box_blur(radius=1)",
        // after a change of geometry, in the changed image's coordinates
        "resize(scale=0.5) | vignette",
        "vignette(vignette_center=[0.3, 0.6]) | rotate90 | haze(distance=0.2, slope=0.3) | crop(x=0.2, y=0.1, width=0.5, height=0.7) | tilt_shift",
        "pad(left=10, top=4, mode=reflect) | radial_mask | transform(rotate=15) | vignette",
    ];
    for (name, b) in [("GPU", gpu_backend()), ("CPU", Backend::Cpu)] {
        for spec in specs {
            let p = pipe(spec);
            for input in [&img, &wide] {
                let Ok(expect) = p.run(&b, input) else {
                    continue;
                };
                let expect = expect.into_image().unwrap();
                for tile in [5, 16] {
                    let got = p
                        .run_tiled(&b, input, tile, 2)
                        .unwrap_or_else(|e| panic!("{name} {spec}: {e}"));
                    assert!(
                        got == expect,
                        "{name} {spec} on {:?}, tiles of {tile}: {}",
                        input.format(),
                        first_difference(&got, &expect)
                    );
                }
            }
        }
        // reduced per tile and merged
        let p = pipe("vignette | reduce");
        assert_eq!(
            p.run_tiled_value(&b, &img, 9, 2).unwrap(),
            p.run(&b, &img).unwrap(),
            "{name}"
        );
        // streamed in bands
        let p = pipe("vignette(vignette_start=0.1, vignette_end=0.6) | gaussian_blur(sigma=1)");
        let mut src = ImageRows::new(img.clone());
        let mut sink = MemorySink::new(p.output_desc(img.desc()).unwrap());
        p.run_streamed(
            &b,
            &mut src,
            &mut sink,
            &TilePolicy {
                band_rows: Some(6),
                tile_width: Some(20),
                in_flight: 2,
                ..Default::default()
            },
        )
        .unwrap();
        assert!(
            sink.into_image().unwrap() == whole(&p, &b, &img),
            "{name}: streamed vignette"
        );
    }
}
