//! Shifts skin hues. Matches GPUImage's `GPUImageSkinToneFilter`.

crate::pixel_filter! {
    /// Moves the hue (or saturation) of colours near a skin hue, weighted by their closeness.
    pub struct SkinTone;
    name: "skin_tone",
    gpuimage: "GPUImageSkinToneFilter",
    summary: "Shifts skin-coloured hues towards pink (negative) or orange/green (positive).",
    doc: "In HSV: weight = exp(-threshold * d^2), d the hue distance to skin_hue over 0.5. upper_skin_tone_color=green shifts \
          the hue by adjust * weight * max_hue_shift; orange raises saturation by adjust * weight * max_saturation_shift for \
          positive adjust. Unlike GPUImage, which writes alpha 1, alpha is kept.",
    params: {
        skin_tone_adjust: float(-1.0, 1.0) = 0.0 => "-1 pink, 0 unchanged, 1 orange or green (suggested within +-0.3)",
        skin_hue: float(0.0, 1.0) = 0.05 => "skin hue, in turns (0.05 is about 18 degrees)",
        skin_hue_threshold: float(0.0, 200.0) = 40.0 => "how fast the weight falls off away from the skin hue",
        max_hue_shift: float(0.0, 1.0) = 0.25 => "largest hue shift, in turns",
        max_saturation_shift: float(0.0, 1.0) = 0.4 => "largest saturation shift (orange)",
        upper_skin_tone_color: choice("green", "orange") = "green" => "what positive adjustments move towards",
    },
    helpers: "fn skin_rgb2hsv(c: vec3<f32>) -> vec3<f32> {
    let k = vec4<f32>(0.0, -1.0 / 3.0, 2.0 / 3.0, -1.0);
    let p = select(vec4<f32>(c.bg, k.wz), vec4<f32>(c.gb, k.xy), c.g >= c.b);
    let q = select(vec4<f32>(p.xyw, c.r), vec4<f32>(c.r, p.yzx), c.r >= p.x);
    let d = q.x - min(q.w, q.y);
    return vec3<f32>(abs(q.z + (q.w - q.y) / (6.0 * d + 1.0e-10)), d / (q.x + 1.0e-10), q.x);
}
fn skin_hsv2rgb(c: vec3<f32>) -> vec3<f32> {
    let p = abs(fract(c.xxx + vec3<f32>(1.0, 2.0 / 3.0, 1.0 / 3.0)) * 6.0 - vec3<f32>(3.0));
    return c.z * mix(vec3<f32>(1.0), clamp(p - vec3<f32>(1.0), vec3<f32>(0.0), vec3<f32>(1.0)), vec3<f32>(c.y));
}",
    wgsl: "var hsv = skin_rgb2hsv(c.rgb);
    var dist = hsv.x - p.skin_hue;
    if (dist > 0.5) { dist -= 1.0; }
    if (dist < -0.5) { dist += 1.0; }
    dist = abs(dist) / 0.5;
    let shift = p.skin_tone_adjust * clamp(exp(-dist * dist * p.skin_hue_threshold), 0.0, 1.0);
    if (p.upper_skin_tone_color == 1u && p.skin_tone_adjust > 0.0) {
        hsv.y += shift * p.max_saturation_shift;
    } else {
        hsv.x += shift * p.max_hue_shift;
    }
    return vec4<f32>(skin_hsv2rgb(hsv), c.a);",
    cpu: |f, c, _| {
        let (r, g, b) = (c[0], c[1], c[2]);
        let p = if g >= b { [g, b, 0.0, -1.0 / 3.0] } else { [b, g, -1.0, 2.0 / 3.0] };
        let q = if r >= p[0] { [r, p[1], p[2], p[0]] } else { [p[0], p[1], p[3], r] };
        let d = q[0] - q[3].min(q[1]);
        let mut hsv = [(q[2] + (q[3] - q[1]) / (6.0 * d + 1e-10)).abs(), d / (q[0] + 1e-10), q[0]];
        let mut dist = hsv[0] - f.skin_hue;
        if dist > 0.5 {
            dist -= 1.0;
        }
        if dist < -0.5 {
            dist += 1.0;
        }
        dist = dist.abs() / 0.5;
        let shift = f.skin_tone_adjust * (-dist * dist * f.skin_hue_threshold).exp().clamp(0.0, 1.0);
        if f.upper_skin_tone_color == 1 && f.skin_tone_adjust > 0.0 {
            hsv[1] += shift * f.max_saturation_shift;
        } else {
            hsv[0] += shift * f.max_hue_shift;
        }
        let ch = |k: f32| {
            let x = hsv[0] + k;
            let p = ((x - x.floor()) * 6.0 - 3.0).abs();
            hsv[2] * (1.0 + ((p - 1.0).clamp(0.0, 1.0) - 1.0) * hsv[1])
        };
        [ch(1.0), ch(2.0 / 3.0), ch(1.0 / 3.0), c[3]]
    },
}
