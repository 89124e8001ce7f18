// Raises R, G and B to a power. CPU twin: `Gamma::apply` in gamma.rs.
struct GammaParams {
    gamma: f32,
    _pad0: f32,
    _pad1: f32,
    _pad2: f32,
}

fn gamma(c: vec4<f32>, p: GammaParams) -> vec4<f32> {
    return vec4<f32>(safe_pow(c.r, p.gamma), safe_pow(c.g, p.gamma), safe_pow(c.b, p.gamma), c.a);
}

// pow() is undefined at 0 in WGSL; pin it to the CPU twin: 0^0 = 1, 0^g = 0.
fn safe_pow(x: f32, g: f32) -> f32 {
    if (x <= 0.0) {
        return select(0.0, 1.0, g == 0.0);
    }
    return pow(x, g);
}
