//! Blends (GPUImage's "Blending modes"): two RGBA8 images of the same size, combined per
//! pixel, one `pixel_filter!` declaration with a second input per file. The second image
//! arrives as the `with` input (`alpha_blend(with=top.png)`); blends fuse with neighbouring
//! per-pixel filters like any per-pixel filter. In every file `c` is the first image's pixel
//! (GPUImage's `base`, the backdrop) and `t` the second's (GPUImage's `overlay`, the source).

/// WGSL of the non-separable blends (GPUImage's `lum`, `clipcolor`, `setlum`, `sat`, `setsat`,
/// after the W3C compositing spec), its functions prefixed by the filter name so that two of
/// these blends can share one fused kernel.
macro_rules! nonseparable_wgsl {
    ($p:literal) => {
        concat!(
            "fn ", $p, "_lum(c: vec3<f32>) -> f32 { return dot(c, vec3<f32>(0.3, 0.59, 0.11)); }
fn ", $p, "_clip(c: vec3<f32>) -> vec3<f32> {
    let l = ", $p, "_lum(c);
    let n = min(min(c.r, c.g), c.b);
    let x = max(max(c.r, c.g), c.b);
    // the spec's two scalings towards l, one after the other, equal one scaling by the smaller factor
    let f = min(select(1.0, l / (l - n), n < 0.0), select(1.0, (1.0 - l) / (x - l), x > 1.0));
    return vec3<f32>(l) + (c - vec3<f32>(l)) * f;
}
fn ", $p, "_setlum(c: vec3<f32>, l: f32) -> vec3<f32> { return ", $p, "_clip(c + vec3<f32>(l - ", $p, "_lum(c))); }
fn ", $p, "_sat(c: vec3<f32>) -> f32 { return max(max(c.r, c.g), c.b) - min(min(c.r, c.g), c.b); }
fn ", $p, "_setsat(c: vec3<f32>, s: f32) -> vec3<f32> {
    let hi = max(max(c.r, c.g), c.b);
    let lo = min(min(c.r, c.g), c.b);
    // max -> s (within rounding), min -> 0, the middle one in proportion, without picking channels
    return select(vec3<f32>(0.0), (c - vec3<f32>(lo)) * (s / (hi - lo)), hi > lo);
}"
        )
    };
}

/// WGSL of the W3C general blending formula for the MetalPetal blends: `B` applied, then
/// source-over with straight alpha (`c` the backdrop, `t` the source).
macro_rules! w3c_composite_wgsl {
    ($p:literal) => {
        concat!(
            "fn ",
            $p,
            "_composite(c: vec4<f32>, t: vec4<f32>, b: vec3<f32>) -> vec4<f32> {
    let mixed = (1.0 - c.a) * t.rgb + c.a * b;
    let a = t.a + c.a * (1.0 - t.a);
    let co = t.a * mixed + (1.0 - t.a) * c.a * c.rgb;
    return vec4<f32>(select(vec3<f32>(0.0), co * (1.0 / a), a > 0.0), a);
}"
        )
    };
}

/// The CPU twins' shared pieces.
pub(crate) mod twin {
    /// The W3C non-separable blends' luminance (GPUImage's `lum`).
    pub fn lum(c: [f32; 3]) -> f32 {
        0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2]
    }
    /// Brings a colour whose luminance is in [0, 1] back into the cube, keeping the luminance.
    pub fn clip_color(c: [f32; 3]) -> [f32; 3] {
        let l = lum(c);
        let n = c[0].min(c[1]).min(c[2]);
        let x = c[0].max(c[1]).max(c[2]);
        let mut o = c;
        // the spec's two steps in sequence (the WGSL folds them into one factor)
        if n < 0.0 {
            let f = l / (l - n);
            o = o.map(|v| l + (v - l) * f);
        }
        if x > 1.0 {
            let f = (1.0 - l) / (x - l);
            o = o.map(|v| l + (v - l) * f);
        }
        o
    }
    pub fn set_lum(c: [f32; 3], l: f32) -> [f32; 3] {
        let d = l - lum(c);
        clip_color(c.map(|v| v + d))
    }
    pub fn sat(c: [f32; 3]) -> f32 {
        c[0].max(c[1]).max(c[2]) - c[0].min(c[1]).min(c[2])
    }
    /// W3C SetSat: the largest channel becomes `s`, the smallest 0, the middle one in proportion.
    pub fn set_sat(c: [f32; 3], s: f32) -> [f32; 3] {
        let hi = c[0].max(c[1]).max(c[2]);
        let lo = c[0].min(c[1]).min(c[2]);
        if hi <= lo {
            return [0.0; 3];
        }
        let f = s / (hi - lo);
        c.map(|v| {
            if v == hi {
                s
            } else if v == lo {
                0.0
            } else {
                (v - lo) * f
            }
        })
    }
    /// The W3C general formula: the blended colour `b` where both are opaque, each image's own
    /// colour where the other is transparent, straight alpha out (source-over coverage).
    pub fn composite(c: [f32; 4], t: [f32; 4], b: [f32; 3]) -> [f32; 4] {
        let a = t[3] + c[3] * (1.0 - t[3]);
        let inv = 1.0 / a;
        let ch = |k: usize| {
            let mixed = (1.0 - c[3]) * t[k] + c[3] * b[k];
            let co = t[3] * mixed + (1.0 - t[3]) * c[3] * c[k];
            if a > 0.0 {
                co * inv
            } else {
                0.0
            }
        };
        [ch(0), ch(1), ch(2), a]
    }
    /// A colour's weight for the whole-colour comparisons (lighter/darker colour) in integer
    /// units: 30 R + 59 G + 11 B of the 8-bit samples, exact on both sides, so that equal
    /// weights of different colours (which occur) are decided the same way by GPU and CPU.
    pub fn lum_units(c: [f32; 4]) -> f32 {
        30.0 * (c[0] * 255.0).round()
            + 59.0 * (c[1] * 255.0).round()
            + 11.0 * (c[2] * 255.0).round()
    }
}

include!(concat!(env!("OUT_DIR"), "/filters_blend.rs"));
