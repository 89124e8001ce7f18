//! Directional (motion) blur. Matches GPUImage's `GPUImageMotionBlurFilter`: nine bilinear
//! samples along a line, weighted 0.05 … 0.18 … 0.05.

/// GPUImage's nine samples: the multiple of the step and its weight (they sum to 1).
pub(crate) const NINE_TAPS: [[f32; 2]; 9] = [
    [0.0, 0.18],
    [-1.0, 0.15],
    [-2.0, 0.12],
    [-3.0, 0.09],
    [-4.0, 0.05],
    [1.0, 0.15],
    [2.0, 0.12],
    [3.0, 0.09],
    [4.0, 0.05],
];

crate::remap_filter! {
    /// The weighted sum of nine bilinear samples `blur_size` pixels apart along `angle`.
    pub struct MotionBlur;
    name: "motion_blur",
    family: Neighborhood,
    gpuimage: "GPUImageMotionBlurFilter",
    summary: "Blurs along one direction (camera or subject motion): nine samples along a line.",
    doc: "Nine bilinear samples at -4..4 steps of blur_size pixels in direction angle (degrees, 0 = along x, 90 = along y \
          downwards), weighted 0.05, 0.09, 0.12, 0.15, 0.18, 0.15, 0.12, 0.09, 0.05 as GPUImage; the blur spans 8 blur_size \
          pixels. GPUImage scales its step by height / width; here a step is blur_size pixels whatever the image's shape. \
          Replicate edges.",
    params: {
        blur_size: float(0.0, 64.0) = 2.5 => "pixels between samples (GPUImage's blurSize); the blur spans 8 times this",
        angle: float(-360.0, 360.0) = 0.0 => "direction in degrees (GPUImage's blurAngle), clockwise from +x on screen",
    },
    taps: NINE_TAPS,
    uniform: |f| { step: [f32; 2] = { let a = f.angle.to_radians(); [f.blur_size * a.cos(), f.blur_size * a.sin()] } },
    wgsl: "return vec4<f32>(uv, p.step / size);",
    cpu: |f, uv, size| {
        let a = f.angle.to_radians();
        [uv[0], uv[1], f.blur_size * a.cos() / size[0], f.blur_size * a.sin() / size[1]]
    },
}
