//! Colour temperature and tint. Matches GPUImage's `GPUImageWhiteBalanceFilter`.

use crate::filters::shape::pixel::twin;

crate::pixel_filter! {
    /// Warms or cools (temperature, in Kelvin) and shifts green-magenta (tint).
    pub struct WhiteBalance;
    name: "white_balance",
    gpuimage: "GPUImageWhiteBalanceFilter",
    summary: "Colour temperature (Kelvin; 5000 unchanged) and tint (-200 green to 200 magenta).",
    doc: "As GPUImage computes it: the tint shifts the third component of its YIQ transform (whose matrices act transposed, \
          as GLSL's column-major mat3 makes them) clamped to +-0.5226, then an overlay with the warm colour (0.93, 0.54, 0) is \
          mixed in by 0.0004 (T - 5000) below 5000 K and 0.00006 (T - 5000) above (negative cools).",
    params: {
        temperature: float(1000.0, 12000.0) = 5000.0 => "temperature the image is corrected from, in Kelvin: higher warms, lower cools",
        tint: float(-200.0, 200.0) = 0.0 => "-200 is very green, 200 very pink",
    },
    uniform: |f| { warmth: f32 = warmth(f.temperature), tint: f32 = f.tint / 100.0 },
    wgsl: "let to_yiq = mat3x3<f32>(0.299, 0.587, 0.114, 0.596, -0.274, -0.322, 0.212, -0.523, 0.311);
    let to_rgb = mat3x3<f32>(1.0, 0.956, 0.621, 1.0, -0.272, -0.647, 1.0, -1.105, 1.702);
    var yiq = to_yiq * c.rgb;
    yiq.z = clamp(yiq.z + p.tint * 0.5226 * 0.1, -0.5226, 0.5226);
    let rgb = to_rgb * yiq;
    return vec4<f32>(mix(rgb, overlay3(rgb, vec3<f32>(0.93, 0.54, 0.0)), vec3<f32>(p.warmth)), c.a);",
    cpu: |f, c, _| {
        // column-major matrices written out: component k = sum over j of column j's k-th entry times c[j]
        let y = 0.299 * c[0] + 0.596 * c[1] + 0.212 * c[2];
        let i = 0.587 * c[0] - 0.274 * c[1] - 0.523 * c[2];
        let q = (0.114 * c[0] - 0.322 * c[1] + 0.311 * c[2] + f.tint / 100.0 * 0.5226 * 0.1).clamp(-0.5226, 0.5226);
        let rgb = [y + 1.0 * i + 1.0 * q, 0.956 * y - 0.272 * i - 1.105 * q, 0.621 * y - 0.647 * i + 1.702 * q];
        let warm = [0.93, 0.54, 0.0];
        let t = warmth(f.temperature);
        let g = |k: usize| twin::mix(rgb[k], twin::overlay(rgb[k], warm[k]), t);
        [g(0), g(1), g(2), c[3]]
    },
}

/// GPUImage's mapping of Kelvin to the overlay's mix.
fn warmth(t: f32) -> f32 {
    if t < 5000.0 {
        0.0004 * (t - 5000.0)
    } else {
        0.00006 * (t - 5000.0)
    }
}
