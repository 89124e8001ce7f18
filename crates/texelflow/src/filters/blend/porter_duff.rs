//! Porter-Duff compositing, the operators of OpenCV's `cuda::alphaComp` (over, in, out, atop,
//! xor, plus; their `_PREMUL` forms are `alpha=premultiplied`) with the reverses and the
//! remaining classic ones (clear, src, dst). No single GPUImage filter; GPUImage's
//! `GPUImageNormalBlendFilter` is `op=over`.

/// Operator names, in the order of the `op` choice.
const OPS: [&str; 13] = [
    "over", "in", "out", "atop", "xor", "plus", "dst_over", "dst_in", "dst_out", "dst_atop", "src",
    "dst", "clear",
];
const _: () = assert!(OPS.len() == 13);

/// The operator as `Fa = k0 + k1 αB` and `Fb = k2 + k3 αA` (A the source, B the destination),
/// so the kernel needs no branch on the operator.
fn factors(op: u32) -> [f32; 4] {
    match op {
        0 => [1.0, 0.0, 1.0, -1.0],  // over: 1, 1 - αA
        1 => [0.0, 1.0, 0.0, 0.0],   // in: αB, 0
        2 => [1.0, -1.0, 0.0, 0.0],  // out: 1 - αB, 0
        3 => [0.0, 1.0, 1.0, -1.0],  // atop: αB, 1 - αA
        4 => [1.0, -1.0, 1.0, -1.0], // xor: 1 - αB, 1 - αA
        5 => [1.0, 0.0, 1.0, 0.0],   // plus: 1, 1
        6 => [1.0, -1.0, 1.0, 0.0],  // dst_over: 1 - αB, 1
        7 => [0.0, 0.0, 0.0, 1.0],   // dst_in: 0, αA
        8 => [0.0, 0.0, 1.0, -1.0],  // dst_out: 0, 1 - αA
        9 => [1.0, -1.0, 0.0, 1.0],  // dst_atop: 1 - αB, αA
        10 => [1.0, 0.0, 0.0, 0.0],  // src: 1, 0
        11 => [0.0, 0.0, 1.0, 0.0],  // dst: 0, 1
        _ => [0.0; 4],               // clear
    }
}

crate::pixel_filter! {
    /// `co = A' Fa + B' Fb`, `αo = αA Fa + αB Fb` with A the second image (source), B the input
    /// (destination) and A', B' their premultiplied colours.
    pub struct PorterDuff;
    name: "porter_duff",
    family: Blend,
    gpuimage: "",
    summary: "Porter-Duff compositing of the second image (source) with the input (destination).",
    doc: "The source A is the `with` image, the destination B the input: op=over puts `with` over the input, dst_over \
          the input over `with`. co = A' Fa + B' Fb, αo = αA Fa + αB Fb (A', B' premultiplied colours) with (Fa, Fb): \
          over (1, 1-αA), in (αB, 0), out (1-αB, 0), atop (αB, 1-αA), xor (1-αB, 1-αA), plus (1, 1), dst_over (1-αB, 1), \
          dst_in (0, αA), dst_out (0, 1-αA), dst_atop (1-αB, αA), src (1, 0), dst (0, 1), clear (0, 0), as OpenCV's \
          alphaComp. alpha=straight (default, what PNG and JPEG hold): inputs are premultiplied first and the result is \
          un-premultiplied, rgb = min(co, 1) / min(αo, 1) (0 where αo = 0). alpha=premultiplied: inputs and output are \
          premultiplied, out = (co, αo), OpenCV's ALPHA_*_PREMUL; samples above 1 (plus) saturate.",
    with: "the source image (A)",
    params: {
        op: choice("over", "in", "out", "atop", "xor", "plus", "dst_over", "dst_in", "dst_out", "dst_atop", "src", "dst", "clear") = "over" => "the operator (A = with, B = input)",
        alpha: choice("straight", "premultiplied") = "straight" => "how both images and the output hold colour: straight (PNG) or premultiplied by alpha",
    },
    uniform: |f| { factors: [f32; 4] = factors(f.op), premultiplied: u32 = f.alpha },
    wgsl: "let fa = p.factors.x + p.factors.y * c.a;
    let fb = p.factors.z + p.factors.w * t.a;
    let a = t.a * fa + c.a * fb;
    if (p.premultiplied == 1u) {
        return vec4<f32>(t.rgb * fa + c.rgb * fb, a);
    }
    let co = t.rgb * t.a * fa + c.rgb * c.a * fb;
    let ao = min(a, 1.0);
    return vec4<f32>(select(vec3<f32>(0.0), min(co, vec3<f32>(1.0)) / ao, ao > 0.0), ao);",
    cpu2: |f, c, t, _| {
        let (aa, ab) = (t[3], c[3]);
        // (Fa, Fb), spelled out per operator rather than through `factors`
        let (fa, fb) = match OPS.get(f.op as usize).copied().unwrap_or("clear") {
            "over" => (1.0, 1.0 - aa),
            "in" => (ab, 0.0),
            "out" => (1.0 - ab, 0.0),
            "atop" => (ab, 1.0 - aa),
            "xor" => (1.0 - ab, 1.0 - aa),
            "plus" => (1.0, 1.0),
            "dst_over" => (1.0 - ab, 1.0),
            "dst_in" => (0.0, aa),
            "dst_out" => (0.0, 1.0 - aa),
            "dst_atop" => (1.0 - ab, aa),
            "src" => (1.0, 0.0),
            "dst" => (0.0, 1.0),
            _ => (0.0, 0.0),
        };
        let alpha = aa * fa + ab * fb;
        if f.alpha == 1 {
            return [t[0] * fa + c[0] * fb, t[1] * fa + c[1] * fb, t[2] * fa + c[2] * fb, alpha];
        }
        let ao = alpha.min(1.0);
        let ch = |k: usize| if ao > 0.0 { (t[k] * aa * fa + c[k] * ab * fb).min(1.0) / ao } else { 0.0 };
        [ch(0), ch(1), ch(2), ao]
    },
}
