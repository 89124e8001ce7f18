//! A halftone dot screen. Matches Core Image's `CIDotScreen` in its parameters (centre, angle,
//! width, sharpness); the pattern is our own, as Core Image does not publish its kernel.

use crate::filters::shape::pixel::twin::luma;

/// Half the width of the threshold ramp, in pattern units, at a sharpness.
fn half_edge(sharpness: f32) -> f32 {
    0.5 * (1.0 - sharpness) + 0.01
}

crate::pixel_filter! {
    /// Black dots on white on a rotated square grid, each as large as its pixels are dark.
    pub struct DotScreen;
    name: "dot_screen",
    family: Effect,
    gpuimage: "",
    summary: "Dot screen (Core Image's CIDotScreen): grey dots on a rotated grid, larger where the image is darker.",
    doc: "Positions relative to the centre (pixels) are turned by angle and divided by width; with (u, v) their fractional \
          parts the screen s = 0.5 + 0.25 (cos 2 pi u + cos 2 pi v) is 1 at the dot centres and 0 between them, and the \
          output grey is clamp(0.5 + (luminance - s) / (2 e), 0, 1), e = 0.5 (1 - sharpness) + 0.01 (a hard edge at \
          sharpness 1, soft below); luminance of the pixel itself, GPUImage's weights; alpha kept. Core Image's \
          parameters and defaults (centre given normalised here); its kernel is not published, so its exact pattern \
          and edge differ.",
    params: {
        center: point = [0.5, 0.5] => "centre of the screen (x, y in [0, 1], from the top left)",
        angle: float(-360.0, 360.0) = 0.0 => "screen angle in degrees",
        width: float(1.0, 1024.0) = 6.0 => "distance between dots in pixels",
        sharpness: float(0.0, 1.0) = 0.7 => "edge sharpness, 0 soft to 1 hard",
    },
    uniform: |f| {
        center: [f32; 2] = f.center,
        rot: [f32; 2] = { let a = f.angle.to_radians(); [a.cos() / f.width, a.sin() / f.width] },
        inv_edge: f32 = 1.0 / (2.0 * half_edge(f.sharpness)),
    },
    position: true,
    wgsl: "let size = vec2<f32>(at.size);
    let q = vec2<f32>(at.xy) + 0.5 - p.center * size;
    let u = fract(q.x * p.rot.x + q.y * p.rot.y);
    let v = fract(q.y * p.rot.x - q.x * p.rot.y);
    let s = 0.5 + 0.25 * (cos(6.2831855 * u) + cos(6.2831855 * v));
    let k = clamp(0.5 + (dot(c.rgb, LUMA_W) - s) * p.inv_edge, 0.0, 1.0);
    return vec4<f32>(k, k, k, c.a);",
    cpu: |f, c, at| {
        let a = f.angle.to_radians();
        let rot = [a.cos() / f.width, a.sin() / f.width];
        let q = [at.x as f32 + 0.5 - f.center[0] * at.width as f32, at.y as f32 + 0.5 - f.center[1] * at.height as f32];
        let fract = |x: f32| x - x.floor();
        let u = fract(q[0] * rot[0] + q[1] * rot[1]);
        let v = fract(q[1] * rot[0] - q[0] * rot[1]);
        let s = 0.5 + 0.25 * ((6.2831855 * u).cos() + (6.2831855 * v).cos());
        let k = (0.5 + (luma(c) - s) * (1.0 / (2.0 * half_edge(f.sharpness)))).clamp(0.0, 1.0);
        [k, k, k, c[3]]
    },
}
