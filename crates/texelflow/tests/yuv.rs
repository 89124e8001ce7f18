//! YUV 4:2:0 <-> RGBA8 (filters/yuv.rs): the GPU kernels against their CPU twins for every
//! matrix and range at even and odd sizes, and the round trip's stated tolerance.

mod common;

use common::*;
use texelflow::filters::yuv::{
    i420_len, pack_i420, unpack_i420, RgbaToYuv420, Yuv420ToRgba, YuvMatrix, YuvRange,
};
use texelflow::{Backend, Filter, Image, PixelFormat};

const KINDS: [(YuvMatrix, YuvRange); 4] = [
    (YuvMatrix::Bt601, YuvRange::Limited),
    (YuvMatrix::Bt601, YuvRange::Full),
    (YuvMatrix::Bt709, YuvRange::Limited),
    (YuvMatrix::Bt709, YuvRange::Full),
];
const SIZES: [(u32, u32); 5] = [(64, 48), (33, 25), (1, 1), (7, 2), (130, 3)];

fn image(v: texelflow::Value) -> Image {
    v.into_image().expect("an image")
}

fn max_byte_diff(a: &[u8], b: &[u8]) -> u8 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| x.abs_diff(*y))
        .max()
        .unwrap_or(0)
}

#[test]
fn decoding_on_the_gpu_matches_the_cpu() {
    for (matrix, range) in KINDS {
        for (k, &(w, h)) in SIZES.iter().enumerate() {
            let mut rng = Rng(17 + k as u64);
            let frame = pack_i420(w, h, (0..i420_len(w, h)).map(|_| rng.byte()).collect()).unwrap();
            let f = || -> Vec<Box<dyn Filter>> {
                vec![Box::new(Yuv420ToRgba {
                    height: h,
                    matrix,
                    range,
                })]
            };
            let gpu = image(run_chain(&gpu_backend(), f(), &frame));
            let cpu = image(run_chain(&Backend::Cpu, f(), &frame));
            assert_eq!(
                (gpu.width(), gpu.height(), gpu.format()),
                (w, h, PixelFormat::Rgba8)
            );
            let d = max_byte_diff(gpu.as_u8(), cpu.as_u8());
            assert!(
                d <= 1,
                "{matrix:?} {range:?} {w}x{h}: GPU and CPU differ by {d}"
            );
        }
    }
}

#[test]
fn encoding_on_the_gpu_matches_the_cpu_and_pads_by_repeating_the_edge() {
    for (matrix, range) in KINDS {
        for (k, &(w, h)) in SIZES.iter().enumerate() {
            let img = random_image(w, h, PixelFormat::Rgba8, 40 + k as u64);
            // the frame itself, and one made even (4:2:0 encoders want even sides)
            for (fw, fh) in [(w, h), (w.div_ceil(2) * 2, h.div_ceil(2) * 2)] {
                let f = || -> Vec<Box<dyn Filter>> {
                    vec![Box::new(RgbaToYuv420 {
                        width: fw,
                        height: fh,
                        matrix,
                        range,
                    })]
                };
                let gpu = image(run_chain(&gpu_backend(), f(), &img));
                let cpu = image(run_chain(&Backend::Cpu, f(), &img));
                // the padding after the frame's bytes is zero on both (the GPU output was poisoned)
                let d = max_byte_diff(gpu.as_u8(), cpu.as_u8());
                assert!(
                    d <= 1,
                    "{matrix:?} {range:?} {w}x{h} -> {fw}x{fh}: GPU and CPU differ by {d}"
                );
                assert_eq!(unpack_i420(&gpu, fh).unwrap().len(), i420_len(fw, fh));
                assert!(
                    gpu.as_u8()[i420_len(fw, fh)..].iter().all(|&b| b == 0),
                    "padding not zero"
                );
                if (fw, fh) != (w, h) {
                    // the padded column repeats the last one: equal Y bytes
                    let y = unpack_i420(&cpu, fh).unwrap();
                    for row in 0..h as usize {
                        assert_eq!(
                            y[row * fw as usize + fw as usize - 1],
                            y[row * fw as usize + w as usize - 1]
                        );
                    }
                }
            }
        }
    }
}

/// RGBA -> I420 -> RGBA, on the GPU: colours constant over each 2x2 block come back within 2
/// levels per channel (the documented bound); any image stays within 2 on its block means.
#[test]
fn the_round_trip_stays_within_its_stated_tolerance() {
    for (matrix, range) in KINDS {
        let (w, h) = (32u32, 18u32);
        // random colours, constant over 2x2 blocks
        let mut rng = Rng(5);
        let blocks: Vec<[u8; 3]> = (0..(w / 2) * (h / 2))
            .map(|_| [rng.byte(), rng.byte(), rng.byte()])
            .collect();
        let mut px = Vec::with_capacity((w * h * 4) as usize);
        for y in 0..h {
            for x in 0..w {
                let c = blocks[((y / 2) * (w / 2) + x / 2) as usize];
                px.extend_from_slice(&[c[0], c[1], c[2], 255]);
            }
        }
        let img = Image::from_u8(w, h, PixelFormat::Rgba8, px).unwrap();
        let chain: Vec<Box<dyn Filter>> = vec![
            Box::new(RgbaToYuv420 {
                width: w,
                height: h,
                matrix,
                range,
            }),
            Box::new(Yuv420ToRgba {
                height: h,
                matrix,
                range,
            }),
        ];
        let back = image(run_chain(&gpu_backend(), chain, &img));
        let d = max_byte_diff(back.as_u8(), img.as_u8());
        assert!(d <= 2, "{matrix:?} {range:?}: round trip differs by {d}");
    }
}

/// Known values: BT.709 limited-range 75% colour bars' yellow (Y 168, U 44, V 136) and
/// full-range grey.
#[test]
fn known_colours() {
    let yellow = pack_i420(2, 2, vec![168, 168, 168, 168, 44, 136]).unwrap();
    let out = image(run_chain(
        &gpu_backend(),
        vec![Box::new(Yuv420ToRgba {
            height: 2,
            matrix: YuvMatrix::Bt709,
            range: YuvRange::Limited,
        })],
        &yellow,
    ));
    let p = &out.as_u8()[..4];
    // 75% yellow is (191, 191, 0)
    assert!(
        p[0].abs_diff(191) <= 2 && p[1].abs_diff(191) <= 2 && p[2] <= 2,
        "{p:?}"
    );
    let grey = pack_i420(2, 2, vec![100, 100, 100, 100, 128, 128]).unwrap();
    let out = image(run_chain(
        &gpu_backend(),
        vec![Box::new(Yuv420ToRgba {
            height: 2,
            matrix: YuvMatrix::Bt601,
            range: YuvRange::Full,
        })],
        &grey,
    ));
    assert_eq!(&out.as_u8()[..4], &[100, 100, 100, 255]);
}

/// The uniform block's Rust mirror has the WGSL struct's size and member offsets (these two
/// filters are not in the registry, whose uniforms tests/uniform_layout.rs checks).
#[test]
fn the_uniform_block_matches_its_wgsl_struct() {
    for def in [
        &texelflow::filters::yuv::YUV420_TO_RGBA,
        &texelflow::filters::yuv::RGBA_TO_YUV420,
    ] {
        for u in def.uniforms {
            // the struct generated by `uniform_struct!` goes in before the kernel that reads it
            let full = format!(
                "{}\n{}\n{}\n{}",
                texelflow::extend::COMMON_WGSL,
                texelflow::extend::CONV_WGSL,
                u.generated,
                u.wgsl
            );
            let m = naga::front::wgsl::parse_str(&full)
                .unwrap_or_else(|e| panic!("WGSL does not parse:\n{}", e.emit_to_string(&full)));
            let ty = m
                .types
                .iter()
                .find(|(_, t)| t.name.as_deref() == Some(u.wgsl_struct))
                .expect("the struct");
            let naga::TypeInner::Struct { span, members } = &ty.1.inner else {
                panic!("not a struct")
            };
            assert_eq!(*span as usize, u.rust_size);
            for (name, offset) in u.fields {
                let got = members
                    .iter()
                    .find(|mb| mb.name.as_deref() == Some(*name))
                    .unwrap_or_else(|| panic!("no member {name}"));
                assert_eq!(got.offset as usize, *offset, "{name}");
            }
        }
    }
}
