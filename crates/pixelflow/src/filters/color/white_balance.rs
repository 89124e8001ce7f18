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
    // The round trip to YIQ and back is linear but for the clamp of the tinted component, so
    // the GPU applies (to_rgb to_yiq) c plus to_rgb's third column times what the clamp and
    // tint changed, the product folded once here (H200 s9-b1: the two matrices took 1.35x copy).
    uniform: |f| {
        r: [f32; 3] = folded_rows()[0],
        g: [f32; 3] = folded_rows()[1],
        b: [f32; 3] = folded_rows()[2],
        warmth: f32 = warmth(f.temperature),
        shift: f32 = f.tint / 100.0 * 0.5226 * 0.1,
    },
    wgsl: "let q = dot(c.rgb, vec3<f32>(0.114, -0.322, 0.311));
    let dq = clamp(q + p.shift, -0.5226, 0.5226) - q;
    let rgb = vec3<f32>(dot(c.rgb, p.r), dot(c.rgb, p.g), dot(c.rgb, p.b)) + dq * vec3<f32>(1.0, -1.105, 1.702);
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

/// Rows of to_rgb * to_yiq as GPUImage applies them (column-major mat3s), in f64.
fn folded_rows() -> [[f32; 3]; 3] {
    // row k of each: the k-th entries of the columns GLSL's mat3 constructor takes
    let to_yiq = [[0.299, 0.596, 0.212], [0.587, -0.274, -0.523], [0.114, -0.322, 0.311]];
    let to_rgb = [[1.0, 1.0, 1.0], [0.956, -0.272, -1.105], [0.621, -0.647, 1.702]];
    std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| to_rgb[i][k] * to_yiq[k][j]).sum::<f64>() as f32))
}
