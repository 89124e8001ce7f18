// Replaces R, G, B with luminance (GPUImage weights 0.2125, 0.7154, 0.0721); RGBA out. CPU twin: `Grayscale::apply` in grayscale.rs.
struct GrayscaleParams {
    _pad: vec4<f32>,
}

fn grayscale(c: vec4<f32>, p: GrayscaleParams) -> vec4<f32> {
    let l = dot(c.rgb, LUMA_W);
    return vec4<f32>(l, l, l, c.a);
}
