//! Colour quantisation. Matches GPUImage's `GPUImagePosterizeFilter`.

crate::pixel_filter! {
    /// Rounds R, G and B to `color_levels` steps.
    pub struct Posterize;
    name: "posterize",
    family: Effect,
    gpuimage: "GPUImagePosterizeFilter",
    summary: "Posterizes: rounds R, G and B to a number of levels.",
    doc: "Each of R, G, B becomes round(v * color_levels) / color_levels (GPUImage's floor(v * levels + 0.5) / levels; \
          exact halves cannot occur on 8- or 16-bit samples). Unlike GPUImage, alpha is kept (GPUImage posterizes it too).",
    params: { color_levels: uint(1, 256) = 10 => "levels per channel (GPUImage's colorLevels)" },
    uniform: |f| { levels: f32 = f.color_levels as f32 },
    per_channel: true,
    wgsl: "return vec4<f32>(round(c.rgb * p.levels) / p.levels, c.a);",
    cpu: |f, c, _| {
        let l = f.color_levels as f32;
        let q = |v: f32| (v * l).round_ties_even() / l;
        [q(c[0]), q(c[1]), q(c[2]), c[3]]
    },
}
