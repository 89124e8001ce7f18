//! Raises R, G and B to a power. Matches GPUImage's `GPUImageGammaFilter`.

crate::pixel_filter! {
    /// Raises R, G and B to a power.
    pub struct Gamma;
    name: "gamma",
    gpuimage: "GPUImageGammaFilter",
    summary: "Raises R, G and B to a power.",
    doc: "pow(c, gamma) on R, G and B (0^0 = 1), alpha unchanged. GPU: per channel of every pixel (`pixel`), or, as schedule \
          `table`, a 256-entry table of the same expression built per workgroup in workgroup memory and looked up per channel \
          (bit-identical).",
    params: { gamma: float(0.0, 3.0) = 1.0 => "exponent applied to R, G, B" },
    per_channel: true,
    table_by_default: true, // H200 run 15, 4K: table 1.10x copy, per-pixel pow 1.30x
    schedules: &["pixel"],
    helpers: "// pow() is undefined at 0 in WGSL; pinned to the twin: 0^0 = 1, 0^g = 0.
fn gamma_pow(x: f32, g: f32) -> f32 {
    if (x <= 0.0) { return select(0.0, 1.0, g == 0.0); }
    return pow(x, g);
}",
    wgsl: "return vec4<f32>(gamma_pow(c.r, p.gamma), gamma_pow(c.g, p.gamma), gamma_pow(c.b, p.gamma), c.a);",
    cpu: |f, c, _| {
        let g = |v: f32| if v <= 0.0 { if f.gamma == 0.0 { 1.0 } else { 0.0 } } else { v.powf(f.gamma) };
        [g(c[0]), g(c[1]), g(c[2]), c[3]]
    },
}
