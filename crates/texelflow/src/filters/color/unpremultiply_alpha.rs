//! Premultiplied to straight alpha: the inverse of `premultiply_alpha` (see there).

crate::pixel_filter! {
    /// Divides R, G and B by alpha (premultiplied to straight alpha); fully transparent pixels
    /// become transparent black.
    pub struct UnpremultiplyAlpha;
    name: "unpremultiply_alpha",
    gpuimage: "",
    summary: "Divides R, G and B by alpha (premultiplied to straight alpha); transparent pixels become transparent black.",
    doc: "The graph puts it after the filters that average colours (with premultiply_alpha before); an opaque \
image is unchanged. Colour over alpha is clamped to 1.",
    params: {},
    wgsl: "return select(vec4<f32>(min(c.rgb / max(c.a, 1e-30), vec3<f32>(1.0)), c.a), vec4<f32>(0.0), c.a <= 0.0);",
    cpu: |_f, c, _| if c[3] <= 0.0 { [0.0; 4] } else { [(c[0] / c[3]).min(1.0), (c[1] / c[3]).min(1.0), (c[2] / c[3]).min(1.0), c[3]] },
}
