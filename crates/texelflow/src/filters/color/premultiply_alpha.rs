//! Straight to premultiplied alpha and back: what the graph puts around a filter that averages
//! colours (`registry::PREMULTIPLIED_ALPHA`), so that a transparent pixel's hidden colour does
//! not bleed into its neighbours (libvips and Pillow do the same). Usable on their own too.

crate::pixel_filter! {
    /// Multiplies R, G and B by alpha (straight to premultiplied alpha).
    pub struct PremultiplyAlpha;
    name: "premultiply_alpha",
    gpuimage: "",
    summary: "Multiplies R, G and B by alpha (straight to premultiplied alpha); alpha kept.",
    doc: "The graph puts it (with unpremultiply_alpha after) around the filters that average colours, so \
that the colour under a transparent pixel does not bleed into its neighbours; an opaque image is unchanged.",
    params: {},
    wgsl: "return vec4<f32>(c.rgb * c.a, c.a);",
    cpu: |_f, c, _| [c[0] * c[3], c[1] * c[3], c[2] * c[3], c[3]],
}
