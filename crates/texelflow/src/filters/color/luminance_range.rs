//! Pulls luminance towards mid-grey. Matches GPUImage's `GPUImageLuminanceRangeFilter`.

crate::pixel_filter! {
    /// Compresses the luminance range towards 0.5 by adding the same offset to R, G and B.
    pub struct LuminanceRange;
    name: "luminance_range",
    gpuimage: "GPUImageLuminanceRangeFilter",
    summary: "Compresses the luminance range towards mid-grey.",
    doc: "rgb + (0.5 - luminance) * range_reduction. The default (0.6) already changes the image, as in GPUImage.",
    params: { range_reduction: float(0.0, 1.0) = 0.6 => "how far luminance is pulled towards 0.5" },
    wgsl: "let l = dot(c.rgb, LUMA_W);
    return vec4<f32>(c.rgb + vec3<f32>((0.5 - l) * p.range_reduction), c.a);",
    cpu: |f, c, _| {
        let d = (0.5 - crate::filters::shape::pixel::twin::luma(c)) * f.range_reduction;
        [c[0] + d, c[1] + d, c[2] + d, c[3]]
    },
}
