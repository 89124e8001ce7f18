//! Radial (zoom) blur. Matches GPUImage's `GPUImageZoomBlurFilter`: nine bilinear samples on
//! the line towards a centre, weighted as the motion blur's.

use super::motion_blur::NINE_TAPS;

crate::remap_filter! {
    /// The weighted sum of nine bilinear samples along the line to `center`, steps of
    /// `blur_size / 100` of the distance.
    pub struct ZoomBlur;
    name: "zoom_blur",
    family: Neighborhood,
    gpuimage: "GPUImageZoomBlurFilter",
    summary: "Blurs outwards from a centre, as if zooming during the exposure.",
    doc: "Nine bilinear samples at uv + k (center - uv) blur_size / 100, k = -4..4, weighted as motion_blur (GPUImage's \
          shader; positions normalised, so the blur grows with the distance from the centre). Replicate edges.",
    params: {
        blur_size: float(0.0, 16.0) = 1.0 => "length of the blur (GPUImage's blurSize): steps of blur_size % of the distance to the centre",
        center: point = [0.5, 0.5] => "centre of the zoom (x, y in [0, 1], from the top left; GPUImage's blurCenter)",
    },
    taps: NINE_TAPS,
    wgsl: "return vec4<f32>(uv, (p.center - uv) * (p.blur_size / 100.0));",
    cpu: |f, uv, _size| {
        let k = f.blur_size / 100.0;
        [uv[0], uv[1], (f.center[0] - uv[0]) * k, (f.center[1] - uv[1]) * k]
    },
}
