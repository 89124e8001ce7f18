//! A grey mask of a horizontal band (the mix weights of GPUImage's `GPUImageTiltShiftFilter`),
//! for `blend_with_mask`.

crate::pixel_filter! {
    /// Grey 0 within a horizontal band, rising smoothly to 1 above and below it; colours ignored.
    pub struct BandMask;
    name: "band_mask",
    family: Neighborhood,
    gpuimage: "",
    summary: "A grey mask from a horizontal band: 0 inside, rising smoothly to 1 above and below (colours ignored).",
    doc: "v = 1 - smoothstep(top - falloff, top, y) + smoothstep(bottom, bottom + falloff, y), y the pixel centre's \
          height in [0, 1] from the top (GPUImage's tilt-shift weights); output (v, v, v, 1), the mask of `tilt_shift`.",
    params: {
        top: float(0.0, 1.0) = 0.4 => "top of the band (GPUImage's topFocusLevel)",
        bottom: float(0.0, 1.0) = 0.6 => "bottom of the band (GPUImage's bottomFocusLevel)",
        falloff: float(0.001, 1.0) = 0.2 => "height over which the mask rises outside the band (GPUImage's focusFallOffRate)",
    },
    position: true,
    wgsl: "let y = at_uv(at).y;
    let v = 1.0 - smoothstep_safe(p.top - p.falloff, p.top, y) + smoothstep_safe(p.bottom, p.bottom + p.falloff, y);
    return vec4<f32>(v, v, v, 1.0);",
    cpu: |f, _c, at| {
        let y = at.uv()[1];
        let s = crate::filters::shape::pixel::twin::smoothstep;
        let v = 1.0 - s(f.top - f.falloff, f.top, y) + s(f.bottom, f.bottom + f.falloff, y);
        [v, v, v, 1.0]
    },
}
