//! Histogram solvers on constructed images with known answers, on the GPU (lavapipe) and the
//! CPU: a grey card keeps its colours under auto_white_balance, a colour cast is removed, a ramp
//! of levels 60..190 covers 0..255 after auto_levels, equalisation spreads two tones to 0 and
//! 255, dynamic_range finds hand-computed points; the composites run as one graph; bad
//! parameters give one line.

mod common;

use common::*;
use texelflow::filters::analysis::{
    AutoLevels, AutoWhiteBalance, DominantColor, DynamicRange, HistogramEqualization,
    IntensityRange,
};
use texelflow::{Backend, Data, Image, Pipeline, PixelFormat, Value};

fn backends() -> Vec<Backend> {
    vec![gpu_backend(), Backend::Cpu]
}

fn image(w: u32, h: u32, f: impl Fn(u32, u32) -> [u8; 4]) -> Image {
    let px: Vec<u8> = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .flat_map(|(x, y)| f(x, y))
        .collect();
    Image::from_u8(w, h, PixelFormat::Rgba8, px).unwrap()
}

fn pixels(v: Value) -> Vec<[u8; 4]> {
    v.into_image()
        .expect("an image")
        .as_u8()
        .chunks_exact(4)
        .map(|p| [p[0], p[1], p[2], p[3]])
        .collect()
}

#[test]
fn two_tones_give_the_larger_one_as_dominant_colour_and_it_balances_white() {
    // 60% a warm wall (with a little texture), 40% a blue sky; the wall dominates
    let img = image(41, 29, |x, y| {
        if x < 25 {
            [200 + (x % 3) as u8, 150 + (y % 2) as u8, 100, 255]
        } else {
            [70, 110, 210, 255]
        }
    });
    for b in backends() {
        let c = match run_chain(&b, vec![Box::new(DominantColor::default())], &img) {
            Value::Data(Data::Color(c)) => c,
            other => panic!("not color data: {other:?}"),
        };
        assert_eq!(c.count, 25 * 29, "{}", b.describe());
        assert_eq!(c.pixels, 41 * 29);
        // mean of the wall: R 200 + mean(x % 3 over 0..25) = 200.96 -> 201; G 150.48 -> 150
        assert_eq!(c.color(), [201, 150, 100], "{}", b.describe());
        assert!((c.share() - 25.0 / 41.0).abs() < 1e-12);
        // white balance from it: the wall turns neutral grey, the sky keeps its relation
        let out = pixels(run_chain(
            &b,
            vec![Box::new(AutoWhiteBalance::new(1).unwrap())],
            &img,
        ));
        let wall = out[2 * 41 + 3];
        assert!(
            wall[0].abs_diff(wall[1]) <= 1 && wall[2].abs_diff(wall[1]) <= 1,
            "{}: wall {wall:?}",
            b.describe()
        );
    }
    // equal cells: the lowest cell index wins on both sides
    let half = image(8, 2, |x, _| {
        if x < 4 {
            [0, 0, 255, 255]
        } else {
            [255, 0, 0, 255]
        }
    });
    for b in backends() {
        match run_chain(&b, vec![Box::new(DominantColor::default())], &half) {
            Value::Data(Data::Color(c)) => assert_eq!(c.color(), [255, 0, 0], "{}", b.describe()),
            other => panic!("{other:?}"),
        }
    }
    assert!(DominantColor::new(5).is_err());
}

#[test]
fn grey_card_is_left_neutral_and_a_cast_is_removed() {
    // a grey card with some shading: R = G = B everywhere
    let card = image(37, 23, |x, y| {
        let v = (60 + x * 3 + y) as u8;
        [v, v, v, 200]
    });
    // a scene under a warm cast: R x1.25, B x0.7 of a neutral scene of varied greys
    let cast = image(31, 17, |x, y| {
        let v = 40 + ((x * 7 + y * 5) % 150);
        [(v * 5 / 4) as u8, v as u8, (v * 7 / 10) as u8, 255]
    });
    for b in backends() {
        // the grey card stays as it is under either reference
        let out = run_chain(&b, vec![Box::new(AutoWhiteBalance::new(1).unwrap())], &card);
        assert_eq!(
            out.as_image().unwrap(),
            &card,
            "{}: grey card changed (dominant)",
            b.describe()
        );
        let out = run_chain(&b, vec![Box::new(AutoWhiteBalance::new(0).unwrap())], &card);
        assert_eq!(
            out.as_image().unwrap(),
            &card,
            "{}: grey card changed",
            b.describe()
        );
        let out = pixels(run_chain(
            &b,
            vec![Box::new(AutoWhiteBalance::new(0).unwrap())],
            &cast,
        ));
        let mean = |c: usize| out.iter().map(|p| p[c] as f64).sum::<f64>() / out.len() as f64;
        let (r, g, bl) = (mean(0), mean(1), mean(2));
        assert!(
            (r - g).abs() < 1.0 && (bl - g).abs() < 1.0,
            "{}: cast left: means {r:.2} {g:.2} {bl:.2}",
            b.describe()
        );
        // per pixel: close to neutral (quantisation of the cast itself leaves a level or two)
        assert!(
            out.iter()
                .all(|p| p[0].abs_diff(p[1]) <= 2 && p[2].abs_diff(p[1]) <= 2),
            "{}",
            b.describe()
        );
    }
}

#[test]
fn a_ramp_of_levels_60_to_190_covers_0_to_255() {
    let ramp = image(131, 5, |x, y| {
        let v = 60 + x as u8;
        [v, v, 255 - v - (y as u8 & 1), 255]
    });
    for b in backends() {
        for linked in [false, true] {
            let out = pixels(run_chain(
                &b,
                vec![Box::new(AutoLevels::new(0.5, linked).unwrap())],
                &ramp,
            ));
            // per channel each covers 0..255; linked, the three together do (B spans 65..195)
            let span = |cs: &[usize]| {
                (
                    out.iter()
                        .flat_map(|p| cs.iter().map(|&c| p[c]))
                        .min()
                        .unwrap(),
                    out.iter()
                        .flat_map(|p| cs.iter().map(|&c| p[c]))
                        .max()
                        .unwrap(),
                )
            };
            if linked {
                assert_eq!(span(&[0, 1, 2]), (0, 255), "{} linked", b.describe());
                assert!(
                    span(&[0]).1 < 255 && span(&[2]).0 > 0,
                    "{}: linked stretched each channel apart",
                    b.describe()
                );
            } else {
                for c in 0..3 {
                    assert_eq!(span(&[c]), (0, 255), "{} channel {c}", b.describe());
                }
            }
            // monotone in the input; alpha kept
            let row: Vec<u8> = out[..131].iter().map(|p| p[0]).collect();
            assert!(row.windows(2).all(|w| w[0] <= w[1]), "{}", b.describe());
            assert!(out.iter().all(|p| p[3] == 255));
        }
    }
}

#[test]
fn dynamic_range_and_intensity_range_by_hand() {
    // 100 pixels: levels 0..99 in R; G = 50 everywhere; B = 255 - R
    let img = image(10, 10, |x, y| {
        let v = (y * 10 + x) as u8;
        [v, 50, 255 - v, 255]
    });
    for b in backends() {
        let Value::Data(Data::Range(r)) = run_chain(
            &b,
            vec![Box::new(DynamicRange::new(2.0, 97.0).unwrap())],
            &img,
        ) else {
            panic!("not a range")
        };
        // 2% of 100 = 2 pixels: cdf(1) = 2 -> level 1; 97%: cdf(96) = 97 -> 96
        assert_eq!((r.low[0], r.high[0]), (1, 96), "{}", b.describe());
        assert_eq!((r.low[1], r.high[1]), (50, 50));
        assert_eq!((r.low[2], r.high[2]), (156 + 1, 156 + 96));
        assert_eq!(r.channels, 0b1111);
        let Value::Data(Data::Range(y)) = run_chain(
            &b,
            vec![Box::new(IntensityRange::new(0.0, 100.0).unwrap())],
            &img,
        ) else {
            panic!("not a range")
        };
        assert_eq!(y.channels, 0b1000);
        let lumas: Vec<u8> = (0..100u8)
            .map(|v| texelflow::image::luma601(v, 50, 255 - v))
            .collect();
        assert_eq!(
            (y.low[3], y.high[3]),
            (*lumas.iter().min().unwrap(), *lumas.iter().max().unwrap()),
            "{}",
            b.describe()
        );
        assert_eq!((y.low[0], y.high[0]), (0, 0));
    }
}

#[test]
fn equalization_spreads_two_tones() {
    let img = image(8, 4, |x, _| {
        if x < 4 {
            [80, 80, 80, 255]
        } else {
            [120, 120, 120, 9]
        }
    });
    for b in backends() {
        for channels in [0, 1] {
            let out = pixels(run_chain(
                &b,
                vec![Box::new(HistogramEqualization::new(channels).unwrap())],
                &img,
            ));
            assert_eq!(out[0], [0, 0, 0, 255], "{}", b.describe());
            assert_eq!(out[7], [255, 255, 255, 9], "{}", b.describe());
        }
    }
}

#[test]
fn solvers_chain_in_one_graph_gpu_equals_cpu() {
    let img = random_image(67, 43, PixelFormat::Rgba8, 7);
    let p = Pipeline::parse("auto_levels(clip=2) | auto_white_balance | histogram_equalization(channels=rgb) | auto_levels(linked=true)", &mut |_| unreachable!()).unwrap();
    let gpu = p.run(&gpu_backend(), &img).unwrap();
    let cpu = p.run(&Backend::Cpu, &img).unwrap();
    assert_eq!(max_diff(&gpu, &cpu).unwrap(), 0.0);
}

#[test]
fn bad_parameters_give_one_line() {
    for (spec, needle) in [
        ("dynamic_range(low=60, high=40)", "low must be at most high"),
        ("intensity_range(low=101)", "low"),
        ("auto_levels(clip=60)", "clip"),
        ("histogram_equalization(channels=hsv)", "channels"),
        ("auto_white_balance(method=purple)", "method"),
    ] {
        let img = random_image(4, 4, PixelFormat::Rgba8, 1);
        let err = Pipeline::parse(spec, &mut |_| unreachable!())
            .and_then(|p| p.run(&Backend::Cpu, &img))
            .expect_err(spec)
            .to_string();
        assert!(err.contains(needle) && !err.contains('\n'), "{spec}: {err}");
    }
}
