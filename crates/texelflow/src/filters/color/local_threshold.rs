//! Threshold against a second image (a local mean): the compare stage of GPUImage's
//! `GPUImageAdaptiveThresholdFilter`.

crate::pixel_filter! {
    /// White where the image's luminance is at least the second image's minus an offset.
    pub struct LocalThreshold;
    name: "local_threshold",
    gpuimage: "GPUImageAdaptiveThresholdFilter",
    summary: "White where luminance >= the second image's luminance (e.g. a local mean) - offset, else black; alpha kept.",
    doc: "Luminance with GPUImage's weights, compared on the 8-bit scale exactly. `adaptive_threshold` is this against a box \
          blur of the image's own luminance.",
    with: "the reference image, e.g. a blurred copy (same size)",
    params: { offset: float(-1.0, 1.0) = 0.05 => "how far below the reference a pixel may be and still turn white" },
    // 8-bit luminances (as grayscale would store them) against each other, plus offset * 255
    uniform: |f| { offset255: f32 = f.offset * 255.0 },
    wgsl: "let l = floor(dot(c.rgb, LUMA_W) * 255.0 + 0.5);
    let m = floor(dot(t.rgb, LUMA_W) * 255.0 + 0.5);
    let v = select(0.0, 1.0, l + p.offset255 >= m);
    return vec4<f32>(v, v, v, c.a);",
    cpu2: |f, c, t, _| {
        let q = |x: [f32; 4]| (crate::filters::shape::pixel::twin::luma(x) * 255.0 + 0.5).floor();
        let v = if q(c) + f.offset * 255.0 >= q(t) { 1.0 } else { 0.0 };
        [v, v, v, c[3]]
    },
}
