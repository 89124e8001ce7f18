// Colour matrix. CPU twin: `ColorMatrix::apply` in color_matrix.rs.
struct ColorMatrixParams {
    // Columns of this matrix are the rows of the user's matrix, so `c * m` = M · c.
    m: mat4x4<f32>,
    offset: vec4<f32>,
    intensity: f32,
    _pad0: f32,
    _pad1: f32,
    _pad2: f32,
}

fn color_matrix(c: vec4<f32>, p: ColorMatrixParams) -> vec4<f32> {
    let t = c * p.m + p.offset;
    return p.intensity * t + (1.0 - p.intensity) * c;
}
