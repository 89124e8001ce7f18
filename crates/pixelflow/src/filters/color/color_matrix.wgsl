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

// `m` and `offset` arrive with the intensity mix folded in (ColorMatrix::folded), so
// `intensity` is not read here.
fn color_matrix(c: vec4<f32>, p: ColorMatrixParams) -> vec4<f32> {
    return c * p.m + p.offset;
}
