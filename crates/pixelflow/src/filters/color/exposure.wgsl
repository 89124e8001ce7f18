// Multiplies R, G and B by 2^exposure. CPU twin: `Exposure::apply` in exposure.rs.
struct ExposureParams {
    exposure: f32,
    _pad0: f32,
    _pad1: f32,
    _pad2: f32,
}

fn exposure(c: vec4<f32>, p: ExposureParams) -> vec4<f32> {
    // p.exposure holds the factor 2^exposure, computed once on the CPU.
    return vec4<f32>(c.rgb * p.exposure, c.a);
}
