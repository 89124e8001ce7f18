//! Photoshop-style levels per channel. Matches GPUImage's `GPUImageLevelsFilter`.

use crate::filters::shape::pixel::twin;

crate::pixel_filter! {
    /// Input black and white points, gamma, and output range, per channel (R, G, B).
    pub struct Levels;
    name: "levels",
    gpuimage: "GPUImageLevelsFilter",
    summary: "Photoshop-style levels per channel: input range, gamma, output range.",
    doc: "Per channel: x = clamp((c - min) / (max - min), 0, 1); out = mix(min_out, max_out, x^(1/mid)). Values are in [0, 1] \
          (Photoshop's 0-255 divided by 255); mid is Photoshop's gamma (above 1 brightens). max - min is taken as at least \
          1/255. Each parameter is three numbers, R, G, B, e.g. levels(min=[0.1,0.1,0.1], mid=[1.2,1.2,1.2]).",
    params: {
        min: rgb = [0.0, 0.0, 0.0] => "input black point per channel",
        mid: vec3(0.01, 9.99) = [1.0, 1.0, 1.0] => "gamma per channel (Photoshop's middle slider)",
        max: rgb = [1.0, 1.0, 1.0] => "input white point per channel",
        min_out: rgb = [0.0, 0.0, 0.0] => "output black per channel",
        max_out: rgb = [1.0, 1.0, 1.0] => "output white per channel",
    },
    uniform: |f| {
        lo: [f32; 3] = f.min,
        range: [f32; 3] = span(f),
        inv_gamma: [f32; 3] = f.mid.map(|g| 1.0 / g),
        out_lo: [f32; 3] = f.min_out,
        out_hi: [f32; 3] = f.max_out,
    },
    per_channel: true,
    table_by_default: true, // H200 run s9-b1, 4K: per pixel 1.40x copy (four pows a pixel)
    schedules: &["pixel"],
    wgsl: "let x = min(max(c.rgb - p.lo, vec3<f32>(0.0)) / p.range, vec3<f32>(1.0));
    let g = vec3<f32>(spow(x.r, p.inv_gamma.r), spow(x.g, p.inv_gamma.g), spow(x.b, p.inv_gamma.b));
    return vec4<f32>(mix(p.out_lo, p.out_hi, g), c.a);",
    cpu: |f, c, _| {
        let r = span(f);
        let g = |k: usize| {
            let x = ((c[k] - f.min[k]).max(0.0) / r[k]).min(1.0);
            twin::mix(f.min_out[k], f.max_out[k], twin::spow(x, 1.0 / f.mid[k]))
        };
        [g(0), g(1), g(2), c[3]]
    },
}

/// `max - min` per channel, at least one 8-bit step.
fn span(f: &Levels) -> [f32; 3] {
    std::array::from_fn(|k| (f.max[k] - f.min[k]).max(1.0 / 255.0))
}
