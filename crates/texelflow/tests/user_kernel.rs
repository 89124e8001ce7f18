//! Kernels of your own at run time (`pixel_kernel`, `texelflow::UserKernel`): a user kernel
//! in a spec fuses with built-in per-pixel filters into one kernel and equals, byte for byte,
//! the same math written with built-ins; bad WGSL and bad calls give one line with the place;
//! the CPU reference needs a twin.

mod common;

use common::*;
use texelflow::{quote, Backend, Image, Pipeline, PixelFormat, UserKernel, Value};

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
