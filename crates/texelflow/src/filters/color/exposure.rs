//! Multiplies R, G and B by 2^exposure. Matches GPUImage's `GPUImageExposureFilter`.

crate::pixel_filter! {
    /// Multiplies R, G and B by 2^exposure.
    pub struct Exposure;
    name: "exposure",
    gpuimage: "GPUImageExposureFilter",
    summary: "Multiplies R, G and B by 2^exposure.",
    params: { exposure: float(-10.0, 10.0) = 0.0 => "exposure in stops: R, G, B are multiplied by 2^exposure" },
    // the factor once per dispatch, not a pow per pixel
    uniform: |f| { factor: f32 = f.exposure.exp2() },
    wgsl: "return vec4<f32>(c.rgb * p.factor, c.a);",
    cpu: |f, c, _| {
        let k = f.exposure.exp2();
        [c[0] * k, c[1] * k, c[2] * k, c[3]]
    },
}
