//! Pinch distortion. Matches GPUImage's `GPUImagePinchDistortionFilter`.

crate::remap_filter! {
    /// Pulls the image towards a centre (scale > 0) or pushes it out (scale < 0) inside a circle.
    pub struct PinchDistortion;
    name: "pinch_distortion",
    gpuimage: "GPUImagePinchDistortionFilter",
    summary: "Pinches the image towards a centre (or pushes it out) inside a circle (normalised coordinates).",
    doc: "Inside the circle, the offset from the centre is multiplied by 1 + scale * (0.5 - d) / 0.5, as GPUImage (whose \
          falloff is about 0.5 whatever the radius, so the map jumps at the circle's edge unless radius is 0.5). d and radius \
          are in fractions of the width, y scaled by height / width about the centre (GPUImage scales about 0.5, which moves \
          an off-centre circle on a non-square image; equal at the default centre). Whether a pixel is inside is decided on \
          its exact pixel centre, so GPU and CPU agree at the edge. GPUImage's init sets scale 0.5 (its header says 1.0). \
          Bilinear, replicate edges.",
    params: {
        center: point = [0.5, 0.5] => "centre (x, y in [0, 1], from the top left)",
        radius: float(0.0, 2.0) = 1.0 => "radius of the circle, in fractions of the width",
        scale: float(-2.0, 2.0) = 0.5 => "strength: positive pinches inwards, negative pushes out",
    },
    // in pixels from the pixel's exact centre, so the inside test has no division to round
    wgsl: "let px = floor(uv * size) + 0.5 - p.center * size;
    let r = p.radius * size.x;
    let d2 = dot(px, px);
    if (!(d2 < r * r)) { return uv; }
    let k = 1.0 + (0.5 - sqrt(d2) / size.x) / 0.5 * p.scale;
    return (uv - p.center) * k + p.center;",
    cpu: |f, uv, size| {
        let px = [(uv[0] * size[0]).floor() + 0.5 - f.center[0] * size[0], (uv[1] * size[1]).floor() + 0.5 - f.center[1] * size[1]];
        let r = f.radius * size[0];
        let d2 = px[0] * px[0] + px[1] * px[1];
        if d2.partial_cmp(&(r * r)) != Some(std::cmp::Ordering::Less) {
            return uv;
        }
        let k = 1.0 + (0.5 - d2.sqrt() / size[0]) / 0.5 * f.scale;
        [(uv[0] - f.center[0]) * k + f.center[0], (uv[1] - f.center[1]) * k + f.center[1]]
    },
}
