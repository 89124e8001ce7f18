// Inverts R, G and B; alpha kept. CPU twin: `ColorInvert::apply` in color_invert.rs.
struct ColorInvertParams {
    _pad: vec4<f32>,
}

fn color_invert(c: vec4<f32>, p: ColorInvertParams) -> vec4<f32> {
    return vec4<f32>(vec3<f32>(1.0) - c.rgb, c.a);
}
