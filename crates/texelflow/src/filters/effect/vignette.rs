//! Darkening towards the edges. Matches GPUImage's `GPUImageVignetteFilter`.

use crate::filters::shape::pixel::twin::{mix, smoothstep};

crate::pixel_filter! {
    /// Mixes the image towards a colour with the distance from a centre.
    pub struct Vignette;
    name: "vignette",
    family: Effect,
    gpuimage: "GPUImageVignetteFilter",
    summary: "Vignette: fades the image to a colour (black) towards the edges.",
    doc: "rgb = mix(rgb, vignette_color, smoothstep(vignette_start, vignette_end, d)), d the distance from the centre in \
          normalised coordinates (so the vignette is elliptical on non-square images, as GPUImage's); alpha kept. \
          Defaults are GPUImage's code (start 0.3, end 0.75). vignette_end at or below vignette_start gives a hard edge \
          at vignette_start.",
    params: {
        vignette_center: point = [0.5, 0.5] => "centre (x, y in [0, 1], from the top left)",
        vignette_color: rgb = [0.0, 0.0, 0.0] => "colour faded to",
        vignette_start: float(0.0, 2.0) = 0.3 => "distance where the fade starts",
        vignette_end: float(0.0, 2.0) = 0.75 => "distance where the colour is reached",
    },
    position: true,
    wgsl: "let d = distance(at_uv(at), p.vignette_center);
    let t = smoothstep_safe(p.vignette_start, p.vignette_end, d);
    return vec4<f32>(c.rgb * (1.0 - t) + p.vignette_color * t, c.a);",
    cpu: |f, c, at| {
        let uv = at.uv();
        let (dx, dy) = (uv[0] - f.vignette_center[0], uv[1] - f.vignette_center[1]);
        let t = smoothstep(f.vignette_start, f.vignette_end, (dx * dx + dy * dy).sqrt());
        [mix(c[0], f.vignette_color[0], t), mix(c[1], f.vignette_color[1], t), mix(c[2], f.vignette_color[2], t), c[3]]
    },
}
