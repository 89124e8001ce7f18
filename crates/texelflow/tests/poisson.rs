//! poisson_blend beyond the GPU-vs-CPU matrix: that it solves the Poisson equation it should
//! (residual falling with iterations, the outside untouched), iterations=0, the early stop,
//! and the GPU-vs-CPU drift over many iterations behind its declared tolerance.

mod common;

use common::*;
use texelflow::filters::blend::PoissonBlend;
use texelflow::{registry, Backend, Image, Pipeline, PixelFormat};

fn run(backend: &Backend, f: &PoissonBlend, base: &Image, top: &Image) -> Image {
    let p = Pipeline::new().then_with(f.clone(), vec![top.clone()]);
    let v = p
        .run(backend, base)
        .unwrap_or_else(|e| panic!("poisson_blend run: {e}"));
    v.as_image().expect("an image out").clone()
}

fn blend(mix: f32, iterations: u32, tolerance: f32) -> PoissonBlend {
    PoissonBlend::new(mix, iterations, tolerance).expect("parameters in range")
}

const W: u32 = 40;
const H: u32 = 30;
/// The mask: columns 6..34, rows 8..22.
fn in_mask(x: u32, y: u32) -> bool {
    (6..34).contains(&x) && (8..22).contains(&y)
}

/// Flat base (128, alpha 200); the pasted image: red a parabola in x, green one in y (a
/// constant Laplacian, so the solution differs from the base), blue a linear ramp (zero
/// Laplacian: it must stay flat), alpha 255 inside the mask and 0 outside.
fn scene() -> (Image, Image) {
    let base = Image::from_u8(
        W,
        H,
        PixelFormat::Rgba8,
        [128u8, 128, 128, 200].repeat((W * H) as usize),
    )
    .expect("image");
    let mut t = Vec::new();
    for y in 0..H {
        for x in 0..W {
            let sq = |v: u32, c: u32| ((v as i32 - c as i32).pow(2)).min(255) as u8;
            t.extend_from_slice(&[
                sq(x, 20),
                sq(y, 15),
                (x * 6) as u8,
                if in_mask(x, y) { 255 } else { 0 },
            ]);
        }
    }
    (
        base,
        Image::from_u8(W, H, PixelFormat::Rgba8, t).expect("image"),
    )
}

/// RMS over the mask's pixels and the three colours of (Laplacian of out - Laplacian of top),
/// the 4-neighbour Laplacian in 8-bit levels: 0 at the Poisson solution (up to rounding).
fn residual(out: &Image, top: &Image) -> f64 {
    let (o, t) = (out.as_u8(), top.as_u8());
    let at = |b: &[u8], x: u32, y: u32, k: usize| b[((y * W + x) * 4) as usize + k] as f64;
    let lap = |b: &[u8], x: u32, y: u32, k: usize| {
        4.0 * at(b, x, y, k)
            - at(b, x - 1, y, k)
            - at(b, x + 1, y, k)
            - at(b, x, y - 1, k)
            - at(b, x, y + 1, k)
    };
    let (mut sum, mut n) = (0.0, 0.0);
    for y in 0..H {
        for x in 0..W {
            if in_mask(x, y) {
                for k in 0..3 {
                    sum += (lap(o, x, y, k) - lap(t, x, y, k)).powi(2);
                    n += 1.0;
                }
            }
        }
    }
    (sum / n).sqrt()
}

/// The discrete Poisson problem's solution, independently (f64, SOR to convergence): on the
/// mask `u = mean4(u) + (t - mean4(t))`, outside it the base's 128. Channel-major, in levels.
#[allow(
    clippy::needless_range_loop,
    reason = "k is a channel of five pixels of u and of t"
)]
fn exact_solution(top: &Image) -> Vec<[f64; 3]> {
    let t = top.as_u8();
    let at = |x: u32, y: u32, k: usize| t[((y * W + x) * 4) as usize + k] as f64;
    let mut u = vec![[128.0f64; 3]; (W * H) as usize];
    for _ in 0..20_000 {
        for y in 0..H {
            for x in 0..W {
                if !in_mask(x, y) {
                    continue;
                }
                let i = (y * W + x) as usize;
                for k in 0..3 {
                    let g = at(x, y, k)
                        - (at(x - 1, y, k) + at(x + 1, y, k) + at(x, y - 1, k) + at(x, y + 1, k))
                            / 4.0;
                    let m =
                        (u[i - 1][k] + u[i + 1][k] + u[i - W as usize][k] + u[i + W as usize][k])
                            / 4.0;
                    u[i][k] += 1.8 * (m + g - u[i][k]);
                }
            }
        }
    }
    u
}

#[test]
fn converges_to_the_poisson_solution() {
    let (base, top) = scene();
    let exact = exact_solution(&top);
    let gpu = gpu_backend();
    let mut seen = Vec::new();
    for iterations in [0, 10, 100, 1000, 4000] {
        let out = run(&gpu, &blend(1.0, iterations, 0.0), &base, &top);
        // outside the mask: the base, exactly (colour and alpha); alpha the base's everywhere
        let mut err: f64 = 0.0;
        for y in 0..H {
            for x in 0..W {
                let i = ((y * W + x) * 4) as usize;
                let px = &out.as_u8()[i..i + 4];
                if !in_mask(x, y) {
                    assert_eq!(
                        px,
                        &[128, 128, 128, 200],
                        "iterations={iterations}: ({x}, {y}) outside the mask changed"
                    );
                }
                assert_eq!(px[3], 200, "alpha at ({x}, {y})");
                for k in 0..3 {
                    err = err.max((px[k] as f64 - exact[(y * W + x) as usize][k]).abs());
                }
            }
        }
        seen.push((iterations, err, residual(&out, &top)));
    }
    eprintln!(
        "(iterations, max error against the exact solution, RMS residual) in levels: {seen:?}"
    );
    // the error falls with every step while above rounding, and ends within rounding (half a
    // level, plus what 4000 Jacobi passes leave)
    for w in seen.windows(2) {
        assert!(
            w[1].1 < w[0].1 || w[1].1 <= 1.0,
            "error not falling: {seen:?}"
        );
    }
    assert!(
        seen[0].1 > 40.0,
        "the problem should start far from its solution: {seen:?}"
    );
    assert!(seen[4].1 <= 1.0, "not converged: {seen:?}");
    // the residual (Laplacians' difference) falls too, down to the floor that 8-bit rounding
    // of the output leaves (a Laplacian of five rounded values: RMS about 1.3 levels)
    assert!(
        seen[1].2 < seen[0].2 && seen[2].2 < seen[1].2,
        "residual not falling: {seen:?}"
    );
    assert!(seen[4].2 < 1.3, "residual: {seen:?}");
    // the blue ramp (zero Laplacian) keeps the boundary's flat 128; red and green sag
    let out = run(&gpu, &blend(1.0, 4000, 0.0), &base, &top);
    let centre = ((15 * W + 20) * 4) as usize;
    assert!(
        out.as_u8()[centre] < 100 && out.as_u8()[centre + 1] < 100,
        "centre {:?}",
        &out.as_u8()[centre..centre + 4]
    );
    assert!(
        (out.as_u8()[centre + 2] as i32 - 128).abs() <= 1,
        "blue at the centre {}",
        out.as_u8()[centre + 2]
    );
}

#[test]
fn zero_iterations_return_the_base() {
    for (w, h) in [(1, 1), (67, 43)] {
        let base = random_image(w, h, PixelFormat::Rgba8, 5);
        let top = random_image(w, h, PixelFormat::Rgba8, 6);
        for backend in [gpu_backend(), Backend::Cpu] {
            assert_eq!(
                run(&backend, &blend(1.0, 0, 0.0), &base, &top).as_u8(),
                base.as_u8()
            );
        }
    }
}

/// The GPU-vs-CPU tolerance declared in the registry, from this measurement.
#[test]
fn gpu_cpu_drift() {
    let tol = registry::find("poisson_blend")
        .expect("registered")
        .tolerance
        .max_diff as f64;
    let mut worst = Vec::new();
    for iterations in [1, 10, 100, 1000] {
        let mut m: f64 = 0.0;
        for (seed, (w, h)) in [(67u32, 43u32), (130, 17), (9, 1)].into_iter().enumerate() {
            for mix in [1.0, 0.37] {
                let base = random_image(w, h, PixelFormat::Rgba8, 10 + seed as u64);
                let top = random_image(w, h, PixelFormat::Rgba8, 20 + seed as u64);
                let f = blend(mix, iterations, 0.0);
                let a = run(&gpu_backend(), &f, &base, &top);
                let b = run(&Backend::Cpu, &f, &base, &top);
                let d = max_diff(&texelflow::Value::Image(a), &texelflow::Value::Image(b))
                    .expect("same shape");
                m = m.max(d);
            }
        }
        worst.push((iterations, m));
    }
    eprintln!("max GPU-CPU difference by iterations: {worst:?}");
    assert!(
        worst.iter().all(|&(_, d)| d <= tol),
        "{worst:?} over the declared {tol}"
    );
}

/// A tolerance every check meets stops after the first check (iteration 8): the same result
/// as 8 iterations without one, bit for bit on each side; a tolerance none meets runs all.
#[test]
fn early_stop() {
    let base = random_image(67, 43, PixelFormat::Rgba8, 31);
    let top = random_image(67, 43, PixelFormat::Rgba8, 32);
    let check = texelflow::filters::blend::poisson_blend::CHECK_EVERY;
    for backend in [gpu_backend(), Backend::Cpu] {
        let stopped = run(&backend, &blend(1.0, 100, 1.0), &base, &top);
        let eight = run(&backend, &blend(1.0, check, 0.0), &base, &top);
        let hundred = run(&backend, &blend(1.0, 100, 0.0), &base, &top);
        assert_eq!(stopped.as_u8(), eight.as_u8());
        assert_ne!(
            eight.as_u8(),
            hundred.as_u8(),
            "8 and 100 iterations should differ on random images"
        );
        let all = run(&backend, &blend(1.0, 100, 1e-9), &base, &top);
        assert_eq!(all.as_u8(), hundred.as_u8());
    }
}

#[test]
fn out_of_range_parameters_name_the_range() {
    for (mix, it, tol) in [(1.5, 10, 0.0), (1.0, 10_001, 0.0), (1.0, 10, -0.1)] {
        let e = PoissonBlend::new(mix, it, tol)
            .expect_err("out of range")
            .to_string();
        assert!(e.contains("out of range ["), "{e}");
    }
}
