//! Geometry semantics beyond GPU-vs-CPU agreement (which the equivalence matrix checks): the
//! permutations against hand-made images on every backend and format, the warps against the
//! permutations they equal, the crop's centred form and point sample, and the one-line errors
//! of bad geometry.

mod common;

use common::*;
use texelflow::{Backend, Graph, Image, PixelFormat, RunOptions};

/// One filter on `img`, colour straight: these tests check where pixels go (premultiplying 8-bit
/// colour by alpha and back is not exact for semi-transparent pixels; tests/alpha.rs covers it).
fn run(backend: &Backend, img: &Image, spec: &str) -> texelflow::Result<Image> {
    let mut g = Graph::new();
    g.set_straight_alpha(true);
    let s = g.source("in", img.desc())?;
    let o = g.add_boxed(texelflow::registry::create(spec)?, &[s])?[0];
    g.output("out", o)?;
    let mut r = backend.run(
        &g,
        &[("in", img)],
        &RunOptions {
            poison: true,
            ..Default::default()
        },
    )?;
    Ok(r.take("out").unwrap().into_image().unwrap())
}

/// Pixel (x, y) of an RGBA8 image as its four bytes.
fn px(img: &Image, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * img.width() + x) * 4) as usize;
    img.as_u8()[i..i + 4].try_into().unwrap()
}

#[test]
fn permutations_move_pixels_where_opencv_does() {
    let img = random_image(5, 3, PixelFormat::Rgba8, 3);
    for b in [Backend::Cpu, gpu_backend()] {
        // (spec, output size, where input pixel (x, y) goes)
        type Case = (&'static str, (u32, u32), fn(u32, u32) -> (u32, u32));
        let cases: [Case; 7] = [
            ("flip", (5, 3), |x, y| (4 - x, y)),
            ("flip(mode=vertical)", (5, 3), |x, y| (x, 2 - y)),
            ("flip(mode=both)", (5, 3), |x, y| (4 - x, 2 - y)),
            ("rotate180", (5, 3), |x, y| (4 - x, 2 - y)),
            ("transpose", (3, 5), |x, y| (y, x)),
            // clockwise: the output's top-left is the input's bottom-left
            ("rotate90", (3, 5), |x, y| (y, 2 - x)),
            ("rotate270", (3, 5), |x, y| (4 - y, x)),
        ];
        for (spec, (w, h), src) in cases {
            let out = run(&b, &img, spec).unwrap();
            assert_eq!((out.width(), out.height()), (w, h), "{spec}");
            for y in 0..h {
                for x in 0..w {
                    let (sx, sy) = src(x, y);
                    assert_eq!(px(&out, x, y), px(&img, sx, sy), "{spec} at ({x}, {y})");
                }
            }
        }
        // four quarter turns and two flips are the identity, in every format
        for fmt in [PixelFormat::Rgba8, PixelFormat::Gray8, PixelFormat::Rgba16] {
            let im = random_image(7, 5, fmt, 11);
            let mut cur = im.clone();
            for _ in 0..4 {
                cur = run(&b, &cur, "rotate90").unwrap();
            }
            assert_eq!(cur, im, "{fmt:?}");
            let t = run(&b, &run(&b, &im, "rotate270").unwrap(), "rotate90").unwrap();
            assert_eq!(t, im, "{fmt:?}");
            let f = run(&b, &run(&b, &im, "transpose").unwrap(), "transpose").unwrap();
            assert_eq!(f, im, "{fmt:?}");
        }
    }
}

#[test]
fn warps_equal_the_permutations_they_describe() {
    let img = random_image(9, 9, PixelFormat::Rgba8, 5);
    for b in [Backend::Cpu, gpu_backend()] {
        assert_eq!(run(&b, &img, "transform").unwrap(), img, "identity");
        // a half turn about the centre of a square image, and a mirror by matrix
        assert_eq!(
            run(&b, &img, "transform(rotate=180)").unwrap(),
            run(&b, &img, "rotate180").unwrap()
        );
        assert_eq!(
            run(&b, &img, "transform(matrix=[-1, 0, 8, 0, 1, 0])").unwrap(),
            run(&b, &img, "flip").unwrap()
        );
        // OpenCV's positive angle turns counter-clockwise on screen: rotate270
        let quarter = run(&b, &img, "transform(rotate=90)").unwrap();
        assert_eq!(quarter, run(&b, &img, "rotate270").unwrap());
        // a perspective between identical quadrilaterals is the identity
        assert_eq!(
            run(
                &b,
                &img,
                "transform(src=[0,0, 8,0, 8,8, 0,8], dst=[0,0, 8,0, 8,8, 0,8])"
            )
            .unwrap(),
            img
        );
        // a shift by 2 leaves the background (opaque red) on the left
        let shifted = run(
            &b,
            &img,
            "transform(matrix=[1, 0, 2, 0, 1, 0], background=[1, 0, 0, 1])",
        )
        .unwrap();
        assert_eq!(px(&shifted, 0, 4), [255, 0, 0, 255]);
        assert_eq!(px(&shifted, 5, 4), px(&img, 3, 4));
        // expand: the bounding box of a 9x9 turned by 45 degrees is 13x13
        let e = run(&b, &img, "transform(rotate=45, expand=true)").unwrap();
        assert_eq!((e.width(), e.height()), (13, 13));
    }
}

#[test]
fn crop_centre_and_point_sample() {
    let img = random_image(40, 30, PixelFormat::Rgba8, 8);
    for b in [Backend::Cpu, gpu_backend()] {
        let c = run(
            &b,
            &img,
            "crop(x=20, y=15, width=10, height=6, units=px, anchor=center)",
        )
        .unwrap();
        assert_eq!(
            c,
            run(&b, &img, "crop(x=15, y=12, width=10, height=6, units=px)").unwrap()
        );
        // a centred region past the top-left corner keeps what lies inside
        let corner = run(
            &b,
            &img,
            "crop(x=0, y=0, width=10, height=6, units=px, anchor=center)",
        )
        .unwrap();
        assert_eq!(
            corner,
            run(&b, &img, "crop(x=0, y=0, width=5, height=3, units=px)").unwrap()
        );
        // the point sample: the pixel containing (x, y)
        let p = run(&b, &img, "crop(x=0.5, y=0.5, width=0, height=0)").unwrap();
        assert_eq!((p.width(), p.height()), (1, 1));
        assert_eq!(px(&p, 0, 0), px(&img, 20, 15));
        let p = run(&b, &img, "crop(x=39.9, y=2.2, width=0, height=0, units=px)").unwrap();
        assert_eq!(px(&p, 0, 0), px(&img, 39, 2));
    }
}

#[test]
fn bad_geometry_is_one_line() {
    let img = random_image(8, 8, PixelFormat::Rgba8, 1);
    let b = Backend::Cpu;
    let msg = |spec: &str| run(&b, &img, spec).map(|_| ()).unwrap_err().to_string();
    for (spec, words) in [
        ("transform(matrix=[1, 2, 0, 2, 4, 0])", "singular"),
        (
            "transform(src=[0,0, 1,1, 2,2, 3,3], dst=[0,0, 1,0, 1,1, 0,1])",
            "singular",
        ),
        ("transform(width=40000)", "width"),
        (
            "resize(scale=2, method=area, align_corners=true)",
            "align_corners",
        ),
        ("resize(width=40000, height=2)", "width"),
        ("crop(width=0, height=5)", "empty"),
        ("flip(mode=diagonal)", "diagonal"),
    ] {
        let m = msg(spec);
        assert!(m.contains(words) && !m.contains('\n'), "{spec}: {m}");
    }
}
