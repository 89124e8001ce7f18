// Adds a constant to R, G and B. CPU twin: `Brightness::apply` in brightness.rs.
struct BrightnessParams {
    brightness: f32,
    _pad0: f32,
    _pad1: f32,
    _pad2: f32,
}

fn brightness(c: vec4<f32>, p: BrightnessParams) -> vec4<f32> {
    return vec4<f32>(c.rgb + vec3<f32>(p.brightness), c.a);
}
