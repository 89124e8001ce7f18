// Scales R, G and B around mid-grey. CPU twin: `Contrast::apply` in contrast.rs.
struct ContrastParams {
    contrast: f32,
    _pad0: f32,
    _pad1: f32,
    _pad2: f32,
}

fn contrast(c: vec4<f32>, p: ContrastParams) -> vec4<f32> {
    return vec4<f32>((c.rgb - vec3<f32>(0.5)) * p.contrast + vec3<f32>(0.5), c.a);
}
