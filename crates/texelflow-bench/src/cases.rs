//! The benchmark cases: the standard set, their inputs (random images, a scene of lines) and
//! the graph and source sets of a case.

use texelflow::assess::{build_assessment_graph, build_fused_assessment_graph, AssessOptions};
use texelflow::filters::registry::{self, Family, PortKind};
use texelflow::params::ParamKind;
use texelflow::{Error, Graph, Image, ImageDesc, Pipeline, PixelFormat, Result};

use crate::experiments::{copy_kernel, experiments};
use crate::{BenchCase, BenchConfig, Content};

/// The standard set: every registered filter at defaults plus the operations of the
/// performance targets (issue 3) and NPP's reference list.
pub fn default_cases(width: u32, height: u32) -> Vec<BenchCase> {
    let mut v = vec![BenchCase::new("copy", "copy")];
    let named: &[(&str, &str)] = &[
        ("gaussian_blur s=2", "gaussian_blur(sigma=2)"),
        ("gaussian_blur s=3", "gaussian_blur(sigma=3)"),
        ("gaussian_blur s=4", "gaussian_blur(sigma=4)"),
        ("gaussian_blur s=8", "gaussian_blur(sigma=8)"),
        ("gaussian_blur s=32", "gaussian_blur(sigma=32)"),
        ("box_blur 9x9", "box_blur(radius=4)"),
        ("box_blur 31x31", "box_blur(radius=15)"),
        ("box_blur 129x129", "box_blur(radius=64)"),
        // border=reflect runs as pad, the filter, crop: its cost over the replicate cases above
        (
            "gaussian_blur s=2 reflect",
            "gaussian_blur(sigma=2, border=reflect)",
        ),
        ("box_blur 9x9 reflect", "box_blur(radius=4, border=reflect)"),
        (
            "pad 16 reflect101",
            "pad(top=16, bottom=16, left=16, right=16, mode=reflect101)",
        ),
        ("dilation 3x3", "dilation(radius=1)"),
        ("dilation 15x15", "dilation(radius=7)"),
        ("dilation 23x23", "dilation(radius=11)"),
        ("dilation 31x31", "dilation(radius=15)"),
        ("dilation 65x65", "dilation(radius=32)"),
        ("erosion 15x15", "erosion(radius=7)"),
        ("median 7x7", "median(radius=3)"),
        ("median 15x15", "median(radius=7)"),
        // the default radius, and r5 and r10 as aoce quotes them (catalogue 3.3)
        ("kuwahara r4 (GPUImage default)", "kuwahara(radius=4)"),
        ("kuwahara r5", "kuwahara(radius=5)"),
        ("kuwahara r10", "kuwahara(radius=10)"),
        // aoce's fast guided filter at its defaults (scale 8, box 10 at 1/8 = radius 40; aoce
        // quotes about 1 ms at 1080p on an RTX 2070, catalogue 3.3), a finer grid, and the exact filter
        ("guided_filter scale 8 r40 (default)", "guided_filter"),
        (
            "guided_filter scale 4 r20",
            "guided_filter(radius=20, scale=4)",
        ),
        ("guided_filter exact r8", "guided_filter(radius=8, scale=1)"),
        (
            "guided_filter exact r40",
            "guided_filter(radius=40, scale=1)",
        ),
        ("resize 4K->1080p", "resize(scale=0.5)"),
        ("lookup 512 LUT", "lookup(lut=@lut)"),
        ("alpha_blend", "alpha_blend(with=@random)"),
        ("multiply_blend", "multiply_blend(with=@random)"),
        // iterative: 100 passes, so the time per iteration is this case's time / 100
        (
            "poisson_blend 100 it",
            "poisson_blend(with=@random, iterations=100)",
        ),
        // FAST on one-byte luma (to_gray's time included; its own step time is in the steps)
        (
            "fast_corner_detection gray8",
            "to_gray | fast_corner_detection",
        ),
        (
            "fast corners as data",
            "fast_corner_detection | corner_points",
        ),
        (
            "chain of 5 per-pixel",
            "brightness(0.1) | contrast(1.2) | saturation(1.3) | gamma(1.1) | color_invert",
        ),
        // the histogram solver nodes after their histogram (data in, data out: one workgroup each)
        ("range_from_histogram", "histogram | range_from_histogram"),
        (
            "levels_lut",
            "histogram | range_from_histogram | levels_lut",
        ),
        ("grey_world_lut", "histogram | grey_world_lut"),
        ("equalization_lut", "histogram | equalization_lut"),
        (
            "auto_levels | auto_white_balance",
            "auto_levels | auto_white_balance",
        ),
    ];
    for (n, s) in named {
        v.push(BenchCase::new(n, s));
    }
    v.push(BenchCase::sized(
        "resize 1080p->4K",
        "resize(scale=2)",
        width / 2,
        height / 2,
    ));
    // issue 17's NPP targets (H100, 3840x2160 output for the enlargements, input for area):
    // bicubic and lanczos up x2 against nppiResize_8u_C4R NPPI_INTER_CUBIC / NPPI_INTER_LANCZOS,
    // area down x2 against NPPI_INTER_SUPER
    v.push(BenchCase::sized(
        "resize bicubic 1080p->4K",
        "resize(scale=2, method=bicubic)",
        width / 2,
        height / 2,
    ));
    v.push(BenchCase::sized(
        "resize lanczos3 1080p->4K",
        "resize(scale=2, method=lanczos3)",
        width / 2,
        height / 2,
    ));
    v.push(BenchCase::new(
        "resize area 4K->1080p",
        "resize(scale=0.5, method=area)",
    ));
    v.push(BenchCase::new(
        "resize nearest 4K->1080p",
        "resize(scale=0.5, method=nearest)",
    ));
    v.push(BenchCase::new(
        "transform rotate 30",
        "transform(rotate=30)",
    ));
    v.push(BenchCase::new(
        "transform perspective",
        "transform(src=[0,0, 3839,0, 3839,2159, 0,2159], dst=[200,100, 3600,0, 3839,2159, 0,2000])",
    ));
    // the Hough transform (and FAST and Canny) on a scene of straight lines (on the random image's noise every other
    // pixel is an edge, which no edge detector gives): on a binary edge map, after Canny (with
    // per-step times), and drawn
    let hough = [
        BenchCase::new(
            "hough_line_detection edge map (lines scene)",
            "hough_line_detection",
        )
        .gray8()
        .on_lines(),
        BenchCase::new(
            "hough_line_detection after canny (lines scene)",
            "canny_edge_detection | hough_line_detection",
        )
        .on_lines(),
        BenchCase::new("draw_hough_lines (lines scene)", "draw_hough_lines").on_lines(),
        // the detectors on a structured picture (24 lines on a mildly noisy ground), beside the noise cases
        BenchCase::new(
            "fast_corner_detection (lines scene)",
            "fast_corner_detection",
        )
        .on_lines(),
        BenchCase::new(
            "canny_edge_detection 50/150 (lines scene)",
            "canny_edge_detection(sigma=0, lower=0.196078431, upper=0.588235294)",
        )
        .on_lines(),
    ];
    // jfa_voronoi: at most 2048 wide (its map encoding), so sized below instead of by name
    let hough_names = ["hough_line_detection", "draw_hough_lines", "jfa_voronoi"];
    v.extend(hough);
    // the generators that draw data, after the nodes making it (their own time in the steps)
    v.push(
        BenchCase::new(
            "crosshair (FAST corners as data)",
            "fast_corner_detection | corner_points | crosshair",
        )
        .on_lines(),
    );
    v.push(
        BenchCase::new(
            "line (lines scene)",
            "canny_edge_detection | hough_line_detection(max=20) | line",
        )
        .on_lines(),
    );
    v.push(BenchCase::new(
        "histogram_generator",
        "histogram | histogram_generator",
    ));
    for d in registry::all() {
        if hough_names.contains(&d.name) {
            continue;
        }
        // filters that need an image or a file of their own are benchmarked only by name above
        let needs_image = d.params.iter().any(|p| {
            matches!(
                p.kind,
                ParamKind::Image | ParamKind::Path { required: true, .. }
            )
        });
        let covered = named
            .iter()
            .any(|(_, s)| !s.contains('|') && s.split('(').next() == Some(d.name));
        // (a filter reading data is benchmarked after its producer, by name above)
        if !needs_image && !covered && d.inputs.len() == 1 && d.inputs[0].kind == PortKind::Image {
            v.push(BenchCase::new(d.name, d.name));
        }
        // blends: their second image random, like alpha_blend's above
        let only_with = d
            .params
            .iter()
            .filter(|p| matches!(p.kind, ParamKind::Image))
            .map(|p| p.name)
            .eq(["with"]);
        if d.family == Family::Blend && only_with && !covered {
            v.push(BenchCase::new(d.name, &format!("{}(with=@random)", d.name)));
        }
        // a masked blend: second image and mask random (four images move where copy moves two)
        let with_mask = d
            .params
            .iter()
            .filter(|p| matches!(p.kind, ParamKind::Image))
            .map(|p| p.name)
            .eq(["with", "mask"]);
        if d.family == Family::Blend && with_mask && !covered {
            v.push(BenchCase::new(
                d.name,
                &format!("{}(with=@random, mask=@random)", d.name),
            ));
        }
    }
    // NPP's nppiFilterCannyBorder_8u_C1R as the lead's NPP peer times it (`canny_gray`: 8-bit
    // grey, Sobel 3x3, L2, thresholds 50 and 150, replicated borders)
    // CLAHE on one-byte grey, OpenCV's usual input (the RGBA8 case runs by name above)
    v.push(BenchCase::new("clahe gray8", "clahe").gray8());
    // Voronoi by jump flooding on GPUImage's largest square map; seeds: the random image's
    // brightest pixels. The consumer on a random map (its seeds anywhere): the cost of the lookups.
    v.push(BenchCase::sized(
        "jfa_voronoi 2048x2048 (luminance >= 0.9 seeds)",
        "luminance_threshold(0.9) | jfa_voronoi",
        2048,
        2048,
    ));
    v.push(BenchCase::new(
        "voronoi_consumer",
        "voronoi_consumer(map=@random)",
    ));
    v.push(BenchCase::new("mosaic", "mosaic(tiles=@random)"));
    v.push(
        BenchCase::new(
            "canny_edge_detection gray8 50/150 (NPP)",
            "canny_edge_detection(sigma=0, lower=0.196078431, upper=0.588235294)",
        )
        .gray8(),
    );
    // FAST on a grey image, as OpenCV's FAST takes one (the RGBA8 case adds the luma on the fly)
    v.push(BenchCase::new("fast_corner_detection on gray8", "fast_corner_detection").gray8());
    // NPP's nppiFilterBilateralGaussBorder_8u_C1R (radius 5) as the NPP peer's `bilateral_r5_gray`
    v.push(BenchCase::new("bilateral gray8", "bilateral").gray8());
    // the one-channel blurs and a stencil on Gray8 (GPUImage's single-component blur; NPP's
    // nppiFilterGaussBorder_8u_C1R, nppiFilterBoxBorder_8u_C1R, nppiFilterSharpenBorder_8u_C1R)
    v.push(BenchCase::new("gaussian_blur s=2 gray8", "gaussian_blur(sigma=2)").gray8());
    v.push(BenchCase::new("gaussian_blur s=8 gray8", "gaussian_blur(sigma=8)").gray8());
    v.push(BenchCase::new("box_blur 9x9 gray8", "box_blur(radius=4)").gray8());
    v.push(BenchCase::new("box_blur 31x31 gray8", "box_blur(radius=15)").gray8());
    v.push(BenchCase::new("sharpen gray8", "sharpen(sharpness=1)").gray8());
    // seed 003: the assessment on a copy shrunk to 500x500 first (resize included), against full size
    v.push(BenchCase::new(
        "photo_metrics on 500x500 (resize first)",
        "resize(width=500, height=500) | photo_metrics",
    ));
    v.push(BenchCase::new(
        "color_fingerprint on 500x500 (resize first)",
        "resize(width=500, height=500) | color_fingerprint",
    ));
    // issue 16's target, the whole assessment <= 3x copy: the fused pass (what `assess` runs)
    // against the two nodes it replaces in one graph (their two passes, the pass boundary and
    // the fingerprint's clear between them), on the random image and on the lines scene (few
    // colours per tile: contention on hot fingerprint bins, as in smooth photos)
    v.push(BenchCase::new(
        "assessment fused (photo_assessment)",
        ASSESS_FUSED,
    ));
    v.push(BenchCase::new(
        "assessment two passes (photo_metrics + color_fingerprint)",
        ASSESS_TWO_PASS,
    ));
    v.push(BenchCase::new("assessment fused (lines scene)", ASSESS_FUSED).on_lines());
    v.push(BenchCase::new("assessment two passes (lines scene)", ASSESS_TWO_PASS).on_lines());
    v.push(BenchCase::sized(
        "latency: 10-node chain 1080p",
        "brightness(0.1) | gaussian_blur(sigma=1) | contrast(1.1) | sobel_edge_detection | saturation(1.2) | box_blur(radius=2) | gamma(1.2) | dilation(radius=1) | exposure(0.3) | color_invert",
        1920,
        1080,
    ));
    v
}

/// The one-pass assessment: `assess::build_fused_assessment_graph`.
pub(crate) const ASSESS_FUSED: &str = "@assess:fused";
/// The whole assessment as `assess` runs it (two nodes): `assess::build_assessment_graph`.
pub(crate) const ASSESS_TWO_PASS: &str = "@assess:two-pass";

/// Noise plus gradients, never all zero; deterministic per seed.
pub fn random_image(w: u32, h: u32, seed: u64) -> Image {
    let mut s = seed.wrapping_mul(0x9E3779B97F4A7C15) | 1;
    let mut data = vec![0u8; w as usize * h as usize * 4];
    for (i, px) in data.chunks_exact_mut(4).enumerate() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let x = (i % w as usize) as u64;
        let y = (i / w as usize) as u64;
        px[0] = ((s & 63) + x * 255 / w as u64 / 2) as u8;
        px[1] = (((s >> 8) & 63) + y * 255 / h as u64 / 2) as u8;
        px[2] = ((s >> 16) as u8) | 1;
        px[3] = 200 + ((s >> 24) & 55) as u8;
    }
    Image::from_u8(w, h, PixelFormat::Rgba8, data)
        .unwrap_or_else(|_| Image::zeroed(ImageDesc::new(w, h, PixelFormat::Rgba8)))
}

/// The operations issue 32 races NPP on (`bench/peers/npp_same.cu`), each on `random_image`
/// and on `photo_image` (names end in ` [random]` / ` [photo]`); `texelflow bench
/// --npp-paired --write-inputs DIR` writes their inputs for the peer, so that both sides read
/// the same pictures.
pub fn npp_paired_cases(width: u32, height: u32) -> Vec<BenchCase> {
    let (hw, hh) = (width / 2, height / 2);
    let mut v = vec![BenchCase::new("copy", "copy")];
    for content in [Content::Random, Content::Photo] {
        let tag = |n: &str| format!("{n} [{}]", content.name());
        let cases = [
            BenchCase::new(
                &tag("canny_edge_detection gray8 50/150"),
                "canny_edge_detection(sigma=0, lower=0.196078431, upper=0.588235294)",
            )
            .gray8(),
            BenchCase::sized(
                &tag("resize bicubic 1080p->4K"),
                "resize(scale=2, method=bicubic)",
                hw,
                hh,
            ),
            BenchCase::sized(
                &tag("resize lanczos3 1080p->4K"),
                "resize(scale=2, method=lanczos3)",
                hw,
                hh,
            ),
            BenchCase::sized(&tag("resize bilinear 1080p->4K"), "resize(scale=2)", hw, hh),
            BenchCase::new(&tag("resize bilinear 4K->1080p"), "resize(scale=0.5)"),
            BenchCase::new(
                &tag("resize area 4K->1080p"),
                "resize(scale=0.5, method=area)",
            ),
            BenchCase::new(&tag("histogram"), "histogram"),
            BenchCase::new(&tag("laplacian"), "laplacian"),
        ];
        v.extend(cases.into_iter().map(|mut c| {
            c.content = content;
            c
        }));
    }
    v
}

/// Writes the main inputs of `cases` (every buffer set) under `dir` as raw pixels, rows
/// without padding: `<content>_<rgba8|gray8>_<w>x<h>_<set>.raw`, each once; returns the
/// file names. Each file is written beside its final name and renamed into place.
pub fn write_inputs(
    cases: &[BenchCase],
    cfg: &BenchConfig,
    dir: &std::path::Path,
) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for case in cases.iter().filter(|c| c.spec != "copy") {
        let (w, h) = case.size.unwrap_or((cfg.width, cfg.height));
        for k in 0..cfg.sets {
            let name = format!(
                "{}_{}_{w}x{h}_{k}.raw",
                case.content.name(),
                case.input.name(),
            );
            if names.contains(&name) {
                continue;
            }
            let img = case.content.image(w, h, k, case.input);
            let path = dir.join(&name);
            let part = dir.join(format!("{name}.part"));
            std::fs::write(&part, img.as_u8())
                .and_then(|()| std::fs::rename(&part, &path))
                .map_err(|e| Error::ImageIo {
                    path: path.clone(),
                    message: e.to_string(),
                })?;
            names.push(name);
        }
    }
    Ok(names)
}

/// A photo-like picture: a smooth two-colour shading, 40 hard-edged discs and rectangles of
/// flat or shaded colour, and mild noise (±3 levels), opaque (alpha 255), as photographs are:
/// what an edge detector, a histogram or a resize meets in practice, where `random_image`'s
/// noise makes every pixel an edge and spreads every histogram. Deterministic per seed.
pub fn photo_image(w: u32, h: u32, seed: u64) -> Image {
    let mut s = seed.wrapping_mul(0x9E3779B97F4A7C15) | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let (wf, hf) = (w.max(1) as f32, h.max(1) as f32);
    let colour = |v: u64| {
        [
            (v & 255) as f32,
            ((v >> 8) & 255) as f32,
            ((v >> 16) & 255) as f32,
        ]
    };
    let (c0, c1) = (colour(next()), colour(next()));
    struct Shape {
        disc: bool,
        cx: f32,
        cy: f32,
        rx: f32,
        ry: f32,
        col: [f32; 3],
        shaded: bool,
    }
    let shapes: Vec<Shape> = (0..40)
        .map(|_| {
            let v = next();
            let disc = v & 1 == 0;
            let cx = (next() % 1000) as f32 / 1000.0 * wf;
            let cy = (next() % 1000) as f32 / 1000.0 * hf;
            let rx = (0.02 + (next() % 1000) as f32 / 1000.0 * 0.15) * wf;
            let ry = (0.02 + (next() % 1000) as f32 / 1000.0 * 0.15) * hf;
            Shape {
                disc,
                cx,
                cy,
                rx,
                ry,
                col: colour(next()),
                shaded: v & 2 == 0,
            }
        })
        .collect();
    let (wu, hu) = (w as usize, h as usize);
    let mut data = vec![255u8; wu * hu * 4];
    let put = |data: &mut [u8], x: usize, y: usize, c: [f32; 3]| {
        let i = (y * wu + x) * 4;
        for k in 0..3 {
            data[i + k] = c[k].round().clamp(0.0, 255.0) as u8;
        }
    };
    for y in 0..hu {
        for x in 0..wu {
            let t = ((x as f32 + 0.5) / wf * 0.7 + (y as f32 + 0.5) / hf * 0.3).min(1.0);
            put(
                &mut data,
                x,
                y,
                std::array::from_fn(|k| c0[k] + (c1[k] - c0[k]) * t),
            );
        }
    }
    // each shape over its bounding box, later ones on top
    for &Shape {
        disc,
        cx,
        cy,
        rx,
        ry,
        col,
        shaded,
    } in &shapes
    {
        let span = |c: f32, r: f32, n: usize| {
            (
                (c - r).floor().max(0.0) as usize,
                ((c + r).ceil().max(0.0) as usize).min(n),
            )
        };
        let ((x0, x1), (y0, y1)) = (span(cx, rx, wu), span(cy, ry, hu));
        for y in y0..y1 {
            for x in x0..x1 {
                let (dx, dy) = ((x as f32 + 0.5 - cx) / rx, (y as f32 + 0.5 - cy) / ry);
                let inside = if disc {
                    dx * dx + dy * dy <= 1.0
                } else {
                    dx.abs() <= 1.0 && dy.abs() <= 1.0
                };
                if inside {
                    let shade = if shaded { 0.75 + 0.25 * dy } else { 1.0 };
                    put(&mut data, x, y, col.map(|v| v * shade));
                }
            }
        }
    }
    for px in data.chunks_exact_mut(4) {
        let n = next();
        for (k, v) in px.iter_mut().take(3).enumerate() {
            let noise = ((n >> (8 * k)) % 7) as i32 - 3;
            *v = (*v as i32 + noise).clamp(0, 255) as u8;
        }
    }
    Image::from_u8(w, h, PixelFormat::Rgba8, data)
        .unwrap_or_else(|_| Image::zeroed(ImageDesc::new(w, h, PixelFormat::Rgba8)))
}

/// Straight lines for the Hough benchmarks: 24 segments between random points of the border
/// region, 2 pixels wide at level 220 on a ground of 80-120 noise (RGBA8 grey), or 1 pixel
/// wide at 255 on 0 with 0.2% noise pixels (`binary`: a Gray8 edge map).
pub fn line_scene(w: u32, h: u32, seed: u64, binary: bool) -> Image {
    let mut s = seed.wrapping_mul(0x9E3779B97F4A7C15) | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let (wu, hu) = (w as usize, h as usize);
    let mut v: Vec<u8> = (0..wu * hu)
        .map(|_| {
            if binary {
                if next() % 1000 < 2 {
                    255
                } else {
                    0
                }
            } else {
                80 + (next() % 41) as u8
            }
        })
        .collect();
    for _ in 0..24 {
        let (x0, y0, x1, y1) = (
            (next() % w as u64) as i64,
            (next() % h as u64) as i64,
            (next() % w as u64) as i64,
            (next() % h as u64) as i64,
        );
        let steps = (x1 - x0).abs().max((y1 - y0).abs()).max(1);
        for i in 0..=steps {
            let (x, y) = (x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps);
            let widths: &[i64] = if binary { &[0] } else { &[0, 1] };
            for &d in widths {
                let xx = (x + d).min(w as i64 - 1) as usize;
                v[y as usize * wu + xx] = if binary { 255 } else { 220 };
            }
        }
    }
    let img = if binary {
        Image::from_u8(w, h, PixelFormat::Gray8, v)
    } else {
        Image::from_u8(
            w,
            h,
            PixelFormat::Rgba8,
            v.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        )
    };
    img.unwrap_or_else(|_| {
        Image::zeroed(ImageDesc::new(
            w,
            h,
            if binary {
                PixelFormat::Gray8
            } else {
                PixelFormat::Rgba8
            },
        ))
    })
}

/// Source sets of a case: per set, each source's name and image.
pub(crate) type SourceSets = Vec<Vec<(String, Image)>>;

/// Builds the graph of a case and `sets` independent source sets.
pub(crate) fn case_graph(case: &BenchCase, cfg: &BenchConfig) -> Result<(Graph, SourceSets)> {
    let (w, h) = case.size.unwrap_or((cfg.width, cfg.height));
    let mut sets = Vec::new();
    let mut graph = None;
    for k in 0..cfg.sets {
        let input = case.content.image(w, h, k, case.input);
        // the assessment graphs: one source, two data outputs (no pipeline spec branches)
        let assess = match case.spec.as_str() {
            ASSESS_FUSED => {
                Some(build_fused_assessment_graph as fn(ImageDesc, AssessOptions) -> Result<Graph>)
            }
            ASSESS_TWO_PASS => {
                Some(build_assessment_graph as fn(ImageDesc, AssessOptions) -> Result<Graph>)
            }
            _ => None,
        };
        if let Some(build) = assess {
            if graph.is_none() {
                graph = Some(build(input.desc(), AssessOptions::default())?);
            }
            sets.push(vec![("image".to_string(), input)]);
            continue;
        }
        let pipeline = if case.spec == "copy" {
            Pipeline::new().then(copy_kernel())
        } else if let Some(name) = case.spec.strip_prefix("@exp:") {
            let e = experiments()
                .into_iter()
                .find(|e| e.name == name)
                .ok_or_else(|| Error::invalid(format!("no experiment {name}")))?;
            Pipeline::new().then(e)
        } else {
            let mut load = |p: &str| -> Result<Image> {
                match p {
                    "@random" => Ok(random_image(w, h, 1000 + k as u64)),
                    "@lut" => {
                        let def = registry::find("lookup")?;
                        let f = def
                            .test_inputs
                            .ok_or_else(|| Error::invalid("lookup has no test LUT"))?;
                        f(w, h, 7 + k as u64)
                            .into_iter()
                            .next()
                            .ok_or_else(|| Error::invalid("no LUT"))
                    }
                    other => Image::open(other),
                }
            };
            Pipeline::parse(&case.spec, &mut load)?
        };
        // the filters' own kernels are timed (as NPP's, which premultiply nothing): no
        // premultiplied-alpha passes around the averaging filters
        let mut pipeline = pipeline;
        pipeline.set_straight_alpha(true);
        let (g, images) = pipeline.graph(&input)?;
        if graph.is_none() {
            graph = Some(g);
        }
        sets.push(images);
    }
    Ok((graph.ok_or_else(|| Error::invalid("no sets"))?, sets))
}
