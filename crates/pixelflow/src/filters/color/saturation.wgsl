// Mixes each pixel with its luminance (GPUImage weights). CPU twin: `Saturation::apply` in saturation.rs.
struct SaturationParams {
    saturation: f32,
    _pad0: f32,
    _pad1: f32,
    _pad2: f32,
}

fn saturation(c: vec4<f32>, p: SaturationParams) -> vec4<f32> {
    let l = dot(c.rgb, LUMA_W);
    return vec4<f32>(mix(vec3<f32>(l), c.rgb, p.saturation), c.a);
}
