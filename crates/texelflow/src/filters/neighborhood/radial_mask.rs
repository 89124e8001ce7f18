//! A grey mask of the distance from a point (the mix weights of GPUImage's
//! `GPUImageGaussianSelectiveBlurFilter`), for `blend_with_mask`.

crate::pixel_filter! {
    /// Grey from 0 inside a circle to 1 outside it, with a smooth edge; the input's colours are ignored.
    pub struct RadialMask;
    name: "radial_mask",
    family: Neighborhood,
    gpuimage: "",
    summary: "A grey mask from a circle: 0 inside, rising smoothly to 1 across its edge (colours ignored).",
    doc: "v = smoothstep(radius - edge, radius, distance), the distance from `center` in texture units with the \
          vertical axis scaled by height / width (GPUImage's aspect-corrected distance); `invert` gives 1 - v. Output \
          (v, v, v, 1): the mask of `gaussian_selective_blur` and `gaussian_blur_position`, or any `blend_with_mask`.",
    params: {
        center: point = [0.5, 0.5] => "centre (x, y in [0, 1], from the top left)",
        radius: float(0.0, 2.0) = 0.1875 => "radius of the circle, in widths",
        edge: float(0.001, 2.0) = 0.09375 => "width of the smooth edge inside the radius",
        invert: bool = false => "1 inside, 0 outside",
    },
    position: true,
    wgsl: "let uv = at_uv(at);
    let aspect = f32(at.size.y) / f32(at.size.x);
    let q = vec2<f32>(uv.x, uv.y * aspect + 0.5 - 0.5 * aspect);
    let d = distance(p.center, q);
    let s = smoothstep_safe(p.radius - p.edge, p.radius, d);
    let v = select(s, 1.0 - s, p.invert != 0u);
    return vec4<f32>(v, v, v, 1.0);",
    cpu: |f, _c, at| {
        let [u, v] = at.uv();
        let aspect = at.height as f32 / at.width as f32;
        let q = [u, v * aspect + 0.5 - 0.5 * aspect];
        let d = ((f.center[0] - q[0]).powi(2) + (f.center[1] - q[1]).powi(2)).sqrt();
        let s = crate::filters::shape::pixel::twin::smoothstep(f.radius - f.edge, f.radius, d);
        let v = if f.invert { 1.0 - s } else { s };
        [v, v, v, 1.0]
    },
}
