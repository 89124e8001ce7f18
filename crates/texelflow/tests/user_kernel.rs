//! Kernels of your own at run time (`pixel_kernel`, `texelflow::UserKernel`): a user kernel
//! in a spec fuses with built-in per-pixel filters into one kernel and equals, byte for byte,
//! the same math written with built-ins; bad WGSL and bad calls give one line with the place;
//! the CPU reference needs a twin.

mod common;

use common::*;
use texelflow::{quote, Backend, Image, Pipeline, PixelFormat, UserKernel, UserStencil, Value};

/// `brightness` written as a user kernel, with a helper.
const ADD: &str = "// brightness, as a user kernel\nstruct Params { amount: f32 }\nfn helper(x: vec3<f32>, d: f32) -> vec3<f32> {\n    return x + vec3<f32>(d);\n}\nfn kernel(c: vec4<f32>, p: Params) -> vec4<f32> {\n    return vec4<f32>(helper(c.rgb, p.amount), c.a);\n}\n";

/// `rgb` written as a user kernel: the same names (`Params`, `helper`, `kernel`) as `ADD`, so
/// both in one fused module must not collide.
const GAIN: &str = "struct Params { blue: f32, red: f32, green: f32 }\nfn helper(c: vec4<f32>, p: Params) -> vec3<f32> {\n    return vec3<f32>(c.r * p.red, c.g * p.green, c.b * p.blue);\n}\nfn kernel(c: vec4<f32>, p: Params) -> vec4<f32> {\n    return vec4<f32>(helper(c, p), c.a);\n}\n";

fn parse(spec: &str) -> texelflow::Result<Pipeline> {
    Pipeline::parse(spec, &mut |p| Image::open(p))
}

fn image(v: Value) -> Image {
    match v {
        Value::Image(i) => i,
        other => panic!("expected an image, got {other:?}"),
    }
}

/// The image's samples as bytes, whatever their width.
fn bytes(i: &Image) -> Vec<u8> {
    match i.format() {
        PixelFormat::Rgba16 => i.as_u16().iter().flat_map(|v| v.to_le_bytes()).collect(),
        _ => i.as_u8().to_vec(),
    }
}

/// The user's two kernels between built-ins fuse into one kernel with them, and give exactly
/// the bytes of the built-in chain, at an awkward size, in RGBA8 and RGBA16.
#[test]
fn user_kernels_fuse_and_equal_the_builtins() {
    let user = format!(
        "exposure(exposure=0.3) | pixel_kernel(code={}, amount=0.1) | pixel_kernel(code={}, red=1.5, green=0.8, blue=1.1) | saturation(saturation=1.2)",
        quote(ADD),
        quote(GAIN)
    );
    let builtin = "exposure(exposure=0.3) | brightness(brightness=0.1) | rgb(red=1.5, green=0.8, blue=1.1) | saturation(saturation=1.2)";
    let gpu = private_gpu();
    gpu.keep_compiled_kernels();
    let be = Backend::Gpu(gpu.clone());
    for (k, format) in [PixelFormat::Rgba8, PixelFormat::Rgba16]
        .into_iter()
        .enumerate()
    {
        let a = random_image(37, 23, format, 31 + k as u64);
        let before = gpu.compiled_kernel_count();
        let mine = image(parse(&user).unwrap().run(&be, &a).unwrap());
        let kept = gpu.compiled_kernels(before);
        let fused: Vec<&str> = kept.iter().map(|k| k.key.as_str()).collect();
        assert_eq!(
            fused.len(),
            1,
            "{format:?}: one kernel for the whole chain: {fused:?}"
        );
        assert!(
            fused[0].contains("exposure,user") && fused[0].contains(",saturation"),
            "{fused:?}"
        );
        let theirs = image(parse(builtin).unwrap().run(&be, &a).unwrap());
        assert_eq!(mine.desc(), theirs.desc());
        assert!(
            bytes(&mine) == bytes(&theirs),
            "{format:?}: not byte for byte"
        );
        // and the chain really changed the image
        assert!(bytes(&mine) != bytes(&a));
    }
    // a different source never shares a compiled kernel: the same chain with other math
    let other = format!(
        "exposure(exposure=0.3) | pixel_kernel(code={}, amount=0.1) | pixel_kernel(code={}, red=1.5, green=0.8, blue=1.1) | saturation(saturation=1.2)",
        quote(&ADD.replace("x + vec3", "x - vec3")),
        quote(GAIN)
    );
    let a = random_image(37, 23, PixelFormat::Rgba8, 31);
    let minus = image(parse(&other).unwrap().run(&be, &a).unwrap());
    let theirs = image(
        parse(&builtin.replace("brightness=0.1", "brightness=-0.1"))
            .unwrap()
            .run(&be, &a)
            .unwrap(),
    );
    assert!(bytes(&minus) == bytes(&theirs));
}

/// A user kernel from a file, through the Rust API, with the same twice in one chain.
#[test]
fn file_kernel_and_rust_api() {
    let path = std::env::temp_dir().join(format!("texelflow-add-{}.wgsl", std::process::id()));
    std::fs::write(&path, ADD).unwrap();
    let a = random_image(19, 7, PixelFormat::Rgba8, 3);
    let spec = format!(
        "pixel_kernel(file={}, amount=0.2) | pixel_kernel({}, amount=-0.05)",
        quote(&path.display().to_string()),
        quote(&path.display().to_string())
    );
    let mine = image(parse(&spec).unwrap().run(&gpu_backend(), &a).unwrap());
    let theirs = image(
        parse("brightness(brightness=0.2) | brightness(brightness=-0.05)")
            .unwrap()
            .run(&gpu_backend(), &a)
            .unwrap(),
    );
    assert!(bytes(&mine) == bytes(&theirs));
    let k = UserKernel::from_file(&path, &[("amount", 0.2)]).unwrap();
    assert_eq!(k.params(), ["amount"]);
    let api = image(Pipeline::new().then(k).run(&gpu_backend(), &a).unwrap());
    let one = image(
        parse("brightness(brightness=0.2)")
            .unwrap()
            .run(&gpu_backend(), &a)
            .unwrap(),
    );
    assert!(bytes(&api) == bytes(&one));
    let _ = std::fs::remove_file(&path);
}

/// Every error is one line naming the problem; WGSL errors give `origin:line:column`.
#[test]
fn bad_kernels_give_one_clear_line() {
    let err = |spec: &str| {
        let e = parse(spec)
            .err()
            .unwrap_or_else(|| panic!("{spec}: parsed"))
            .to_string();
        assert_eq!(e.lines().count(), 1, "{e}");
        e
    };
    // a syntax error on line 3, column 18 (the `;` where an expression should be)
    let dir = std::env::temp_dir().join(format!("texelflow-uk-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let warm = dir.join("warm.wgsl");
    std::fs::write(
        &warm,
        "struct Params { amount: f32 }\nfn kernel(c: vec4<f32>, p: Params) -> vec4<f32> {\n    let x = c.r +;\n    return c;\n}\n",
    )
    .unwrap();
    let w = warm.display().to_string();
    let e = err(&format!("pixel_kernel(file={}, amount=0.3)", quote(&w)));
    assert!(e.starts_with(&format!("pixel_kernel: {w}:3:18: ")), "{e}");
    // an unknown name, found by naga's validation or lowering: line 2, column 24
    let e = err(&format!(
        "pixel_kernel(code={})",
        quote("fn kernel(c: vec4<f32>) -> vec4<f32> {\n    return c * vec4<f32>(gain);\n}\n")
    ));
    assert!(e.starts_with("pixel_kernel: code:2:26: "), "{e}");
    // a type error the validator finds (returning a vec3): a place in the source
    let e = err(&format!(
        "pixel_kernel(code={})",
        quote("fn kernel(c: vec4<f32>) -> vec4<f32> {\n    return c.rgb;\n}\n")
    ));
    assert!(e.starts_with("pixel_kernel: code:2:"), "{e}");
    // the contract
    let add = quote(ADD);
    assert!(err(&format!("pixel_kernel(code={add})")).contains("parameter `amount` is not given"));
    assert!(
        err(&format!("pixel_kernel(code={add}, amount=0.1, amout=2)"))
            .contains("unknown parameter `amout`: struct Params declares amount")
    );
    assert!(err(&format!("pixel_kernel(code={add}, amount=bright)")).contains("expected a number"));
    assert!(err(&format!(
        "pixel_kernel(code={})",
        quote("fn kernel(c: vec4<f32>, k: f32) -> vec4<f32> { return c * k; }")
    ))
    .contains("`fn kernel` must be fn kernel(c: vec4<f32>, p: Params) -> vec4<f32>"));
    assert!(err(&format!(
        "pixel_kernel(code={})",
        quote("fn main(c: vec4<f32>) -> vec4<f32> { return c; }")
    ))
    .contains("no function `kernel`"));
    assert!(err(&format!(
        "pixel_kernel(code={})",
        quote("@compute @workgroup_size(1) fn main() {}\nfn kernel(c: vec4<f32>) -> vec4<f32> { return c; }")
    ))
    .contains("entry point `main` is not allowed"));
    // files: missing, not a regular file, too large, both file and code
    let missing = dir.join("missing.wgsl");
    let e = err(&format!(
        "pixel_kernel(file={})",
        quote(&missing.display().to_string())
    ));
    assert!(
        e.starts_with(&format!("pixel_kernel: {}: ", missing.display())),
        "{e}"
    );
    let e = err(&format!(
        "pixel_kernel(file={})",
        quote(&dir.display().to_string())
    ));
    assert!(
        e.starts_with(&format!("pixel_kernel: {}: ", dir.display())),
        "{e}"
    );
    let big = dir.join("big.wgsl");
    std::fs::write(&big, vec![b' '; (1 << 20) + 1]).unwrap();
    let e = err(&format!(
        "pixel_kernel(file={})",
        quote(&big.display().to_string())
    ));
    assert!(e.contains("more than"), "{e}");
    assert!(err(&format!("pixel_kernel(file={}, code={add})", quote(&w))).contains("not both"));
    assert!(err("pixel_kernel(amount=0.3)").contains("`amount` given but no kernel"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The CPU reference: an error in one line without a twin; with a Rust closure twin, within
/// 1/255 of the GPU.
#[test]
fn cpu_needs_a_twin() {
    let a = random_image(37, 23, PixelFormat::Rgba8, 9);
    let e = parse(&format!(
        "brightness(brightness=0.1) | pixel_kernel(code={}, amount=0.1)",
        quote(ADD)
    ))
    .unwrap()
    .run(&Backend::Cpu, &a)
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("pixel_kernel: has no CPU twin: give one with UserKernel::with_cpu"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
    let gain = UserKernel::new(GAIN, &[("red", 1.5), ("green", 0.8), ("blue", 1.1)])
        .unwrap()
        .with_cpu(|c, p| {
            // p in the struct's order: blue, red, green
            [c[0] * p[1], c[1] * p[2], c[2] * p[0], c[3]]
        });
    let p = Pipeline::new()
        .then(texelflow::filters::color::Brightness::new(0.05).unwrap())
        .then(gain);
    let gpu = p.run(&gpu_backend(), &a).unwrap();
    let cpu = p.run(&Backend::Cpu, &a).unwrap();
    assert!(max_diff(&gpu, &cpu).unwrap() <= 1.0);
    assert!(bytes(&image(gpu)) != bytes(&a));
}

/// `laplacian` written as a user stencil (its WGSL copied), without parameters.
const LAPLACIAN: &str = "fn kernel(n: array<vec4<f32>, 9>) -> vec4<f32> {\n    let s = 0.5 * (n[0].rgb + n[2].rgb + n[6].rgb + n[8].rgb) + (n[1].rgb + n[3].rgb + n[5].rgb + n[7].rgb) - 6.0 * n[4].rgb;\n    return vec4<f32>(s + vec3<f32>(0.5), n[4].a);\n}\n";

/// `convolution_3x3` written as a user stencil (its WGSL copied), the weights as `Params`.
const CONV: &str = "struct Params { w0: f32, w1: f32, w2: f32, w3: f32, w4: f32, w5: f32, w6: f32, w7: f32, w8: f32 }\nfn kernel(n: array<vec4<f32>, 9>, p: Params) -> vec4<f32> {\n    let s = n[0].rgb * p.w0 + n[1].rgb * p.w1 + n[2].rgb * p.w2\n        + n[3].rgb * p.w3 + n[4].rgb * p.w4 + n[5].rgb * p.w5\n        + n[6].rgb * p.w6 + n[7].rgb * p.w7 + n[8].rgb * p.w8;\n    return vec4<f32>(s, n[4].a);\n}\n";

/// A 5x5 stencil: each channel minus the mean of the ring at distance 2, times `gain`, plus
/// 0.5 (edges of a coarser scale); no 5x5 built-in computes it, so its twin checks it.
const RING5: &str = "struct Params { gain: f32 }\nfn ring(n: array<vec4<f32>, 25>) -> vec4<f32> {\n    var s = vec4<f32>(0.0);\n    for (var i = 0; i < 25; i++) {\n        let dx = i % 5 - 2;\n        let dy = i / 5 - 2;\n        if (max(abs(dx), abs(dy)) == 2) { s += n[i]; }\n    }\n    return s / 16.0;\n}\nfn kernel(n: array<vec4<f32>, 25>, p: Params) -> vec4<f32> {\n    let d = (n[12] - ring(n)) * p.gain + vec4<f32>(0.5);\n    return vec4<f32>(d.rgb, n[12].a);\n}\n";

/// `RING5`'s CPU twin.
fn ring5_twin(n: &[[f32; 4]], p: &[f32]) -> [f32; 4] {
    let mut s = [0.0f32; 4];
    for (i, px) in n.iter().enumerate() {
        let (dx, dy) = (i as i32 % 5 - 2, i as i32 / 5 - 2);
        if dx.abs().max(dy.abs()) == 2 {
            for c in 0..4 {
                s[c] += px[c];
            }
        }
    }
    let d = |c: usize| (n[12][c] - s[c] / 16.0) * p[0] + 0.5;
    [d(0), d(1), d(2), n[12][3]]
}

/// 3x3 user stencils equal, byte for byte, the built-ins whose WGSL they copy (edges
/// included), on RGBA8 at awkward sizes and on Gray8; whole runs equal tiled ones.
#[test]
fn stencils_equal_the_builtins() {
    let be = gpu_backend();
    let weights = [1.0, -2.0, 0.5, 2.0, 0.25, -1.0, 0.5, 1.5, -0.75];
    let conv_user = format!(
        "stencil_kernel(code={}, {})",
        quote(CONV),
        weights
            .iter()
            .enumerate()
            .map(|(i, w)| format!("w{i}={w}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let conv_builtin = format!(
        "convolution_3x3(kernel=[{}])",
        weights
            .iter()
            .map(|w| w.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    let lap_user = format!("stencil_kernel(code={}, radius=1)", quote(LAPLACIAN));
    for (user, builtin) in [
        (lap_user.as_str(), "laplacian"),
        (&conv_user, &conv_builtin),
    ] {
        for (k, (w, h, format)) in [
            (37, 23, PixelFormat::Rgba8),
            (5, 3, PixelFormat::Rgba8),
            (1, 1, PixelFormat::Rgba8),
            (41, 17, PixelFormat::Gray8),
        ]
        .into_iter()
        .enumerate()
        {
            let a = random_image(w, h, format, 7 + k as u64);
            let mine = image(parse(user).unwrap().run(&be, &a).unwrap());
            let theirs = image(parse(builtin).unwrap().run(&be, &a).unwrap());
            assert_eq!(mine.desc(), theirs.desc());
            assert!(
                bytes(&mine) == bytes(&theirs),
                "{builtin} {w}x{h} {format:?}: not byte for byte"
            );
            assert!(bytes(&mine) != bytes(&a));
            if w > 8 {
                let tiled = parse(user).unwrap().run_tiled_value(&be, &a, 8, 3).unwrap();
                assert!(
                    bytes(&image(tiled)) == bytes(&mine),
                    "{builtin} {w}x{h}: tiled"
                );
            }
        }
    }
}

/// A 5x5 user stencil (from a file, after a built-in) within 1/255 of its CPU twin, edges
/// included; tiled equals whole; the spec form and the Rust API agree.
#[test]
fn stencil_5x5_twin_and_tiles() {
    let be = gpu_backend();
    let path = std::env::temp_dir().join(format!("texelflow-ring5-{}.wgsl", std::process::id()));
    std::fs::write(&path, RING5).unwrap();
    let a = random_image(37, 23, PixelFormat::Rgba8, 5);
    let spec = format!(
        "brightness(brightness=0.05) | stencil_kernel(file={}, radius=2, gain=1.5)",
        quote(&path.display().to_string())
    );
    let whole = parse(&spec).unwrap().run(&be, &a).unwrap();
    let tiled = parse(&spec)
        .unwrap()
        .run_tiled_value(&be, &a, 8, 3)
        .unwrap();
    assert!(bytes(&image(tiled)) == bytes(&image(whole.clone())));
    let k = UserStencil::from_file(&path, 2, &[("gain", 1.5)])
        .unwrap()
        .with_cpu(ring5_twin);
    assert_eq!((k.radius(), k.params()), (2, &["gain".to_string()][..]));
    let p = Pipeline::new()
        .then(texelflow::filters::color::Brightness::new(0.05).unwrap())
        .then(k);
    let gpu = p.run(&be, &a).unwrap();
    assert!(bytes(&image(gpu.clone())) == bytes(&image(whole)));
    let cpu = p.run(&Backend::Cpu, &a).unwrap();
    assert!(max_diff(&gpu, &cpu).unwrap() <= 1.0);
    let _ = std::fs::remove_file(&path);
}

/// Stencil errors: one line, WGSL errors with `origin:line:column`, a wrong array length
/// named; the CPU reference without a twin is an error, with one within 1/255 of the GPU.
#[test]
fn stencil_errors_and_cpu_twin() {
    let err = |spec: &str| {
        let e = parse(spec)
            .err()
            .unwrap_or_else(|| panic!("{spec}: parsed"))
            .to_string();
        assert_eq!(e.lines().count(), 1, "{e}");
        e
    };
    let e = err(&format!(
        "stencil_kernel(code={}, radius=2)",
        quote(LAPLACIAN)
    ));
    assert!(
        e.starts_with("stencil_kernel: code:1:1: `fn kernel` takes array<vec4<f32>, 9> but radius=2 is a 5x5 neighbourhood: declare n: array<vec4<f32>, 25>"),
        "{e}"
    );
    let e = err(&format!(
        "stencil_kernel(code={})",
        quote("fn kernel(n: array<vec4<f32>, 9>) -> vec4<f32> {\n    let x = n[4] +;\n    return x;\n}\n")
    ));
    assert!(e.starts_with("stencil_kernel: code:2:19: "), "{e}");
    let e = err(&format!(
        "stencil_kernel(code={})",
        quote("fn kernel(n: array<vec4<f32>, 9>) -> vec4<f32> {\n    return n[4] * gain;\n}\n")
    ));
    assert!(e.starts_with("stencil_kernel: code:2:19: "), "{e}");
    assert!(err(&format!("stencil_kernel(code={}, w0=1)", quote(CONV)))
        .contains("stencil_kernel: code: parameter `w1` is not given"));
    assert!(err(&format!(
        "stencil_kernel(code={}, radius=3)",
        quote(LAPLACIAN)
    ))
    .contains("radius"));
    assert!(err("stencil_kernel(gain=2)").contains("`gain` given but no kernel"));
    // without code, the identity
    let a = random_image(13, 9, PixelFormat::Rgba8, 2);
    for r in [1, 2] {
        let p = parse(&format!("stencil_kernel(radius={r})")).unwrap();
        assert!(bytes(&image(p.run(&gpu_backend(), &a).unwrap())) == bytes(&a));
        assert!(bytes(&image(p.run(&Backend::Cpu, &a).unwrap())) == bytes(&a));
    }
    // the CPU reference
    let e = parse(&format!("stencil_kernel(code={})", quote(LAPLACIAN)))
        .unwrap()
        .run(&Backend::Cpu, &a)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("stencil_kernel: has no CPU twin: give one with UserStencil::with_cpu"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
    let weights = [0.1f32, 0.2, 0.1, 0.2, -0.4, 0.2, 0.1, 0.2, 0.3];
    let named: Vec<(String, f32)> = weights
        .iter()
        .enumerate()
        .map(|(i, w)| (format!("w{i}"), *w))
        .collect();
    let named: Vec<(&str, f32)> = named.iter().map(|(n, w)| (n.as_str(), *w)).collect();
    let k = UserStencil::new(CONV, 1, &named).unwrap().with_cpu(|n, p| {
        let mut s = [0.0f32; 3];
        for (px, w) in n.iter().zip(p) {
            for c in 0..3 {
                s[c] += px[c] * w;
            }
        }
        [s[0], s[1], s[2], n[4][3]]
    });
    let a = random_image(37, 23, PixelFormat::Rgba8, 21);
    let p = Pipeline::new().then(k);
    let gpu = p.run(&gpu_backend(), &a).unwrap();
    let cpu = p.run(&Backend::Cpu, &a).unwrap();
    assert!(max_diff(&gpu, &cpu).unwrap() <= 1.0);
}
