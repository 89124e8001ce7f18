//! Keys a colour to transparency. Matches GPUImage's `GPUImageChromaKeyFilter`.

use crate::filters::shape::pixel::twin::smoothstep;

crate::pixel_filter! {
    /// Alpha falls to 0 where a pixel's chroma (Cr, Cb) is close to the key colour's.
    pub struct ChromaKey;
    name: "chroma_key",
    gpuimage: "GPUImageChromaKeyFilter",
    summary: "Makes pixels near a key colour transparent (distance in the CrCb plane).",
    doc: "alpha *= smoothstep(threshold, threshold + smoothing, |CrCb(pixel) - CrCb(color)|), with GPUImage's BT.601 \
          weights; R, G, B are kept (straight alpha). smoothing 0 is a hard edge.",
    params: {
        color: rgb = [0.0, 1.0, 0.0] => "key colour (R, G, B in [0, 1]), green by default",
        threshold: float(0.0, 1.0) = 0.4 => "chroma distance within which pixels become fully transparent",
        smoothing: float(0.0, 1.0) = 0.1 => "width of the soft edge beyond the threshold",
    },
    uniform: |f| { key: [f32; 2] = crcb(f.color), threshold: f32 = f.threshold, smoothing: f32 = f.smoothing },
    wgsl: "let y = 0.2989 * c.r + 0.5866 * c.g + 0.1145 * c.b;
    let d = distance(vec2<f32>(0.7132 * (c.r - y), 0.5647 * (c.b - y)), p.key);
    return vec4<f32>(c.rgb, c.a * smoothstep_safe(p.threshold, p.threshold + p.smoothing, d));",
    cpu: |f, c, _| {
        let key = crcb(f.color);
        let y = 0.2989 * c[0] + 0.5866 * c[1] + 0.1145 * c[2];
        let (cr, cb) = (0.7132 * (c[0] - y) - key[0], 0.5647 * (c[2] - y) - key[1]);
        [c[0], c[1], c[2], c[3] * smoothstep(f.threshold, f.threshold + f.smoothing, (cr * cr + cb * cb).sqrt())]
    },
}

/// The key colour's (Cr, Cb), once per dispatch.
pub(crate) fn crcb(k: [f32; 3]) -> [f32; 2] {
    let y = 0.2989 * k[0] + 0.5866 * k[1] + 0.1145 * k[2];
    [0.7132 * (k[0] - y), 0.5647 * (k[2] - y)]
}
